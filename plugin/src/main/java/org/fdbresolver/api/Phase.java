package org.fdbresolver.api;

/** The phases of a batch, named like FoundationDB's resolver counters, each with its own timer. */
public enum Phase {
    /** Sorting the batch's range endpoints. */
    SORT("sort"),
    /** Checking reads against the history (and too-old). */
    CHECK_READ("checkRead"),
    /** Checking reads against earlier committed writes of the same batch. */
    CHECK_INTRA_BATCH("checkIntraBatch"),
    /** Combining the committed writes into disjoint ranges. */
    COMBINE("combine"),
    /** Merging the combined writes into the history at the batch version. */
    MERGE_WRITE("mergeWrite"),
    /** Discarding history older than the oldest version, and reclaiming memory. */
    REMOVE_BEFORE("removeBefore");

    private final String counterName;

    Phase(String counterName) {
        this.counterName = counterName;
    }

    /** The name FoundationDB's counters use. */
    public String counterName() {
        return counterName;
    }
}
