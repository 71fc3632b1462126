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
 */
public record ConflictSetStats(String engine, long batches, long transactions, long historyBytes,
                               long memoryBudgetBytes, long retainedVersion, long[] phaseNanos) {

    public long phaseNanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }
}
