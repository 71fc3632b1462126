package org.fdbresolver.bridge.testengine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.junit.jupiter.api.Test;

/** The fault-injection engine does what its faults promise, on the batches it promises, and decides right otherwise. */
class FaultyEngineTest {
    private static final byte[] A = {'a'};
    private static final byte[] A0 = {'a', 0};

    private static ConflictSet open(String fault, int every, int after) {
        return ConflictSet.open(ConflictSetConfig.builder().engine("test-faulty").memoryBudgetBytes(16 << 20)
                .option("fault", fault).option("every", Integer.toString(every)).option("after", Integer.toString(after))
                .option("nodeBytes", "256").build());
    }

    /** Batch at version v: a reporting reader of a at snapshot v - 3 (it conflicts with a write 2 versions before), writers of a and b. */
    private static BatchResult batch(ConflictSet cs, long v) {
        ConflictBatch b = cs.newBatch();
        b.addTransaction(v - 3, true);
        b.addRead(A, A0);
        b.addTransaction(v - 1, false);
        b.addWrite(A, A0);
        b.addTransaction(v - 1, false);
        b.addWrite(new byte[] {'b'}, new byte[] {'b', 0});
        return b.detectConflicts(v, 0);
    }

    @Test
    void throwFailsTheBatchesItNamesOnly() {
        try (ConflictSet cs = open("throw", 2, 1)) {
            assertEquals(Decision.COMMIT, batch(cs, 10).decision(0));
            assertThrows(IllegalStateException.class, () -> batch(cs, 11));
            assertEquals(Decision.CONFLICT, batch(cs, 12).decision(0), "the reader at 9 conflicts with the write at 10");
            assertThrows(IllegalStateException.class, () -> batch(cs, 13));
        }
    }

    @Test
    void aTriggerKeyChoosesTheBatch() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("test-faulty").option("fault", "throw")
                .option("trigger", "fault!").build())) {
            batch(cs, 10);
            batch(cs, 11);
            ConflictBatch b = cs.newBatch();
            b.addTransaction(11, false);
            b.addWrite("fault!now".getBytes(), "fault!now\0".getBytes());
            assertThrows(IllegalStateException.class, () -> b.detectConflicts(12, 0));
            assertEquals(Decision.CONFLICT, batch(cs, 13).decision(0));
        }
    }

    @Test
    void oomRunsTheHeapOutThenLetsGo() {
        try (ConflictSet cs = open("oom", 1000, 1)) {
            batch(cs, 10);
            assertThrows(OutOfMemoryError.class, () -> batch(cs, 11));
            assertTrue(FaultyEngineFactory.BALLAST.isEmpty(), "the ballast is let go");
            assertEquals(Decision.CONFLICT, batch(cs, 12).decision(0), "decides on after the heap ran out");
        }
    }

    @Test
    void malformedNamesAReadPastTheTransactionsReads() {
        try (ConflictSet cs = open("malformed", 1, 1)) {
            batch(cs, 10);
            BatchResult r = batch(cs, 12);
            // The last transaction (a write) answered CONFLICT: a reader-less CONFLICT no sound engine gives.
            assertEquals(Decision.CONFLICT, r.decision(2));
        }
    }

    @Test
    void wrongCommitCommitsConflicts() {
        try (ConflictSet cs = open("wrong-commit", 1, 1)) {
            batch(cs, 10);
            assertEquals(Decision.COMMIT, batch(cs, 12).decision(0), "the reader of a at 10 conflicts, answered COMMIT");
        }
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            batch(cs, 10);
            assertEquals(Decision.CONFLICT, batch(cs, 12).decision(0), "the right answer");
        }
    }

    @Test
    void noConflictingReadsAnswersAReportingCommitConflictWithoutReads() {
        try (ConflictSet cs = open("no-conflicting-reads", 1, 0)) {
            BatchResult r = batch(cs, 10);
            assertEquals(Decision.CONFLICT, r.decision(0), "the reporting reader, which commits, answered CONFLICT");
            assertEquals(0, r.conflictingTransactionCount(), "with no conflicting reads");
            assertEquals(Decision.COMMIT, r.decision(1));
        }
    }

    @Test
    void wrongCommitSystemCommitsConflictsInTheSystemKeysOnly() {
        byte[] system = {(byte) 0xff, 'p'};
        byte[] systemEnd = {(byte) 0xff, 'p', 0};
        try (ConflictSet cs = open("wrong-commit-system", 1, 1)) {
            ConflictBatch first = cs.newBatch();
            first.addTransaction(9, false);
            first.addWrite(A, A0);
            first.addTransaction(9, false);
            first.addWrite(system, systemEnd);
            first.detectConflicts(10, 0);
            ConflictBatch second = cs.newBatch();
            second.addTransaction(9, false);
            second.addRead(A, A0);
            second.addTransaction(9, false);
            second.addRead(system, systemEnd);
            second.addTransaction(9, false);
            second.addRead(new byte[] {'0'}, system); // a range from below the system keys into them
            BatchResult r = second.detectConflicts(12, 0);
            assertEquals(Decision.CONFLICT, r.decision(0), "a conflict on an ordinary key is answered right");
            assertEquals(Decision.COMMIT, r.decision(1), "a conflict on a system key is answered COMMIT");
            assertEquals(Decision.COMMIT, r.decision(2), "so is one whose range reaches into the system keys");
        }
    }
}
