package org.fdbresolver.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The fork/join of one phase: every part runs exactly once, while its phase is open (never before {@link
 * BatchWorkers#run} began it, never after it returned), for phases of changing part counts one after the other,
 * with more threads than cores so that workers are descheduled at every point of the protocol.
 */
class BatchWorkersTest {
    private static final int MAX_PARTS = 12;

    /** A task that counts the runs of each part and the runs outside its phase. */
    private static final class Counting implements BatchWorkers.Task {
        final AtomicIntegerArray runs = new AtomicIntegerArray(MAX_PARTS + 1);
        final AtomicLong outside;
        volatile boolean open;

        Counting(AtomicLong outside) {
            this.outside = outside;
        }

        @Override
        public void run(int part) {
            if (!open) {
                outside.incrementAndGet();
            }
            runs.incrementAndGet(Math.min(part, MAX_PARTS));
        }
    }

    @Test
    void everyPartRunsOnceWithinItsPhase() {
        int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors() + 1);
        int phases = Integer.getInteger("workers.phases", 200_000);
        AtomicLong outside = new AtomicLong();
        // Two tasks taken in turn, as a batch's stages are, with part counts that grow and shrink from phase to phase.
        Counting[] tasks = {new Counting(outside), new Counting(outside)};
        try (BatchWorkers workers = new BatchWorkers(threads, "test-worker")) {
            for (int phase = 0; phase < phases; phase++) {
                Counting t = tasks[phase & 1];
                int parts = 2 + (phase * 7) % (MAX_PARTS - 1);
                for (int p = 0; p <= MAX_PARTS; p++) {
                    t.runs.set(p, 0);
                }
                t.open = true;
                workers.run(t, parts);
                t.open = false;
                for (int p = 0; p <= MAX_PARTS; p++) {
                    assertEquals(p < parts ? 1 : 0, t.runs.get(p), "phase " + phase + " of " + parts + " parts: runs of part " + p);
                }
                assertEquals(0, outside.get(), "phase " + phase + ": a part ran outside its phase");
            }
        }
    }

    @Test
    void aFailingPartIsRethrownAfterThePhase() {
        try (BatchWorkers workers = new BatchWorkers(3, "test-worker")) {
            AtomicIntegerArray runs = new AtomicIntegerArray(8);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> workers.run(part -> {
                runs.incrementAndGet(part);
                if (part == 5) {
                    throw new IllegalStateException("part 5");
                }
            }, 8));
            assertEquals("part 5", e.getMessage());
            for (int p = 0; p < 8; p++) {
                assertEquals(1, runs.get(p), "part " + p + " ran once");
            }
            // The workers go on with the next phase.
            AtomicIntegerArray next = new AtomicIntegerArray(4);
            workers.run(next::incrementAndGet, 4);
            for (int p = 0; p < 4; p++) {
                assertEquals(1, next.get(p));
            }
        }
    }
}
