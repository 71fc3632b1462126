package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reading a trace with {@code nextInto}, hashing and writing decisions allocate nothing per batch once buffers
 * have grown (measured with the thread's allocation counter, not with time).
 */
class SteadyStateAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocated() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    static Path trace(Path dir, String name) throws IOException {
        Path file = dir.resolve(name);
        List<Batch> batches = TraceRoundTripTest.batches(5, 400);
        try (TraceWriter w = TraceWriter.create(file, TraceRoundTripTest.header())) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < batches.size(); i++) {
                    Batch b = batches.get(i);
                    w.write(b.toBuilder().setVersion((round * 400L + i + 1) * 1000).build());
                }
            }
            w.commit();
        }
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"t.trace", "t.trace.gz"})
    void readingIntoAReusedBatchAllocatesNothing(String name, @TempDir Path dir) throws IOException {
        Path file = trace(dir, name);
        try (TraceReader reader = TraceReader.open(file)) {
            ConflictBatch batch = ConflictBatch.detached();
            for (int i = 0; i < 400; i++) {
                assertTrue(reader.nextInto(batch)); // the first round grows every buffer
            }
            long before = allocated();
            int n = 799;
            for (int i = 0; i < n; i++) {
                assertTrue(reader.nextInto(batch));
            }
            long bytes = allocated() - before;
            assertTrue(bytes < 1024, "allocated " + bytes + " bytes over " + n + " batches");
            assertTrue(reader.nextInto(batch));
            assertFalse(reader.nextInto(batch)); // the end (hashing the rest of the file) may allocate
        }
    }

    @Test
    void hashingAndWritingDecisionsAllocateNothing(@TempDir Path dir) throws IOException {
        BatchResult result = new BatchResult();
        DecisionHasher hasher = new DecisionHasher();
        try (DecisionWriter writer = DecisionWriter.create(dir.resolve("d.decisions.gz"), "e", new byte[32])) {
            long before = 0;
            for (int i = 0; i < 2000; i++) {
                if (i == 1000) {
                    before = allocated();
                }
                result.reset(500);
                for (int t = 0; t < 500; t += 7) {
                    result.setDecision(t, Decision.CONFLICT_CODE);
                    result.beginConflictingReads(t);
                    result.addConflictingRead(t % 3);
                }
                hasher.add(result);
                writer.write(1000L * (i + 1), result);
            }
            long bytes = allocated() - before;
            assertTrue(bytes < 1024, "allocated " + bytes + " bytes over 1000 batches");
            writer.commit();
        }
    }
}
