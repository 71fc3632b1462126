package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fdbresolver.pipeline.BatchWorkers;
import org.fdbresolver.pipeline.CombinedWrites;
import org.fdbresolver.pipeline.History;
import org.fdbresolver.pipeline.HistoryReader;
import org.fdbresolver.pipeline.SortedReads;

/**
 * The write history as a B+ tree: a step function over keys. Each leaf entry {@code (key, version)}
 * begins an interval that runs up to the next entry's key; its version is the commit version of the
 * latest write covering it, or a gap where no retained write does. Entries are sorted by key across the
 * linked leaves; the first interval (before any entry) is a gap.
 *
 * <p>This class puts the tree's parts together behind {@link History}; each role has its own file:
 * <ul>
 * <li>{@link NodeStore} — node pools in primitive arrays, the layout of a node, byte accounting;</li>
 * <li>{@link KeyLayout} (with {@link KeyRefs} and {@link KeyArena}) — the shared prefix, inline
 * longs, key blocks and key comparisons; {@link InnerPrefixes} and {@link LeafPrefixes} — nodes with a
 * prefix of their own;</li>
 * <li>{@link TreeSearch}, {@link BatchRouter}, {@link SingleReadPath} and {@link BatchedReadPath} —
 * descents, the batch's routing, and the two read paths;</li>
 * <li>{@link BatchWriter} — the write path: a batch's writes planned, then applied by {@link PartitionedApply} in
 * key-disjoint partitions ({@link PartitionWriter}: one partition's runs, B-link splits), in pieces when the budget
 * binds; {@link TreeWriter} — single writes and their splits, for a tree of one leaf; {@link LeafEntries} — every
 * move of leaf entries outside a merge loop;</li>
 * <li>{@link Reclaimer} and {@link MemoryBudget} — the sweeper (and its census of versions), and the budget
 * that raises the retained boundary ahead of need, a share bounded by each batch, and drops the oldest history
 * at once when a step still does not fit; {@link VersionWindow} — the retained boundary and the version
 * base;</li>
 * <li>{@link TreeInvariants} — the invariants, checked from scratch by tests.</li>
 * </ul>
 */
public final class HistoryTree implements History {
    /** Node sizes the tree takes (option {@code nodeBytes}). */
    public static final int MIN_NODE_BYTES = 128;
    public static final int MAX_NODE_BYTES = 1 << 20;
    /** The least budget, in nodes: below it no history of useful shape fits. */
    static final long MIN_BUDGET_NODES = 16;

    private final NodeStore store;
    private final KeyLayout layout;
    private final VersionWindow versions;
    private final SingleReadPath singleReads;
    /** The batched read path, or null when reads take one descent each. */
    private final BatchedReadPath batchedReads;
    /** History bytes from which the batched path checks reads (below, one descent each). */
    private final long batchedFromBytes;
    /** Reads from which a batch's reads take the batched path (fewer: one descent each; issue 30). */
    private int batchedFromReads = DEFAULT_BATCHED_FROM_READS;
    /** See {@link #batchedFromReads(int)} (measured: docs/tree.md, "Small batches"). */
    public static final int DEFAULT_BATCHED_FROM_READS = 16;
    private final TreeWriter writer;
    private final BatchWriter batchWriter;
    private final Reclaimer reclaimer;
    private final MemoryBudget budget;
    private final TreeInvariants invariants;
    private final TreeSearch search;
    private final LeafEntries entries;
    private final int readWays;
    private final boolean readTouch;

    // ---- more than one thread for a batch (null / 0: one thread) ----
    private BatchWorkers workers;
    /** A batch's reads are split into slices of at least this many, one thread per slice at a time. */
    private int readsPerSlice = Integer.MAX_VALUE;
    /** Read paths of their own for each slice (each holds its scratch state). */
    private SingleReadPath[] sliceSingle;
    private BatchedReadPath[] sliceBatched;
    private final ReadSlices readSlices = new ReadSlices();
    /** Reclamation by whole leaf parents (null: the sweeper alone); made by {@link #useWorkersForWrites}. */
    private ParentSweep parentSweep;

    /** A history with its own heap reservation ({@link #reservationLimit}) and the default read and write paths. */
    public HistoryTree(int nodeBytes, int keyBlockBytes, long budgetBytes) {
        this(nodeBytes, keyBlockBytes, budgetBytes, ReadPath.BATCHED, BatchedReadPath.DEFAULT_WAYS, true,
                BatchedReadPath.DEFAULT_FROM_BYTES, BatchedReadPath.DEFAULT_WAYS);
    }

    /** How a batch's reads are checked. */
    public enum ReadPath {
        /** One descent per read ({@link SingleReadPath}). */
        SINGLE,
        /** The batch's sorted reads routed together, leaf groups interleaved ({@link BatchedReadPath}). */
        BATCHED
    }

    /**
     * @param readPath  how a batch's reads are checked
     * @param readWays  leaf groups in flight at once on the batched path
     * @param readTouch whether the batched path loads the next step's cache line before yielding
     * @param batchedFromBytes history bytes from which the batched path is used (below, one descent each)
     * @param writeWays writes whose leaves are loaded ahead together (0 or 1: none)
     */
    public HistoryTree(int nodeBytes, int keyBlockBytes, long budgetBytes, ReadPath readPath,
                       int readWays, boolean readTouch, long batchedFromBytes, int writeWays) {
        this(nodeBytes, keyBlockBytes, budgetBytes, new Reservation(reservationLimit(budgetBytes, nodeBytes, keyBlockBytes)),
                readPath, readWays, readTouch, batchedFromBytes, writeWays);
    }

    /**
     * The most heap the backing arrays of histories with this budget, node size and key block size take,
     * together ({@link Reservation#limitFor}): histories that share a budget share one reservation of this size.
     */
    public static long reservationLimit(long budgetBytes, int nodeBytes, int keyBlockBytes) {
        return Reservation.limitFor(budgetBytes, nodeBytes, keyBlockBytes);
    }

    /**
     * @param reservation the heap this history's arrays may take, shared with the histories that share its
     *                    budget (see {@link #shareBudgetWith})
     */
    HistoryTree(int nodeBytes, int keyBlockBytes, long budgetBytes, Reservation reservation, ReadPath readPath,
                int readWays, boolean readTouch, long batchedFromBytes, int writeWays) {
        if (nodeBytes < MIN_NODE_BYTES || nodeBytes > MAX_NODE_BYTES) {
            throw new IllegalArgumentException("nodeBytes must be within [" + MIN_NODE_BYTES + ", " + MAX_NODE_BYTES + "]: " + nodeBytes);
        }
        if (budgetBytes < MIN_BUDGET_NODES * nodeBytes) {
            throw new IllegalArgumentException("memory budget " + budgetBytes + " is below " + MIN_BUDGET_NODES + " nodes of "
                    + nodeBytes + " bytes (" + MIN_BUDGET_NODES * nodeBytes + " bytes), the least a history of that node size "
                    + "works in");
        }
        this.store = new NodeStore(nodeBytes, keyBlockBytes, budgetBytes, reservation);
        this.layout = new KeyLayout(store);
        this.versions = new VersionWindow(store);
        this.search = new TreeSearch(store, layout);
        this.entries = new LeafEntries(store, layout.leaf);
        this.readWays = readWays;
        this.readTouch = readTouch;
        this.singleReads = new SingleReadPath(store, layout, search, versions);
        this.batchedReads = readPath == ReadPath.BATCHED
                ? new BatchedReadPath(store, layout, search, versions, singleReads, readWays, readTouch) : null;
        this.batchedFromBytes = batchedFromBytes;
        this.reclaimer = new Reclaimer(store, layout, search, versions, entries);
        this.budget = new MemoryBudget(store, layout, versions, reclaimer, budgetBytes);
        this.writer = new TreeWriter(store, layout, search, versions, entries);
        this.batchWriter = new BatchWriter(store, layout, search, versions, budget, writer, entries, writeWays);
        this.invariants = new TreeInvariants(store, layout, versions);
    }

    /**
     * The fewest bytes beyond the tree's shared prefix a leaf's own prefix has (engine option {@code leafPrefixMinGain},
     * {@link LeafPrefixes#DEFAULT_MIN_GAIN}); only before the first write.
     */
    public void leafPrefixMinGain(int bytes) {
        if (!isEmpty()) {
            throw new IllegalStateException("the leaves' prefix gain is set before the first write");
        }
        layout.leaf.minGain(bytes);
    }

    /** Logs no warning (its budget binding or falling short): for the warm-up's throwaway engines ({@link WarmUp}). */
    void silence() {
        budget.warns = false;
    }

    /** A batch's reads take the batched path (once the history is large enough) from this many reads on. */
    public void batchedFromReads(int reads) {
        if (reads < 1) {
            throw new IllegalArgumentException("readBatchedFromReads must be positive: " + reads);
        }
        this.batchedFromReads = reads;
    }

    /**
     * Lets a batch use {@code workers}' threads: its reads are checked in slices of at least
     * {@code readsPerSlice} reads at once (the tree is read-only meanwhile, and each read's answer is its own,
     * so how the reads are sliced never changes a decision).
     */
    public void useWorkers(BatchWorkers workers, int readsPerSlice) {
        if (readsPerSlice < 1) {
            throw new IllegalArgumentException("reads per slice must be positive: " + readsPerSlice);
        }
        this.workers = workers;
        this.readsPerSlice = readsPerSlice;
        int slices = ReadSlices.MAX_SLICES_PER_THREAD * workers.threads();
        sliceSingle = new SingleReadPath[slices];
        sliceBatched = new BatchedReadPath[slices];
        for (int i = 0; i < slices; i++) {
            sliceSingle[i] = new SingleReadPath(store, layout, search, versions);
            if (batchedReads != null) {
                sliceBatched[i] = new BatchedReadPath(store, layout, search, versions, sliceSingle[i], readWays, readTouch);
            }
        }
    }

    /**
     * Lets a batch's writes and its reclamation use {@code workers}' threads (null: the caller's alone): the writes'
     * key-disjoint partitions of at least {@code writesPerPartition} writes run at once, and the sweep goes by whole
     * leaf parents ({@link ParentSweep}). How a batch is cut never changes the tree: it is the same for every thread
     * count (docs/tree.md, "More than one thread").
     */
    public void useWorkersForWrites(BatchWorkers workers, int writesPerPartition) {
        if (writesPerPartition < 1) {
            throw new IllegalArgumentException("writes per partition must be positive: " + writesPerPartition);
        }
        batchWriter.useWorkers(workers, writesPerPartition);
        parentSweep = new ParentSweep(store, layout, search, versions, reclaimer, workers);
    }

    // ---- accounting ----

    @Override
    public long historyBytes() {
        return store.historyBytes();
    }

    @Override
    public long retainedVersion() {
        return versions.retained;
    }

    public int leafCapacity() {
        return store.leafCap;
    }

    public int innerCapacity() {
        return store.innerCap;
    }

    public int leavesInUse() {
        return store.leavesInUse;
    }

    /** Inner nodes with a prefix of their own ({@link InnerPrefixes}); a walk of the tree, for tests. */
    int localInnerNodes() {
        return store.height == 0 ? 0 : countLocal(store.root, store.height);
    }

    private int countLocal(int h, int level) {
        int n = layout.inner.localSkip(h) != 0 ? 1 : 0;
        if (level > 1) {
            for (int i = 0, count = store.innerCount(h); i < count; i++) {
                n += countLocal(store.child(h, i), level - 1);
            }
        }
        return n;
    }

    /** Leaves with a prefix of their own ({@link LeafPrefixes}); a walk of the leaf chain, for tests. */
    int localLeaves() {
        int n = 0;
        for (int leaf = store.leftmostLeaf(); leaf != NIL; leaf = store.leafNext(leaf)) {
            n += layout.leaf.localSkip(leaf) != 0 ? 1 : 0;
        }
        return n;
    }

    /** The prefix of its own ({@link LeafPrefixes}; 0: none) of the leaf holding {@code key}; for tests. */
    int leafPrefixAt(byte[] key) {
        int len = layout.searchLength(key, 0, key.length);
        return layout.leaf.localSkip(search.findLeaf(layout.searchInline(key, 0, len), key, 0, len));
    }

    /** The most local leaves anchored on one key chunk ({@link LeafPrefixes}); a walk of the leaf chain, for tests. */
    int mostLeavesOnOneAnchor() {
        Map<Integer, Integer> leaves = new HashMap<>();
        int most = 0;
        for (int leaf = store.leftmostLeaf(); leaf != NIL; leaf = store.leafNext(leaf)) {
            if (layout.leaf.localSkip(leaf) != 0) {
                most = Math.max(most, leaves.merge(store.leafAnchor(leaf), 1, Integer::sum));
            }
        }
        return most;
    }

    /** Keys stored as their leaf's prefix and their long, without a chunk ({@link KeyRefs#isSuffix}). A walk, for tests. */
    long suffixKeys() {
        long n = 0;
        for (int leaf = store.leftmostLeaf(); leaf != NIL; leaf = store.leafNext(leaf)) {
            int base = (leaf & NodeStore.CHUNK_MASK) * store.leafCap;
            for (int j = 0, count = store.leafCount(leaf); j < count; j++) {
                n += KeyRefs.isSuffix(NodeStore.ref(store.lVerRef[leaf >>> NodeStore.CHUNK_SHIFT][base + j])) ? 1 : 0;
            }
        }
        return n;
    }

    /**
     * Leaves with a prefix of their own whose anchor is not their first key's chunk (the key it was taken from went
     * since, or moved on): the prefix outlives the key. A walk of the leaf chain, for tests.
     */
    int leavesAnchoredApart() {
        int n = 0;
        for (int leaf = store.leftmostLeaf(); leaf != NIL; leaf = store.leafNext(leaf)) {
            if (layout.leaf.localSkip(leaf) != 0
                    && store.leafAnchor(leaf) != NodeStore.ref(
                            store.lVerRef[leaf >>> NodeStore.CHUNK_SHIFT][(leaf & NodeStore.CHUNK_MASK) * store.leafCap]) >>> 1) {
                n++;
            }
        }
        return n;
    }

    public int innersInUse() {
        return store.innersInUse;
    }

    public long keyBytesInUse() {
        return store.arena.bytesInUse();
    }

    /** Heap held by this history's backing arrays, in use or free (array headers included). */
    public long reservedBytes() {
        return store.reservedBytes();
    }

    /** The most heap this history's arrays and those of the histories sharing its reservation may take. */
    public long reservationLimit() {
        return store.reservation.limit();
    }

    public int height() {
        return store.height;
    }

    /** The length of the prefix every key in the tree shares (the inline longs hold the 8 bytes after it). */
    public int sharedPrefixLength() {
        return layout.skip();
    }

    /**
     * Changes of the shared prefix's encoding ({@link KeyLayout#epoch}): past the first key, each a shortening of the
     * prefix (the separators re-encoded at once, the leaves in steps).
     */
    int prefixEpoch() {
        return layout.epoch();
    }

    @Override
    public boolean isEmpty() {
        return store.height == 0 && store.leafCount(store.root) == 0;
    }

    /** Entries in the leaves (a walk over the leaf chain: for reports, not the hot path). */
    public long entryCount() {
        long n = 0;
        for (int leaf = store.leftmostLeaf(); leaf != NIL; leaf = store.leafNext(leaf)) {
            n += store.leafCount(leaf);
        }
        return n;
    }

    // ---- reads ----

    @Override
    public boolean conflicts(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot) {
        return singleReads.conflicts(keys, bOff, bLen, eOff, eLen, snapshot);
    }

    @Override
    public void startInOrder() {
        singleReads.startInOrder();
    }

    @Override
    public boolean conflictsInOrder(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot) {
        return singleReads.conflictsInOrder(keys, bOff, bLen, eOff, eLen, snapshot);
    }

    /** Whether the batched path checks {@code reads} reads: a history of {@code readBatchedFromBytes}, enough reads. */
    @Override
    public boolean prefersSorted(int reads) {
        return batchedReads != null && reads >= batchedFromReads && store.historyBytes() >= batchedFromBytes;
    }

    @Override
    public void checkSorted(SortedReads reads) {
        if (isEmpty()) {
            return; // an empty history conflicts with nothing
        }
        int n = reads.count();
        boolean batched = prefersSorted(n);
        if (workers != null && n >= 2L * readsPerSlice) {
            readSlices.check(reads, batched, n);
        } else if (batched) {
            batchedReads.check(reads);
        } else {
            History.super.checkSorted(reads);
        }
    }

    /**
     * The reads checked in slices, one thread per slice at a time: consecutive runs of the sorted reads, each
     * checked by a read path of its own. More slices than threads, so that a thread the system delays holds up
     * little of the batch.
     */
    private final class ReadSlices implements BatchWorkers.Task {
        static final int MAX_SLICES_PER_THREAD = 4;
        private SortedReads reads;
        private boolean batched;
        private int count;
        private int slices;

        void check(SortedReads reads, boolean batched, int n) {
            this.reads = reads;
            this.batched = batched;
            this.count = n;
            this.slices = (int) Math.min((long) sliceSingle.length, n / readsPerSlice);
            workers.run(this, slices);
            this.reads = null;
        }

        @Override
        public void run(int slice) {
            int from = (int) ((long) count * slice / slices);
            int to = (int) ((long) count * (slice + 1) / slices);
            if (batched) {
                sliceBatched[slice].check(reads, from, to);
                return;
            }
            HistoryReader.checkSortedOneByOne(sliceSingle[slice], reads, from, to);
        }
    }

    // ---- writes and the budget ----

    @Override
    public long bytesNeeded(CombinedWrites writes) {
        // A rough upper estimate without routing (it must not change the tree): every leaf the
        // endpoints could fill splitting, inner splits above, key bytes of every long endpoint.
        int m = writes.count();
        long leaves = 2L * m / Math.max(1, store.leafCap / 2) + 1;
        long inners = leaves / Math.max(1, store.innerCap / 2) + store.height + 2;
        long keyBytes = 0;
        byte[] keys = writes.keys();
        for (int i = 0; i < m; i++) {
            int bLen = writes.beginLength(i);
            int eLen = writes.endLength(i);
            keyBytes += (KeyRefs.fitsInline(keys, writes.beginOffset(i), bLen) ? 0 : KeyArena.chunkBytes(bLen))
                    + (KeyRefs.fitsInline(keys, writes.endOffset(i), eLen) ? 0 : KeyArena.chunkBytes(eLen));
        }
        return (leaves + inners) * store.nodeBytes + keyBytes;
    }

    @Override
    public void prepareMerge(long now, CombinedWrites writes, long otherBytes) {
        if (versions.needsRebase(now)) {
            versions.rebase(now);
            reclaimer.forgetCensus(); // its buckets were of the old relative versions
        }
        budget.noteKeyLength(writes.maxKeyLength());
        batchWriter.plan(writes, versions.relative(now));
        budget.prepare(now, writes.maxKeyLength(), batchWriter.plannedLeaves(), batchWriter.plannedInners(),
                batchWriter.plannedKeyBytes(), otherBytes);
    }

    /** Lets {@code other} draw on this history's budget too: what it holds is not available here. */
    public void shareBudgetWith(History other) {
        budget.shareWith(other);
    }

    @Override
    public void merge(CombinedWrites writes, long now) {
        if (budget.dropsBatchWrites()) {
            return;
        }
        batchWriter.apply(writes, versions.relative(now), now);
        // A shrunk shared prefix's leaves are lowered in steps: a bounded share each batch (KeyLayout#reencode).
        layout.lowerSome(prefixLoweringLeaves + writes.count());
    }

    /** Leaves {@link KeyLayout#lowerSome} looks at per batch beyond one per write (a leaf's worth of arithmetic each). */
    static final int DEFAULT_PREFIX_LOWERING_LEAVES = 16;
    private int prefixLoweringLeaves = DEFAULT_PREFIX_LOWERING_LEAVES;

    /** Sets the engine option {@code prefixLoweringLeaves} ({@link #DEFAULT_PREFIX_LOWERING_LEAVES}). */
    public void prefixLoweringLeaves(int leaves) {
        this.prefixLoweringLeaves = leaves;
    }

    /** Whether some leaves still follow a longer shared prefix than the tree's (tests). */
    boolean prefixLowering() {
        return layout.lowering();
    }

    /** Leaves whose longs were lowered to a shorter shared prefix so far (tests). */
    long prefixLoweredLeaves() {
        return layout.leavesLowered;
    }

    /** The budget in bytes this history was opened with. */
    public long budgetBytes() {
        return budget.budgetBytes();
    }

    /**
     * Times the oldest history was dropped at once to make room for a step that did not fit: each a sweep of the
     * whole tree in one batch, the fallback when raising the boundary ahead of need did not keep up.
     */
    public long evictions() {
        return budget.evictions();
    }

    /** Times the retained boundary was raised ahead of need, each freed over the batches of one sweeper's pass. */
    public long boundaryRaises() {
        return budget.raises();
    }

    /**
     * Entries the sweeps of the last batch looked at (before compacting them): with raises ahead of need, at most
     * {@code 2 × leaf capacity + 64 × merged writes} plus one leaf, unless a full sweep ({@link #evictions()}) ran.
     */
    public long lastBatchSweptEntries() {
        return lastBatchSweptEntries;
    }

    private long lastBatchSweptEntries;
    private long sweptBeforeBatch;

    /**
     * Whether the boundary is raised ahead of need (the default; docs/tree.md, "Budget"). The uncertain history
     * turns it off: it follows the main history's boundary.
     */
    public void evictAhead(boolean on) {
        budget.evictAhead(on);
    }

    /** Every write from now on applied singly, not by partitions ({@link BatchWriter#writeSingly}; tests). */
    void writeSingly() {
        batchWriter.writeSingly();
    }

    /** Batches whose writes were applied by the partitions in one phase ({@link BatchWriter}). */
    public long partitionedBatches() {
        return batchWriter.partitionedBatches();
    }

    /**
     * Batches whose writes were applied in pieces, the budget checked before each (it had no room for the most the
     * whole batch adds), or singly in a tree of one leaf ({@link BatchWriter}).
     */
    public long piecewiseBatches() {
        return batchWriter.piecewiseBatches();
    }

    /**
     * Batches cut into several partitions, splits installed after the phase, siblings that took entries, sweeps by leaf
     * parents (0 without {@link #useWorkersForWrites}), parents rewritten in their own encoding (tests).
     */
    long[] partitionCounters() {
        long[] c = batchWriter.partitionCounters();
        return new long[] {c[0], c[1], c[2], parentSweep == null ? 0 : parentSweep.sweeps, c[3]};
    }

    /** Batches whose writes did not fit even into an empty history (all history was forgotten). */
    public long forgottenBatches() {
        return budget.forgottenBatches();
    }

    // ---- reclamation ----

    @Override
    public void removeBefore(long oldestVersion, int mergedRanges) {
        versions.retain(oldestVersion);
        long work = budget.sweepWork(mergedRanges) - sweepOwed;
        long before = reclaimer.visited;
        if (work > 0) {
            // Two leaf parents' worth or more: whole parents first, at once on the threads (the same tree for any
            // count); the sweeper does the rest, or all of it.
            long rest = parentSweep == null ? -1 : parentSweep.sweep(work);
            if (rest != 0) {
                reclaimer.sweep(rest < 0 ? work : rest);
            }
        }
        lastBatchSweptEntries = reclaimer.visited - sweptBeforeBatch;
        sweptBeforeBatch = reclaimer.visited;
        sweepOwed = Math.max(0, reclaimer.visited - before - work);
    }

    /**
     * Entries the sweeps visited beyond the work asked of them, which the next batches' work pays off first: a sweep
     * visits whole leaves, so a small batch's share (a quarter leaf and 8 entries per write) would otherwise cost a
     * whole leaf every batch (issue 30), and the sweep's pace is now the one {@link MemoryBudget#sweepWork} sets.
     */
    private long sweepOwed;

    @Override
    public void clear(long version) {
        sweepOwed = 0;
        budget.forgetAll();
        versions.retain(version);
    }

    // ---- invariants (tests and assertions) ----

    /**
     * Checks every structural invariant and throws {@link AssertionError} naming the first broken one:
     * keys strictly increasing across the leaf chain, separators routing correctly, max versions
     * bounding their subtrees, links consistent, and the byte accounting equal to a recount.
     */
    public void checkInvariants() {
        invariants.check();
    }

    /** Every entry as (key, version or null for a gap), in key order: for tests. */
    public List<Map.Entry<byte[], Long>> entries() {
        return invariants.entries();
    }
}
