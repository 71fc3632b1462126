package org.fdbresolver.tree;

/**
 * The heap that the backing arrays of an engine's histories may take, in all: node chunks, key blocks and
 * large-key arrays of every pool of every history that shares it (the tree engine's history and its
 * uncertain writes share one). Pools keep what they once took, for reuse, so without a common limit the
 * reserved memory could grow past the budget pool by pool; with it, {@link #limit()} bounds the heap the
 * history holds whatever the workload does, and the engine can tell at open how large a heap it needs
 * ({@link org.fdbresolver.tree.TreeEngine#heapBytesBound()}).
 *
 * <p>The budget check ({@link MemoryBudget}) asks {@link #available()} before a step that may take new
 * arrays, so a pool never finds the limit reached in the middle of a merge; {@link #take} throws if it
 * does, as a guard. Counts include each array's 16-byte header.
 */
final class Reservation {
    /** What a Java array's header takes on a 64-bit JVM with compressed class pointers (at most). */
    static final long ARRAY_HEADER_BYTES = 16;

    private final long limit;
    private long reserved;

    Reservation(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("reservation limit must be positive: " + limit);
        }
        this.limit = limit;
    }

    /**
     * The limit for a memory budget: the budget plus a sixteenth (for free nodes and key chunks the pools keep
     * for reuse) and a few chunks and blocks of every pool (the granularity at which they take memory).
     */
    static long limitFor(long budgetBytes, int nodeBytes, int keyBlockBytes) {
        long granules = 4L * (NodeStore.CHUNK_NODES * (long) nodeBytes + 5 * ARRAY_HEADER_BYTES)
                + 4L * (keyBlockBytes + ARRAY_HEADER_BYTES);
        long limit = budgetBytes + budgetBytes / 16 + granules;
        // A budget near Long.MAX_VALUE (no bound at all) must not wrap around into a negative limit.
        return limit < budgetBytes ? Long.MAX_VALUE : limit;
    }

    long limit() {
        return limit;
    }

    long reserved() {
        return reserved;
    }

    long available() {
        return limit - reserved;
    }

    /** Takes {@code bytes} for a new array; throws when the budget check should have prevented it. */
    void take(long bytes) {
        if (bytes > limit - reserved) {
            throw new IllegalStateException("history heap reservation of " + limit + " bytes is full (" + reserved
                    + " taken, " + bytes + " more asked): the budget check let too much in");
        }
        reserved += bytes;
    }

    /** Gives back what a dropped array took. */
    void give(long bytes) {
        reserved -= bytes;
        assert reserved >= 0 : "gave back more than was taken";
    }
}
