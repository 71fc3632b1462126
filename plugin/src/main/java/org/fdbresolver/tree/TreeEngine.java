package org.fdbresolver.tree;

import java.util.Map;
import java.util.Set;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.pipeline.BatchPipeline;

/**
 * Engine {@code tree}: FoundationDB's batch phases ({@link BatchPipeline}) over a {@link HistoryTree}
 * under the configured memory budget.
 *
 * <p>Options: {@code nodeBytes} (block size of a tree node, default 2048), {@code keyBlockBytes}
 * (size of a key block holding keys longer than 8 bytes, default 65536, raised to fit the longest key).
 */
public final class TreeEngine implements ConflictEngine {
    public static final String NAME = "tree";
    public static final String NODE_BYTES = "nodeBytes";
    public static final String KEY_BLOCK_BYTES = "keyBlockBytes";
    public static final int DEFAULT_NODE_BYTES = 2048;
    public static final int DEFAULT_KEY_BLOCK_BYTES = 1 << 16;
    private static final Set<String> OPTIONS = Set.of(NODE_BYTES, KEY_BLOCK_BYTES);
    /** Below this budget a large batch's writes may not fit even into an empty history: warned at open. */
    static final long SMALL_BUDGET_BYTES = 1L << 20;
    private static final System.Logger LOG = System.getLogger(TreeEngine.class.getName());

    private final HistoryTree tree;
    /** Writes of transactions that only the budget made TOO_OLD; usually empty. */
    private final HistoryTree uncertain;
    private final BatchPipeline pipeline;

    public TreeEngine(ConflictSetConfig config) {
        Map<String, String> options = config.options();
        for (String name : options.keySet()) {
            if (!OPTIONS.contains(name)) {
                throw new IllegalArgumentException("unknown option '" + name + "' for engine " + NAME
                        + " (known: " + NODE_BYTES + ", " + KEY_BLOCK_BYTES + ")");
            }
        }
        int nodeBytes = intOption(config, NODE_BYTES, DEFAULT_NODE_BYTES);
        int keyBlockBytes = intOption(config, KEY_BLOCK_BYTES, DEFAULT_KEY_BLOCK_BYTES);
        long budget = config.memoryBudgetBytes();
        if (budget < SMALL_BUDGET_BYTES) {
            LOG.log(System.Logger.Level.WARNING, "memory budget of {0} bytes is below {1}: a batch whose writes do not "
                    + "fit even with all older history dropped makes the engine forget all history (every older reader "
                    + "TOO_OLD; counted in stats as forgottenBatches)", budget, SMALL_BUDGET_BYTES);
        }
        this.tree = new HistoryTree(nodeBytes, keyBlockBytes, budget, config.maxKeyBytes());
        // The uncertain writes (see BatchPipeline) draw on the same budget: together both stay within it.
        this.uncertain = new HistoryTree(nodeBytes, keyBlockBytes, budget, config.maxKeyBytes());
        tree.shareBudgetWith(uncertain);
        uncertain.shareBudgetWith(tree);
        this.pipeline = new BatchPipeline(tree, tree, uncertain);
    }

    private static int intOption(ConflictSetConfig config, String name, int fallback) {
        String v = config.option(name, null);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " of engine " + NAME + " must be a positive integer: '" + v + "'");
        }
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

    @Override
    public long forgottenBatches() {
        return tree.forgottenBatches() + uncertain.forgottenBatches();
    }

    @Override
    public long retainedVersion() {
        return pipeline.retainedVersion();
    }

    @Override
    public void addPhaseNanos(long[] nanosByPhase) {
        pipeline.addPhaseNanos(nanosByPhase);
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
