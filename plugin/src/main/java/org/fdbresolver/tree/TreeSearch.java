package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.NIL;

/**
 * Searches shared by the read paths, the writer and the sweeper: the child slot of an inner node that
 * holds a key (binary search over the separators' inline longs, key bytes only on a tie), the first
 * leaf slot at or above a key, and descents from the root. Search keys come with their inline long and
 * search length ({@link KeyLayout#searchLength}).
 */
final class TreeSearch {
    private final NodeStore store;
    private final KeyLayout layout;

    TreeSearch(NodeStore store, KeyLayout layout) {
        this.store = store;
        this.layout = layout;
    }

    /**
     * The first slot at or after {@code from} of {@code leaf} whose key is at or above a write's end
     * {@code key[off, off + len)} (inline long {@code kp} in the tree's encoding), scanning forward: the entries
     * {@code [from, slot)} are the ones the write removes from this leaf (both writers' {@code removeUntil}).
     */
    int endOfRemoval(int leaf, int from, long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int header = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        int n = header & COUNT_MASK;
        long[] lk = s.lKey[c];
        long[] lvr = s.lVerRef[c];
        // The end in this leaf's encoding (a sentinel length when it lacks the leaf's own prefix).
        int skip = layout.leaf.skipOf(leaf);
        if (skip != layout.skip() && n > 0 && len >= 0) {
            len = layout.leaf.localLength(leaf, skip, key, off, len);
            kp = LeafPrefixes.localInline(key, off, len, skip);
        }
        int j = from;
        while (j < n) {
            long p = lk[base + j];
            if (p > kp || (p == kp && layout.tailAt(skip, key, off, len, NodeStore.ref(lvr[base + j])) <= 0)) {
                break;
            }
            j++;
        }
        return j;
    }

    /** The child slot of inner node {@code h} whose subtree holds {@code key}: the last slot whose separator is {@code <= key}. */
    int childSlot(int h, long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        long[] keys = s.iKey[h >>> CHUNK_SHIFT];
        int[] refs = s.iRef[h >>> CHUNK_SHIFT];
        int base = (h & CHUNK_MASK) * s.innerCap;
        int skip = s.iSkip[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
        if (skip == 0) {
            skip = layout.skip();
        } else if (len >= 0) {
            // A node with a prefix of its own: the key in its encoding (InnerPrefixes).
            len = layout.inner.localLength(h, skip, key, off, len);
            kp = InnerPrefixes.localInline(key, off, len, skip);
        }
        // Branch-free steps (conditional moves): which way a probe goes is a coin toss to the branch predictor.
        int first = 1;
        int n = s.iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] - 1;
        while (n > 0) {
            int half = n >>> 1;
            int mid = first + half;
            long p = keys[base + mid];
            boolean atOrAbove = kp > p || kp == p && layout.tailAt(skip, key, off, len, refs[base + mid]) >= 0;
            first = atOrAbove ? mid + 1 : first;
            n = atOrAbove ? n - half - 1 : half;
        }
        return first - 1;
    }

    /**
     * In leaf {@code h}: the first slot whose key is {@code >= key} ({@code strict == false}) or {@code > key}; the key
     * in the tree's encoding (re-encoded here for a leaf with a prefix of its own, {@link LeafPrefixes}).
     */
    int leafSearch(int h, long kp, byte[] key, int off, int len, boolean strict) {
        NodeStore s = store;
        int skip = layout.leaf.skipOf(h);
        if (skip != layout.skip() && len >= 0) {
            len = layout.leaf.localLength(h, skip, key, off, len);
            kp = LeafPrefixes.localInline(key, off, len, skip);
        }
        return leafSearchAt(h, skip, kp, key, off, len, strict);
    }

    /**
     * {@link #leafSearch} with the key already in leaf {@code h}'s encoding: inline long {@code kp} of the bytes after
     * {@code skip} (the leaf's, {@link LeafPrefixes#skipOf}), search length {@code len}.
     */
    int leafSearchAt(int h, int skip, long kp, byte[] key, int off, int len, boolean strict) {
        NodeStore s = store;
        long[] keys = s.lKey[h >>> CHUNK_SHIFT];
        long[] lvr = s.lVerRef[h >>> CHUNK_SHIFT];
        int base = (h & CHUNK_MASK) * s.leafCap;
        // Branch-free steps, as in childSlot.
        int first = 0;
        int n = s.lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        while (n > 0) {
            int half = n >>> 1;
            int mid = first + half;
            long p = keys[base + mid];
            boolean below = kp > p || kp == p && belowOnTie(skip, key, off, len, NodeStore.ref(lvr[base + mid]), strict);
            first = below ? mid + 1 : first;
            n = below ? n - half - 1 : half;
        }
        return first;
    }

    /** With equal inline longs: whether the stored key is below the search key ({@code strict}: or equal). */
    private boolean belowOnTie(int skip, byte[] key, int off, int len, int ref, boolean strict) {
        int c = layout.tailAt(skip, key, off, len, ref);
        return c > 0 || strict && c == 0;
    }

    /** The leaf whose key range holds {@code key}. */
    int findLeaf(long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int node = s.root;
        for (int level = s.height; level > 0; level--) {
            int slot = childSlot(node, kp, key, off, len);
            node = s.iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * s.innerCap + slot];
        }
        return node;
    }

    /**
     * Like {@link #findLeaf} but records the path, the inner node and slot taken at each level from the
     * root ({@code pathNode[0]}) down, for a scan that climbs back up.
     */
    int findLeafRecordingPath(long kp, byte[] key, int off, int len, int[] pathNode, int[] pathIdx) {
        NodeStore s = store;
        int node = s.root;
        for (int level = 0, height = s.height; level < height; level++) {
            int slot = childSlot(node, kp, key, off, len);
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = s.iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * s.innerCap + slot];
        }
        return node;
    }

    /** The version of the last entry of the first non-empty leaf at or before {@code h}, or GAP. */
    int lastVersionFrom(int h) {
        NodeStore s = store;
        while (h != NIL) {
            int n = s.leafCount(h);
            if (n > 0) {
                return NodeStore.ver(s.lVerRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * s.leafCap + n - 1]);
            }
            h = s.leafPrev(h);
        }
        return GAP;
    }
}
