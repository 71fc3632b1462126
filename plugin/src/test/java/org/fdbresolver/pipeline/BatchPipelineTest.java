package org.fdbresolver.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.Phase;
import org.junit.jupiter.api.Test;

/** The pipeline's phases around engine {@code tree}: timers, the intra-batch set, combine, clear. */
class BatchPipelineTest {

    private static byte[] k(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void everyPhaseIsTimed() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            ConflictBatch b = cs.newBatch();
            for (int v = 1; v <= 20; v++) {
                for (int t = 0; t < 50; t++) {
                    b.addTransaction(v - 1, false);
                    b.addRead(k("a" + t), k("b" + t));
                    b.addWrite(k("c" + t), k("c" + t + "z"));
                }
                b.detectConflicts(v, 0);
            }
            for (Phase p : Phase.values()) {
                assertTrue(cs.stats().phaseNanos(p) > 0, p + " was not timed");
            }
        }
    }

    @Test
    void intraBatchUsesOnlyEarlierCommittedWritesAndNeverOwnWrites() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            ConflictBatch b = cs.newBatch();
            b.addTransaction(5, false); // 0: reads and writes [m, n): own write, commits
            b.addRead(k("m"), k("n"));
            b.addWrite(k("m"), k("n"));
            b.addTransaction(0, false); // 1: too old (reads, snapshot below oldest 1): its write must not count
            b.addRead(k("x"), k("y"));
            b.addWrite(k("a"), k("c"));
            b.addTransaction(5, true); // 2: reads [b, b\0) and [mm, mn): hits 0's write with read 1
            b.addRead(k("b"), k("b\0"));
            b.addRead(k("mm"), k("mn"));
            b.addTransaction(5, false); // 3: empty read [m, m): never intra-batch
            b.addRead(k("m"), k("m"));
            BatchResult r = b.detectConflicts(10, 1);
            assertEquals(Decision.COMMIT, r.decision(0));
            assertEquals(Decision.TOO_OLD, r.decision(1));
            assertEquals(Decision.CONFLICT, r.decision(2));
            assertEquals(Decision.COMMIT, r.decision(3));
            assertEquals(1, r.conflictingTransactionCount());
            assertEquals(1, r.conflictingRead(0, 0));
            // Next batch: 0's write is history at 10; a reader at 9 conflicts, at 10 does not.
            b.addTransaction(9, false);
            b.addRead(k("m"), k("m\0"));
            b.addTransaction(10, false);
            b.addRead(k("m"), k("m\0"));
            BatchResult r2 = b.detectConflicts(11, 1);
            assertEquals(Decision.CONFLICT, r2.decision(0));
            assertEquals(Decision.COMMIT, r2.decision(1));
        }
    }

    @Test
    void clearForgetsHistoryAndRaisesTheBoundary() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            ConflictBatch b = cs.newBatch();
            b.addTransaction(0, false);
            b.addWrite(k("a"), k("z"));
            b.detectConflicts(10, 0);
            cs.clear(20);
            assertEquals(20, cs.engine().retainedVersion());
            b.addTransaction(19, false);
            b.addRead(k("b"), k("c"));
            b.addTransaction(20, false);
            b.addRead(k("b"), k("c"));
            BatchResult r = b.detectConflicts(30, 0 + 20);
            assertEquals(Decision.TOO_OLD, r.decision(0));
            assertEquals(Decision.COMMIT, r.decision(1));
            assertFalse(cs.engine().historyBytes() > 4096);
        }
    }

    @Test
    void miniConflictSetRunsAndRanges() {
        MiniConflictSet m = new MiniConflictSet();
        m.reset(200);
        m.set(3, 70);
        m.set(128, 129);
        assertTrue(m.any(69, 71));
        assertFalse(m.any(70, 128));
        assertTrue(m.any(0, 200));
        assertFalse(m.any(5, 5));
        assertEquals(3, m.nextSet(0));
        assertEquals(70, m.nextClear(3));
        assertEquals(128, m.nextSet(70));
        assertEquals(129, m.nextClear(128));
        assertEquals(200, m.nextSet(129));
        m.reset(100);
        assertFalse(m.any(0, 100), "reset clears");
    }
}
