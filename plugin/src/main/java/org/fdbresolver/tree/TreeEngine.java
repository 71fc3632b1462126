package org.fdbresolver.tree;

import java.util.Set;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;
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

    private final HistoryTree tree;
    /** Writes of transactions that only the budget made TOO_OLD; usually empty. */
    private final HistoryTree uncertain;
    private final BatchPipeline pipeline;

    public TreeEngine(ConflictSetConfig config) {
        EngineFactory.checkOptions(config, NAME, OPTIONS);
        int nodeBytes = intOption(config, NODE_BYTES, DEFAULT_NODE_BYTES);
        int keyBlockBytes = intOption(config, KEY_BLOCK_BYTES, DEFAULT_KEY_BLOCK_BYTES);
        this.tree = history(nodeBytes, keyBlockBytes, config);
        // The uncertain writes (see BatchPipeline) draw on the same budget: together both stay within it.
        this.uncertain = history(nodeBytes, keyBlockBytes, config);
        tree.shareBudgetWith(uncertain);
        uncertain.shareBudgetWith(tree);
        this.pipeline = new BatchPipeline(tree, tree, uncertain);
    }

    /** A history for this configuration; a setting it refuses is reported as this engine's. */
    private static HistoryTree history(int nodeBytes, int keyBlockBytes, ConflictSetConfig config) {
        try {
            return new HistoryTree(nodeBytes, keyBlockBytes, config.memoryBudgetBytes(), config.maxKeyBytes());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("engine " + NAME + ": " + e.getMessage(), e);
        }
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
            throw new IllegalArgumentException("engine " + NAME + ": option " + name + " must be a positive integer, not '" + v + "'");
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
