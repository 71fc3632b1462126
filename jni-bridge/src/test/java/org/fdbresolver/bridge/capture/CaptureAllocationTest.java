package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recording a batch allocates nothing on the resolver's thread once the encoder's table has grown: measured with the
 * thread's allocation counter over thousands of batches (the writer thread's work is not the resolver's).
 */
class CaptureAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void recordingABatchAllocatesNothingOnTheResolversThread(@TempDir Path dir) throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Capture capture = Capture.open(new CaptureSettings(dir, 64 << 20, 1L << 30, 64 << 20, "engine=tree"), "tree",
                warnings::add);
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build());
             TraceReader reader = TraceReader.open(Golden.trace("adversarial-report-all"))) {
            ConflictBatch batch = cs.newBatch();
            // A batch with conflicting reads reported, decided once and recorded again and again at later versions.
            BatchResult result = null;
            while (reader.nextInto(batch)) {
                result = batch.detectConflicts(reader.version(), reader.newOldestVersion());
                if (result.conflictingTransactionCount() > 0) {
                    break;
                }
            }
            assertTrue(result != null && result.conflictingTransactionCount() > 0);
            long version = reader.version();
            int warm = 5_000;
            int measured = 20_000;
            long before = 0;
            for (int i = 0; i < warm + measured; i++) {
                if (i == warm) {
                    before = THREADS.getCurrentThreadAllocatedBytes();
                }
                capture.record(batch, result, version + i, reader.newOldestVersion());
            }
            long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertTrue(capture.isCapturing(), "the writer kept up, so every batch was encoded: " + warnings);
            assertTrue(bytes < 1024, "allocated " + bytes + " bytes over " + measured + " batches");
        }
        capture.close();
        assertEquals(List.of(), warnings);
        assertEquals(25_000, Frames.batches(capture.folder()).size());
    }
}
