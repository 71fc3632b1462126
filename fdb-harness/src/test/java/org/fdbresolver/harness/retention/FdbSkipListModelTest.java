package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.junit.jupiter.api.Test;

/** The skip-list model against cases worked out by hand from ConflictSet.cpp. */
class FdbSkipListModelTest {
    private static final int HEAD = FdbSkipListModel.allocatedBytes(0, FdbSkipListModel.MAX_LEVELS - 1);

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The levels skfastrand gives, computed as C++ does: in 64 bits, then truncated to 32. */
    private static int[] cppLevels(int n) {
        int[] levels = new int[n];
        long seed = 0;
        for (int i = 0; i < n; i++) {
            seed = (seed * 1664525L + 1013904223L) & 0xFFFFFFFFL;
            long bits = seed >>> 7;
            int level = 0;
            while ((bits & 1) == 1) {
                bits >>>= 1;
                level++;
            }
            levels[i] = level;
        }
        return levels;
    }

    /** One batch: each transaction is {decision, begin, end, begin, end, ...} of writes. */
    private static void apply(FdbSkipListModel model, long now, long oldest, Object[]... transactions) {
        ConflictBatch batch = ConflictBatch.detached();
        BatchResult result = new BatchResult();
        for (Object[] t : transactions) {
            batch.addTransaction(0, false);
            for (int i = 1; i < t.length; i += 2) {
                batch.addWrite(k((String) t[i]), k((String) t[i + 1]));
            }
        }
        result.reset(transactions.length);
        for (int t = 0; t < transactions.length; t++) {
            result.setDecision(t, (byte) transactions[t][0]);
        }
        model.batch(batch, result, now, oldest);
    }

    @Test
    void levelsFollowTheSkipListsGenerator() {
        FdbSkipListModel model = new FdbSkipListModel();
        int[] expected = cppLevels(10_000);
        int[] histogram = new int[FdbSkipListModel.MAX_LEVELS];
        for (int i = 0; i < expected.length; i++) {
            int level = model.randomLevel();
            assertEquals(expected[i], level, "draw " + i);
            histogram[level]++;
        }
        // Geometric with p = 1/2: about half the nodes have level 0.
        assertEquals(0.5, histogram[0] / 10_000.0, 0.02);
    }

    @Test
    void aWriteAddsItsBeginAtTheBatchVersionAndItsEndAtTheVersionInForce() {
        FdbSkipListModel model = new FdbSkipListModel();
        assertEquals(HEAD, model.bytes());
        assertEquals(424, HEAD, "8-byte header and 26 levels of 16 bytes");
        apply(model, 100, 0, new Object[] {Decision.COMMIT_CODE, "a", "b"});
        int[] levels = cppLevels(2); // the end's node is drawn first, then the begin's
        assertEquals(2, model.nodeCount());
        assertEquals(HEAD + FdbSkipListModel.allocatedBytes(1, levels[0]) + FdbSkipListModel.allocatedBytes(1, levels[1]),
                model.bytes());
    }

    @Test
    void onlyCommittedWritesEnterAndTouchingRangesStayTwo() {
        FdbSkipListModel model = new FdbSkipListModel();
        apply(model, 100, 0,
                new Object[] {Decision.COMMIT_CODE, "a", "b"},
                new Object[] {Decision.COMMIT_CODE, "b", "c"},
                new Object[] {Decision.CONFLICT_CODE, "x", "y"},
                new Object[] {Decision.TOO_OLD_CODE, "p", "q"});
        assertEquals(3, model.nodeCount(), "a, b, c: an end sorts before a begin at the same key");

        FdbSkipListModel overlapping = new FdbSkipListModel();
        apply(overlapping, 100, 0,
                new Object[] {Decision.COMMIT_CODE, "a", "c"},
                new Object[] {Decision.COMMIT_CODE, "b", "d"});
        assertEquals(2, overlapping.nodeCount(), "[a, d) combined: a and d");

        // A later write covering b and c removes their nodes and keeps the end's node: a, d (unchanged), and [a0, e).
        apply(model, 200, 0, new Object[] {Decision.COMMIT_CODE, "a0", "e"});
        assertEquals(3, model.nodeCount(), "a, a0, e: b and c were inside [a0, e)");
    }

    @Test
    void removeBeforeDropsAnOldNodeOnlyAfterAnotherOldOne() {
        FdbSkipListModel model = new FdbSkipListModel();
        apply(model, 100, 0, new Object[] {Decision.COMMIT_CODE, "a", "b"}); // a:100 b:0
        apply(model, 200, 150, new Object[] {Decision.COMMIT_CODE, "c", "d"}); // c:200 d:0, then removal at 150
        // Walk from the start: a is old but the first examined (kept); b is old after old a (removed);
        // c is new (kept); d is old after new c (kept).
        assertEquals(3, model.nodeCount());
        long bytes = model.bytes();
        // The removal key moved past the end and wrapped: the next removal starts over, a (old, first) kept, c kept,
        // d old after new c kept. Nothing changes until c ages out too.
        apply(model, 300, 160);
        assertEquals(3, model.nodeCount());
        assertEquals(bytes, model.bytes());
        // Now c is old too: a (first) stays; c follows old a and goes; d follows c, examined old, and goes.
        apply(model, 400, 250);
        assertEquals(1, model.nodeCount());
    }
}
