package org.fdbresolver.harness.fuzz;

/**
 * The first place where the engine and the oracle part: a transaction decided otherwise (beyond a TOO_OLD the
 * budget allows), other conflicting reads, an answer of another shape, or the engine failing on a valid batch.
 *
 * @param batch       the batch's index in its trace (from 0)
 * @param transaction the transaction's index in the batch, or -1 when the whole batch is at fault
 * @param text        what differs, in words: {@code tree COMMIT, fdb-skiplist CONFLICT [0]}
 */
public record Difference(Kind kind, long batch, long version, int transaction, String text) {
    public enum Kind {
        DECISION, CONFLICTING_READS, ANSWER_SHAPE, ENGINE_ERROR
    }

    /** {@code batch 3 (version 4000) transaction 17: tree COMMIT, fdb-skiplist CONFLICT [0]}. */
    public String where() {
        return "batch " + batch + " (version " + version + ")" + (transaction >= 0 ? " transaction " + transaction : "")
                + ": " + text;
    }

    @Override
    public String toString() {
        return where();
    }
}
