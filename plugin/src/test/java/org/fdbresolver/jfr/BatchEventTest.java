package org.fdbresolver.jfr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.fdbresolver.api.BatchFigures;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.ConflictSetStats;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.api.Phase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording of the resolver's batch events, read back with {@link RecordingFile}: one event per decided batch,
 * none for a rejected one, with the figures {@link ConflictSet#stats()} reports and TOO_OLD split as the test
 * computes it from its own batches. A budget of 32 KiB (16 tree nodes) makes the budget's TOO_OLD answers.
 */
class BatchEventTest {
    private static final long STEP = 1000;
    private static final long WINDOW = 10 * STEP;

    private static byte[] key(long k) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (k >>> (56 - 8 * i));
        }
        return b;
    }

    /** Batch i: 60 transactions, a point read at a lag of 0..14 steps (some below the window), a point write. */
    private static int[] fill(ConflictBatch batch, int i, long version, long oldest, SplittableRandom random) {
        batch.clear();
        int fdbTooOld = 0;
        for (int t = 0; t < 60; t++) {
            long snapshot = Math.max(0, version - STEP * (1 + random.nextInt(15)));
            batch.addTransaction(snapshot, t % 7 == 0);
            long r = random.nextInt(2000);
            batch.addRead(key(r), key(r + 1));
            long w = random.nextInt(2000);
            batch.addWrite(key(w), key(w + 1));
            fdbTooOld += snapshot < oldest ? 1 : 0;
        }
        return new int[] {fdbTooOld};
    }

    @Test
    void eachBatchIsOneEventWithTheFiguresStatsReports(@TempDir Path dir) throws Exception {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(32 * 1024).build();
        List<ConflictSetStats> expected = new ArrayList<>();
        List<Integer> fdbTooOld = new ArrayList<>();
        Path file = dir.resolve("resolver.jfr");
        try (ConflictSet cs = ConflictSet.open(config); Recording recording = new Recording()) {
            recording.enable(BatchEvent.NAME).withThreshold(Duration.ZERO);
            recording.start();
            ConflictBatch batch = cs.newBatch();
            BatchResult result = new BatchResult();
            SplittableRandom random = new SplittableRandom(11);
            long version = 0;
            for (int i = 0; i < 40; i++) {
                version += STEP;
                long oldest = Math.max(0, version - WINDOW);
                fdbTooOld.add(fill(batch, i, version, oldest, random)[0]);
                cs.detectConflicts(batch, version, oldest, result);
                expected.add(cs.stats());
                if (i == 20) { // a rejected batch: no event, no change
                    ConflictBatch back = cs.newBatch();
                    back.addTransaction(0, false);
                    assertThrows(InvalidBatchException.class, () -> cs.detectConflicts(back, 5, 0, new BatchResult()));
                }
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(BatchEvent.NAME)).toList();
        assertEquals(40, events.size());
        long budgetTooOld = 0;
        for (int i = 0; i < events.size(); i++) {
            RecordedEvent e = events.get(i);
            ConflictSetStats s = expected.get(i);
            BatchFigures last = s.lastBatch();
            assertEquals("tree", e.getString("engine"));
            assertEquals(last.version(), e.getLong("version"));
            assertEquals((i + 1) * STEP, last.version());
            assertEquals(last.newOldestVersion(), e.getLong("newOldestVersion"));
            assertEquals(s.retainedVersion(), e.getLong("retainedVersion"));
            assertEquals(Duration.ofNanos(1000 * (last.version() - s.retainedVersion())), e.getDuration("retainedAge"));
            assertEquals(s.historyBytes(), e.getLong("historyBytes"));
            assertEquals(32 * 1024, e.getLong("memoryBudgetBytes"));
            assertEquals(60, e.getInt("transactions"));
            assertEquals(last.commits(), e.getInt("commits"));
            assertEquals(last.conflicts(), e.getInt("conflicts"));
            assertEquals((int) fdbTooOld.get(i), e.getInt("tooOldFdb"), "batch " + i);
            assertEquals(last.tooOldFdb(), e.getInt("tooOldFdb"));
            assertEquals(last.tooOldBudget(), e.getInt("tooOldBudget"));
            assertEquals(60, last.commits() + last.conflicts() + last.tooOldFdb() + last.tooOldBudget());
            String[] fields = {"sortTime", "checkReadTime", "checkIntraBatchTime", "combineTime", "mergeWriteTime", "removeBeforeTime"};
            long[] phases = new long[fields.length];
            for (int p = 0; p < fields.length; p++) {
                phases[p] = e.getDuration(fields[p]).toNanos();
            }
            assertArrayEquals(last.phaseNanos(), phases);
            assertTrue(last.phaseNanos(Phase.MERGE_WRITE) > 0 || last.commits() == 0, "the tree times its phases");
            assertTrue(!e.getDuration().isNegative());
            budgetTooOld += last.tooOldBudget();
        }
        ConflictSetStats end = expected.getLast();
        assertEquals(budgetTooOld, end.tooOldBudget());
        assertEquals(fdbTooOld.stream().mapToLong(Integer::longValue).sum(), end.tooOldFdb());
        assertTrue(end.tooOldBudget() > 0, "32 KiB forces the budget's TOO_OLD answers");
        assertTrue(end.tooOldFdb() > 0, "reads below the window are FoundationDB's TOO_OLD");
        assertEquals(end.transactions(), end.commits() + end.conflicts() + end.tooOldFdb() + end.tooOldBudget());
    }

    @Test
    void withoutARecordingNothingIsRecordedAndTheFiguresAreStillThere() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            assertEquals(0, cs.stats().lastBatch().version());
            ConflictBatch batch = cs.newBatch();
            batch.addTransaction(15, false);
            batch.addRead(key(1), key(2));
            batch.addWrite(key(1), key(2));
            batch.addTransaction(5, false); // reads below newOldestVersion 10: FoundationDB's TOO_OLD
            batch.addRead(key(3), key(4));
            batch.addTransaction(5, false); // no reads: never TOO_OLD
            batch.addWrite(key(3), key(4));
            BatchResult result = new BatchResult();
            cs.detectConflicts(batch, 20, 10, result);
            assertEquals(Decision.TOO_OLD, result.decision(1));
            BatchFigures last = cs.stats().lastBatch();
            assertEquals(20, last.version());
            assertEquals(10, last.newOldestVersion());
            assertEquals(3, last.transactions());
            assertEquals(2, last.commits());
            assertEquals(1, last.tooOldFdb());
            assertEquals(0, last.tooOldBudget());
            assertTrue(last.nanos() > 0);
            assertEquals(1, cs.stats().tooOldFdb());
        }
    }
}
