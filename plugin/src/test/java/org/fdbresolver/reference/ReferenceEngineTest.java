package org.fdbresolver.reference;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each rule of docs/formats.md, one small scenario at a time. */
class ReferenceEngineTest {
    private ConflictSet cs;
    private ConflictBatch batch;

    @BeforeEach
    void open() {
        cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build());
        batch = cs.newBatch();
    }

    @Test
    void refusesEveryOption() {
        // the reference has no tuning: an option meant for another engine must not pass silently
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConflictSet.open(
                ConflictSetConfig.builder().engine("reference").option("nodeBytes", "256").build()));
        assertEquals("engine reference: unknown option 'nodeBytes' (it takes none)", e.getMessage());
    }

    private static byte[] k(String s) {
        return s.getBytes(US_ASCII);
    }

    private void tx(long snapshot, String[] reads, String[] writes) {
        tx(snapshot, reads, writes, false);
    }

    private void tx(long snapshot, String[] reads, String[] writes, boolean report) {
        batch.addTransaction(snapshot, report);
        for (int i = 0; i < reads.length; i += 2) {
            batch.addRead(k(reads[i]), k(reads[i + 1]));
        }
        for (int i = 0; i < writes.length; i += 2) {
            batch.addWrite(k(writes[i]), k(writes[i + 1]));
        }
    }

    private Decision[] detect(long now, long oldest) {
        BatchResult r = batch.detectConflicts(now, oldest);
        Decision[] d = new Decision[r.transactionCount()];
        for (int t = 0; t < d.length; t++) {
            d[t] = r.decision(t);
        }
        return d;
    }

    private static String[] r(String... keys) {
        return keys;
    }

    @Test
    void historyConflictNeedsStrictlyNewerVersion() {
        tx(0, r(), r("b", "d"));
        assertArrayEquals(new Decision[] {Decision.COMMIT}, detect(10, 0));
        tx(9, r("c", "e"), r());
        tx(10, r("c", "e"), r());
        tx(9, r("d", "e"), r());
        tx(9, r("a", "b"), r());
        assertArrayEquals(new Decision[] {Decision.CONFLICT, Decision.COMMIT, Decision.COMMIT, Decision.COMMIT},
                detect(20, 0));
    }

    @Test
    void tooOldOnlyWithReads() {
        tx(4, r("a", "b"), r("x", "y"));
        tx(4, r(), r("a", "b"));
        tx(5, r("e", "f"), r());
        tx(-1, r(), r("c", "d"));
        assertArrayEquals(new Decision[] {Decision.TOO_OLD, Decision.COMMIT, Decision.COMMIT, Decision.COMMIT},
                detect(10, 5));
        // The too-old transaction's write to [x, y) never entered the history.
        tx(5, r("x", "y"), r());
        tx(5, r("a", "b"), r());
        assertArrayEquals(new Decision[] {Decision.COMMIT, Decision.CONFLICT}, detect(11, 5));
    }

    @Test
    void intraBatchInTraceOrderAgainstCommittedWritesOnly() {
        tx(0, r(), r("b", "c"));
        assertArrayEquals(new Decision[] {Decision.COMMIT}, detect(5, 0));
        tx(10, r("a", "b"), r("m", "n"));      // commits, writes m
        tx(10, r("m", "m\0"), r("p", "q"));    // reads m: conflicts with tx 0 of this batch
        tx(10, r("p", "q"), r());              // p was written by a conflicted tx: commits
        tx(0, r("b", "c"), r("z", "zz"));      // conflicts with history
        tx(10, r("z", "zz"), r("z", "zz"));    // z written by a history-conflicted tx: commits
        tx(10, r("q", "r"), r("q", "r"));      // own writes never conflict
        assertArrayEquals(new Decision[] {Decision.COMMIT, Decision.CONFLICT, Decision.COMMIT, Decision.CONFLICT,
                Decision.COMMIT, Decision.COMMIT}, detect(20, 0));
    }

    @Test
    void emptyReadChecksTheVersionJustBelowItsKey() {
        tx(0, r(), r("b", "d"));
        detect(10, 0);
        tx(5, r("d", "d"), r());   // b < d <= d: conflicts
        tx(5, r("b", "b"), r());   // nothing below b is written
        tx(5, r("c", "c"), r());   // inside
        tx(5, r("e", "e"), r());
        tx(10, r("c", "c"), r());  // not newer
        assertArrayEquals(new Decision[] {Decision.CONFLICT, Decision.COMMIT, Decision.CONFLICT, Decision.COMMIT,
                Decision.COMMIT}, detect(20, 0));
        // Empty reads never conflict intra-batch; empty writes change nothing.
        tx(20, r(), r("a", "z"));
        tx(20, r("c", "c"), r("k", "k"));
        tx(20, r("k", "l"), r());
        assertArrayEquals(new Decision[] {Decision.COMMIT, Decision.COMMIT, Decision.CONFLICT}, detect(30, 0));
    }

    @Test
    void laterWritesOverwriteAndKeepOuterFragments() {
        tx(0, r(), r("a", "z"));
        detect(10, 0);
        tx(10, r(), r("f", "h"));
        detect(20, 0);
        tx(10, r("a", "f"), r());   // still version 10 there: no conflict at snapshot 10
        tx(10, r("g", "g\0"), r());
        tx(10, r("h", "z"), r());
        tx(9, r("y", "z"), r());
        assertArrayEquals(new Decision[] {Decision.COMMIT, Decision.CONFLICT, Decision.COMMIT, Decision.CONFLICT},
                detect(30, 0));
    }

    @Test
    void reportsEveryHistoryConflictOrTheFirstIntraBatchHit() {
        tx(0, r(), r("b", "c", "f", "g"));
        detect(10, 0);
        tx(5, r("a", "b", "b", "c", "x", "y", "f", "h"), r("m", "n"), true);
        tx(10, r(), r("m", "n"));
        tx(10, r("a", "b", "m", "n", "m", "o"), r(), true);
        BatchResult result = batch.detectConflicts(20, 0);
        assertEquals(2, result.conflictingTransactionCount());
        assertEquals(0, result.conflictingTransaction(0));
        assertEquals(2, result.conflictingReadCount(0));
        assertEquals(1, result.conflictingRead(0, 0));
        assertEquals(3, result.conflictingRead(0, 1));
        assertEquals(2, result.conflictingTransaction(1));
        assertEquals(1, result.conflictingReadCount(1));
        assertEquals(1, result.conflictingRead(1, 0));
    }

    @Test
    void trimmingBelowOldestNeverChangesDecisions() {
        tx(0, r(), r("a", "b"));
        detect(10, 0);
        tx(10, r(), r("c", "d"));
        detect(20, 15);
        ReferenceEngine engine = (ReferenceEngine) cs.engine();
        assertEquals(1, engine.intervalCount());
        assertEquals(15, engine.retainedVersion());
        tx(15, r("a", "d"), r());
        tx(14, r("a", "b"), r());
        assertArrayEquals(new Decision[] {Decision.CONFLICT, Decision.TOO_OLD}, detect(30, 15));
    }
}
