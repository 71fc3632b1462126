package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

/**
 * Every move of leaf entries that is not a merge loop's own copying: within a leaf (a slot opened, a range
 * removed, a run's output written back) and between leaves (a split, entries handed to the right sibling, a run
 * that overflows into a sibling or a new leaf, the sweeper's merge of a leaf into its left sibling). An entry is
 * two parallel arrays (the key's long; the version and the key reference in one long, {@link NodeStore#entry}); this
 * is the one place that copies them as a whole, so that what a move between two leaves means for their keys'
 * encoding is decided here, once, for the single-write path ({@link TreeWriter}), the partitions' runs and chains
 * ({@link PartitionWriter}) and the sweepers ({@link Reclaimer}, {@link ParentSweep}).
 *
 * <p>Keys' encodings ({@link LeafPrefixes}): entries move between leaves in one encoding. A split's new leaf takes
 * its leaf's; a leaf and a sibling that trade entries (or the sweeper's merge) are first lowered to the prefix they
 * share. After every move between leaves, each leaf that holds entries may take a longer prefix
 * ({@link LeafPrefixes#tighten}). Entries written into a leaf by its caller ({@link #set}, {@link #insert}, a run)
 * are in that leaf's encoding ({@link LeafPrefixes#admit}).
 *
 * <p>Moves between leaves also set both leaves' counts and recompute both leaves' max versions; linking a new
 * leaf into the chain is the caller's, who knows whether the split is published now or later.
 */
final class LeafEntries {
    private final NodeStore store;
    private final LeafPrefixes prefixes;

    LeafEntries(NodeStore store, LeafPrefixes prefixes) {
        this.store = store;
        this.prefixes = prefixes;
    }

    /**
     * A run's merged output: up to twice a leaf's entries (a run never grows a leaf past two), in the encoding of
     * the leaf the run is merged into. One per thread that applies runs.
     */
    static final class Run {
        final long[] key;
        /** Each entry's version and key reference ({@link NodeStore#entry}). */
        final long[] verRef;

        Run(int leafCap) {
            key = new long[2 * leafCap + 2];
            verRef = new long[2 * leafCap + 2];
        }
    }

    // ---- within a leaf ----

    /** Moves entries {@code [from, from + n)} of {@code leaf} to {@code [to, to + n)} (the ranges may overlap). */
    void shift(int leaf, int from, int to, int n) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        System.arraycopy(s.lKey[c], base + from, s.lKey[c], base + to, n);
        System.arraycopy(s.lVerRef[c], base + from, s.lVerRef[c], base + to, n);
    }

    /** Writes an entry at {@code slot} of {@code leaf}. */
    void set(int leaf, int slot, long key, int ver, int ref) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int at = (leaf & CHUNK_MASK) * s.leafCap + slot;
        s.lKey[c][at] = key;
        s.lVerRef[c][at] = NodeStore.entry(ver, ref);
    }

    /** Inserts an entry at slot {@code i} of {@code leaf} (which has room): the entries from {@code i} on move right. */
    void insert(int leaf, int i, long key, int ver, int ref) {
        int n = store.leafCount(leaf);
        shift(leaf, i, i + 1, n - i);
        set(leaf, i, key, ver, ref);
        store.setLeafCount(leaf, n + 1);
    }

    /**
     * Removes entries {@code [i, j)} of {@code leaf} (their key references are the caller's to release; a local leaf
     * left empty releases its anchor through {@code refs}).
     */
    void remove(int leaf, int i, int j, AnchorRefs refs) {
        if (j > i) {
            int n = store.leafCount(leaf);
            if (j - i == n) {
                prefixes.emptied(leaf, refs);
            }
            shift(leaf, j, i, n - j);
            store.setLeafCount(leaf, n - (j - i));
        }
    }

    /**
     * A run merged over {@code leaf}'s entries from slot {@code first}: the leaf's entries {@code [first, src)} were
     * taken into {@code run[0, o)}, its entries from {@code src} on are the tail that follows. When the result
     * fits, writes it back (the tail moved into place, the run's output copied in) and returns true; otherwise
     * appends the tail to the run's output, leaving the leaf's first {@code first} entries in place, and returns
     * false: the caller then spills it ({@link #spillToSibling}, {@link #spillToNew}).
     */
    boolean writeBack(int leaf, int first, Run run, int o, int src) {
        NodeStore s = store;
        int n = s.leafCount(leaf);
        int tail = n - src;
        int total = first + o + tail;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        if (total <= s.leafCap) {
            if (first + o != src) {
                shift(leaf, src, first + o, tail);
            }
            System.arraycopy(run.key, 0, s.lKey[c], base + first, o);
            System.arraycopy(run.verRef, 0, s.lVerRef[c], base + first, o);
            s.setLeafCount(leaf, total);
            return true;
        }
        System.arraycopy(s.lKey[c], base + src, run.key, o, tail);
        System.arraycopy(s.lVerRef[c], base + src, run.verRef, o, tail);
        return false;
    }

    // ---- between leaves ----

    /** Moves {@code leaf}'s upper half into the new, empty leaf {@code right} (not linked: the caller's). */
    void split(int leaf, int right, AnchorRefs refs) {
        NodeStore s = store;
        int n = s.leafCount(leaf);
        int mid = n / 2;
        prefixes.copyEncoding(leaf, right, refs);
        copy(leaf, mid, right, 0, n - mid);
        s.setLeafCount(leaf, mid);
        s.setLeafCount(right, n - mid);
        recomputeMax(leaf, right);
        tighten(leaf, right, refs);
    }

    /** Moves {@code leaf}'s last {@code move} entries to the front of its right neighbour {@code right}. */
    void moveTail(int leaf, int right, int move, AnchorRefs refs) {
        NodeStore s = store;
        int n = s.leafCount(leaf);
        int rn = s.leafCount(right);
        if (rn > 0) {
            prefixes.unify(leaf, right, refs);
        } else {
            prefixes.copyEncoding(leaf, right, refs);
        }
        shift(right, 0, move, rn);
        copy(leaf, n - move, right, 0, move);
        s.setLeafCount(leaf, n - move);
        s.setLeafCount(right, rn + move);
        recomputeMax(leaf, right);
        tighten(leaf, right, refs);
    }

    /**
     * A run that overflowed {@code leaf} ({@link #writeBack} returned false: the leaf's first {@code first} entries,
     * then {@code run[0, outLen)}) hands its last {@code move} entries to the front of the right neighbour
     * {@code right}, which has room for them.
     */
    void spillToSibling(int leaf, int first, Run run, int outLen, int right, int move, AnchorRefs refs) {
        NodeStore s = store;
        int total = first + outLen;
        int rn = s.leafCount(right);
        if (rn > 0) {
            prefixes.unifyRun(leaf, first, run.key, run.verRef, outLen, refs, right);
        } else {
            prefixes.copyEncoding(leaf, right, refs);
        }
        shift(right, 0, move, rn);
        distribute(leaf, first, run, total - move, total, right);
        s.setLeafCount(leaf, total - move);
        s.setLeafCount(right, rn + move);
        recomputeMax(leaf, right);
        tighten(leaf, right, refs);
    }

    /** The same into the new, empty leaf {@code right} (not linked: the caller's), half of the entries each. */
    void spillToNew(int leaf, int first, Run run, int outLen, int right, AnchorRefs refs) {
        NodeStore s = store;
        int total = first + outLen;
        int keep = total / 2;
        prefixes.copyEncoding(leaf, right, refs);
        distribute(leaf, first, run, keep, total, right);
        s.setLeafCount(leaf, keep);
        s.setLeafCount(right, total - keep);
        recomputeMax(leaf, right);
        tighten(leaf, right, refs);
    }

    /** Appends every entry of {@code right} to its left neighbour {@code left} (which has room); right is left empty. */
    void append(int left, int right, AnchorRefs refs) {
        NodeStore s = store;
        int ln = s.leafCount(left);
        int rn = s.leafCount(right);
        if (ln > 0 && rn > 0) {
            prefixes.unify(left, right, refs);
        } else if (ln == 0) {
            prefixes.copyEncoding(right, left, refs); // an empty leaf is global: it takes right's keys as they are
        }
        copy(right, 0, left, ln, rn);
        prefixes.emptied(right, refs);
        s.setLeafCount(left, ln + rn);
        s.setLeafCount(right, 0);
        s.setLeafMax(left, Math.max(s.leafMax(left), s.leafMax(right)));
        prefixes.tighten(left, refs);
    }

    private void tighten(int leaf, int right, AnchorRefs refs) {
        prefixes.tighten(leaf, refs);
        prefixes.tighten(right, refs);
    }

    /** Copies {@code n} entries from slot {@code from} of {@code src} to slot {@code to} of another leaf {@code dst}. */
    private void copy(int src, int from, int dst, int to, int n) {
        NodeStore s = store;
        int sc = src >>> CHUNK_SHIFT;
        int dc = dst >>> CHUNK_SHIFT;
        int sb = (src & CHUNK_MASK) * s.leafCap + from;
        int db = (dst & CHUNK_MASK) * s.leafCap + to;
        System.arraycopy(s.lKey[sc], sb, s.lKey[dc], db, n);
        System.arraycopy(s.lVerRef[sc], sb, s.lVerRef[dc], db, n);
    }

    /**
     * Writes the new sequence of {@code leaf} — its slots {@code [0, first)}, then the run's output — so that the
     * leaf keeps positions {@code [0, keep)} and positions {@code [keep, total)} go to {@code right} from slot 0 on.
     */
    private void distribute(int leaf, int first, Run run, int keep, int total, int right) {
        NodeStore s = store;
        int cap = s.leafCap;
        int lc = leaf >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * cap;
        int rc = right >>> CHUNK_SHIFT;
        int rb = (right & CHUNK_MASK) * cap;
        // The moving part first: it may include leaf slots [keep, first), which the leaf's part overwrites.
        if (keep < first) {
            int fromLeaf = first - keep;
            copy(leaf, keep, right, 0, fromLeaf);
            System.arraycopy(run.key, 0, s.lKey[rc], rb + fromLeaf, total - first);
            System.arraycopy(run.verRef, 0, s.lVerRef[rc], rb + fromLeaf, total - first);
            return;
        }
        System.arraycopy(run.key, keep - first, s.lKey[rc], rb, total - keep);
        System.arraycopy(run.verRef, keep - first, s.lVerRef[rc], rb, total - keep);
        System.arraycopy(run.key, 0, s.lKey[lc], lb + first, keep - first);
        System.arraycopy(run.verRef, 0, s.lVerRef[lc], lb + first, keep - first);
    }

    private void recomputeMax(int leaf, int right) {
        NodeStore s = store;
        s.setLeafMax(leaf, s.maxOfLeaf(leaf));
        s.setLeafMax(right, s.maxOfLeaf(right));
    }
}
