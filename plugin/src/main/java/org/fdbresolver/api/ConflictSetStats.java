package org.fdbresolver.api;

/**
 * A snapshot of a conflict set's counters (cumulative since it was opened; read it after each batch and
 * take differences for per-batch figures).
 *
 * @param engine            the engine's name
 * @param batches           batches resolved
 * @param transactions      transactions resolved
 * @param historyBytes      bytes the history holds now, exactly as the budget accounts them
 * @param memoryBudgetBytes the configured budget
 * @param retainedVersion   the engine's retained boundary: reads below it are TOO_OLD (never decreases)
 * @param phaseNanos        time spent in each {@link Phase}, indexed by ordinal (zero if untimed)
 * @param commits           transactions decided COMMIT
 * @param conflicts         transactions decided CONFLICT
 * @param tooOldFdb         TOO_OLD answers FoundationDB gives too (reads, snapshot below {@code newOldestVersion})
 * @param tooOldBudget      the other TOO_OLD answers, which FoundationDB would not have given: the snapshot was
 *                          at or above {@code newOldestVersion}, and the memory budget had dropped the history it
 *                          needed (below the retained boundary, or writes kept apart as uncertain)
 * @param forgottenBatches  batches whose writes did not fit the budget even with all older history dropped:
 *                          all history was forgotten (every older reader is TOO_OLD); non-zero means the
 *                          budget is too small for the workload's batches (the engine logs a warning too)
 * @param fullSweepEvictions times the budget made room by sweeping the whole history in one batch (a pause that
 *                          grows with the history), because what it frees ahead of need, a share bounded by each
 *                          batch, did not keep up; zero in steady state
 * @param lastBatch         the last batch's figures
 */
public record ConflictSetStats(String engine, long batches, long transactions, long historyBytes,
                               long memoryBudgetBytes, long retainedVersion, long[] phaseNanos,
                               long commits, long conflicts, long tooOldFdb, long tooOldBudget, long forgottenBatches,
                               long fullSweepEvictions, BatchFigures lastBatch) {

    public long phaseNanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }
}
