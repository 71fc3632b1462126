package org.fdbresolver.tree;

import java.util.Arrays;
import org.fdbresolver.pipeline.BatchWorkers;
import org.fdbresolver.pipeline.CombinedWrites;

/**
 * A batch's combined writes (sorted, disjoint) into the tree, on one path whatever the batch's size and the thread
 * count:
 * <ol>
 * <li>{@link #plan}: every endpoint admitted to the shared prefix, encoded and routed to its leaf (the maxima on the
 * way raised to the batch's version), and what the batch adds estimated for the budget's look ahead
 * ({@link MemoryBudget#prepare});</li>
 * <li>{@link #apply}: the writes applied by {@link PartitionedApply} in key-disjoint partitions (one per thread and
 * more, or one) — the whole batch in one phase when the budget has room for the most it can add without dropping any
 * history; otherwise in pieces routed afresh, from a leaf's worth of writes, halved until the most a piece adds fits.
 * </li>
 * </ol>
 * A tree of one leaf is given an inner root for the batch, its only parent (taken away again if the leaf did not
 * split). Three cases take single writes ({@link TreeWriter}): a tree of one leaf with no room for that root;
 * a write whose leaf holds suffix keys it would lower, which would need key chunks made during the phase
 * ({@link LeafPrefixes#partsCanWrite}); and a write the budget has no room for until it drops the oldest history (or,
 * when not even an empty history holds it, the batch's writes: {@link MemoryBudget#ensureRoom}). So history is
 * dropped only when not even one write fits, and then room for that write and the batch's rest as estimated.
 */
final class BatchWriter {
    /** Fewest writes a partition gets when the writes are spread over threads, unless told ({@link #useWorkers}). */
    static final int DEFAULT_WRITES_PER_PARTITION = 64;

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final LeafEntries entries;
    private final MemoryBudget budget;
    /** The single writes (a tree of one leaf, or a piece the partitions may not write). */
    private final TreeWriter writer;
    /** Leaves loaded ahead together by the partitions' writers ({@link WriteAhead}). */
    private final int ways;
    private PartitionedApply partitioned;

    // ---- the batch's endpoints (begin 2i, end 2i + 1), encoded and routed ----
    private long[] endpointKey = new long[128];
    private int[] endpointOff = new int[128];
    private int[] endpointLen = new int[128];
    private int[] endpointLeaf = new int[128];
    private int[] endpointParent = new int[128];
    private int[] endpointSlot = new int[128];
    /** Key-block bytes of the writes before write i (prefix sums, for the budget's checks). */
    private long[] keyBytesBefore = new long[65];
    private int plannedWrites = -1;
    private int plannedVersion;
    private long plannedLeaves;
    private long plannedKeyBytes;
    /** Whether the plan routed into inner nodes, and the budget's steps and the layout's epoch then (a change: stale). */
    private boolean routedAtPlan;
    private long budgetStepsAtPlan;
    private int epochAtPlan;

    /** Every write single ({@link #writeSingly}; tests of the single-write path's own splits). */
    private boolean singly;

    /** Batches applied whole by the partitions, and in pieces under a budget with no room for the whole. */
    private long partitionedBatches;
    private long piecewiseBatches;

    BatchWriter(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, MemoryBudget budget,
                TreeWriter writer, LeafEntries entries, int ways) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.entries = entries;
        this.budget = budget;
        this.writer = writer;
        this.ways = ways;
        useWorkers(null, DEFAULT_WRITES_PER_PARTITION);
    }

    /**
     * Spreads each phase over {@code workers}' threads (null: the caller's alone) in partitions of at least
     * {@code writesPerPartition} writes. Where a batch is cut never changes the tree ({@link PartitionWriter}).
     */
    void useWorkers(BatchWorkers workers, int writesPerPartition) {
        this.partitioned = new PartitionedApply(store, layout, search, versions, entries, budget, workers,
                writesPerPartition, ways);
    }

    /**
     * Admits every endpoint of {@code w} to the shared prefix, encodes them and routes them to their leaves (raising
     * the maxima on the way to relative version {@code v}); then estimates what applying the batch adds: for each
     * destination leaf, the leaves its entries will need beyond itself, and the key-block bytes of the new keys and of
     * a separator per new leaf.
     */
    void plan(CombinedWrites w, int v) {
        NodeStore s = store;
        int m = w.count();
        ensureEndpoints(m);
        plannedWrites = m;
        plannedVersion = v;
        route(w, 0, m, v);
        routedAtPlan = s.height > 0;
        budgetStepsAtPlan = budgetSteps();
        epochAtPlan = layout.epoch();
        byte[] keys = w.keys();
        long keyBytes = 0;
        for (int x = 0; x < m; x++) {
            keyBytesBefore[x] = keyBytes;
            keyBytes += s.height > 0 ? partitioned.newKeyBytes(x) : PartitionedApply.keyBytes(
                    PartitionedApply.keyKind(keys, w.beginOffset(x), w.beginLength(x), w.endOffset(x), w.endLength(x)),
                    w.beginLength(x), w.endLength(x));
        }
        keyBytesBefore[m] = keyBytes;
        // A destination leaf with n entries receiving k writes ends up in at most ceil((n + 2k) / cap) leaves (the
        // begins decide: a write's end lands in its begin's leaf but for the few that reach past it).
        long leaves = 0;
        int cap = s.leafCap;
        for (int i = 0; i < 2 * m; ) {
            int leaf = endpointLeaf[i];
            int j = i + 2;
            while (j < 2 * m && endpointLeaf[j] == leaf) {
                j += 2;
            }
            int total = s.leafCount(leaf) + (j - i);
            leaves += (total + cap - 1) / cap - 1;
            i = j;
        }
        plannedLeaves = leaves;
        plannedKeyBytes = keyBytes + budget.separatorBytesBound(leaves);
    }

    /**
     * Admits, encodes and routes writes {@code [from, to)} as the tree is now (maxima raised to {@code v}); in a tree of
     * one leaf, every endpoint is that leaf's.
     */
    private void route(CombinedWrites w, int from, int to, int v) {
        KeyLayout kl = layout;
        byte[] keys = w.keys();
        if (from < to) {
            // The writes are sorted and disjoint: the lowest and highest endpoints shorten the prefix once, and every
            // endpoint between them then has it.
            kl.admitBoth(keys, w.beginOffset(from), w.beginLength(from), w.endOffset(to - 1), w.endLength(to - 1));
        }
        if (store.height > 0) {
            partitioned.encodeAndRoute(w, from, to, endpointKey, endpointOff, endpointLen, endpointLeaf, endpointParent,
                    endpointSlot, v);
        } else {
            Arrays.fill(endpointLeaf, 2 * from, 2 * to, store.root);
        }
        if (kl.lowering()) {
            lowerRoutedLeaves(from, to);
        }
    }

    /**
     * Lowers the leaves writes {@code [from, to)} land in that still follow a longer prefix than the tree's
     * ({@link KeyLayout#reencode}), once each: here, on one thread, so that the partitions' threads find the leaves they
     * write in the tree's encoding. (A leaf a partition's overflow reaches, its original right neighbour without writes
     * of its own, is lowered by that partition's thread when it takes entries, {@link LeafPrefixes#unifyRun}: no other
     * thread touches it in the phase. Lowering every routed leaf's neighbour here cost a scattered leaf per write.)
     */
    private void lowerRoutedLeaves(int from, int to) {
        KeyLayout kl = layout;
        int last = NodeStore.NIL;
        for (int i = 2 * from; i < 2 * to; i++) {
            int leaf = endpointLeaf[i];
            if (leaf != last) {
                kl.ensureCurrent(leaf);
                last = leaf;
            }
        }
    }

    /** Leaves the planned batch adds (an estimate; every step is checked against the budget anyway). */
    long plannedLeaves() {
        return plannedLeaves;
    }

    /** Inner nodes the planned batch adds (an estimate). */
    long plannedInners() {
        return plannedLeaves / Math.max(1, store.innerCap / 2) + store.height + 2;
    }

    long plannedKeyBytes() {
        return plannedKeyBytes;
    }

    private void ensureEndpoints(int writes) {
        if (endpointKey.length < 2 * writes) {
            int n = Math.max(2 * writes, endpointKey.length * 2);
            endpointKey = new long[n];
            endpointOff = new int[n];
            endpointLen = new int[n];
            endpointLeaf = new int[n];
            endpointParent = new int[n];
            endpointSlot = new int[n];
        }
        if (keyBytesBefore.length < writes + 1) {
            keyBytesBefore = new long[Math.max(writes + 1, keyBytesBefore.length * 2)];
        }
    }

    /**
     * Applies the planned writes at relative version {@code v} (see the class comment); returns false when the budget
     * dropped the batch's writes instead ({@link MemoryBudget#ensureRoom}).
     */
    boolean apply(CombinedWrites w, int v, long now) {
        int m = w.count();
        if (m != plannedWrites || v != plannedVersion) {
            plan(w, v);
        }
        if (m == 0) {
            return true;
        }
        if (singly) {
            return applySingly(w, v, now, 0, m);
        }
        if (store.height == 0 && budget.fitsWithoutEviction(0, 1, 0)) {
            liftRoot();
        }
        try {
            return applyRouted(w, v, now);
        } finally {
            dropLoneRoot();
        }
    }

    private boolean applyRouted(CombinedWrites w, int v, long now) {
        int m = w.count();
        PartitionedApply pa = partitioned;
        byte[] keys = w.keys();
        if (store.height > 0 && (budgetSteps() != budgetStepsAtPlan || layout.epoch() != epochAtPlan || !routedAtPlan)) {
            route(w, 0, m, v); // making room for the batch changed the tree since it was routed (or gave it a root)
        }
        // The whole batch in one phase when the budget has room for the most it can add.
        if (store.height > 0 && measuredFits(keys, 0, m)) {
            pa.apply(w, v, 0, m);
            partitionedBatches++;
            return true;
        }
        // In pieces, each routed as the tree is now: a leaf's worth of writes, halved while the most a piece adds does
        // not fit without dropping history (or a leaf of it holds suffix keys its writes would lower); a single write
        // that still does not goes alone, the budget making room first.
        piecewiseBatches++;
        int i = 0;
        int size = store.leafCap;
        while (i < m) {
            if (store.height == 0) {
                return applySingly(w, v, now, i, m);
            }
            int j = Math.min(m, i + size);
            route(w, i, j, v);
            if (measuredFits(keys, i, j)) {
                pa.apply(w, v, i, j);
                i = j;
            } else if (j - i > 1) {
                size = (j - i) / 2;
            } else {
                if (!applySingly(w, v, now, i, j)) {
                    return false;
                }
                i = j;
                size = store.leafCap;
            }
        }
        return true;
    }

    /**
     * Whether the partitions may apply routed writes {@code [from, to)} and the most they add fits without dropping
     * history ({@link PartitionedApply#measure}).
     */
    private boolean measuredFits(byte[] keys, int from, int to) {
        PartitionedApply pa = partitioned;
        return pa.measure(keys, from, to) && budget.fitsWithoutEviction(pa.boundLeaves, pa.boundInners, pa.boundKeyBytes);
    }

    /**
     * Puts an inner root above a tree of one leaf, so that a batch's partitions have a parent to cut under (single
     * writes into the leaf split it at its middle, so ascending keys would leave every leaf half full; a run fills it).
     */
    private void liftRoot() {
        NodeStore s = store;
        int leaf = s.root;
        int r = s.allocInner();
        s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, leaf, s.leafMax(leaf));
        s.setInnerCount(r, 1);
        s.root = r;
        s.height = 1;
    }

    /** A root of one child (a lifted leaf the batch did not split) gives way to that child again. */
    private void dropLoneRoot() {
        NodeStore s = store;
        if (s.height == 1 && s.innerCount(s.root) == 1) {
            int old = s.root;
            s.root = s.child(old, 0);
            s.height = 0;
            s.freeInner(old);
        }
    }

    /** Writes {@code [from, to)} one at a time ({@link TreeWriter#merge}), each checked against the budget first. */
    private boolean applySingly(CombinedWrites w, int v, long now, int from, int to) {
        byte[] keys = w.keys();
        for (int x = from; x < to; x++) {
            // The most one write adds: splitting two leaves, with inner splits on the way down; its keys, a separator
            // per split, and the chunks of suffix keys in the leaves it lowers (LeafPrefixes).
            long keyBound = keyBytesBefore[x + 1] - keyBytesBefore[x] + 2 * budget.separatorBytesBound(1)
                    + layout.leaf.loweringBytesBound();
            if (!budget.ensureRoom(now, 2, 2L * (store.height + 2), keyBound, laterBytes(x))) {
                return false;
            }
            writer.merge(keys, w.beginOffset(x), w.beginLength(x), w.endOffset(x), w.endLength(x), v);
        }
        return true;
    }

    /** Evictions and forgotten batches so far: a change means the tree changed under a route. */
    private long budgetSteps() {
        return budget.evictions() + budget.forgottenBatches();
    }

    /** The planned bytes of the writes from {@code i} on (what later steps will still need). */
    private long laterBytes(int i) {
        int m = Math.max(1, plannedWrites);
        long share = (plannedLeaves + plannedInners()) * store.nodeBytes * (m - i) / m;
        return share + keyBytesBefore[plannedWrites] - keyBytesBefore[Math.min(i, plannedWrites)];
    }

    /**
     * Applies every write singly ({@link TreeWriter}) from now on: for tests of what only that path's splits make (it
     * runs in a tree of one leaf, for writes lowering suffix keys, and where the budget makes room).
     */
    void writeSingly() {
        singly = true;
    }

    long partitionedBatches() {
        return partitionedBatches;
    }

    long piecewiseBatches() {
        return piecewiseBatches;
    }

    /**
     * The partitions' counters (tests): batches cut into several, splits installed, siblings updated, parents rewritten
     * in their own encoding.
     */
    long[] partitionCounters() {
        PartitionedApply p = partitioned;
        return new long[] {p.multiPartBatches, p.splitsInstalled, p.siblingsUpdated, p.localRewrites};
    }
}
