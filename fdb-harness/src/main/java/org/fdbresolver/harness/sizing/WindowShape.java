package org.fdbresolver.harness.sizing;

import org.fdbresolver.harness.workload.LongTraceModel;

/**
 * The question an operator asks: a write window of {@code windowSeconds} at {@code writesPerSecond} write
 * conflict ranges per second offered to the Resolver (every transaction's, whether it commits or not), with
 * keys of {@code keyLength} bytes — and how the writes look: the share of range writes (the rest are points),
 * how many leading bytes every key shares, the key space they are drawn from, a hot set of {@code hotKeys} keys
 * taking {@code hotFraction} of the draws (Zipf), and the Resolver's batch interval. A trace of this shape is
 * the {@code longtrace} model with those settings ({@link ScaledTrace}).
 *
 * @param windowSeconds        the write window (FoundationDB's {@code MAX_WRITE_TRANSACTION_LIFE_VERSIONS}, in
 *                             seconds of versions)
 * @param writesPerSecond      write conflict ranges per second offered to the Resolver
 * @param keyLength            bytes per key
 * @param keyPrefix            leading bytes every key shares
 * @param rangeFraction        share of ranges that span keys (1 to 10 integers for writes), the rest points
 * @param keyspace             keys drawn from this many
 * @param hotKeys              the hot set's size
 * @param hotFraction          the share of draws from the hot set (Zipf, exponent 0.6)
 * @param batchIntervalSeconds time between the Resolver's batches
 * @param seed                 the generator's seed
 */
public record WindowShape(double windowSeconds, double writesPerSecond, int keyLength, int keyPrefix, double rangeFraction,
                          long keyspace, int hotKeys, double hotFraction, double batchIntervalSeconds, long seed) {
    /** FoundationDB's commit versions advance by a million per second. */
    static final double VERSIONS_PER_SECOND = 1_000_000.0;

    /** The window in versions. */
    public long windowVersions() {
        return Math.round(windowSeconds * VERSIONS_PER_SECOND);
    }

    /** Write conflict ranges inside one window: what the history must hold. */
    public double windowWrites() {
        return writesPerSecond * windowSeconds;
    }

    /** Transactions per batch that offer the rate asked ({@code longtrace}'s transactions write 1.29 ranges on average). */
    public int transactionsPerBatch() {
        long txns = Math.round(writesPerSecond * batchIntervalSeconds / LongTraceModel.meanWritesPerTransaction());
        return (int) Math.max(1, Math.min(10_000_000, txns));
    }

    /** The batch interval in versions (at least one). */
    public long batchVersions() {
        return Math.max(1, Math.round(batchIntervalSeconds * VERSIONS_PER_SECOND));
    }
}
