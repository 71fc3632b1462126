package org.fdbresolver.pipeline;

/**
 * The read check against the history, kept behind an interface so that read paths (one descent per
 * read, a batched sorted path) can be swapped and compared in one run.
 */
public interface HistoryReader {

    /**
     * Whether read {@code [begin, end)} at {@code snapshot} conflicts with a retained write newer than
     * the snapshot: for a non-empty read, a write {@code [wb, we)} with {@code wb < end && begin < we};
     * for an empty read {@code [k, k)}, one with {@code wb < k <= we}. The caller has already answered
     * TOO_OLD for snapshots below the retained boundary.
     */
    boolean conflicts(byte[] keys, int beginOff, int beginLen, int endOff, int endLen, long snapshot);

    /**
     * Whether {@code reads} reads are checked faster sorted, together ({@link #checkSorted}), than one by one
     * ({@link #conflicts}): the pipeline then sorts a small batch's endpoints too. This default: never.
     */
    default boolean prefersSorted(int reads) {
        return false;
    }

    /**
     * Checks every read of {@code reads} (non-empty, sorted by begin) as {@link #conflicts} would, and
     * marks those that conflict. This default checks them one by one, in order.
     */
    default void checkSorted(SortedReads reads) {
        byte[] keys = reads.keys();
        for (int i = 0, n = reads.count(); i < n; i++) {
            if (conflicts(keys, reads.beginOffset(i), reads.beginLength(i), reads.endOffset(i), reads.endLength(i),
                    reads.snapshot(i))) {
                reads.setConflict(i);
            }
        }
    }
}
