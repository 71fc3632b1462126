package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.SKIP_SHIFT;

/**
 * Loads ahead, for a block of a batch's writes, the cache lines their runs will need, every write's loads of a stage
 * together, so that the misses of the block overlap instead of each write waiting for its own: the parent's slot and
 * the leaf's header; then the search for each begin in its leaf, one probe per write per round, each loading the next
 * probe's line (for a leaf with a prefix of its own, its anchor and the begin in its encoding); finally the line of the
 * version and reference at the found slot, where the run's copies start. Shared by both writers ({@link BatchWriter},
 * {@link PartitionWriter}). Where the writes land comes from a route made before the batch changed the tree: a hint
 * only, nothing depends on it.
 *
 * <p>One instance a writer (a partition's is used by its thread only).
 */
final class WriteAhead {
    private final NodeStore store;
    /** The block's search bounds of each begin in its leaf, and the begin's long in the leaf's encoding. */
    private final int[] lo;
    private final int[] hi;
    private final long[] key;
    /** What the loads read, kept so that the JIT cannot drop them. */
    private long sink;

    WriteAhead(NodeStore store, int ways) {
        this.store = store;
        this.lo = new int[Math.max(1, ways)];
        this.hi = new int[Math.max(1, ways)];
        this.key = new long[Math.max(1, ways)];
    }

    /**
     * Loads ahead for writes {@code [from, to)} (at most the {@code ways} this was made for): endpoint {@code 2x} of
     * write {@code x} is {@code keys[eo[2x], eo[2x] + el[2x])}, its long {@code ek[2x]}, routed to leaf
     * {@code leafOf[2x]} below slot {@code slotOf[2x]} of {@code parentOf[2x]} ({@code parentOf} null: no parents
     * routed); {@code maxima}: the slot's max version too (the writer raises it).
     */
    void load(int from, int to, byte[] keys, long[] ek, int[] eo, int[] el, int[] leafOf, int[] parentOf, int[] slotOf,
              boolean maxima) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int innerCap = s.innerCap;
        long t = 0;
        for (int x = from; x < to; x++) {
            int leaf = leafOf[2 * x];
            t += s.lHdr[leaf >>> CHUNK_SHIFT][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
            if (parentOf != null) {
                int parent = parentOf[2 * x];
                int at = (parent & CHUNK_MASK) * innerCap + slotOf[2 * x];
                t += s.iKey[parent >>> CHUNK_SHIFT][at];
                if (maxima) {
                    t += s.iMax[parent >>> CHUNK_SHIFT][at];
                }
            }
        }
        int searching = 0;
        for (int x = from; x < to; x++) {
            int leaf = leafOf[2 * x];
            int c = leaf >>> CHUNK_SHIFT;
            int header = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            int n = Math.min(leafCap, header & COUNT_MASK);
            lo[x - from] = 0;
            hi[x - from] = n;
            key[x - from] = ek[2 * x];
            if (n > 0) {
                searching++;
                t += s.lKey[c][(leaf & CHUNK_MASK) * leafCap + ((n - 1) >>> 1)];
                int skip = header >>> SKIP_SHIFT;
                if (skip != 0) {
                    // A leaf with a prefix of its own: its anchor, which the run reads first, and the begin in its
                    // encoding (unchecked: a hint).
                    int unit = s.lAnchor[c][leaf & CHUNK_MASK];
                    t += s.arena.block(unit)[s.arena.offset(unit)];
                    int len = el[2 * x];
                    key[x - from] = len >= skip ? KeyRefs.prefix(keys, eo[2 * x] + skip, len - skip) : Long.MIN_VALUE;
                }
            }
        }
        while (searching > 0) {
            for (int x = from; x < to; x++) {
                int l = lo[x - from];
                int h = hi[x - from];
                if (l >= h) {
                    continue;
                }
                int leaf = leafOf[2 * x];
                int c = leaf >>> CHUNK_SHIFT;
                int base = (leaf & CHUNK_MASK) * leafCap;
                long[] lk = s.lKey[c];
                int mid = (l + h) >>> 1;
                boolean below = lk[base + mid] < key[x - from];
                l = below ? mid + 1 : l;
                h = below ? h : mid;
                lo[x - from] = l;
                hi[x - from] = h;
                if (l < h) {
                    t += lk[base + ((l + h) >>> 1)];
                } else {
                    searching--;
                    int at = base + Math.max(0, l - 1);
                    t += NodeStore.ref(s.lVerRef[c][at]);
                }
            }
        }
        sink += t;
    }

    long sink() {
        return sink;
    }
}
