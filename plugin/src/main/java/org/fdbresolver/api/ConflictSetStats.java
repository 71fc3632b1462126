package org.fdbresolver.api;

/**
 * A snapshot of a conflict set's counters.
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
 * @param tooOldBudget      the other TOO_OLD answers: those the memory budget caused
 * @param lastBatch         the last batch's figures
 */
public record ConflictSetStats(String engine, long batches, long transactions, long historyBytes,
                               long memoryBudgetBytes, long retainedVersion, long[] phaseNanos,
                               long commits, long conflicts, long tooOldFdb, long tooOldBudget, BatchFigures lastBatch) {

    public long phaseNanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }
}
