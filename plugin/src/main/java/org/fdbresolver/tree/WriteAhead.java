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
 * the leaf's header; then every line of the leaf's keys and entries (and, for a leaf with a prefix of its own, its
 * anchor), all independent loads. One per partition's writer ({@link PartitionWriter}). Where the
 * writes land comes from a route made before the batch changed the tree: a hint only, nothing depends on it.
 *
 * <p>Why every line, not the lines a search for the begin would touch (what this loaded until 2026-12-07: one binary
 * search probe per write per round, each round's line depending on the last): a run searches its leaf, then copies
 * the leaf's entries from the begin's slot on (its merge and the write-back), so it reads most of the leaf's lines
 * anyway, and a search's lines come one dependent miss at a time. Loading them all at once, with no load waiting for
 * another, took mergeWrite from 0.902 to 0.719 s (median of four) on tuple keys at 12 subspaces and from 1.439 to
 * 1.056 s on conflictset-point (docs/tree.md, "The writers load whole leaves ahead").
 *
 * <p>One instance a writer (a partition's is used by its thread only).
 */
final class WriteAhead {
    /** Longs in a 64-byte cache line: one load of each covers a leaf's key and entry arrays. */
    private static final int LONGS_PER_LINE = 8;

    private final NodeStore store;
    /** What the loads read, kept so that the JIT cannot drop them. */
    private long sink;

    WriteAhead(NodeStore store) {
        this.store = store;
    }

    /**
     * Loads ahead for writes {@code [from, to)}: write {@code x} routed to leaf {@code leafOf[2x]} below slot
     * {@code slotOf[2x]} of {@code parentOf[2x]}.
     */
    void load(int from, int to, int[] leafOf, int[] parentOf, int[] slotOf) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int innerCap = s.innerCap;
        long t = 0;
        for (int x = from; x < to; x++) {
            int leaf = leafOf[2 * x];
            t += s.lHdr[leaf >>> CHUNK_SHIFT][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
            int parent = parentOf[2 * x];
            t += s.iKey[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slotOf[2 * x]];
        }
        for (int x = from; x < to; x++) {
            int leaf = leafOf[2 * x];
            int c = leaf >>> CHUNK_SHIFT;
            int header = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            int n = Math.min(leafCap, header & COUNT_MASK);
            if (n > 0 && (header >>> SKIP_SHIFT) != 0) {
                // A leaf with a prefix of its own: its anchor, which the run reads first.
                int unit = s.lAnchor[c][leaf & CHUNK_MASK];
                t += s.arena.block(unit)[s.arena.offset(unit)];
            }
            long[] lk = s.lKey[c];
            long[] lvr = s.lVerRef[c];
            int base = (leaf & CHUNK_MASK) * leafCap;
            for (int i = 0; i < n; i += LONGS_PER_LINE) {
                t += lk[base + i] + lvr[base + i];
            }
            if (n > 0) {
                // A leaf's slots need not start on a line: its last one may sit on a line the loop stepped over.
                t += lk[base + n - 1] + lvr[base + n - 1];
            }
        }
        sink += t;
    }

    long sink() {
        return sink;
    }
}
