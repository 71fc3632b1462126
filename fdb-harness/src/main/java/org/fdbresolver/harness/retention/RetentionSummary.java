package org.fdbresolver.harness.retention;

/**
 * The figures of one replay under one budget, accumulated batch by batch in constant memory. "Bound" batches
 * are those from the first one whose retained boundary the budget raised above the trace's
 * {@code new_oldest_version} to the end: the interval where the budget, not the trace's window, decides how
 * much history is kept.
 */
public final class RetentionSummary {
    private final long budgetBytes;
    private long batches;
    private long transactions;
    private long tooOldFdb;
    private long tooOldBudget;
    private long firstVersion;
    private RetentionSample last;

    private long boundFromBatch = -1;
    private double boundFromSeconds;
    private long boundBatches;
    private double usedMin = Double.POSITIVE_INFINITY;
    private double usedSum;
    private double ageMin = Double.POSITIVE_INFINITY;
    private double ageSum;
    private long historyMax;

    public RetentionSummary(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    public void add(RetentionSample s) {
        if (batches == 0) {
            firstVersion = s.version();
        }
        batches++;
        transactions += s.transactions();
        tooOldFdb += s.tooOldFdb();
        tooOldBudget += s.tooOldBudget();
        historyMax = Math.max(historyMax, s.historyBytes());
        if (boundFromBatch < 0 && s.budgetBinds()) {
            boundFromBatch = s.batch();
            boundFromSeconds = traceSeconds(s.version());
        }
        if (boundFromBatch >= 0) {
            boundBatches++;
            usedMin = Math.min(usedMin, s.budgetUsed());
            usedSum += s.budgetUsed();
            ageMin = Math.min(ageMin, s.retainedAgeSeconds());
            ageSum += s.retainedAgeSeconds();
        }
        last = s;
    }

    /** Seconds of trace time from the first batch to {@code version}. */
    public double traceSeconds(long version) {
        return (version - firstVersion) / RetentionSample.VERSIONS_PER_SECOND;
    }

    /** The first batch's version: trace time 0. */
    public long firstVersion() {
        return firstVersion;
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public long batches() {
        return batches;
    }

    public long transactions() {
        return transactions;
    }

    public long tooOldFdb() {
        return tooOldFdb;
    }

    /** TOO_OLD answers FoundationDB would not have given: the budget's. */
    public long tooOldBudget() {
        return tooOldBudget;
    }

    /** The last batch's figures, or null before the first batch. */
    public RetentionSample last() {
        return last;
    }

    public long historyMax() {
        return historyMax;
    }

    /** Whether the budget ever raised the retained boundary above the trace's {@code new_oldest_version}. */
    public boolean budgetBound() {
        return boundFromBatch >= 0;
    }

    /** The first batch the budget bound, or -1. */
    public long boundFromBatch() {
        return boundFromBatch;
    }

    /** Trace time of the first batch the budget bound. */
    public double boundFromSeconds() {
        return boundFromSeconds;
    }

    /** Smallest fraction of the budget holding history over the bound batches (NaN if the budget never bound). */
    public double usedMin() {
        return boundBatches == 0 ? Double.NaN : usedMin;
    }

    public double usedMean() {
        return boundBatches == 0 ? Double.NaN : usedSum / boundBatches;
    }

    /** Shortest retained age over the bound batches, in seconds (NaN if the budget never bound). */
    public double retainedAgeMin() {
        return boundBatches == 0 ? Double.NaN : ageMin;
    }

    public double retainedAgeMean() {
        return boundBatches == 0 ? Double.NaN : ageSum / boundBatches;
    }
}
