package org.fdbresolver.tree;

import java.math.BigInteger;
import java.util.Set;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.pipeline.BatchPipeline;
import org.fdbresolver.pipeline.BatchWorkers;

/**
 * Engine {@code tree}: FoundationDB's batch phases ({@link BatchPipeline}) over a {@link HistoryTree}
 * under the configured memory budget.
 *
 * <p>Options: {@code nodeBytes} (block size of a tree node, default 2048), {@code keyBlockBytes}
 * (size of a key block holding keys longer than 8 bytes, default 65536, raised to fit the longest key),
 * {@code readPath} ({@code batched}, the default: the batch's sorted reads routed together and leaf
 * groups interleaved, once the history holds {@code readBatchedFromBytes} (default 4 MiB; 0: always);
 * or {@code single}: one descent per read), {@code readWays} (leaf groups in flight on the batched path,
 * default 16) and {@code readTouch} ({@code true}, the default: load the cache line
 * a group needs next before yielding; {@code false}: interleave only) and {@code writeWays} (writes
 * whose leaves are loaded ahead together before they are applied, default 16; 0: none), and
 * {@code directSortEndpoints} (batches of at most this many endpoints are sorted by comparison rather than by
 * radix passes, default 40; 0: always radix), {@code directBatchRanges}, {@code directBatchPairs} and
 * {@code readBatchedFromReads} (the small-batch path, {@link BatchPipeline}; default 64, 128 and 16), {@code warmUpBatches} (synthetic batches run through throwaway
 * engines at open so that the first real batches run compiled code, default 0: {@link WarmUp}), {@code warmUpSettleMillis}
 * (after those, rounds with large batches until the JIT has compiled nothing for a while, at most this long; default 0:
 * none; {@link WarmUp#settle}), {@code leafPrefixMinGain}
 * (the fewest bytes beyond the tree's shared prefix a leaf's own prefix has, 1 to 8, default 1: {@link LeafPrefixes}),
 * {@code prefixLoweringLeaves} (leaves lowered per batch, beyond one per write, after the tree's shared prefix shrank;
 * default 16: {@link KeyLayout#reencode}; 0 lowers only the leaves writes reach and one per write, for tests).
 * The other options, for more than one thread and the partitioned
 * apply: docs/tree.md.
 */
public final class TreeEngine implements ConflictEngine {
    public static final String NAME = "tree";
    public static final String NODE_BYTES = "nodeBytes";
    public static final String KEY_BLOCK_BYTES = "keyBlockBytes";
    public static final String READ_PATH = "readPath";
    public static final String READ_WAYS = "readWays";
    public static final String READ_TOUCH = "readTouch";
    public static final String WRITE_WAYS = "writeWays";
    public static final String READ_BATCHED_FROM_BYTES = "readBatchedFromBytes";
    public static final String THREADS = "threads";
    public static final String READS_PER_SLICE = "readsPerSlice";
    public static final String ENDPOINTS_PER_SLICE = "endpointsPerSlice";
    public static final String WRITES_PER_PARTITION = "writesPerPartition";
    public static final String DIRECT_SORT_ENDPOINTS = "directSortEndpoints";
    public static final String WARM_UP_BATCHES = "warmUpBatches";
    public static final String WARM_UP_SETTLE_MILLIS = "warmUpSettleMillis";
    public static final String DIRECT_BATCH_RANGES = "directBatchRanges";
    public static final String DIRECT_BATCH_PAIRS = "directBatchPairs";
    public static final String READ_BATCHED_FROM_READS = "readBatchedFromReads";
    public static final String LEAF_PREFIX_MIN_GAIN = "leafPrefixMinGain";
    public static final String PREFIX_LOWERING_LEAVES = "prefixLoweringLeaves";
    /** Fewest endpoints a thread sorts at once: below twice this a batch is sorted on one thread. */
    static final int DEFAULT_ENDPOINTS_PER_SLICE = 1024;
    /** Fewest writes a partition gets when a batch's writes are spread over threads. */
    static final int DEFAULT_WRITES_PER_PARTITION = 64;
    /** Most threads one batch may use (the caller's included). */
    public static final int MAX_THREADS = 256;
    /** Fewest reads a thread checks at once: below twice this a batch's reads stay on one thread (docs/tree.md). */
    static final int DEFAULT_READS_PER_SLICE = 256;
    public static final int DEFAULT_NODE_BYTES = 2048;
    public static final int DEFAULT_KEY_BLOCK_BYTES = 1 << 16;
    private static final Set<String> OPTIONS = Set.of(NODE_BYTES, KEY_BLOCK_BYTES, READ_PATH, READ_WAYS, READ_TOUCH,
            READ_BATCHED_FROM_BYTES, WRITE_WAYS, THREADS, READS_PER_SLICE, ENDPOINTS_PER_SLICE,
            WRITES_PER_PARTITION, DIRECT_SORT_ENDPOINTS, WARM_UP_BATCHES, DIRECT_BATCH_RANGES, DIRECT_BATCH_PAIRS,
            READ_BATCHED_FROM_READS, LEAF_PREFIX_MIN_GAIN, WARM_UP_SETTLE_MILLIS, PREFIX_LOWERING_LEAVES);
    /**
     * Synthetic batches the first open of engine {@code tree} runs through throwaway engines (the
     * bridge's, and {@code bench --settle-jit}'s) before the real one:
     * measured on 200 batches of three transactions right after the JVM starts, the median batch 0.17 ms cold and
     * 0.017–0.024 ms after 2,000 (the slowest 7–13 ms cold, 0.9–3.6 ms after), for 0.6–1.5 s more at the open on
     * this loaded 2-core machine (docs/fdb-integration.md, "Threads and time").
     */
    public static final int FIRST_OPEN_WARM_UP_BATCHES = 2_000;
    /** Below this budget a large batch's writes may not fit even into an empty history: warned at open. */
    static final long SMALL_BUDGET_BYTES = 1L << 20;
    /** Most leaf groups (reads) or leaves (writes) in flight at once. */
    private static final int MAX_WAYS = 1024;
    private static final System.Logger LOG = System.getLogger(TreeEngine.class.getName());

    private final HistoryTree tree;
    /** Writes of transactions that only the budget made TOO_OLD; usually empty. */
    private final HistoryTree uncertain;
    private final BatchPipeline pipeline;
    /** The threads a batch is split across (null: one thread, the caller's). */
    private final BatchWorkers workers;

    public TreeEngine(ConflictSetConfig config) {
        this(config, true);
    }

    /**
     * @param warns whether the engine logs its warnings (a small budget, a batch the budget cannot hold); the
     *        warm-up's throwaway engines ({@link WarmUp}) do not: their budgets are small and bind by design, and their
     *        warnings would read as the opened engine's
     */
    TreeEngine(ConflictSetConfig config, boolean warns) {
        EngineFactory.checkOptions(config, NAME, OPTIONS);
        int nodeBytes = intOption(config, NODE_BYTES, DEFAULT_NODE_BYTES, HistoryTree.MAX_NODE_BYTES);
        int keyBlockBytes = intOption(config, KEY_BLOCK_BYTES, DEFAULT_KEY_BLOCK_BYTES);
        HistoryTree.ReadPath readPath = switch (config.option(READ_PATH, "batched").trim()) {
            case "batched" -> HistoryTree.ReadPath.BATCHED;
            case "single" -> HistoryTree.ReadPath.SINGLE;
            default -> throw new IllegalArgumentException("engine " + NAME + ": option " + READ_PATH
                    + " must be 'batched' or 'single': '" + config.option(READ_PATH, "") + "'");
        };
        int readWays = intOption(config, READ_WAYS, BatchedReadPath.DEFAULT_WAYS, MAX_WAYS);
        long batchedFromBytes = nonNegativeOption(config, READ_BATCHED_FROM_BYTES, BatchedReadPath.DEFAULT_FROM_BYTES);
        int writeWays = (int) wholeOption(config, WRITE_WAYS, BatchedReadPath.DEFAULT_WAYS, 0, MAX_WAYS);
        boolean readTouch = switch (config.option(READ_TOUCH, "true").trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("engine " + NAME + ": option " + READ_TOUCH
                    + " must be 'true' or 'false': '" + config.option(READ_TOUCH, "") + "'");
        };
        int threads = intOption(config, THREADS, 1, MAX_THREADS);
        int readsPerSlice = intOption(config, READS_PER_SLICE, DEFAULT_READS_PER_SLICE);
        int endpointsPerSlice = intOption(config, ENDPOINTS_PER_SLICE, DEFAULT_ENDPOINTS_PER_SLICE);
        int writesPerPartition = intOption(config, WRITES_PER_PARTITION, DEFAULT_WRITES_PER_PARTITION);
        int directSortEndpoints = (int) wholeOption(config, DIRECT_SORT_ENDPOINTS,
                BatchPipeline.defaultDirectSortEndpoints(), 0, Integer.MAX_VALUE);
        int warmUpBatches = (int) wholeOption(config, WARM_UP_BATCHES, 0, 0, 1_000_000);
        long warmUpSettleMillis = wholeOption(config, WARM_UP_SETTLE_MILLIS, 0, 0, 600_000);
        int directRanges = (int) wholeOption(config, DIRECT_BATCH_RANGES, BatchPipeline.DEFAULT_DIRECT_RANGES, 0,
                Integer.MAX_VALUE);
        long directPairs = wholeOption(config, DIRECT_BATCH_PAIRS, BatchPipeline.DEFAULT_DIRECT_PAIRS, 0, Long.MAX_VALUE);
        int batchedFromReads = intOption(config, READ_BATCHED_FROM_READS, HistoryTree.DEFAULT_BATCHED_FROM_READS);
        int leafPrefixMinGain = (int) wholeOption(config, LEAF_PREFIX_MIN_GAIN, LeafPrefixes.DEFAULT_MIN_GAIN, 1,
                KeyRefs.INLINE_BYTES);
        int prefixLoweringLeaves = (int) wholeOption(config, PREFIX_LOWERING_LEAVES,
                HistoryTree.DEFAULT_PREFIX_LOWERING_LEAVES, 0, Integer.MAX_VALUE);
        long budget = config.memoryBudgetBytes();
        // Before this engine's arrays exist: throwaway engines, so that the JIT has compiled the engine by the
        // first real batch (a host that waits for the open, as FoundationDB's Resolver does, sets this).
        if (warmUpBatches > 0 && config.maxKeyBytes() >= 16) {
            WarmUp.run(config, warmUpBatches);
            if (warmUpSettleMillis > 0) {
                int rounds = WarmUp.settle(config, warmUpSettleMillis);
                LOG.log(System.Logger.Level.DEBUG, () -> "warm-up: " + Math.abs(rounds) + " settling rounds, "
                        + (rounds < 0 ? "stopped at " + warmUpSettleMillis + " ms" : "the JIT settled"));
            }
        }
        // One heap reservation for both histories: their arrays together never take more than it.
        Reservation reservation = history(() -> new Reservation(HistoryTree.reservationLimit(budget, nodeBytes, keyBlockBytes)));
        this.tree = history(() -> new HistoryTree(nodeBytes, keyBlockBytes, budget, reservation, readPath,
                readWays, readTouch, batchedFromBytes, writeWays));
        // The uncertain writes (see BatchPipeline) draw on the same budget: together both stay within it.
        // They are usually empty and read one by one, by the single path.
        this.uncertain = history(() -> new HistoryTree(nodeBytes, keyBlockBytes, budget, reservation,
                HistoryTree.ReadPath.SINGLE, 1, false, 0, 0));
        if (!warns) {
            tree.silence();
            uncertain.silence();
        }
        tree.batchedFromReads(batchedFromReads);
        tree.leafPrefixMinGain(leafPrefixMinGain);
        uncertain.leafPrefixMinGain(leafPrefixMinGain);
        tree.prefixLoweringLeaves(prefixLoweringLeaves);
        uncertain.prefixLoweringLeaves(prefixLoweringLeaves);
        tree.shareBudgetWith(uncertain);
        uncertain.shareBudgetWith(tree);
        // The main history raises the boundary ahead of need for both (the uncertain writes expire below it).
        uncertain.evictAhead(false);
        this.pipeline = new BatchPipeline(tree, tree, uncertain, directSortEndpoints, directPairs, directRanges);
        // One pool for the engine's life, made once every option has been accepted.
        this.workers = threads > 1 ? new BatchWorkers(threads, "fdbresolver-tree") : null;
        if (workers != null) {
            tree.useWorkers(workers, readsPerSlice);
            pipeline.useWorkers(workers, endpointsPerSlice);
        }
        // Every thread count applies batches by the same partitions' path, so that the tree does not depend on it.
        tree.useWorkersForWrites(workers, writesPerPartition);
        // Warned only once the budget is known to be usable: a budget refused above gets its error alone.
        if (warns && budget < SMALL_BUDGET_BYTES) {
            LOG.log(System.Logger.Level.WARNING, "memory budget of {0} bytes is below {1}: a batch whose writes do not "
                    + "fit even with all older history dropped makes the engine forget all history (every older reader "
                    + "TOO_OLD; counted in stats as forgottenBatches)", budget, SMALL_BUDGET_BYTES);
        }
    }

    /** A history for this configuration; a setting it refuses is reported as this engine's. */
    private static <T> T history(java.util.function.Supplier<T> create) {
        try {
            return create.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("engine " + NAME + ": " + e.getMessage(), e);
        }
    }

    private static long nonNegativeOption(ConflictSetConfig config, String name, long fallback) {
        return wholeOption(config, name, fallback, 0, Long.MAX_VALUE);
    }

    private static int intOption(ConflictSetConfig config, String name, int fallback) {
        return (int) wholeOption(config, name, fallback, 1, Integer.MAX_VALUE);
    }

    private static int intOption(ConflictSetConfig config, String name, int fallback, int max) {
        return (int) wholeOption(config, name, fallback, 1, max);
    }

    /**
     * A whole-number option from {@code min} (0 or 1) to {@code max}. A number beyond {@code max} is called too
     * large, not "not a positive integer" (issue 19: {@code nodeBytes=999999999999} is an integer).
     */
    private static long wholeOption(ConflictSetConfig config, String name, long fallback, long min, long max) {
        String v = config.option(name, null);
        if (v == null) {
            return fallback;
        }
        String text = v.trim();
        String wanted = min > 0 ? "a positive integer" : "a non-negative integer";
        BigInteger n = text.matches("[+-]?[0-9]+") ? new BigInteger(text) : null;
        if (n == null || n.compareTo(BigInteger.valueOf(min)) < 0) {
            throw new IllegalArgumentException("engine " + NAME + ": option " + name + " must be " + wanted + ", not '" + v + "'");
        }
        if (n.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException("engine " + NAME + ": option " + name + " is too large: '" + v + "' (at most " + max + ")");
        }
        return n.longValueExact();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        pipeline.detectConflicts(batch, now, newOldestVersion, out);
    }

    @Override
    public void clear(long version) {
        tree.clear(version);
        uncertain.clear(version);
    }

    /** Both histories' bytes: together they never exceed the budget. */
    @Override
    public long historyBytes() {
        return tree.historyBytes() + uncertain.historyBytes();
    }

    /** The heap reservation both histories share ({@link Reservation}): their arrays never take more. */
    @Override
    public long historyHeapBoundBytes() {
        return tree.reservationLimit();
    }

    @Override
    public long historyReservedBytes() {
        return tree.reservedBytes() + uncertain.reservedBytes();
    }

    @Override
    public long forgottenBatches() {
        return tree.forgottenBatches() + uncertain.forgottenBatches();
    }

    @Override
    public long fullSweepEvictions() {
        return tree.evictions() + uncertain.evictions();
    }

    @Override
    public long retainedVersion() {
        return pipeline.retainedVersion();
    }

    @Override
    public void addPhaseNanos(long[] nanosByPhase) {
        pipeline.addPhaseNanos(nanosByPhase);
    }

    /** Stops the batch's worker threads, if any. */
    @Override
    public void close() {
        if (workers != null) {
            workers.close();
        }
    }

    /** The history, for tests and benchmarks that look inside. */
    public HistoryTree tree() {
        return tree;
    }

    /** The uncertain-write history, for tests. */
    public HistoryTree uncertainTree() {
        return uncertain;
    }
}
