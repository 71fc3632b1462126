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

    /**
     * The versions one cycle of a trace spans when it is replayed again and again: last version - first version + the
     * first step ({@code firstStep}: the second batch's version - the first's; 1 or less counts as 1), so the next
     * cycle's first batch comes one step after this one's last. The one rule for {@link #cycled}, the JMH
     * {@code WorkloadBench}, the bridge's {@code fdbresolver-replay --cycles} and the skip list's comparator
     * ({@code fdb_skiplist_main.cpp}), so that all of them decide the same shifted batches.
     */
    public static long cycleSpan(long firstVersion, long lastVersion, long firstStep) {
        return lastVersion - firstVersion + Math.max(1, firstStep);
    }

    /**
     * This trace {@code cycles} times over, for timing a short trace (a capture) as a long run: cycle 0 is this trace
     * (the same batch objects), cycle {@code c} a copy of it with every version, new oldest version and read snapshot
     * shifted by {@code c} times {@link #cycleSpan}, the same keys, each batch compact as loaded. The copies hold their
     * own key bytes (a {@link ConflictBatch} owns its key region), so the memory grows with the cycles, by what the trace takes loaded.
     *
     * @throws IllegalArgumentException when {@code cycles} is below 1, the batches would pass {@code Integer.MAX_VALUE - 8},
     *                                  or the last cycle's versions would pass {@code Long.MAX_VALUE} (the message says which)
     */
    public LoadedTrace cycled(long cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("cycles " + cycles + ": wanted 1 or more");
        }
        int n = batches.length;
        if (cycles == 1 || n == 0) {
            return this;
        }
        if (cycles > (Integer.MAX_VALUE - 8L) / n) {
            throw new IllegalArgumentException(cycles + " cycles of " + n + " batches are more than "
                    + (Integer.MAX_VALUE - 8) + " batches, the most one loaded trace holds");
        }
        long span = cycleSpan(versions[0], versions[n - 1], n > 1 ? versions[1] - versions[0] : 1);
        if (span > (Long.MAX_VALUE - versions[n - 1]) / (cycles - 1)) {
            throw new IllegalArgumentException(cycles + " cycles would pass version " + Long.MAX_VALUE
                    + ": one cycle spans " + span + " versions from " + versions[0]);
        }
        int total = (int) (n * cycles);
        ConflictBatch[] allBatches = Arrays.copyOf(batches, total);
        long[] allVersions = Arrays.copyOf(versions, total);
        long[] allOldest = Arrays.copyOf(newOldestVersions, total);
        for (int c = 1; c < cycles; c++) {
            long shift = span * c;
            for (int i = 0; i < n; i++) {
                int at = c * n + i;
                allBatches[at] = shiftedCopy(batches[i], shift);
                allVersions[at] = versions[i] + shift;
                allOldest[at] = newOldestVersions[i] + shift;
            }
        }
        return new LoadedTrace(header, offeredSha256, allBatches, allVersions, allOldest, transactions * cycles);
    }

    /** {@code from} with every read snapshot shifted by {@code shift}: its key region copied whole, every range at the same offsets. */
    static ConflictBatch shiftedCopy(ConflictBatch from, long shift) {
        ConflictBatch to = ConflictBatch.detached();
        int keyBytes = from.keyBytes();
        int at = to.reserveKeyBytes(keyBytes); // before keys(): reserving may replace the region
        System.arraycopy(from.keys(), 0, to.keys(), at, keyBytes);
        for (int t = 0; t < from.transactionCount(); t++) {
            to.addTransaction(from.readSnapshot(t) + shift, from.reportConflictingKeys(t));
            for (int r = from.readStart(t); r < from.readEnd(t); r++) {
                to.addReadAt(from.readBeginOffset(r), from.readBeginLength(r), from.readEndOffset(r), from.readEndLength(r));
            }
            for (int w = from.writeStart(t); w < from.writeEnd(t); w++) {
                to.addWriteAt(from.writeBeginOffset(w), from.writeBeginLength(w), from.writeEndOffset(w), from.writeEndLength(w));
            }
        }
        to.trimToSize();
        return to;
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
