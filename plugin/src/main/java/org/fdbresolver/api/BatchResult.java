package org.fdbresolver.api;

import java.util.Arrays;

/**
 * The decisions for one batch: one {@link Decision} code per transaction and, for transactions that
 * asked to report conflicting keys and were decided CONFLICT, the indices (within the transaction) of
 * their conflicting read ranges. Reused from batch to batch; valid until the next detection.
 *
 * <p>Engines fill it: {@link #reset(int)}, {@link #setDecision}, and for each reporting transaction in
 * ascending order {@link #beginConflictingReads(int)} followed by {@link #addConflictingRead(int)} in
 * ascending read order.
 */
public final class BatchResult {
    private byte[] decisions = new byte[64];
    private int transactionCount;

    private int conflictingCount;
    private int[] conflictingTransactions = new int[16];
    /** Entry i's reads are {@code conflictingReads[conflictingStarts[i] .. conflictingStarts[i + 1])}. */
    private int[] conflictingStarts = new int[17];
    private int[] conflictingReads = new int[64];
    private int conflictingReadCount;

    /** Starts a result for {@code transactionCount} transactions, all COMMIT, no conflicting reads. */
    public void reset(int transactionCount) {
        if (decisions.length < transactionCount) {
            decisions = new byte[Math.max(transactionCount, decisions.length * 2)];
        }
        Arrays.fill(decisions, 0, transactionCount, Decision.COMMIT_CODE);
        this.transactionCount = transactionCount;
        conflictingCount = 0;
        conflictingReadCount = 0;
        conflictingStarts[0] = 0;
    }

    public void setDecision(int t, byte code) {
        decisions[t] = code;
    }

    public void beginConflictingReads(int t) {
        if (conflictingCount > 0 && conflictingTransactions[conflictingCount - 1] >= t) {
            throw new IllegalStateException("conflicting reads must be added in ascending transaction order");
        }
        if (conflictingCount == conflictingTransactions.length) {
            conflictingTransactions = Arrays.copyOf(conflictingTransactions, conflictingCount * 2);
            conflictingStarts = Arrays.copyOf(conflictingStarts, conflictingCount * 2 + 1);
        }
        conflictingTransactions[conflictingCount++] = t;
        conflictingStarts[conflictingCount] = conflictingReadCount;
    }

    /** Adds a read-range index (within the transaction) to the entry begun last. */
    public void addConflictingRead(int readIndex) {
        if (conflictingReadCount == conflictingReads.length) {
            conflictingReads = Arrays.copyOf(conflictingReads, conflictingReadCount * 2);
        }
        conflictingReads[conflictingReadCount++] = readIndex;
        conflictingStarts[conflictingCount] = conflictingReadCount;
    }

    public int transactionCount() {
        return transactionCount;
    }

    public byte decisionCode(int t) {
        return decisions[t];
    }

    public Decision decision(int t) {
        return Decision.ofCode(decisions[t]);
    }

    /** The decision bytes; only the first {@link #transactionCount()} are meaningful. */
    public byte[] decisionBytes() {
        return decisions;
    }

    public int conflictingTransactionCount() {
        return conflictingCount;
    }

    /** The transaction index of conflicting-reads entry i. */
    public int conflictingTransaction(int i) {
        return conflictingTransactions[i];
    }

    public int conflictingReadCount(int i) {
        return conflictingStarts[i + 1] - conflictingStarts[i];
    }

    public int conflictingRead(int i, int j) {
        return conflictingReads[conflictingStarts[i] + j];
    }

    /** Counts of COMMIT, CONFLICT and TOO_OLD, indexed by decision code. */
    public void countDecisions(long[] countsByCode) {
        for (int t = 0; t < transactionCount; t++) {
            countsByCode[decisions[t]]++;
        }
    }
}
