package org.fdbresolver.harness.trace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongConsumer;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * A whole trace converted up front into detached {@link ConflictBatch}es, so that timing an engine measures
 * the engine and not protobuf parsing (the {@code bench} command loads first, untimed). Resolve batch
 * {@code i} with {@code conflictSet.detectConflicts(batch(i), version(i), newOldestVersion(i), result)}.
 * Holds every key of the trace in memory.
 */
public final class LoadedTrace {
    private final TraceHeader header;
    private final byte[] offeredSha256;
    private final ConflictBatch[] batches;
    private final long[] versions;
    private final long[] newOldestVersions;
    private final long transactions;

    private LoadedTrace(TraceHeader header, byte[] offeredSha256, ConflictBatch[] batches, long[] versions,
                        long[] newOldestVersions, long transactions) {
        this.header = header;
        this.offeredSha256 = offeredSha256;
        this.batches = batches;
        this.versions = versions;
        this.newOldestVersions = newOldestVersions;
        this.transactions = transactions;
    }

    public static LoadedTrace load(Path path) throws IOException {
        return load(path, done -> { });
    }

    /**
     * Reads and converts every batch.
     *
     * @param storedBytesProgress told the stored bytes read so far after each batch (for a progress bar)
     */
    public static LoadedTrace load(Path path, LongConsumer storedBytesProgress) throws IOException {
        try (TraceReader reader = TraceReader.open(path)) {
            ConflictBatch[] batches = new ConflictBatch[64];
            long[] versions = new long[64];
            long[] oldest = new long[64];
            int n = 0;
            long transactions = 0;
            for (ConflictBatch cb = ConflictBatch.detached(); reader.nextInto(cb); cb = ConflictBatch.detached()) {
                if (n == batches.length) {
                    if (n == Integer.MAX_VALUE - 8) {
                        throw new TraceFormatException("batch " + n + ": too many batches to load at once");
                    }
                    int grown = (int) Math.min(Integer.MAX_VALUE - 8L, n * 2L);
                    batches = Arrays.copyOf(batches, grown);
                    versions = Arrays.copyOf(versions, grown);
                    oldest = Arrays.copyOf(oldest, grown);
                }
                // Each batch compact, as the skip list's comparator holds its own in one arena per batch: timing
                // then measures the engine, not misses on buffers sized for batches of 64 transactions.
                cb.trimToSize();
                batches[n] = cb;
                versions[n] = reader.version();
                oldest[n] = reader.newOldestVersion();
                transactions += cb.transactionCount();
                n++;
                storedBytesProgress.accept(reader.storedBytesRead());
            }
            return new LoadedTrace(reader.header(), reader.offeredSha256(), Arrays.copyOf(batches, n),
                    Arrays.copyOf(versions, n), Arrays.copyOf(oldest, n), transactions);
        }
    }

    public TraceHeader header() {
        return header;
    }

    public byte[] offeredSha256() {
        return offeredSha256.clone();
    }

    public int batchCount() {
        return batches.length;
    }

    public ConflictBatch batch(int i) {
        return batches[i];
    }

    public long version(int i) {
        return versions[i];
    }

    public long newOldestVersion(int i) {
        return newOldestVersions[i];
    }

    /** Transactions in all batches. */
    public long transactionCount() {
        return transactions;
    }

    /** Transactions in batches {@code [from, to)}. */
    public long transactionCount(int from, int to) {
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += batches[i].transactionCount();
        }
        return sum;
    }
}
