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
     * Starts a run of {@link #conflictsInOrder} calls: reads in begin order, until the next start. This default does
     * nothing.
     */
    default void startInOrder() {
    }

    /**
     * {@link #conflicts} for a read whose begin is at or above the begin of the previous read since {@link #startInOrder}
     * (the history unchanged between): an implementation may start where the previous read's search ended. This
     * default is {@link #conflicts}.
     */
    default boolean conflictsInOrder(byte[] keys, int beginOff, int beginLen, int endOff, int endLen, long snapshot) {
        return conflicts(keys, beginOff, beginLen, endOff, endLen, snapshot);
    }

    /**
     * Whether {@code reads} reads are checked faster sorted, together ({@link #checkSorted}), than one by one
     * ({@link #conflicts}): the pipeline then sorts a small batch's endpoints too. This default: never.
     */
    default boolean prefersSorted(int reads) {
        return false;
    }

    /**
     * Checks every read of {@code reads} (non-empty, sorted by begin) as {@link #conflicts} would, and
     * marks those that conflict. This default checks them one by one, in order, but one range once or twice
     * however many transactions read it: see {@link #checkSortedOneByOne}.
     */
    default void checkSorted(SortedReads reads) {
        checkSortedOneByOne(this, reads, 0, reads.count());
    }

    /**
     * Reads {@code [from, to)} of {@code reads} checked one by one with {@code reader}'s {@link #conflicts}, but a run of
     * reads of one range (they sit together in begin order) with as few descents as its snapshots allow. Whether a read
     * conflicts only falls as its snapshot rises (some write in the range is newer than the snapshot): the run is checked
     * at its newest snapshot first, and when that conflicts, so does every read of the run; when not, at its oldest,
     * and when that does not conflict either, none does; only the snapshots between two such answers need a descent of
     * their own. Hot keys make such runs: the bank workload's hundred accounts read by every transfer, a batch of 500
     * transfers reading each account ten times, nine in ten of them conflicting. Finding a run costs one comparison of
     * lengths per read, and of the keys when those agree. A read whose transaction an earlier read's conflict decided
     * already ({@link SortedReads#settled}) is not checked, as FoundationDB's skip list skips it.
     */
    static void checkSortedOneByOne(HistoryReader reader, SortedReads reads, int from, int to) {
        byte[] keys = reads.keys();
        reader.startInOrder();
        for (int i = from; i < to; ) {
            int j = i + 1;
            while (j < to && reads.sameRange(i, j)) {
                j++;
            }
            int bOff = reads.beginOffset(i);
            int bLen = reads.beginLength(i);
            int eOff = reads.endOffset(i);
            int eLen = reads.endLength(i);
            // The run's snapshots, but of reads whose transaction an earlier conflict has not decided already.
            long oldest = Long.MAX_VALUE;
            long newest = Long.MIN_VALUE;
            int open = 0;
            for (int r = i; r < j; r++) {
                if (!reads.settled(r)) {
                    oldest = Math.min(oldest, reads.snapshot(r));
                    newest = Math.max(newest, reads.snapshot(r));
                    open++;
                }
            }
            if (open == 0) {
                i = j;
                continue;
            }
            // Snapshots at or below the first conflict, and at or above the first clean answer, are settled.
            long conflictsAtOrBelow = Long.MIN_VALUE;
            long cleanAtOrAbove = Long.MAX_VALUE;
            if (reader.conflictsInOrder(keys, bOff, bLen, eOff, eLen, newest)) {
                conflictsAtOrBelow = newest;
            } else {
                cleanAtOrAbove = newest;
                if (oldest < newest) {
                    if (reader.conflictsInOrder(keys, bOff, bLen, eOff, eLen, oldest)) {
                        conflictsAtOrBelow = oldest;
                    } else {
                        cleanAtOrAbove = oldest;
                    }
                }
            }
            for (int r = i; r < j; r++) {
                if (reads.settled(r)) {
                    continue;
                }
                long snapshot = reads.snapshot(r);
                boolean hit;
                if (snapshot <= conflictsAtOrBelow) {
                    hit = true;
                } else if (snapshot >= cleanAtOrAbove) {
                    hit = false;
                } else {
                    hit = reader.conflictsInOrder(keys, bOff, bLen, eOff, eLen, snapshot);
                    if (hit) {
                        conflictsAtOrBelow = snapshot;
                    } else {
                        cleanAtOrAbove = snapshot;
                    }
                }
                if (hit) {
                    reads.setConflict(r);
                }
            }
            i = j;
        }
    }
}
