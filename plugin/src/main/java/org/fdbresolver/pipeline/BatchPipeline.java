package org.fdbresolver.pipeline;

import java.util.Arrays;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.Keys;
import org.fdbresolver.api.Phase;

/**
 * FoundationDB's resolver phases for one batch, around a {@link History}:
 * <ol>
 * <li>too old: a transaction with reads and a snapshot below {@code max(newOldestVersion, retained)}
 * (timed with {@code checkRead});</li>
 * <li>{@code sort}: endpoints of the other transactions' non-empty ranges, sorted and numbered; the
 * reads come out sorted by begin key ({@link SortedReads});</li>
 * <li>{@code checkRead}: every read of those transactions against the history, all at once through
 * {@link HistoryReader#checkSorted} (a read path may share work between reads that sort together),
 * empty reads one by one;</li>
 * <li>{@code checkIntraBatch}: in trace order, non-empty reads against the {@link MiniConflictSet} of
 * earlier committed writes; a committing transaction then sets its writes;</li>
 * <li>{@code combine}: the set's runs are the committed writes as disjoint sorted ranges
 * ({@link CombinedWrites});</li>
 * <li>{@code mergeWrite}: the combined writes enter the history at {@code now}, together;</li>
 * <li>{@code removeBefore}: history older than {@code newOldestVersion} is discarded.</li>
 * </ol>
 * Every scratch array is reused and grows only when a batch is larger than any before.
 *
 * <p><b>Small batches</b> (issue 30: a Resolver's batches hold one to five transactions). A batch of at most
 * {@code directRanges} reads and writes, whose reads the history does not check faster sorted
 * ({@link HistoryReader#prefersSorted}), checks its reads against the history first, one descent each; then, when its
 * undecided reads times the earlier writes that may commit are at most {@code directPairs}, the direct path: each such
 * read compared with those writes ({@code b < we && wb < e}, exactly where the set's runs of ranks overlap), and the
 * committed writes combined by a short sort of their own, touching or overlapping ones as one range, as the set's runs
 * are. Otherwise the endpoints of what is still undecided are sorted then, and the set does the rest. No step costs
 * more than the batch: no sort, set or ranks to set up. The decisions, conflicting reads and history are those of the
 * large-batch path (tested: {@code SmallBatchPathTest}).
 *
 * <p><b>Uncertain writes.</b> A transaction that is TOO_OLD only because the memory budget raised the
 * retained boundary above its snapshot is one FoundationDB would have checked, and might have committed.
 * Its writes are therefore kept apart, in a second history of "uncertain" writes, and a later reader
 * that overlaps one (in the same batch or after) is answered TOO_OLD too, and its writes become
 * uncertain in turn. So every COMMIT and CONFLICT this pipeline gives is exactly FoundationDB's, even
 * under budget pressure; only TOO_OLD is answered more often. A reader that conflicts with a certain
 * write is CONFLICT as usual, unless it reports conflicting keys and also overlaps an uncertain write
 * (FoundationDB's list of conflicting reads could then be longer): then it is TOO_OLD.
 */
public final class BatchPipeline {
    private static final byte UNDECIDED = -1;

    private final History history;
    private final HistoryReader reader;
    /** Writes of transactions that were TOO_OLD only by the budget (null: none are kept apart). */
    private final History uncertain;
    private final EndpointSorter sorter;
    private final MiniConflictSet miniSet = new MiniConflictSet();
    private final MiniConflictSet uncertainSet = new MiniConflictSet();
    private boolean[] uncertainWriter = new boolean[64];
    private final CombinedWrites combined = new CombinedWrites();
    private final CombinedWrites uncertainCombined = new CombinedWrites();
    private final long[] phaseNanos = new long[Phase.values().length];

    private byte[] state = new byte[64];
    private boolean[] historyConflict = new boolean[64];
    /** Reporting transactions' conflicting read indices: {@code reported[reportStart[t] ..)} for t with history conflicts. */
    private int[] reportStart = new int[64];
    private int[] reportCount = new int[64];
    private int[] reported = new int[64];
    private int reportedCount;
    private int[] intraRead = new int[64];
    private int[] readBeginId = new int[256];
    private int[] readEndId = new int[256];
    /** Each non-empty read's snapshot, and its position in {@link #sortedReads}. */
    private long[] readSnapshot = new long[256];
    /** Each non-empty read's transaction, or {@link SortedReads#NO_OWNER} when it reports conflicting keys. */
    private int[] readOwner = new int[256];
    private int[] readPosition = new int[256];
    private final SortedReads sortedReads = new SortedReads();
    private int[] writeBeginId = new int[256];
    private int[] writeEndId = new int[256];
    /** Whether some transaction of the batch is an uncertain writer (set by the too-old check, raised by later phases). */
    private boolean anyUncertain;

    // ---- the direct path for small batches (issue 30) ----
    /** Batches with at most this many reads times earlier writes, and this many ranges, take the direct path. */
    private final long directPairs;
    private final int directRanges;
    /** The direct path's non-empty writes of committed transactions, and of uncertain writers, in trace order. */
    private int[] committedWrites = new int[64];
    private int committedCount;
    private int[] uncertainWrites = new int[64];
    private int uncertainCount;

    // ---- more than one thread (null: one) ----
    private BatchWorkers workers;
    /** A batch with at least twice this many endpoints is sorted in slices across the threads. */
    private int endpointsPerSlice = Integer.MAX_VALUE;
    private final SortSlices sortSlices = new SortSlices();
    private final CombineSlices combineSlices = new CombineSlices();

    /** A pipeline without an uncertain-write history (it assumes the budget never binds). */
    public BatchPipeline(History history) {
        this(history, history, null);
    }

    /**
     * @param history   the committed writes
     * @param reader    the read check over {@code history} (another read path can be put side by side)
     * @param uncertain the writes of transactions made TOO_OLD by the budget (see the class comment), or null
     */
    public BatchPipeline(History history, HistoryReader reader, History uncertain) {
        this(history, reader, uncertain, EndpointSorter.DEFAULT_DIRECT_SORT_ENDPOINTS);
    }

    /**
     * @param directSortEndpoints batches of at most this many endpoints are sorted by comparison, larger ones by
     *                            radix passes (0: always radix); the order and ranks are the same either way
     */
    public BatchPipeline(History history, HistoryReader reader, History uncertain, int directSortEndpoints) {
        this(history, reader, uncertain, directSortEndpoints, DEFAULT_DIRECT_PAIRS, DEFAULT_DIRECT_RANGES);
    }

    /**
     * @param directPairs  batches whose reads times the writes of the transactions before them are at most this many,
     * @param directRanges and whose reads and writes are at most this many, take the direct path: no sort, one
     *                     descent per read, reads compared with earlier writes directly ({@code directRanges} 0:
     *                     never); the decisions and the history are the same either way
     */
    public BatchPipeline(History history, HistoryReader reader, History uncertain, int directSortEndpoints,
                         long directPairs, int directRanges) {
        this.history = history;
        this.reader = reader;
        this.uncertain = uncertain;
        this.sorter = new EndpointSorter(directSortEndpoints);
        this.directPairs = directPairs;
        this.directRanges = directRanges;
    }

    /** See {@link #BatchPipeline(History, HistoryReader, History, int, long, int)}. */
    public static final long DEFAULT_DIRECT_PAIRS = 128;
    public static final int DEFAULT_DIRECT_RANGES = 64;

    /** The endpoint count up to which a batch is sorted by comparison (see the constructor). */
    public static int defaultDirectSortEndpoints() {
        return EndpointSorter.DEFAULT_DIRECT_SORT_ENDPOINTS;
    }

    /**
     * The sort goes across threads only from this many times {@code 2 * endpointsPerSlice} endpoints: on two free
     * cores it was slower than the serial sort on all six benchmark workloads (batches of up to 4,000 transactions,
     * docs/tree.md, "Measured again on a quiet machine"), its scatter, range sorts and rank pass costing more than
     * the second core gives back.
     */
    static final int SORT_SLICE_FACTOR = 64;

    /**
     * Lets the sort use {@code workers}' threads for batches of at least {@code 2 * SORT_SLICE_FACTOR *
     * endpointsPerSlice} endpoints:
     * the endpoints are added in slices of transactions and sorted in slices and ranges ({@link EndpointSorter}),
     * into the same ids, order and ranks as on one thread.
     */
    public void useWorkers(BatchWorkers workers, int endpointsPerSlice) {
        if (endpointsPerSlice < 1) {
            throw new IllegalArgumentException("endpoints per slice must be positive: " + endpointsPerSlice);
        }
        this.workers = workers;
        this.endpointsPerSlice = endpointsPerSlice;
    }

    /** The retained boundary: reads below it are TOO_OLD (the larger of both histories' boundaries). */
    public long retainedVersion() {
        return uncertain == null ? history.retainedVersion() : Math.max(history.retainedVersion(), uncertain.retainedVersion());
    }

    public void addPhaseNanos(long[] nanosByPhase) {
        for (int i = 0; i < phaseNanos.length; i++) {
            nanosByPhase[i] += phaseNanos[i];
        }
    }

    /**
     * Decides {@code batch} into {@code out}. A short driver over one method per phase, so that the JIT compiles each
     * soon and on its own (one method of 1,600 bytecodes ran for its first 60,000 batches in C1's profiling tier).
     */
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        int n = batch.transactionCount();
        ensureTransactions(n);
        ensureRanges(batch.readCount(), batch.writeCount());
        out.reset(n);
        byte[] keys = batch.keys();
        // A small batch's reads take one descent each, before any sort: what its intra-batch check needs is known
        // only then (a transaction that conflicts with the history needs no check, and its writes none). Unless the
        // history checks that many reads faster together, sorted (a large history: the batched read path).
        boolean small = directRanges > 0 && batch.readCount() + batch.writeCount() <= directRanges
                && !reader.prefersSorted(batch.readCount());

        // ---- too old (timed with checkRead: a small batch's with its reads, with no clock read between) ----
        long t0 = System.nanoTime();
        tooOld(batch, n, newOldestVersion);
        long t2 = t0;
        if (!small) {
            // ---- sort the endpoints of the transactions not too old (and of uncertain writers' writes) ----
            long t1 = System.nanoTime();
            phaseNanos[Phase.CHECK_READ.ordinal()] += t1 - t0;
            sortLarge(batch, n, keys);
            t2 = System.nanoTime();
            phaseNanos[Phase.SORT.ordinal()] += t2 - t1;
        }

        // ---- every read against the history ----
        checkReads(batch, n, keys, small);
        long t2b = System.nanoTime();
        phaseNanos[Phase.CHECK_READ.ordinal()] += t2b - t2;

        // A small batch whose undecided reads meet few earlier writes compares them directly, without a sort.
        boolean direct = small && intraPairs(batch, n) <= directPairs;
        if (small && !direct) {
            sortEndpoints(batch, n, keys, false);
            long t = System.nanoTime();
            phaseNanos[Phase.SORT.ordinal()] += t - t2b;
            t2b = t;
        }

        // ---- intra-batch, in trace order; then the decisions and conflicting reads ----
        int bits = 0;
        if (direct) {
            directIntraBatch(batch, n, keys, anyUncertain);
        } else {
            bits = Math.max(0, sorter.distinctCount() - 1);
            intraBatch(batch, n, bits);
        }
        report(batch, n, out);
        long t3 = System.nanoTime();
        phaseNanos[Phase.CHECK_INTRA_BATCH.ordinal()] += t3 - t2b;

        // ---- combine: runs of the set are the committed writes, disjoint and sorted ----
        if (direct) {
            directCombine(batch, keys, committedWrites, committedCount, combined);
            directCombine(batch, keys, uncertainWrites, uncertainCount, uncertainCombined);
        } else {
            combine(miniSet, bits, keys, combined);
            if (anyUncertain) {
                combine(uncertainSet, bits, keys, uncertainCombined);
            } else {
                uncertainCombined.reset(keys);
            }
        }
        long t4 = System.nanoTime();
        phaseNanos[Phase.COMBINE.ordinal()] += t4 - t3;

        // ---- merge into the history at now; then history older than newOldestVersion goes ----
        mergeWrites(now);
        long t6 = System.nanoTime();
        phaseNanos[Phase.MERGE_WRITE.ordinal()] += t6 - t4;
        removeBefore(newOldestVersion, combined.count());
        phaseNanos[Phase.REMOVE_BEFORE.ordinal()] += System.nanoTime() - t6;
    }

    /** Too old: a transaction with reads and a snapshot below the oldest checkable version; the others undecided. */
    private void tooOld(ConflictBatch batch, int n, long newOldestVersion) {
        long oldest = Math.max(newOldestVersion, retainedVersion());
        boolean any = false;
        reportedCount = 0;
        for (int t = 0; t < n; t++) {
            historyConflict[t] = false;
            uncertainWriter[t] = false;
            reportCount[t] = 0;
            long snapshot = batch.readSnapshot(t);
            if (batch.readStart(t) < batch.readEnd(t) && snapshot < oldest) {
                state[t] = Decision.TOO_OLD_CODE;
                // Below newOldestVersion FoundationDB answers TOO_OLD too; above it, only the budget did.
                if (snapshot >= newOldestVersion && uncertain != null) {
                    uncertainWriter[t] = true;
                    any = true;
                }
            } else {
                state[t] = UNDECIDED;
            }
        }
        anyUncertain = any;
    }

    /** The large-batch path's sort: across the threads for a large enough batch, else on this one. */
    private void sortLarge(ConflictBatch batch, int n, byte[] keys) {
        long endpointBound = 2L * (batch.readCount() + batch.writeCount());
        if (workers != null && endpointBound >= 2L * SORT_SLICE_FACTOR * endpointsPerSlice) {
            sortSlices.sort(batch, n, keys, (int) Math.min(BatchWorkers.MAX_PARTS_PER_THREAD * workers.threads(),
                    endpointBound / ((long) SORT_SLICE_FACTOR * endpointsPerSlice)));
        } else {
            sortEndpoints(batch, n, keys, true);
        }
    }

    /**
     * Every read of the undecided transactions against the history: the sorted reads all at once (the large-batch
     * path), or one descent each (a small batch's, and empty reads); then, where uncertain writes are kept, reads that
     * meet one of an earlier batch.
     */
    private void checkReads(ConflictBatch batch, int n, byte[] keys, boolean small) {
        if (!small) {
            reader.checkSorted(sortedReads);
        }
        // Uncertain writes from earlier batches matter only to readers above the retained boundary.
        boolean checkUncertain = uncertain != null && !uncertain.isEmpty();
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                continue;
            }
            boolean report = batch.reportConflictingKeys(t);
            long snapshot = batch.readSnapshot(t);
            reportStart[t] = reportedCount;
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                boolean hit = !small && readBeginId[r] >= 0 ? sortedReads.conflict(readPosition[r])
                        : reader.conflicts(keys, batch.readBeginOffset(r), batch.readBeginLength(r),
                                batch.readEndOffset(r), batch.readEndLength(r), snapshot);
                if (hit) {
                    historyConflict[t] = true;
                    state[t] = Decision.CONFLICT_CODE;
                    if (!report) {
                        break;
                    }
                    addReported(r - batch.readStart(t));
                    reportCount[t]++;
                }
            }
            if (checkUncertain && (!historyConflict[t] || report) && readsUncertain(batch, t, snapshot)) {
                state[t] = Decision.TOO_OLD_CODE;
                // A certain history conflict means FoundationDB did not commit it either.
                uncertainWriter[t] = !historyConflict[t];
                anyUncertain |= uncertainWriter[t];
            }
        }
    }

    /** The intra-batch check over the bitset of the sorted endpoints' {@code bits} elementary intervals. */
    private void intraBatch(ConflictBatch batch, int n, int bits) {
        boolean any = anyUncertain;
        miniSet.reset(bits);
        if (any) {
            uncertainSet.reset(bits);
        }
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                if (uncertainWriter[t]) {
                    setWrites(uncertainSet, batch, t);
                }
                continue;
            }
            intraRead[t] = -1;
            boolean readsUncertainWrite = false;
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                if (readBeginId[r] < 0) {
                    continue;
                }
                int from = sorter.rank(readBeginId[r]);
                int to = sorter.rank(readEndId[r]);
                if (miniSet.any(from, to)) {
                    intraRead[t] = r - batch.readStart(t);
                    break;
                }
                if (any && uncertainSet.any(from, to)) {
                    // FoundationDB's first hit could be this read (if it committed that writer): undecidable.
                    readsUncertainWrite = true;
                    break;
                }
            }
            if (intraRead[t] >= 0) {
                state[t] = Decision.CONFLICT_CODE;
                continue;
            }
            if (readsUncertainWrite) {
                state[t] = Decision.TOO_OLD_CODE;
                uncertainWriter[t] = true;
                setWrites(uncertainSet, batch, t);
                continue;
            }
            state[t] = Decision.COMMIT_CODE;
            setWrites(miniSet, batch, t);
        }
    }

    /** The decisions into {@code out}, and each reporting CONFLICT transaction's conflicting reads. */
    private void report(ConflictBatch batch, int n, BatchResult out) {
        for (int t = 0; t < n; t++) {
            byte d = state[t];
            out.setDecision(t, d);
            if (d == Decision.CONFLICT_CODE && batch.reportConflictingKeys(t)) {
                out.beginConflictingReads(t);
                if (historyConflict[t]) {
                    for (int i = reportStart[t], e = i + reportCount[t]; i < e; i++) {
                        out.addConflictingRead(reported[i]);
                    }
                } else {
                    out.addConflictingRead(intraRead[t]);
                }
            }
        }
    }

    /** The combined writes into the history at {@code now}, and the uncertain ones into theirs. */
    private void mergeWrites(long now) {
        // The uncertain writes share the budget: the history makes room for both batches of writes.
        int ranges = combined.count();
        int uncertainRanges = uncertainCombined.count();
        if (ranges + uncertainRanges > 0) {
            long otherBytes = uncertainRanges > 0 ? uncertain.bytesNeeded(uncertainCombined) : 0;
            history.prepareMerge(now, combined, otherBytes);
            history.merge(combined, now);
        }
        if (uncertainRanges > 0) {
            uncertain.prepareMerge(now, uncertainCombined, 0);
            uncertain.merge(uncertainCombined, now);
        }
    }

    private void removeBefore(long newOldestVersion, int ranges) {
        history.removeBefore(newOldestVersion, ranges);
        if (uncertain != null && !uncertain.isEmpty()) {
            // An uncertain write at or below the retained boundary can only meet readers at or above it.
            uncertain.removeBefore(Math.max(newOldestVersion, history.retainedVersion()), ranges);
        }
    }

    /**
     * The sort phase in slices across the threads: endpoints counted per slice of transactions, numbered from
     * each slice's base and added at once (the ids one thread gives them), sorted ({@link EndpointSorter#sortAcross}),
     * and the sorted reads filled per slice of sorted positions.
     */
    private final class SortSlices implements BatchWorkers.Task {
        private static final int COUNT = 0;
        private static final int ADD = 1;
        private static final int COUNT_READS = 2;
        private static final int FILL_READS = 3;
        private ConflictBatch batch;
        private byte[] keys;
        private int transactions;
        private int parts;
        private int stage;
        private int[] base = new int[8];
        private long[] differ = new long[8];
        private int[] lengthDiffer = new int[8];
        private int[] shortest = new int[8];
        private boolean[] tails = new boolean[8];

        void sort(ConflictBatch batch, int n, byte[] keys, int parts) {
            this.batch = batch;
            this.keys = keys;
            this.transactions = n;
            this.parts = Math.max(1, Math.min(parts, n));
            if (base.length < this.parts + 1) {
                int m = Math.max(this.parts + 1, base.length * 2);
                base = new int[m];
                differ = new long[m];
                lengthDiffer = new int[m];
                shortest = new int[m];
                tails = new boolean[m];
            }
            runStage(COUNT);
            int total = 0;
            for (int p = 0; p < this.parts; p++) {
                int c = base[p];
                base[p] = total;
                total += c;
            }
            base[this.parts] = total;
            sorter.prepare(keys, total);
            runStage(ADD);
            for (int p = 0; p < this.parts; p++) {
                if (base[p + 1] > base[p]) {
                    sorter.addStats(base[p], differ[p], lengthDiffer[p], shortest[p], tails[p]);
                }
            }
            sorter.sortAcross(workers, this.parts);
            runStage(COUNT_READS);
            int reads = 0;
            for (int p = 0; p < this.parts; p++) {
                int c = base[p];
                base[p] = reads;
                reads += c;
            }
            sortedReads.reset(keys);
            sortedReads.resize(reads);
            sortedReads.resetOwners(transactions);
            runStage(FILL_READS);
            this.batch = null;
        }

        private void runStage(int stage) {
            this.stage = stage;
            workers.run(this, parts);
        }

        @Override
        public void run(int p) {
            switch (stage) {
                case COUNT -> base[p] = addSlice(p, false);
                case ADD -> addSlice(p, true);
                case COUNT_READS -> base[p] = readsOf(p, false);
                case FILL_READS -> readsOf(p, true);
                default -> throw new IllegalStateException("stage " + stage);
            }
        }

        /**
         * Transactions of slice {@code p}: counts their endpoints, or (with {@code add}) adds them with ids from the
         * slice's base, in the one-thread order, and keeps the slice's figures for the sort.
         */
        private int addSlice(int p, boolean add) {
            ConflictBatch b = batch;
            byte[] k = keys;
            int from = (int) ((long) transactions * p / parts);
            int to = (int) ((long) transactions * (p + 1) / parts);
            int id = add ? base[p] : 0;
            int first = id;
            long d = 0;
            int ld = 0;
            int min = Integer.MAX_VALUE;
            boolean longTail = false;
            for (int t = from; t < to; t++) {
                boolean undecided = state[t] == UNDECIDED;
                if (undecided) {
                    long snapshot = b.readSnapshot(t);
                    int owner = b.reportConflictingKeys(t) ? SortedReads.NO_OWNER : t;
                    for (int r = b.readStart(t), re = b.readEnd(t); r < re; r++) {
                        int bo = b.readBeginOffset(r);
                        int bl = b.readBeginLength(r);
                        int eo = b.readEndOffset(r);
                        int el = b.readEndLength(r);
                        if (isEmpty(k, bo, bl, eo, el)) {
                            readBeginId[r] = -1;
                            continue;
                        }
                        if (add) {
                            readBeginId[r] = id;
                            readEndId[r] = id + 1;
                            readSnapshot[r] = snapshot;
                            readOwner[r] = owner;
                            sorter.put(id, bo, bl, r);
                            sorter.put(id + 1, eo, el, -1);
                            d |= (sorter.prefixOf(id) ^ sorter.prefixOf(first)) | (sorter.prefixOf(id + 1) ^ sorter.prefixOf(first));
                            ld |= (bl ^ sorter.lengthOf(first)) | (el ^ sorter.lengthOf(first));
                            min = Math.min(min, Math.min(bl, el));
                            longTail |= EndpointSorter.hasLongTail(k, bo, bl) || EndpointSorter.hasLongTail(k, eo, el);
                        }
                        id += 2;
                    }
                }
                if (undecided || uncertainWriter[t]) {
                    for (int w = b.writeStart(t), we = b.writeEnd(t); w < we; w++) {
                        int bo = b.writeBeginOffset(w);
                        int bl = b.writeBeginLength(w);
                        int eo = b.writeEndOffset(w);
                        int el = b.writeEndLength(w);
                        if (isEmpty(k, bo, bl, eo, el)) {
                            writeBeginId[w] = -1;
                            continue;
                        }
                        if (add) {
                            writeBeginId[w] = id;
                            writeEndId[w] = id + 1;
                            sorter.put(id, bo, bl, -1);
                            sorter.put(id + 1, eo, el, -1);
                            d |= (sorter.prefixOf(id) ^ sorter.prefixOf(first)) | (sorter.prefixOf(id + 1) ^ sorter.prefixOf(first));
                            ld |= (bl ^ sorter.lengthOf(first)) | (el ^ sorter.lengthOf(first));
                            min = Math.min(min, Math.min(bl, el));
                            longTail |= EndpointSorter.hasLongTail(k, bo, bl) || EndpointSorter.hasLongTail(k, eo, el);
                        }
                        id += 2;
                    }
                }
            }
            differ[p] = d;
            lengthDiffer[p] = ld;
            shortest[p] = min;
            tails[p] = longTail;
            return id - first;
        }

        /** Sorted positions of slice {@code p}: counts the reads among them, or fills them in from the slice's base. */
        private int readsOf(int p, boolean fill) {
            ConflictBatch b = batch;
            int count = sorter.count();
            int from = (int) ((long) count * p / parts);
            int to = (int) ((long) count * (p + 1) / parts);
            int at = fill ? base[p] : 0;
            int first = at;
            for (int i = from; i < to; i++) {
                int r = sorter.tagAt(i);
                if (r >= 0) {
                    if (fill) {
                        readPosition[r] = at;
                        sortedReads.set(at, b.readBeginOffset(r), b.readBeginLength(r), b.readEndOffset(r), b.readEndLength(r),
                                readSnapshot[r], readOwner[r]);
                    }
                    at++;
                }
            }
            return at - first;
        }
    }

    /**
     * Combining across threads: the set's bits cut into slices, each counting, then writing, the runs that begin in
     * it (a run that began in the slice before is that slice's, even when it ends in this one).
     */
    private final class CombineSlices implements BatchWorkers.Task {
        private MiniConflictSet set;
        private int bits;
        private int parts;
        private CombinedWrites out;
        private boolean fill;
        private int[] base = new int[8];
        private int[] longest = new int[8];

        void combine(MiniConflictSet set, int bits, byte[] keys, CombinedWrites out, int parts) {
            this.set = set;
            this.bits = bits;
            this.out = out;
            this.parts = parts;
            if (base.length < parts) {
                base = new int[Math.max(parts, base.length * 2)];
                longest = new int[base.length];
            }
            fill = false;
            workers.run(this, parts);
            int total = 0;
            for (int p = 0; p < parts; p++) {
                int c = base[p];
                base[p] = total;
                total += c;
            }
            out.reset(keys);
            out.resize(total);
            fill = true;
            workers.run(this, parts);
            for (int p = 0; p < parts; p++) {
                out.noteKeyLength(longest[p]);
            }
            this.set = null;
        }

        @Override
        public void run(int p) {
            MiniConflictSet s = set;
            int from = (int) ((long) bits * p / parts);
            int to = (int) ((long) bits * (p + 1) / parts);
            int x = from > 0 && s.get(from - 1) ? s.nextClear(from) : from;
            int at = fill ? base[p] : 0;
            int first = at;
            int longestKey = 0;
            for (x = s.nextSet(x); x < to; x = s.nextSet(x)) {
                int end = s.nextClear(x);
                if (fill) {
                    int bLen = sorter.keyLength(x);
                    int eLen = sorter.keyLength(end);
                    out.set(at, sorter.keyOffset(x), bLen, sorter.keyOffset(end), eLen);
                    longestKey = Math.max(longestKey, Math.max(bLen, eLen));
                }
                at++;
                x = end;
            }
            if (fill) {
                longest[p] = longestKey;
            } else {
                base[p] = at - first;
            }
        }
    }

    /**
     * Sorts the endpoints of the non-empty reads and writes of the transactions still undecided, and of the writes of
     * the uncertain writers, on this thread; with {@code reads}, fills {@link #sortedReads} for the history's check.
     */
    private void sortEndpoints(ConflictBatch batch, int n, byte[] keys, boolean reads) {
        sorter.reset(keys);
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                if (uncertainWriter[t]) {
                    addWrites(batch, t, keys);
                }
                continue;
            }
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                if (!isEmpty(keys, batch.readBeginOffset(r), batch.readBeginLength(r), batch.readEndOffset(r), batch.readEndLength(r))) {
                    readBeginId[r] = sorter.add(batch.readBeginOffset(r), batch.readBeginLength(r), r);
                    int b = readBeginId[r];
                    int eo = batch.readEndOffset(r);
                    int el = batch.readEndLength(r);
                    readEndId[r] = sorter.isPointEnd(b, eo, el) ? sorter.addPointEnd(b, eo, el) : sorter.add(eo, el);
                    readSnapshot[r] = batch.readSnapshot(t);
                    readOwner[r] = batch.reportConflictingKeys(t) ? SortedReads.NO_OWNER : t;
                } else {
                    readBeginId[r] = -1;
                }
            }
            addWrites(batch, t, keys);
        }
        sorter.sort();
        if (reads) {
            // The non-empty reads in begin order, for the history's read check.
            sortedReads.reset(keys);
            sortedReads.resetOwners(n);
            for (int i = 0, e = sorter.count(); i < e; i++) {
                int r = sorter.tagAt(i);
                if (r >= 0) {
                    readPosition[r] = sortedReads.add(batch.readBeginOffset(r), batch.readBeginLength(r),
                            batch.readEndOffset(r), batch.readEndLength(r), readSnapshot[r], readOwner[r]);
                }
            }
        }
    }

    /**
     * At most how many read-write pairs the direct intra-batch check compares: each undecided transaction's reads times
     * the writes of the earlier transactions that may still commit (undecided) or are uncertain writers.
     */
    private long intraPairs(ConflictBatch batch, int n) {
        long pairs = 0;
        int writes = 0;
        for (int t = 0; t < n; t++) {
            if (state[t] == UNDECIDED) {
                pairs += (long) (batch.readEnd(t) - batch.readStart(t)) * writes;
            } else if (!uncertainWriter[t]) {
                continue;
            }
            writes += batch.writeEnd(t) - batch.writeStart(t);
        }
        return pairs;
    }

    /**
     * The intra-batch check of the direct path, in trace order as {@link MiniConflictSet}'s: each non-empty read of a
     * transaction still undecided against the non-empty writes of the earlier committed transactions ({@code [b, e)}
     * overlaps {@code [wb, we)} when {@code b < we} and {@code wb < e}: the runs of ranks the set compares), then against
     * the uncertain writers' writes. Fills {@link #committedWrites} and {@link #uncertainWrites} for
     * {@link #directCombine}.
     */
    private void directIntraBatch(ConflictBatch batch, int n, byte[] keys, boolean anyUncertain) {
        committedCount = 0;
        uncertainCount = 0;
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                if (uncertainWriter[t]) {
                    keepWrites(batch, t, keys, true);
                }
                continue;
            }
            intraRead[t] = -1;
            boolean readsUncertainWrite = false;
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                int bOff = batch.readBeginOffset(r);
                int bLen = batch.readBeginLength(r);
                int eOff = batch.readEndOffset(r);
                int eLen = batch.readEndLength(r);
                if (isEmpty(keys, bOff, bLen, eOff, eLen)) {
                    continue;
                }
                if (overlapsAny(batch, keys, bOff, bLen, eOff, eLen, committedWrites, committedCount)) {
                    intraRead[t] = r - batch.readStart(t);
                    break;
                }
                if (anyUncertain && overlapsAny(batch, keys, bOff, bLen, eOff, eLen, uncertainWrites, uncertainCount)) {
                    readsUncertainWrite = true;
                    break;
                }
            }
            if (intraRead[t] >= 0) {
                state[t] = Decision.CONFLICT_CODE;
                continue;
            }
            if (readsUncertainWrite) {
                state[t] = Decision.TOO_OLD_CODE;
                uncertainWriter[t] = true;
                keepWrites(batch, t, keys, true);
                continue;
            }
            state[t] = Decision.COMMIT_CODE;
            keepWrites(batch, t, keys, false);
        }
    }

    /** Whether read {@code [b, e)} overlaps one of the writes {@code list[0 .. count)}. */
    private static boolean overlapsAny(ConflictBatch batch, byte[] keys, int bOff, int bLen, int eOff, int eLen,
                                       int[] list, int count) {
        for (int i = 0; i < count; i++) {
            int w = list[i];
            if (Keys.compare(keys, bOff, bLen, keys, batch.writeEndOffset(w), batch.writeEndLength(w)) < 0
                    && Keys.compare(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w), keys, eOff, eLen) < 0) {
                return true;
            }
        }
        return false;
    }

    /** Appends transaction {@code t}'s non-empty writes to {@link #uncertainWrites} or {@link #committedWrites}. */
    private void keepWrites(ConflictBatch batch, int t, byte[] keys, boolean uncertainWriter) {
        int[] list = uncertainWriter ? uncertainWrites : committedWrites;
        int count = uncertainWriter ? uncertainCount : committedCount;
        int ws = batch.writeStart(t);
        int we = batch.writeEnd(t);
        if (list.length < count + (we - ws)) {
            list = Arrays.copyOf(list, Math.max(count + (we - ws), list.length * 2));
        }
        for (int w = ws; w < we; w++) {
            if (!isEmpty(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w), batch.writeEndOffset(w), batch.writeEndLength(w))) {
                list[count++] = w;
            }
        }
        if (uncertainWriter) {
            uncertainWrites = list;
            uncertainCount = count;
        } else {
            committedWrites = list;
            committedCount = count;
        }
    }

    /**
     * The direct path's combining: writes {@code list[0 .. count)} (non-empty) sorted by begin key (an insertion from the
     * end: a transaction's writes mostly come sorted), then each run of writes that overlap or touch as one range, from
     * the first begin to the furthest end: the runs of set bits {@link #combine} reads off the set.
     */
    private static void directCombine(ConflictBatch batch, byte[] keys, int[] list, int count, CombinedWrites out) {
        out.reset(keys);
        for (int i = 1; i < count; i++) {
            int w = list[i];
            int bOff = batch.writeBeginOffset(w);
            int bLen = batch.writeBeginLength(w);
            int j = i - 1;
            while (j >= 0 && Keys.compare(keys, batch.writeBeginOffset(list[j]), batch.writeBeginLength(list[j]), keys, bOff, bLen) > 0) {
                list[j + 1] = list[j];
                j--;
            }
            list[j + 1] = w;
        }
        int i = 0;
        while (i < count) {
            int w = list[i];
            int bOff = batch.writeBeginOffset(w);
            int bLen = batch.writeBeginLength(w);
            int eOff = batch.writeEndOffset(w);
            int eLen = batch.writeEndLength(w);
            for (i++; i < count; i++) {
                int x = list[i];
                if (Keys.compare(keys, batch.writeBeginOffset(x), batch.writeBeginLength(x), keys, eOff, eLen) > 0) {
                    break;
                }
                int xeOff = batch.writeEndOffset(x);
                int xeLen = batch.writeEndLength(x);
                if (Keys.compare(keys, xeOff, xeLen, keys, eOff, eLen) > 0) {
                    eOff = xeOff;
                    eLen = xeLen;
                }
            }
            out.add(bOff, bLen, eOff, eLen);
        }
    }

    /** Whether a read of transaction {@code t} overlaps an uncertain write of an earlier batch newer than its snapshot. */
    private boolean readsUncertain(ConflictBatch batch, int t, long snapshot) {
        byte[] keys = batch.keys();
        for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
            if (uncertain.conflicts(keys, batch.readBeginOffset(r), batch.readBeginLength(r),
                    batch.readEndOffset(r), batch.readEndLength(r), snapshot)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Combining goes across threads only from this many times {@code endpointsPerSlice} bits: it is a scan of the
     * set's words, about 20 µs for a batch of 500 transactions, which two fork/joins cost more than they save
     * (measured: docs/tree.md).
     */
    static final int COMBINE_SLICE_FACTOR = 32;

    /** The runs of {@code set} as sorted, disjoint ranges into {@code out}. */
    private void combine(MiniConflictSet set, int bits, byte[] keys, CombinedWrites out) {
        if (workers != null && bits >= 2L * COMBINE_SLICE_FACTOR * endpointsPerSlice) {
            combineSlices.combine(set, bits, keys, out, (int) Math.min(BatchWorkers.MAX_PARTS_PER_THREAD * workers.threads(),
                    bits / ((long) COMBINE_SLICE_FACTOR * endpointsPerSlice)));
            return;
        }
        out.reset(keys);
        for (int from = set.nextSet(0); from < bits; ) {
            int to = set.nextClear(from);
            out.add(sorter.keyOffset(from), sorter.keyLength(from), sorter.keyOffset(to), sorter.keyLength(to));
            from = set.nextSet(to);
        }
    }

    /** Numbers the endpoints of transaction {@code t}'s non-empty writes in the sorter. */
    private void addWrites(ConflictBatch batch, int t, byte[] keys) {
        for (int w = batch.writeStart(t), we = batch.writeEnd(t); w < we; w++) {
            if (!isEmpty(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w), batch.writeEndOffset(w), batch.writeEndLength(w))) {
                writeBeginId[w] = sorter.add(batch.writeBeginOffset(w), batch.writeBeginLength(w));
                int b = writeBeginId[w];
                int eo = batch.writeEndOffset(w);
                int el = batch.writeEndLength(w);
                writeEndId[w] = sorter.isPointEnd(b, eo, el) ? sorter.addPointEnd(b, eo, el) : sorter.add(eo, el);
            } else {
                writeBeginId[w] = -1;
            }
        }
    }

    private void setWrites(MiniConflictSet set, ConflictBatch batch, int t) {
        for (int w = batch.writeStart(t), we = batch.writeEnd(t); w < we; w++) {
            if (writeBeginId[w] >= 0) {
                set.set(sorter.rank(writeBeginId[w]), sorter.rank(writeEndId[w]));
            }
        }
    }

    private static boolean isEmpty(byte[] keys, int bOff, int bLen, int eOff, int eLen) {
        return bLen == eLen && (bOff == eOff || Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + eLen));
    }

    private void addReported(int readIndex) {
        if (reportedCount == reported.length) {
            reported = Arrays.copyOf(reported, reportedCount * 2);
        }
        reported[reportedCount++] = readIndex;
    }

    private void ensureTransactions(int n) {
        if (state.length < n) {
            int m = Math.max(n, state.length * 2);
            state = new byte[m];
            historyConflict = new boolean[m];
            reportStart = new int[m];
            reportCount = new int[m];
            intraRead = new int[m];
            uncertainWriter = new boolean[m];
        }
    }

    private void ensureRanges(int reads, int writes) {
        if (readBeginId.length < reads) {
            int m = Math.max(reads, readBeginId.length * 2);
            readBeginId = new int[m];
            readEndId = new int[m];
            readSnapshot = new long[m];
            readOwner = new int[m];
            readPosition = new int[m];
        }
        if (writeBeginId.length < writes) {
            int m = Math.max(writes, writeBeginId.length * 2);
            writeBeginId = new int[m];
            writeEndId = new int[m];
        }
    }
}
