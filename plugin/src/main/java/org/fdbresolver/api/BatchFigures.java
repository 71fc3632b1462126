package org.fdbresolver.api;

/**
 * What the last batch a conflict set decided looked like: its versions, its decisions with TOO_OLD split by
 * cause, and its time. All zero before the first batch.
 *
 * @param version          the batch's commit version
 * @param newOldestVersion the batch's {@code newOldestVersion}
 * @param transactions     transactions in the batch
 * @param commits          transactions decided COMMIT
 * @param conflicts        transactions decided CONFLICT
 * @param tooOldFdb        TOO_OLD answers FoundationDB gives too: the transaction reads and its snapshot is below
 *                         {@code newOldestVersion}
 * @param tooOldBudget     the other TOO_OLD answers, which only the memory budget causes
 * @param nanos            time inside {@link ConflictSet#detectConflicts} (validation included)
 * @param phaseNanos       the batch's time in each {@link Phase}, by ordinal (zero if untimed)
 */
public record BatchFigures(long version, long newOldestVersion, int transactions, int commits, int conflicts,
                           int tooOldFdb, int tooOldBudget, long nanos, long[] phaseNanos) {

    public long phaseNanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }
}
