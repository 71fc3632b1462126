package org.fdbresolver.harness.cli;

/**
 * Evicts the processor's caches between two timed batches ({@code bench --evict-caches}): writes one word into every
 * 64-byte line of a buffer of its own, so that the next batch meets the engine's history as cold as a Resolver does.
 * Inside fdbserver the rest of the process runs on the core between two batches; a benchmark that decides batches
 * back to back keeps a small history cached, and on the container cluster's flood that made the engine's merge and
 * sweep three times faster offline than in the cluster (docs/cluster.md). FoundationDB's comparator takes the same
 * option and evicts the same way, so both sides are timed alike.
 */
final class CacheEvictor {
    static final long MIN_BYTES = 64;
    static final long MAX_BYTES = 1L << 31;
    private static final int LINE_LONGS = 64 / Long.BYTES;
    private final long[] buffer;
    private long round;

    /** A buffer of {@code bytes}, {@link #MIN_BYTES} to {@link #MAX_BYTES} (bench checks the option before loading). */
    CacheEvictor(long bytes) {
        this.buffer = new long[(int) (bytes / Long.BYTES)];
    }

    /** One pass over the buffer, a write per line (a different value each pass, so that no pass is a no-op). */
    void evict() {
        long[] b = buffer;
        long v = ++round;
        for (int i = 0; i < b.length; i += LINE_LONGS) {
            b[i] = v + i;
        }
    }
}
