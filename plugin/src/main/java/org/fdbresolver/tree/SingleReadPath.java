package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.MAX_HEIGHT;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.HistoryReader;

/**
 * The read check one read at a time: one descent from the root (recording the path), the interval
 * holding the read's begin (skipping the leaf's binary search when the leaf's max version shows nothing
 * newer than the snapshot), then a walk on through the recorded parents: a slot whose separator is at
 * or above the read's end stops the walk, a slot whose max version is not above the snapshot is skipped
 * without touching its subtree.
 */
final class SingleReadPath implements HistoryReader {
    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final int[] pathNode = new int[MAX_HEIGHT];
    private final int[] pathIdx = new int[MAX_HEIGHT];

    SingleReadPath(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
    }

    /** See {@link org.fdbresolver.pipeline.HistoryReader#conflicts}. */
    @Override
    public boolean conflicts(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot) {
        return check(keys, bOff, bLen, eOff, eLen, snapshot, false);
    }

    /** {@link #conflicts}, the begin's leaf found by a descent or, {@code inOrder}, from the finger ({@link #leafInOrder}). */
    private boolean check(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot, boolean inOrder) {
        boolean empty = Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + eLen);
        boolean point = isPoint(keys, bOff, bLen, eOff, eLen);
        int s = versions.relative(snapshot);
        // A read never changes the shared prefix: a key without it orders before or after every key
        // in the tree, and its length becomes BELOW or ABOVE, which tail() answers without bytes.
        KeyLayout kl = layout;
        bLen = kl.searchLength(keys, bOff, bLen);
        eLen = kl.searchLength(keys, eOff, eLen);
        long bp = kl.searchInline(keys, bOff, bLen);
        long ep = kl.searchInline(keys, eOff, eLen);
        if (empty) {
            return conflictsEmpty(keys, bOff, bLen, bp, s);
        }
        int leaf = inOrder ? leafInOrder(bp, keys, bOff, bLen)
                : search.findLeafRecordingPath(bp, keys, bOff, bLen, pathNode, pathIdx);
        return conflictsFrom(leaf, keys, bOff, bLen, bp, eOff, eLen, ep, s, point);
    }

    /**
     * Whether read {@code [begin, end)} is a point range {@code [k, k\0)}: its end is its begin and a 0x00. No key lies
     * strictly between the two, so the read conflicts exactly when the interval holding {@code k} is newer than its
     * snapshot, and nothing past the leaf holding {@code k} needs looking at. About half of a Resolver's reads are
     * points (every {@code get}); the batch stores such a range's bytes once, so both ends usually share an offset.
     */
    static boolean isPoint(byte[] keys, int bOff, int bLen, int eOff, int eLen) {
        return eLen == bLen + 1 && keys[eOff + bLen] == 0
                && (eOff == bOff || Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen));
    }

    // ---- the finger of reads checked in begin order (HistoryReader.conflictsInOrder) ----

    /** The leaf the last descent in order reached (NIL: none since the start), and the path to it. */
    private int fingerLeaf = NIL;
    private final int[] fingerNode = new int[MAX_HEIGHT];
    private final int[] fingerIdx = new int[MAX_HEIGHT];
    /** The separator right of that leaf at the lowest level that has one: its node (NIL: none) and slot. */
    private int fenceNode = NIL;
    private int fenceSlot;
    /**
     * Reads since the start that began in the finger's leaf, and that did not: where reads are spread over many leaves
     * (tuple keys at random, a large history) the comparison with the separator seldom spares a descent and costs a
     * key's bytes on a tie, so it is tried only while at least one read in five hits.
     */
    private int fingerHits;
    private int fingerMisses;

    @Override
    public void startInOrder() {
        fingerLeaf = NIL;
        fingerHits = 0;
        fingerMisses = 0;
    }

    /**
     * {@link #conflicts} with a finger, as FoundationDB's skip list walks its sorted reads: a read whose begin is below
     * the separator right of the leaf the previous read's descent reached begins in that leaf too (it is at or above the
     * previous begin), and starts there, on a copy of that descent's path, with one comparison instead of a descent.
     * Reads of hot keys in a small history mostly do (the golden bank capture in batches of 500: about eighty reads per
     * leaf of a history of nineteen).
     */
    @Override
    public boolean conflictsInOrder(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot) {
        return check(keys, bOff, bLen, eOff, eLen, snapshot, true);
    }

    /** The leaf holding begin {@code (bp, key[off, off + len))} in the tree's encoding, its path recorded, by the finger. */
    private int leafInOrder(long bp, byte[] keys, int bOff, int bLen) {
        int height = store.height;
        int leaf = fingerLeaf;
        boolean tryFinger = leaf != NIL && (fingerMisses < 16 || fingerHits * 4 >= fingerMisses);
        if (tryFinger && (fenceNode == NIL || layout.inner.compare(fenceNode, fenceSlot, bp, keys, bOff, bLen) < 0)) {
            fingerHits++;
            System.arraycopy(fingerNode, 0, pathNode, 0, height);
            System.arraycopy(fingerIdx, 0, pathIdx, 0, height);
            return leaf;
        }
        fingerMisses++;
        leaf = search.findLeafRecordingPath(bp, keys, bOff, bLen, pathNode, pathIdx);
        System.arraycopy(pathNode, 0, fingerNode, 0, height);
        System.arraycopy(pathIdx, 0, fingerIdx, 0, height);
        fingerLeaf = leaf;
        fenceNode = NIL;
        for (int level = height - 1; level >= 0; level--) {
            int node = pathNode[level];
            int slot = pathIdx[level] + 1;
            if (slot < store.innerCount(node)) {
                fenceNode = node;
                fenceSlot = slot;
                break;
            }
        }
        return leaf;
    }

    /** An empty read {@code [k, k)} conflicts iff the interval just below {@code k} is newer than the snapshot. */
    boolean conflictsEmpty(byte[] keys, int kOff, int kLen, long kp, int s) {
        NodeStore st = store;
        int leaf = search.findLeaf(kp, keys, kOff, kLen);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * st.leafCap;
        int i = search.leafSearch(leaf, kp, keys, kOff, kLen, false);
        int predVer = i > 0 ? NodeStore.ver(st.lVerRef[c][base + i - 1]) : search.lastVersionFrom(st.leafPrev(leaf));
        return predVer > s;
    }

    /**
     * A non-empty read whose begin lies in {@code leaf}, reached by a descent that recorded its path in
     * {@link #pathNode}/{@link #pathIdx}; {@code point}: the read is {@code [k, k\0)} ({@link #isPoint}).
     */
    private boolean conflictsFrom(int leaf, byte[] keys, int bOff, int bLen, long bp, int eOff, int eLen, long ep, int s,
                                  boolean point) {
        NodeStore st = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * st.leafCap;
        int[] hdr = st.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT] & COUNT_MASK;
        boolean leafIsOld = hdr[h + H_MAX] <= s;
        // The begin in the leaf's encoding (LeafPrefixes).
        int skip = layout.leaf.skipOf(leaf);
        if (skip != layout.skip() && bLen >= 0) {
            bLen = layout.leaf.localLength(leaf, skip, keys, bOff, bLen);
            bp = LeafPrefixes.localInline(keys, bOff, bLen, skip);
        }
        if (leafIsOld && n > 0) {
            // Nothing in this leaf is newer than the snapshot: if the interval holding begin starts in
            // this leaf (its first key is at or below begin), no binary search is needed.
            long p = st.lKey[c][base];
            int cf = bp != p ? (bp < p ? -1 : 1) : layout.tailAt(skip, keys, bOff, bLen, NodeStore.ref(st.lVerRef[c][base]));
            if (cf < 0 && search.lastVersionFrom(st.leafPrev(leaf)) > s) {
                return true;
            }
        } else {
            int i = search.leafSearchAt(leaf, skip, bp, keys, bOff, bLen, true);
            // The interval holding begin.
            int predVer = i > 0 ? NodeStore.ver(st.lVerRef[c][base + i - 1]) : search.lastVersionFrom(st.leafPrev(leaf));
            if (predVer > s) {
                return true;
            }
            // Intervals that begin strictly inside (begin, end): the rest of this leaf, then the
            // following subtrees in key order. A point read has none.
            if (point) {
                return false;
            }
            if (!leafIsOld) {
                int r = scanLeaf(leaf, i, s, ep, keys, eOff, eLen);
                if (r >= 0) {
                    return r == 1;
                }
            }
        }
        return !point && scanOnward(st.height - 1, s, ep, keys, eOff, eLen);
    }

    /**
     * Walks the subtrees after the recorded path in key order, from level {@code level} up: skips every
     * subtree whose max version is not above the snapshot and stops at the first separator at or above
     * end (read from the cached parents, so skipped leaves are never touched).
     */
    private boolean scanOnward(int level, int s, long ep, byte[] keys, int eOff, int eLen) {
        NodeStore st = store;
        int height = st.height;
        int innerCap = st.innerCap;
        while (level >= 0) {
            int node = pathNode[level];
            int slot = pathIdx[level] + 1;
            int nc = node >>> CHUNK_SHIFT;
            int nb = (node & CHUNK_MASK) * innerCap;
            if (slot >= st.iCount[nc][node & CHUNK_MASK]) {
                level--;
                continue;
            }
            if (slot > 0 && layout.inner.compare(node, slot, ep, keys, eOff, eLen) <= 0) {
                return false;
            }
            pathIdx[level] = slot;
            if (st.iMax[nc][nb + slot] <= s) {
                continue;
            }
            int child = st.iChild[nc][nb + slot];
            if (level + 1 < height) {
                level++;
                pathNode[level] = child;
                pathIdx[level] = -1;
                continue;
            }
            int r = scanLeaf(child, 0, s, ep, keys, eOff, eLen);
            if (r >= 0) {
                return r == 1;
            }
        }
        return false;
    }

    /**
     * Scans {@code leaf} from slot {@code i}: 1 if an entry below end is newer than the snapshot, 0 if an
     * entry at or above end comes first, -1 if the leaf ends first. The end in the tree's encoding.
     */
    int scanLeaf(int leaf, int i, int s, long ep, byte[] keys, int eOff, int eLen) {
        NodeStore st = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * st.leafCap;
        int[] hdr = st.lHdr[c];
        int n = hdr[(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        if (i >= n) {
            return -1;
        }
        // The end in the leaf's encoding (LeafPrefixes).
        int skip = layout.leaf.skipOf(leaf);
        if (skip != layout.skip() && eLen >= 0) {
            eLen = layout.leaf.localLength(leaf, skip, keys, eOff, eLen);
            ep = LeafPrefixes.localInline(keys, eOff, eLen, skip);
        }
        long[] lk = st.lKey[c];
        long[] lvr = st.lVerRef[c];
        for (int j = base + i, end = base + n; j < end; j++) {
            long p = lk[j];
            if (p > ep || (p == ep && layout.tailAt(skip, keys, eOff, eLen, NodeStore.ref(lvr[j])) <= 0)) {
                return 0;
            }
            if (NodeStore.ver(lvr[j]) > s) {
                return 1;
            }
        }
        return -1;
    }
}
