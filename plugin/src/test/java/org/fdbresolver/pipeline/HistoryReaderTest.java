package org.fdbresolver.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-by-one check of sorted reads ({@link HistoryReader#checkSortedOneByOne}) answers every read as its own
 * {@link HistoryReader#conflicts} would, and settles a run of reads of one range from one or two descents.
 */
class HistoryReaderTest {
    /** A history that holds, per range, the newest write in it; counts the descents it is asked for. */
    private static final class NewestPerRange implements HistoryReader {
        final List<String> ranges = new ArrayList<>();
        final List<Long> newest = new ArrayList<>();
        int descents;

        @Override
        public boolean conflicts(byte[] keys, int beginOff, int beginLen, int endOff, int endLen, long snapshot) {
            descents++;
            String range = new String(keys, beginOff, beginLen, StandardCharsets.ISO_8859_1) + ".."
                    + new String(keys, endOff, endLen, StandardCharsets.ISO_8859_1);
            return newest.get(ranges.indexOf(range)) > snapshot;
        }
    }

    @Test
    void runsOfOneRangeAnswerAsEachReadAlone() {
        Random random = new Random(7);
        long allReads = 0;
        long allDescents = 0;
        for (int round = 0; round < 200; round++) {
            NewestPerRange history = new NewestPerRange();
            // Ranges sorted by begin; some share a begin with another end, so runs break inside equal begins.
            StringBuilder bytes = new StringBuilder();
            List<int[]> reads = new ArrayList<>();
            List<Long> snapshots = new ArrayList<>();
            int rangeCount = 1 + random.nextInt(6);
            for (int r = 0; r < rangeCount; r++) {
                String begin = "k" + (char) ('a' + r / 2);
                String end = begin + (r % 2 == 0 ? "x" : "yy");
                history.ranges.add(begin + ".." + end);
                history.newest.add((long) random.nextInt(100));
                int readers = 1 + random.nextInt(12);
                for (int i = 0; i < readers; i++) {
                    int bOff = bytes.length();
                    bytes.append(begin);
                    int eOff = bytes.length();
                    bytes.append(end);
                    reads.add(new int[] {bOff, begin.length(), eOff, end.length()});
                    snapshots.add((long) random.nextInt(100));
                }
            }
            byte[] keys = bytes.toString().getBytes(StandardCharsets.ISO_8859_1);
            SortedReads sorted = new SortedReads();
            sorted.reset(keys);
            for (int i = 0; i < reads.size(); i++) {
                int[] r = reads.get(i);
                sorted.add(r[0], r[1], r[2], r[3], snapshots.get(i));
            }

            HistoryReader.checkSortedOneByOne(history, sorted, 0, sorted.count());

            for (int i = 0; i < sorted.count(); i++) {
                int[] r = reads.get(i);
                String range = new String(keys, r[0], r[1], StandardCharsets.ISO_8859_1) + ".."
                        + new String(keys, r[2], r[3], StandardCharsets.ISO_8859_1);
                boolean expected = history.newest.get(history.ranges.indexOf(range)) > snapshots.get(i);
                assertEquals(expected, sorted.conflict(i), "round " + round + ", read " + i + " of " + range);
            }
            assertTrue(history.descents <= sorted.count(), "round " + round + ": " + history.descents + " descents");
            allReads += sorted.count();
            allDescents += history.descents;
        }
        // Runs of 1 to 12 reads at snapshots drawn at random around the range's newest write (the hardest case:
        // real readers' snapshots lie close together): still a third of the reads settled without a descent
        // (2,474 descents for 4,516 reads with this seed).
        assertTrue(allDescents < allReads * 2 / 3, allDescents + " descents for " + allReads + " reads");
    }

    /** A history of one range, {@code acct..acct\0}, whose newest write is {@code newest}. */
    private static NewestPerRange hotRange(long newest) {
        NewestPerRange history = new NewestPerRange();
        history.ranges.add("acct..acct\0");
        history.newest.add(newest);
        return history;
    }

    /** Reads of {@link #hotRange}'s range at {@code snapshots}, in that order. */
    private static SortedReads hotRangeReads(long... snapshots) {
        SortedReads sorted = new SortedReads();
        sorted.reset("acctacct\0".getBytes(StandardCharsets.ISO_8859_1));
        for (long s : snapshots) {
            sorted.add(0, 4, 4, 5, s);
        }
        return sorted;
    }

    @Test
    void aHotRangeSettlesMostReadsWithoutADescent() {
        NewestPerRange history = hotRange(50);
        long[] snapshots = {10, 60, 49, 50, 51, 20, 70, 40};
        SortedReads sorted = hotRangeReads(snapshots);
        HistoryReader.checkSortedOneByOne(history, sorted, 0, sorted.count());
        for (int i = 0; i < snapshots.length; i++) {
            assertEquals(snapshots[i] < 50, sorted.conflict(i), "snapshot " + snapshots[i]);
        }
        // 70 (the newest) is clean and 10 (the oldest) conflicts; then 60, 49 and 50 need a descent each, and 51,
        // 20, 40 and the two ends are settled by the answers before them.
        assertEquals(5, history.descents, "descents for " + snapshots.length + " reads");
    }

    @Test
    void aHotRangeThatConflictsAtItsNewestSnapshotTakesOneDescent() {
        NewestPerRange history = hotRange(1_000);
        long[] snapshots = new long[100];
        for (int i = 0; i < snapshots.length; i++) {
            snapshots[i] = 5L * i;
        }
        SortedReads sorted = hotRangeReads(snapshots);
        HistoryReader.checkSortedOneByOne(history, sorted, 0, sorted.count());
        for (int i = 0; i < sorted.count(); i++) {
            assertTrue(sorted.conflict(i), "read " + i);
        }
        assertEquals(1, history.descents, "every read of the run settled by the newest snapshot's answer");
    }

    @Test
    void aTransactionDecidedByAnEarlierConflictHasItsOtherReadsLeftUnchecked() {
        NewestPerRange history = new NewestPerRange();
        history.ranges.add("a..b");
        history.newest.add(100L);
        history.ranges.add("c..d");
        history.newest.add(100L);
        byte[] keys = "abcd".getBytes(StandardCharsets.ISO_8859_1);
        SortedReads sorted = new SortedReads();
        sorted.reset(keys);
        sorted.resetOwners(3);
        sorted.add(0, 1, 1, 1, 50, 0);                       // transaction 0 conflicts on a..b
        sorted.add(0, 1, 1, 1, 200, 1);                      // transaction 1 does not
        sorted.add(2, 1, 3, 1, 60, 0);                       // transaction 0 again: decided, not checked
        sorted.add(2, 1, 3, 1, 70, SortedReads.NO_OWNER);    // a reporting transaction: checked
        sorted.add(2, 1, 3, 1, 300, 1);                      // transaction 1: checked, clean
        HistoryReader.checkSortedOneByOne(history, sorted, 0, sorted.count());
        assertTrue(sorted.conflict(0));
        assertTrue(!sorted.conflict(1));
        assertTrue(!sorted.conflict(2), "left unchecked: its transaction conflicts already");
        assertTrue(sorted.settled(2));
        assertTrue(sorted.conflict(3), "a reporting transaction's read is always checked");
        assertTrue(!sorted.conflict(4));
        // a..b at 200 (newest, clean) and 50 (oldest, conflicts); c..d at 300 (newest, clean) and 70 (conflicts).
        assertEquals(4, history.descents);
    }
}
