package org.fdbresolver.harness.bench;

import org.fdbresolver.api.ConflictBatch;

/**
 * Batches shaped like FoundationDB's conflictset-range benchmark, generated straight into a
 * {@link ConflictBatch} without allocating: {@code txPerBatch} transactions, each with 4 reads spanning
 * 1–1000 keys and 2 writes spanning 1–10 keys, keys 8-byte big-endian integers below {@code keyspace},
 * snapshots lagging up to 3 batches, version step 1000, oldest version {@code window} behind.
 * A stand-in until the project's workload generators are used here.
 */
public final class RangeBatchSource {
    public static final long VERSION_STEP = 1000;
    private final int txPerBatch;
    private final long keyspace;
    private final long window;
    private final int readSpanMax;
    private final int writeSpanMax;
    private final byte[] begin = new byte[8];
    private final byte[] end = new byte[8];
    private long state;
    private long version;

    public RangeBatchSource(long seed, int txPerBatch, long keyspace, long window, int readSpanMax, int writeSpanMax) {
        this.state = seed * 0x9E3779B97F4A7C15L + 1;
        this.txPerBatch = txPerBatch;
        this.keyspace = keyspace;
        this.window = window;
        this.readSpanMax = readSpanMax;
        this.writeSpanMax = writeSpanMax;
        this.version = 0;
    }

    /** conflictset-range's shape. */
    public static RangeBatchSource conflictSetRange(long seed) {
        return new RangeBatchSource(seed, 500, 10_000_000, 5_000_000, 1000, 10);
    }

    private long next() {
        // splitmix64
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private int below(long bound) {
        return (int) Long.remainderUnsigned(next(), bound);
    }

    /** Fills {@code batch} (cleared first) with the next batch; returns its version. */
    public long fill(ConflictBatch batch) {
        batch.clear();
        version += VERSION_STEP;
        for (int t = 0; t < txPerBatch; t++) {
            long snapshot = Math.max(0, version - VERSION_STEP * (1 + below(3)));
            batch.addTransaction(snapshot, false);
            for (int r = 0; r < 4; r++) {
                long k = below(keyspace);
                range(batch, k, k + 1 + below(readSpanMax), true);
            }
            for (int w = 0; w < 2; w++) {
                long k = below(keyspace);
                range(batch, k, k + 1 + below(writeSpanMax), false);
            }
        }
        return version;
    }

    public long oldestVersion() {
        return Math.max(0, version - window);
    }

    private void range(ConflictBatch batch, long b, long e, boolean read) {
        put(begin, b);
        put(end, e);
        if (read) {
            batch.addRead(begin, 0, 8, end, 0, 8);
        } else {
            batch.addWrite(begin, 0, 8, end, 0, 8);
        }
    }

    private static void put(byte[] out, long v) {
        for (int i = 7; i >= 0; i--) {
            out[i] = (byte) v;
            v >>>= 8;
        }
    }
}
