package org.fdbresolver.engine;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;

/**
 * What every engine implements. {@link org.fdbresolver.api.ConflictSet} validates each batch before it
 * reaches an engine, so an engine sees only valid batches: versions increasing, oldest versions
 * non-decreasing and not above the batch version, every range with {@code begin <= end}, keys within
 * the configured size limit.
 *
 * <p>An engine must leave its state unchanged when it throws, and must never answer COMMIT for a
 * transaction whose conflicts it no longer holds (see {@link #retainedVersion()}).
 */
public interface ConflictEngine extends AutoCloseable {

    /** The name engines are selected by (CLI {@code --engine}, config). */
    String name();

    /**
     * Decides every transaction of {@code batch} at commit version {@code now}, discarding history older
     * than {@code newOldestVersion}, and fills {@code out} (one decision per transaction, conflicting
     * read ranges for reporting transactions). The batch's committed writes enter the history at
     * {@code now}.
     */
    void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out);

    /** Forgets all history; reads older than {@code version} become TOO_OLD (FDB's clearConflictSet). */
    void clear(long version);

    /** Bytes the history holds, exactly as the memory budget accounts them. */
    long historyBytes();

    /**
     * The engine's own oldest checkable version: at least the last {@code newOldestVersion}, raised when
     * the memory budget forced history out. Never decreases.
     */
    long retainedVersion();

    /**
     * Batches whose writes the memory budget could not hold even after dropping all older history (the
     * engine then forgot everything and raised its retained boundary above the batch): non-zero means the
     * budget is too small for the workload. Zero for engines without a budget.
     */
    default long forgottenBatches() {
        return 0;
    }

    /**
     * Times the memory budget made room by sweeping the whole history in one batch (a pause proportional to the
     * history), because what it frees ahead of need, a bounded share per batch, did not keep up: zero in steady
     * state. Zero for engines without a budget.
     */
    default long fullSweepEvictions() {
        return 0;
    }

    /**
     * The most Java heap the engine's history can take whatever the workload (its arrays, free or in use), so
     * that a host can size the heap from the budget at open; -1 when it has no bound (an engine without a
     * budget keeps all history).
     */
    default long historyHeapBoundBytes() {
        return -1;
    }

    /** Heap the engine's history takes now (its arrays, free or in use, headers included); -1 when unknown. */
    default long historyReservedBytes() {
        return -1;
    }

    /** Adds the time spent in each {@link org.fdbresolver.api.Phase} (by ordinal) to {@code nanosByPhase}. */
    default void addPhaseNanos(long[] nanosByPhase) {
    }

    @Override
    default void close() {
    }
}
