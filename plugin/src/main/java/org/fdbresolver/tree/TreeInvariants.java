package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tree's structural invariants, checked from scratch (tests and assertions; never the hot path):
 * keys strictly increasing across the leaf chain, separators routing correctly, max versions bounding
 * their subtrees, links consistent, every key encoded as the layout says, and the byte accounting equal
 * to a recount.
 */
final class TreeInvariants {
    private final NodeStore store;
    private final KeyLayout layout;
    private final VersionWindow versions;
    private byte[] scratch = new byte[KeyLayout.INITIAL_KEY_BUFFER];

    TreeInvariants(NodeStore store, KeyLayout layout, VersionWindow versions) {
        this.store = store;
        this.layout = layout;
        this.versions = versions;
    }

    /** Throws {@link AssertionError} naming the first broken invariant. */
    void check() {
        NodeStore s = store;
        int[] counts = {0, 0};
        checkSubtree(s.root, s.height, null, null, Integer.MAX_VALUE, counts);
        if (counts[0] != s.leavesInUse || counts[1] != s.innersInUse) {
            throw new AssertionError("node count " + counts[0] + "/" + counts[1] + " != accounted " + s.leavesInUse + "/" + s.innersInUse);
        }
        // The leaf chain visits the same leaves in key order.
        int count = 0;
        int prev = NIL;
        byte[] last = null;
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            if (s.leafPrev(leaf) != prev) {
                throw new AssertionError("prev link of leaf " + leaf + " is " + s.leafPrev(leaf) + ", expected " + prev);
            }
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            for (int j = 0; j < s.leafCount(leaf); j++) {
                byte[] k = leafKey(leaf, j);
                if (last != null && Arrays.compareUnsigned(last, k) >= 0) {
                    throw new AssertionError("leaf keys not strictly increasing at leaf " + leaf + " slot " + j);
                }
                last = k;
            }
            prev = leaf;
            count++;
        }
        if (count != s.leavesInUse) {
            throw new AssertionError("leaf chain has " + count + " leaves, " + s.leavesInUse + " in use");
        }
        // Arena: references recounted. (Chunks shared by a point pair count once.)
        long recount = recountKeyBytes();
        if (recount != s.arena.bytesInUse()) {
            throw new AssertionError("arena bytes in use " + s.arena.bytesInUse() + " != recount " + recount);
        }
    }

    private long recountKeyBytes() {
        NodeStore s = store;
        Map<Integer, Integer> refs = new HashMap<>();
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            for (int j = 0; j < s.leafCount(leaf); j++) {
                int r = NodeStore.ref(s.lVerRef[c][b + j]);
                if (r >= 0) {
                    refs.merge(r >>> 1, 1, Integer::sum);
                }
            }
            if (s.leafSkip(leaf) != 0) {
                refs.merge(s.leafAnchor(leaf), 1, Integer::sum); // a local leaf's own reference on its anchor
            }
        }
        countInnerRefs(s.root, s.height, refs);
        long bytes = 0;
        for (var e : refs.entrySet()) {
            if (s.arena.refs(e.getKey()) != e.getValue()) {
                throw new AssertionError("chunk " + e.getKey() + " has " + s.arena.refs(e.getKey()) + " refs, found " + e.getValue());
            }
            bytes += KeyArena.chunkBytes(s.arena.length(e.getKey()));
        }
        return bytes;
    }

    private void countInnerRefs(int h, int level, Map<Integer, Integer> refs) {
        if (level == 0) {
            return;
        }
        NodeStore s = store;
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * s.innerCap;
        for (int i = 0; i < s.innerCount(h); i++) {
            int r = s.iRef[c][b + i];
            if (i == 0 && r != KeyRefs.EMPTY) {
                throw new AssertionError("inner " + h + " slot 0 holds a separator");
            }
            if (r >= 0) {
                refs.merge(r >>> 1, 1, Integer::sum);
            }
            countInnerRefs(s.iChild[c][b + i], level - 1, refs);
        }
    }

    /** The key at {@code slot} of {@code leaf}, checked against the leaf's encoding. */
    private byte[] leafKey(int leaf, int slot) {
        NodeStore s = store;
        int at = (leaf & CHUNK_MASK) * s.leafCap + slot;
        long prefix = s.lKey[leaf >>> CHUNK_SHIFT][at];
        int ref = NodeStore.ref(s.lVerRef[leaf >>> CHUNK_SHIFT][at]);
        if (!KeyRefs.isSuffix(ref)) {
            return keyOf(prefix, ref, layout.leaf.skipOf(leaf));
        }
        // A suffix key: its leaf's prefix and its long (LeafPrefixes.violation checks it fits one).
        scratch = layout.fit(scratch, ref);
        byte[] k = Arrays.copyOf(scratch, layout.leaf.materialize(leaf, slot, scratch));
        if (!layout.encodedCorrectly(k, prefix, layout.leaf.skipOf(leaf))) {
            throw new AssertionError("suffix key " + Arrays.toString(k) + " of leaf " + leaf + " does not match its long");
        }
        return k;
    }

    private byte[] keyOf(long prefix, int ref) {
        return keyOf(prefix, ref, layout.skip());
    }

    private byte[] keyOf(long prefix, int ref, int nodeSkip) {
        scratch = layout.fit(scratch, ref);
        int len = layout.materialize(prefix, ref, scratch);
        byte[] k = Arrays.copyOf(scratch, len);
        if (!layout.encodedCorrectly(k, prefix, nodeSkip)) {
            throw new AssertionError("key " + Arrays.toString(k) + " lacks the shared prefix of " + layout.skip()
                    + " bytes or its inline long (after " + nodeSkip + " bytes) does not match its bytes");
        }
        // One encoding per key: inline exactly when it fits, except k sharing the chunk of k\0.
        if (ref < 0 ? !KeyRefs.fitsInline(k, 0, len) : (ref & 1) == 0 && KeyRefs.fitsInline(k, 0, len)) {
            throw new AssertionError("key of " + len + " bytes " + (ref < 0 ? "inline" : "in a key block"));
        }
        return k;
    }

    /** Checks the subtree at {@code h}: keys within [lo, hi) (null = unbounded), versions <= maxBound. */
    private void checkSubtree(int h, int level, byte[] lo, byte[] hi, int maxBound, int[] counts) {
        NodeStore s = store;
        int c = h >>> CHUNK_SHIFT;
        if (level == 0) {
            counts[0]++;
            int b = (h & CHUNK_MASK) * s.leafCap;
            int lm = s.leafMax(h);
            if (lm > maxBound) {
                throw new AssertionError("leaf " + h + " max " + lm + " above its parent's bound " + maxBound);
            }
            String encoding = layout.leaf.violation(h);
            if (encoding != null) {
                throw new AssertionError(encoding);
            }
            for (int j = 0, n = s.leafCount(h); j < n; j++) {
                byte[] k = leafKey(h, j);
                if (lo != null && Arrays.compareUnsigned(k, lo) < 0 || hi != null && Arrays.compareUnsigned(k, hi) >= 0) {
                    throw new AssertionError("leaf " + h + " key outside its separators");
                }
                if (NodeStore.ver(s.lVerRef[c][b + j]) > lm) {
                    throw new AssertionError("leaf " + h + " entry version above the leaf max");
                }
            }
            return;
        }
        counts[1]++;
        int b = (h & CHUNK_MASK) * s.innerCap;
        int n = s.innerCount(h);
        if (n == 0 || (h == s.root && n < 2)) {
            throw new AssertionError("inner " + h + " has " + n + " children");
        }
        String encoding = layout.inner.violation(h);
        if (encoding != null) {
            throw new AssertionError(encoding);
        }
        for (int i = 0; i < n; i++) {
            // A node with a prefix of its own is checked above; its keys here in the tree's encoding.
            byte[] clo = i == 0 ? lo : keyOf(layout.inner.globalOf(h, i), s.iRef[c][b + i]);
            byte[] chi = i + 1 < n ? keyOf(layout.inner.globalOf(h, i + 1), s.iRef[c][b + i + 1]) : hi;
            if (i > 0 && lo != null && Arrays.compareUnsigned(clo, lo) < 0) {
                throw new AssertionError("inner " + h + " separator below its lower bound");
            }
            if (clo != null && chi != null && Arrays.compareUnsigned(clo, chi) >= 0) {
                throw new AssertionError("inner " + h + " separators not increasing at slot " + i);
            }
            int m = s.iMax[c][b + i];
            if (m > maxBound) {
                throw new AssertionError("inner " + h + " slot max above its parent's bound");
            }
            checkSubtree(s.iChild[c][b + i], level - 1, clo, chi, m, counts);
        }
    }

    /** Every entry as (key, version or null for a gap), in key order. */
    List<Map.Entry<byte[], Long>> entries() {
        NodeStore s = store;
        List<Map.Entry<byte[], Long>> out = new ArrayList<>();
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            for (int j = 0; j < s.leafCount(leaf); j++) {
                int v = NodeStore.ver(s.lVerRef[c][b + j]);
                out.add(new AbstractMap.SimpleEntry<>(leafKey(leaf, j),
                        v == GAP || v < versions.expiredBelow ? null : versions.base + v));
            }
        }
        return out;
    }
}
