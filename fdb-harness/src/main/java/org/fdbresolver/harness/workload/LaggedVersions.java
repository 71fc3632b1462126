package org.fdbresolver.harness.workload;

import java.util.List;

/**
 * The versions of {@code conflictset-*} and {@code tuple}: batch {@code i} (0-based) has version
 * {@code (i + 1) * versionStep}; each transaction reads at the version of a batch {@code 1..maxLagBatches} back
 * (uniform; 0: the batch's own version), clamped at 0; the new oldest version is {@code max(0, version - window)}.
 * Their options are read here, once for both.
 */
record LaggedVersions(long maxLagBatches, long versionStep, long window) {
    static final String MAX_LAG_BATCHES = "max-lag-batches";
    static final String VERSION_STEP = "version-step";

    /** The three options, with these workloads' defaults. */
    static List<WorkloadOption> options() {
        return options("1000");
    }

    /** The three options, with another default version step (a batch every {@code versionStep} microseconds). */
    static List<WorkloadOption> options(String versionStep) {
        return List.of(
                new WorkloadOption(MAX_LAG_BATCHES, "3",
                        "read snapshot = version of the batch 1..max-lag-batches back (uniform; 0: the batch's own version)"),
                new WorkloadOption(VERSION_STEP, versionStep, "version advance per batch; batch i has version (i+1)*step"),
                CommonOptions.window("5000000"));
    }

    /** Reads the options, checking that {@code batches} batches stay within the version range. */
    static LaggedVersions read(OptionReader o, long batches) {
        long maxLag = o.longValue(MAX_LAG_BATCHES, 0, 1_000_000_000);
        long step = o.longValue(VERSION_STEP, 1, 1L << 40);
        long window = o.longValue(CommonOptions.WINDOW, 0, Long.MAX_VALUE / 2);
        if (batches > 0 && batches > (Long.MAX_VALUE / 2) / step) {
            throw o.invalid(VERSION_STEP, "batches * version-step overflows the version range");
        }
        return new LaggedVersions(maxLag, step, window);
    }

    long version(long batchIndex) {
        return (batchIndex + 1) * versionStep;
    }

    long newOldestVersion(long version) {
        return Math.max(0, version - window);
    }

    /** A transaction's read snapshot at {@code version}, its lag drawn from {@code rng}. */
    long readSnapshot(long version, SplitMix64 rng) {
        long lag = maxLagBatches == 0 ? 0 : rng.between(1, maxLagBatches);
        return Math.max(0, version - lag * versionStep);
    }
}
