package org.fdbresolver.api;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How to build a {@link ConflictSet}: which engine, how much memory its history may hold, and
 * engine-specific tuning options (see docs/configuration.md for every option and its default).
 *
 * @param engine            engine name, e.g. {@code "tree"} or {@code "reference"}
 * @param memoryBudgetBytes bytes the history may hold; when full, the oldest history is dropped and
 *                          reads older than the retained boundary become TOO_OLD
 * @param maxKeyBytes       longest key accepted in a range; longer keys reject the batch (default: no limit)
 * @param options           engine-specific options by name (unknown names are rejected by the engine)
 */
public record ConflictSetConfig(String engine, long memoryBudgetBytes, int maxKeyBytes, Map<String, String> options) {

    public static final String DEFAULT_ENGINE = "tree";
    /** 1 GiB: enough for several minutes of the default workloads' history. */
    public static final long DEFAULT_MEMORY_BUDGET_BYTES = 1L << 30;
    /**
     * No limit: FoundationDB's commit proxies and Resolver accept conflict-range keys of any length (its 10,000-byte
     * key limit is the client's, for keys it writes), so the engine must too, or a batch the skip list decides
     * would be refused. A key is then bounded only by what a batch's key region holds (2 GiB).
     */
    public static final int DEFAULT_MAX_KEY_BYTES = Integer.MAX_VALUE;
    /** The tree engine's (the default engine's) option for the size of its key blocks (docs/configuration.md). */
    static final String KEY_BLOCK_BYTES = "keyBlockBytes";
    /**
     * Largest {@code keyBlockBytes}: a key block is one byte array whose size is the value rounded up to a power of
     * two, and 2^30 is the largest power of two an array can have.
     */
    public static final long MAX_KEY_BLOCK_BYTES = 1L << 30;

    public ConflictSetConfig {
        Objects.requireNonNull(engine, "engine");
        if (memoryBudgetBytes <= 0) {
            throw new IllegalArgumentException("memory budget must be positive: " + memoryBudgetBytes);
        }
        if (maxKeyBytes <= 0) {
            throw new IllegalArgumentException("max key bytes must be positive: " + maxKeyBytes);
        }
        options = Map.copyOf(options);
        requireKeyBlockInRange(engine, options.get(KEY_BLOCK_BYTES));
    }

    /**
     * A {@code keyBlockBytes} beyond {@link #MAX_KEY_BLOCK_BYTES} is refused here, where the CLI's
     * {@code --engine-option} and the bridge's configuration text both pass, as a range error naming the option
     * (issue 33: it used to fail later as an internal error). Whether the value is a number at all stays the
     * engine's to say, as for its other options; another engine refuses the option as unknown.
     */
    private static void requireKeyBlockInRange(String engine, String value) {
        if (!DEFAULT_ENGINE.equals(engine) || value == null || !value.trim().matches("\\+?[0-9]+")) {
            return;
        }
        if (new java.math.BigInteger(value.trim()).compareTo(java.math.BigInteger.valueOf(MAX_KEY_BLOCK_BYTES)) > 0) {
            throw new IllegalArgumentException("engine " + engine + ": option " + KEY_BLOCK_BYTES + " is too large: '"
                    + value + "' (at most " + MAX_KEY_BLOCK_BYTES + ")");
        }
    }

    public static ConflictSetConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The option's value, or {@code fallback} when it is not set. */
    public String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    public Builder toBuilder() {
        Builder b = new Builder().engine(engine).memoryBudgetBytes(memoryBudgetBytes).maxKeyBytes(maxKeyBytes);
        b.options.putAll(options);
        return b;
    }

    public static final class Builder {
        private String engine = DEFAULT_ENGINE;
        private long memoryBudgetBytes = DEFAULT_MEMORY_BUDGET_BYTES;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private final Map<String, String> options = new TreeMap<>();

        public Builder engine(String engine) {
            this.engine = engine;
            return this;
        }

        public Builder memoryBudgetBytes(long bytes) {
            this.memoryBudgetBytes = bytes;
            return this;
        }

        public Builder maxKeyBytes(int bytes) {
            this.maxKeyBytes = bytes;
            return this;
        }

        public Builder option(String name, String value) {
            options.put(name, value);
            return this;
        }

        public ConflictSetConfig build() {
            return new ConflictSetConfig(engine, memoryBudgetBytes, maxKeyBytes, options);
        }
    }
}
