package org.fdbresolver.harness.retention;

/**
 * What one batch of a replay left behind under one memory budget: the engine's retained boundary and history
 * bytes after the batch, and the batch's TOO_OLD answers split by who caused them.
 *
 * <p>Versions are FoundationDB's: 1,000,000 per second of commit time, so a difference of versions divided by
 * {@link #VERSIONS_PER_SECOND} is seconds of trace time.
 *
 * @param budgetBytes      the engine's memory budget
 * @param batch            the batch's index in the trace, from 0
 * @param version          the batch's commit version ({@code now})
 * @param newOldestVersion the batch's {@code new_oldest_version} as replayed
 * @param retainedVersion  the engine's retained boundary after the batch: reads below it are TOO_OLD
 * @param historyBytes     bytes the engine's history holds after the batch, as its budget counts them
 * @param transactions     transactions in the batch
 * @param tooOldFdb        TOO_OLD answers FoundationDB gives too: reads and a snapshot below {@code newOldestVersion}
 * @param tooOldBudget     the other TOO_OLD answers: the budget's (FoundationDB would have checked them)
 */
public record RetentionSample(long budgetBytes, long batch, long version, long newOldestVersion, long retainedVersion,
                              long historyBytes, int transactions, int tooOldFdb, int tooOldBudget) {
    /** FoundationDB's commit versions advance by one million per second. */
    public static final double VERSIONS_PER_SECOND = 1_000_000.0;

    /** Seconds of history a read may go back and still be checked: {@code now - retainedVersion}, in seconds. */
    public double retainedAgeSeconds() {
        return (version - retainedVersion) / VERSIONS_PER_SECOND;
    }

    /** The trace's own window: {@code now - newOldestVersion}, in seconds (FoundationDB's MVCC window). */
    public double windowSeconds() {
        return (version - newOldestVersion) / VERSIONS_PER_SECOND;
    }

    /** History bytes as a fraction of the budget. */
    public double budgetUsed() {
        return (double) historyBytes / budgetBytes;
    }

    /** Whether the budget, not the trace's window, set the retained boundary. */
    public boolean budgetBinds() {
        return retainedVersion > newOldestVersion;
    }
}
