package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.H_PREV;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.MAX_HEIGHT;
import static org.fdbresolver.tree.NodeStore.NIL;
import static org.fdbresolver.tree.NodeStore.SKIP_SHIFT;

import java.util.Arrays;

/**
 * Single writes and their splits, for a tree of one leaf (which has no parent to cut a batch's partitions under) and
 * for the writes the partitions may not apply ({@link BatchWriter}). {@link #merge} sets {@code [b, e)} to
 * {@code now}: an entry at {@code e} keeps the version that was in force there (the outer fragment), the entry at
 * {@code b} takes {@code now}, entries strictly between go — in one pass over one leaf in the common case. Inner nodes
 * are split on the way down when full (proactive split preparation), so a leaf split always finds room
 * in its parent and no split cascades upwards. A full leaf first shifts entries to its right sibling
 * when that has room. Deletions may leave leaves empty; the sweeper unlinks them.
 */
final class TreeWriter {

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final LeafEntries entries;
    /** The last descent's path: inner node and slot per level, root first. */
    private final int[] pathNode = new int[MAX_HEIGHT];
    private final int[] pathIdx = new int[MAX_HEIGHT];
    private byte[] scratchA = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    private byte[] scratchB = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    /** The last {@link #separatorBetween}'s separator: inline long and reference. */
    private long sepKeyOut;
    private int sepRefOut;

    TreeWriter(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, LeafEntries entries) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.entries = entries;
    }

    /** Records write {@code [b, e)} (non-empty) at relative version {@code v}. */
    void merge(byte[] keys, int bOff, int bLen, int eOff, int eLen, int v) {
        NodeStore s = store;
        KeyLayout kl = layout;
        kl.admitBoth(keys, bOff, bLen, eOff, eLen);
        long bp = kl.inlineOf(keys, bOff, bLen);
        long ep = kl.inlineOf(keys, eOff, eLen);
        int first = descendForInsert(bp, keys, bOff, bLen);
        if (mergeInLeaf(first, v, bp, keys, bOff, bLen, ep, eOff, eLen)) {
            return;
        }
        // The general path, when the write reaches past the leaf or the leaf is full.
        // 1. The entry at end keeps the version in force there (the outer fragment of what was covered).
        int eRef = ensureEntry(ep, keys, eOff, eLen);
        // 2. The entry at begin takes now; a point write [k, k\0) lets k share the chunk of k\0.
        int bRef = NIL;
        if (eRef >= 0 && (eRef & 1) == 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
            bRef = eRef | 1;
        }
        int leaf = descendForInsert(bp, keys, bOff, bLen);
        int i = search.leafSearch(leaf, bp, keys, bOff, bLen, false);
        if (i < s.leafCount(leaf) && kl.leaf.compare(leaf, i, bp, keys, bOff, bLen) == 0) {
            s.setLeafVersion(leaf, i, v);
        } else {
            if (bRef != NIL) {
                s.arena.retain(bRef >>> 1);
            }
            long pos = insertEntry(leaf, i, bp, keys, bOff, bLen, bRef, v);
            leaf = (int) (pos >>> 32);
            i = (int) pos;
        }
        raiseMax(leaf, v);
        // 3. Entries strictly inside (begin, end) go; the entry at end stops the scan.
        removeUntil(leaf, i + 1, ep, keys, eOff, eLen);
    }

    /**
     * The common case in one pass over one leaf: an entry {@code >= end} is in the leaf holding
     * {@code begin} and the result fits. Entries in {@code [begin, end)} are replaced by
     * {@code begin: now} and, unless an entry sits exactly at {@code end}, {@code end: the version in
     * force there}. Returns false (changing nothing) otherwise.
     */
    private boolean mergeInLeaf(int leaf, int v, long bp, byte[] keys, int bOff, int bLen, long ep, int eOff, int eLen) {
        NodeStore s = store;
        KeyLayout kl = layout;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int[] hdr = s.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT] & COUNT_MASK;
        long[] lk = s.lKey[c];
        long[] lvr = s.lVerRef[c];
        // Both ends in the leaf's encoding; one without the leaf's own prefix takes the general path, which admits it.
        kl.ensureCurrent(leaf); // the write lands here: a leaf the prefix's shrinking has not lowered yet is lowered now
        int skip = hdr[h + H_COUNT] >>> SKIP_SHIFT;
        int local = skip;
        if (skip == 0) {
            skip = kl.skip();
        } else {
            if (kl.leaf.localLength(leaf, skip, keys, bOff, bLen) < 0 || kl.leaf.localLength(leaf, skip, keys, eOff, eLen) < 0) {
                return false;
            }
            bp = LeafPrefixes.localInline(keys, bOff, bLen, skip);
            ep = LeafPrefixes.localInline(keys, eOff, eLen, skip);
        }
        int i = search.leafSearchAt(leaf, skip, bp, keys, bOff, bLen, false);
        int j = i;
        int cmpE = 1;
        while (j < n) {
            long p = lk[base + j];
            cmpE = ep != p ? (ep < p ? -1 : 1) : kl.tailAt(skip, keys, eOff, eLen, NodeStore.ref(lvr[base + j]));
            if (cmpE <= 0) {
                break;
            }
            j++;
        }
        if (j == n) {
            return false;
        }
        boolean exactE = cmpE == 0;
        boolean exactB = i < j && lk[base + i] == bp && kl.tailAt(skip, keys, bOff, bLen, NodeStore.ref(lvr[base + i])) == 0;
        int newCount = i + (exactE ? 1 : 2) + (n - j);
        if (newCount > s.leafCap) {
            return false;
        }
        int vE = 0;
        if (!exactE) {
            vE = j > 0 ? NodeStore.ver(lvr[base + j - 1]) : search.lastVersionFrom(hdr[h + H_PREV]);
            if (vE < versions.expiredBelow) {
                vE = GAP;
            }
        }
        int bRef = exactB ? NodeStore.ref(lvr[base + i]) : NIL;
        for (int k = exactB ? i + 1 : i; k < j; k++) {
            s.releaseRef(NodeStore.ref(lvr[base + k]));
        }
        int eRef = 0;
        if (!exactE) {
            eRef = kl.leaf.storeKey(local, keys, eOff, eLen);
        }
        if (bRef == NIL) {
            if (!exactE && eRef >= 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                    && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
                s.arena.retain(eRef >>> 1);
                bRef = eRef | 1;
            } else {
                bRef = kl.leaf.storeKey(local, keys, bOff, bLen);
            }
        }
        int dst = i + (exactE ? 1 : 2);
        if (dst != j) {
            entries.shift(leaf, j, dst, n - j);
        }
        entries.set(leaf, i, bp, v, bRef);
        if (!exactE) {
            entries.set(leaf, i + 1, ep, vE, eRef);
        }
        hdr[h + H_COUNT] = (hdr[h + H_COUNT] & ~COUNT_MASK) | newCount;
        raiseMax(leaf, v);
        return true;
    }

    /**
     * Makes sure an entry exists at {@code key}, inserting one with the version in force there;
     * returns its key reference.
     */
    private int ensureEntry(long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int leaf = descendForInsert(kp, key, off, len);
        int i = search.leafSearch(leaf, kp, key, off, len, false);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        if (i < n && layout.leaf.compare(leaf, i, kp, key, off, len) == 0) {
            return NodeStore.ref(s.lVerRef[c][base + i]);
        }
        int v = i > 0 ? NodeStore.ver(s.lVerRef[c][base + i - 1]) : search.lastVersionFrom(s.leafPrev(leaf));
        if (v < versions.expiredBelow) {
            v = GAP;
        }
        long pos = insertEntry(leaf, i, kp, key, off, len, NIL, v);
        int at = (int) (pos >>> 32);
        raiseMax(at, v);
        return NodeStore.ref(s.lVerRef[at >>> CHUNK_SHIFT][(at & CHUNK_MASK) * s.leafCap + (int) pos]);
    }

    /** Raises the max version of {@code leaf} and of its slot along the recorded descent path. */
    private void raiseMax(int leaf, int v) {
        NodeStore s = store;
        int[] m = s.lHdr[leaf >>> CHUNK_SHIFT];
        int at = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX;
        if (m[at] < v) {
            m[at] = v;
        }
        for (int level = 0, height = s.height; level < height; level++) {
            int node = pathNode[level];
            int[] im = s.iMax[node >>> CHUNK_SHIFT];
            int slot = (node & CHUNK_MASK) * s.innerCap + pathIdx[level];
            if (im[slot] < v) {
                im[slot] = v;
            }
        }
    }

    /**
     * Descends to the leaf for {@code key}, splitting every full inner node on the way (the root
     * first) so that the leaf's parent has room for a split. Records the path.
     */
    private int descendForInsert(long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int innerCap = s.innerCap;
        if (s.height > 0 && s.innerCount(s.root) == innerCap) {
            int old = s.root;
            int r = s.allocInner();
            s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, old, s.maxOfInner(old));
            s.setInnerCount(r, 1);
            s.root = r;
            s.height++;
            splitInnerChild(r, 0);
        }
        int node = s.root;
        for (int level = 0, height = s.height; level < height; level++) {
            int slot = search.childSlot(node, kp, key, off, len);
            if (level + 1 < height) {
                int child = s.child(node, slot);
                if (s.innerCount(child) == innerCap) {
                    splitInnerChild(node, slot);
                    slot = search.childSlot(node, kp, key, off, len);
                }
            }
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = s.child(node, slot);
        }
        return node;
    }

    /** Splits the full inner child at {@code slot} of {@code parent} (which has room) into two halves. */
    private void splitInnerChild(int parent, int slot) {
        NodeStore s = store;
        int innerCap = s.innerCap;
        int left = s.child(parent, slot);
        int right = s.allocInner();
        int n = s.innerCount(left);
        int mid = n / 2;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * innerCap;
        int rb = (right & CHUNK_MASK) * innerCap;
        // Slot mid's separator moves up; it becomes the right node's (unused) slot-0 separator. Both halves keep
        // the left's encoding for the copy, then take the prefix of their own separators.
        long upKey = layout.inner.globalOf(left, mid);
        int upRef = s.iRef[lc][lb + mid];
        s.iSkip[rc][right & CHUNK_MASK] = s.iSkip[lc][left & CHUNK_MASK];
        System.arraycopy(s.iKey[lc], lb + mid, s.iKey[rc], rb, n - mid);
        System.arraycopy(s.iRef[lc], lb + mid, s.iRef[rc], rb, n - mid);
        System.arraycopy(s.iChild[lc], lb + mid, s.iChild[rc], rb, n - mid);
        System.arraycopy(s.iMax[lc], lb + mid, s.iMax[rc], rb, n - mid);
        s.iRef[rc][rb] = KeyRefs.EMPTY;
        s.iKey[rc][rb] = 0;
        s.setInnerCount(left, mid);
        s.setInnerCount(right, n - mid);
        layout.inner.tighten(left);
        layout.inner.tighten(right);
        layout.inner.insert(parent, slot + 1, upKey, upRef, right, s.maxOfInner(right));
        s.iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slot] = s.maxOfInner(left);
    }

    /**
     * Inserts an entry at slot {@code i} of {@code leaf} (the last descent's leaf), splitting the leaf if
     * full; the key is given in the tree's encoding ({@code kp}) and admitted to the leaf it goes to
     * ({@link LeafPrefixes#admit}) and stored as that leaf stores it when {@code ref} is NIL (else {@code ref} is its
     * reference already). Returns {@code leaf << 32 | slot} of where the entry went.
     */
    private long insertEntry(int leaf, int i, long kp, byte[] key, int off, int len, int ref, int v) {
        NodeStore s = store;
        if (s.leafCount(leaf) == s.leafCap) {
            // A full leaf first hands entries to its right sibling (fuller leaves, less memory) and
            // splits only when the sibling is nearly full too.
            int height = s.height;
            int right = height > 0 ? shiftToRightSibling(leaf) : NIL;
            if (right == NIL) {
                right = splitLeaf(leaf);
                height = s.height;
            }
            int mid = s.leafCount(leaf);
            boolean goRight;
            if (i != mid) {
                goRight = i > mid;
            } else {
                // Between the halves: the separator (possibly shorter than the right's first key) decides.
                goRight = layout.inner.compare(pathNode[height - 1], pathIdx[height - 1] + 1, kp, key, off, len) >= 0;
            }
            if (goRight) {
                leaf = right;
                i -= mid;
                pathIdx[height - 1]++;
            }
        }
        long inline = layout.leaf.admit(leaf, kp, key, off, len, store);
        if (ref == NIL) {
            ref = layout.leaf.storeKey(layout.leaf.localSkip(leaf), key, off, len);
        }
        entries.insert(leaf, i, inline, v, ref);
        return (long) leaf << 32 | i;
    }

    /**
     * Splits full {@code leaf} (the last descent's leaf) in two; the right half goes into a new leaf
     * linked after it and registered in the parent (making a new root if the leaf was the root).
     */
    private int splitLeaf(int leaf) {
        NodeStore s = store;
        int right = s.allocLeaf();
        entries.split(leaf, right, s);
        s.linkAfter(leaf, right);
        separatorBetween(leaf, right);
        registerRight(leaf, s.leafMax(leaf), right, s.leafMax(right), sepKeyOut, sepRefOut);
        return right;
    }

    /**
     * Registers new leaf {@code right} after {@code leaf} (the last descent's leaf) in the parent,
     * making a new root when the leaf was the root.
     */
    private void registerRight(int leaf, int leftMax, int right, int rightMax, long sepKey, int sepRef) {
        NodeStore s = store;
        if (s.height == 0) {
            int r = s.allocInner();
            s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, leaf, leftMax);
            s.setInnerSlot(r, 1, sepKey, sepRef, right, rightMax);
            s.setInnerCount(r, 2);
            s.root = r;
            s.height = 1;
            pathNode[0] = r;
            pathIdx[0] = 0;
        } else {
            int parent = pathNode[s.height - 1];
            int slot = pathIdx[s.height - 1];
            layout.inner.insert(parent, slot + 1, sepKey, sepRef, right, rightMax);
            s.iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * s.innerCap + slot] = leftMax;
        }
    }

    /**
     * Moves the last entries of full {@code leaf} (the last descent's leaf) to the front of its right
     * sibling under the same parent when that has room, and fixes the separator between them.
     * Returns the sibling, or NIL when there is none with room.
     */
    private int shiftToRightSibling(int leaf) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int parent = pathNode[s.height - 1];
        int slot = pathIdx[s.height - 1];
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * s.innerCap;
        if (slot + 1 >= s.iCount[pc][parent & CHUNK_MASK]) {
            return NIL;
        }
        int right = s.iChild[pc][pb + slot + 1];
        int rn = s.leafCount(right);
        int move = (leafCap - rn) / 2;
        if (move < Math.max(2, leafCap / 16)) {
            return NIL;
        }
        entries.moveTail(leaf, right, move, s);
        s.iMax[pc][pb + slot] = s.leafMax(leaf);
        s.iMax[pc][pb + slot + 1] = s.leafMax(right);
        s.releaseRef(s.iRef[pc][pb + slot + 1]);
        separatorBetween(leaf, right);
        layout.inner.replace(parent, slot + 1, sepKeyOut, sepRefOut);
        return right;
    }

    /** The shortest prefix of {@code right}'s first key above {@code left}'s last key, stored; into sepKeyOut/sepRefOut. */
    private void separatorBetween(int left, int right) {
        NodeStore s = store;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int last = s.leafCount(left) - 1;
        scratchA = layout.fit(scratchA, NodeStore.ref(s.lVerRef[lc][(left & CHUNK_MASK) * s.leafCap + last]));
        scratchB = layout.fit(scratchB, NodeStore.ref(s.lVerRef[rc][(right & CHUNK_MASK) * s.leafCap]));
        int lastLen = layout.leaf.materialize(left, last, scratchA);
        int firstLen = layout.leaf.materialize(right, 0, scratchB);
        int common = Arrays.mismatch(scratchA, 0, lastLen, scratchB, 0, firstLen);
        int sepLen = Math.min(firstLen, common + 1);
        sepKeyOut = layout.inlineOf(scratchB, 0, sepLen);
        sepRefOut = layout.storeKey(scratchB, 0, sepLen);
    }

    /** Removes entries from slot {@code i} of {@code leaf} on, across leaves, while their key is below {@code end}. */
    private void removeUntil(int leaf, int i, long ep, byte[] key, int off, int len) {
        NodeStore s = store;
        while (leaf != NIL) {
            int j = search.endOfRemoval(leaf, i, ep, key, off, len);
            long[] lvr = s.lVerRef[leaf >>> CHUNK_SHIFT];
            int base = (leaf & CHUNK_MASK) * s.leafCap;
            for (int r = i; r < j; r++) {
                s.releaseRef(NodeStore.ref(lvr[base + r]));
            }
            int n = s.leafCount(leaf);
            entries.remove(leaf, i, j, s);
            if (j < n) {
                return;
            }
            leaf = s.leafNext(leaf);
            i = 0;
        }
    }
}
