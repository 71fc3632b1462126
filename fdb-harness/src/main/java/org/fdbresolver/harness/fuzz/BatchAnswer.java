package org.fdbresolver.harness.fuzz;

import java.util.Arrays;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.Decision;

/**
 * One side's answer for one batch, in reusable arrays: a decision code per transaction and the conflicting reads
 * flattened as {@code transaction, count, read indices...} for each reporting transaction decided CONFLICT, in
 * ascending transaction order (the shape the conflicting-keys hash sees, docs/formats.md).
 */
public final class BatchAnswer {
    byte[] decisions = new byte[64];
    int transactions;
    int[] conflicting = new int[64];
    int conflictingLength;
    long version;

    void clear(long version) {
        this.version = version;
        transactions = 0;
        conflictingLength = 0;
    }

    void copy(long version, BatchResult r) {
        clear(version);
        int n = r.transactionCount();
        ensureDecisions(n);
        System.arraycopy(r.decisionBytes(), 0, decisions, 0, n);
        transactions = n;
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            int reads = r.conflictingReadCount(i);
            addConflicting(r.conflictingTransaction(i));
            addConflicting(reads);
            for (int j = 0; j < reads; j++) {
                addConflicting(r.conflictingRead(i, j));
            }
        }
    }

    void copy(BatchAnswer other) {
        clear(other.version);
        ensureDecisions(other.transactions);
        System.arraycopy(other.decisions, 0, decisions, 0, other.transactions);
        transactions = other.transactions;
        for (int i = 0; i < other.conflictingLength; i++) {
            addConflicting(other.conflicting[i]);
        }
    }

    void ensureDecisions(int n) {
        if (decisions.length < n) {
            decisions = new byte[Math.max(n, decisions.length * 2)];
        }
    }

    void addConflicting(int value) {
        if (conflictingLength == conflicting.length) {
            conflicting = Arrays.copyOf(conflicting, conflictingLength * 2);
        }
        conflicting[conflictingLength++] = value;
    }

    /** Transactions answered. */
    public int transactions() {
        return transactions;
    }

    /** Where transaction {@code t}'s conflicting-reads entry starts (at its transaction index), or -1 if it has none. */
    int entryOf(int t) {
        for (int i = 0; i < conflictingLength; i += 2 + conflicting[i + 1]) {
            if (conflicting[i] == t) {
                return i;
            }
            if (conflicting[i] > t) {
                break;
            }
        }
        return -1;
    }

    /** Transaction {@code t}'s conflicting reads as text, {@code [0, 2]}, or {@code []} when it has none. */
    String readsText(int t) {
        int at = entryOf(t);
        if (at < 0) {
            return "[]";
        }
        StringBuilder sb = new StringBuilder("[");
        for (int j = 0; j < conflicting[at + 1]; j++) {
            sb.append(j == 0 ? "" : ", ").append(conflicting[at + 2 + j]);
        }
        return sb.append(']').toString();
    }

    /**
     * Transaction {@code t}'s decision with its conflicting reads when it reported them, as listings show it:
     * {@code COMMIT}, {@code CONFLICT}, {@code CONFLICT [0, 2]} (an engine that reports reads the other does not shows
     * {@code CONFLICT []} against {@code CONFLICT}).
     */
    public String describe(int t) {
        Decision d = Decision.ofCode(decisions[t]);
        return entryOf(t) >= 0 ? d + " " + readsText(t) : d.toString();
    }
}
