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
 * @param tooOldBelowOldest TOO_OLD answers FoundationDB gives too: the snapshot was below the batch's
 *                          {@code newOldestVersion}
 * @param tooOldByBudget    TOO_OLD answers FoundationDB would not have given: the snapshot was at or above
 *                          {@code newOldestVersion}, and the memory budget had dropped the history it needed
 *                          (below the retained boundary, or writes kept apart as uncertain)
 * @param forgottenBatches  batches whose writes did not fit the budget even with all older history dropped:
 *                          all history was forgotten (every older reader is TOO_OLD); non-zero means the
 *                          budget is too small for the workload's batches (the engine logs a warning too)
 * @param phaseNanos        time spent in each {@link Phase}, indexed by ordinal (zero if untimed)
 */
public record ConflictSetStats(String engine, long batches, long transactions, long historyBytes,
                               long memoryBudgetBytes, long retainedVersion, long tooOldBelowOldest,
                               long tooOldByBudget, long forgottenBatches, long[] phaseNanos) {

    public long phaseNanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }
}
