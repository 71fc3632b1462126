package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.jfr.BatchEvent;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ConflictSet.detectConflicts} with the tree engine allocates nothing per batch in steady state, with its
 * per-batch figures and Flight Recorder event in place: before Flight Recorder starts, and while a recording runs
 * that does not take the resolver's event. (Measured with the thread's allocation counter over a longtrace
 * cycled with shifted versions, as WorkloadBench does; the key bytes are copied from the stored messages into
 * one reused array.)
 */
class EngineSteadyStateAllocationTest {
    private static final int BATCHES = 200;

    private final List<Batch> stored = new ArrayList<>();
    private byte[] scratch = new byte[1 << 12];
    private long shift;
    private long cycleSpan;
    private int next;

    private void generate() {
        generate("longtrace", Map.of("txns", "512"));
    }

    private void generate(String workload, Map<String, String> options) {
        Workload w = Workloads.get(workload).create(new WorkloadParams(OptionalLong.of(1), OptionalLong.of(BATCHES), options));
        for (Batch b; (b = w.nextBatch()) != null; ) {
            stored.add(b);
        }
        long step = stored.get(1).getVersion() - stored.getFirst().getVersion();
        cycleSpan = stored.getLast().getVersion() - stored.getFirst().getVersion() + step;
    }

    /** Decides {@code count} batches; returns the bytes this thread allocated meanwhile. */
    private long run(ConflictSet cs, ConflictBatch batch, BatchResult result, int count) {
        long before = SteadyStateAllocationTest.allocated();
        for (int i = 0; i < count; i++) {
            Batch b = stored.get(next);
            fill(batch, b);
            cs.detectConflicts(batch, b.getVersion() + shift, b.getNewOldestVersion() + shift, result);
            if (++next == stored.size()) {
                next = 0;
                shift += cycleSpan;
            }
        }
        return SteadyStateAllocationTest.allocated() - before;
    }

    private void fill(ConflictBatch batch, Batch b) {
        batch.clear();
        for (int t = 0, n = b.getTransactionsCount(); t < n; t++) {
            Transaction tx = b.getTransactions(t);
            batch.addTransaction(tx.getReadSnapshot() + shift, tx.getReportConflictingKeys());
            for (int r = 0, reads = tx.getReadsCount(); r < reads; r++) {
                copy(tx.getReads(r));
                KeyRange range = tx.getReads(r);
                batch.addRead(scratch, 0, range.getBegin().size(), scratch, range.getBegin().size(), range.getEnd().size());
            }
            for (int w = 0, writes = tx.getWritesCount(); w < writes; w++) {
                copy(tx.getWrites(w));
                KeyRange range = tx.getWrites(w);
                batch.addWrite(scratch, 0, range.getBegin().size(), scratch, range.getBegin().size(), range.getEnd().size());
            }
        }
    }

    private void copy(KeyRange range) {
        int bl = range.getBegin().size();
        int el = range.getEnd().size();
        if (scratch.length < bl + el) {
            scratch = new byte[2 * (bl + el)];
        }
        range.getBegin().copyTo(scratch, 0);
        range.getEnd().copyTo(scratch, bl);
    }

    /**
     * With {@code threads} 2 and 4 (batches of 512 transactions: reads in slices, the sort across threads, writes
     * by partitions, the sweep by parents), nothing is allocated per batch on any of the engine's threads: this one
     * and its workers (the engine's threads are named {@code fdbresolver-tree-N}).
     */
    @Test
    void noAllocationPerBatchOnEveryThreadOfAnEngineWithWorkers() {
        generate();
        for (int threads : new int[] {2, 4}) {
            try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree")
                    .option("threads", Integer.toString(threads)).build())) {
                ConflictBatch batch = cs.newBatch();
                BatchResult result = new BatchResult();
                run(cs, batch, result, 16 * BATCHES);
                long[] workers = workerThreadIds();
                assertEquals(threads - 1, workers.length, "worker threads of an engine with threads=" + threads);
                long bytes = allocatedOnEveryThread(cs, batch, result, workers);
                assertTrue(bytes < 4096, "threads=" + threads + ": allocated " + bytes + " bytes over " + 2 * BATCHES
                        + " batches on the caller's thread and the workers");
            }
        }
    }

    /** Bytes allocated over {@code 2 * BATCHES} batches on this thread and on the engine's {@code workers}. */
    private long allocatedOnEveryThread(ConflictSet cs, ConflictBatch batch, BatchResult result, long[] workers) {
        long[] before = workerBytes(workers);
        long bytes = run(cs, batch, result, 2 * BATCHES);
        long[] after = workerBytes(workers);
        for (int i = 0; i < workers.length; i++) {
            bytes += after[i] - before[i];
        }
        return bytes;
    }

    /**
     * Keys as the tuple layer writes them under 12 subspaces (leaves with prefixes of their own: re-encoded reads,
     * runs admitted to a leaf's prefix, leaves lowered, raised and merged), with a window of 100 batches so that
     * the history stops growing: nothing is allocated per batch, at 1 and 2 threads. The warm-up is four times the
     * other tests': the tree takes long to settle on these keys, and its last growth is one more chunk of leaves
     * (130,368 bytes, the pool's high-water mark, never given back). With leaves' prefixes from one byte of gain it
     * came between batches 1,600 and 2,000 of the cycled trace; since the partitions hand entries to siblings that
     * hold suffix keys (fuller leaves, fewer of them) it comes between 3,200 and 3,600 at one thread, and nothing is
     * allocated after 6,400 nor after 12,800 (measured 2026-12-06).
     */
    @Test
    void noAllocationPerBatchOnTupleKeys() {
        generate("tuple", Map.of("txns", "256", "subspaces", "12", "window", "100000"));
        for (int threads : new int[] {1, 2}) {
            try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree")
                    .option("threads", Integer.toString(threads)).build())) {
                ConflictBatch batch = cs.newBatch();
                BatchResult result = new BatchResult();
                run(cs, batch, result, 32 * BATCHES);
                long[] workers = workerThreadIds();
                long bytes = allocatedOnEveryThread(cs, batch, result, workers);
                assertTrue(bytes < 4096, "tuple keys, threads=" + threads + ": allocated " + bytes + " bytes over "
                        + 2 * BATCHES + " batches on the caller's thread and the workers");
            }
        }
    }

    private static long[] workerThreadIds() {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        return java.util.Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                .filter(i -> i != null && i.getThreadName().startsWith("fdbresolver-tree-"))
                .mapToLong(java.lang.management.ThreadInfo::getThreadId).toArray();
    }

    private static long[] workerBytes(long[] ids) {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        return threads.getThreadAllocatedBytes(ids);
    }

    @Test
    void noAllocationPerBatchWithoutFlightRecorderNorWhileItRecordsOtherEvents(@TempDir Path dir) throws Exception {
        assertFalse(FlightRecorder.isInitialized(), "this test measures a JVM where Flight Recorder has not started");
        generate();
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            ConflictBatch batch = cs.newBatch();
            BatchResult result = new BatchResult();
            run(cs, batch, result, 8 * BATCHES); // warm-up: buffers grow, the JIT compiles
            long bytes = run(cs, batch, result, 2 * BATCHES);
            assertTrue(bytes < 4096, "allocated " + bytes + " bytes over " + 2 * BATCHES + " batches without Flight Recorder");
            assertFalse(FlightRecorder.isInitialized());

            try (Recording other = new Recording()) {
                other.enable("jdk.GarbageCollection");
                other.disable(BatchEvent.NAME);
                other.start();
                run(cs, batch, result, 8 * BATCHES);
                long recording = run(cs, batch, result, 2 * BATCHES);
                assertTrue(recording < 4096, "allocated " + recording + " bytes over " + 2 * BATCHES
                        + " batches while a recording without the resolver's event runs");
                other.stop();
            }

            // The event, once enabled, is recorded for every batch.
            try (Recording mine = new Recording()) {
                mine.enable(BatchEvent.NAME);
                mine.start();
                run(cs, batch, result, 50);
                mine.stop();
                Path file = dir.resolve("batches.jfr");
                mine.dump(file);
                long events = RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().equals(BatchEvent.NAME)).count();
                assertEquals(50, events);
            }
        }
    }

    /**
     * A Resolver's small batches (issue 30) take the small-batch path: reads first, then the direct intra-batch check
     * (the defaults) or a sort of what is still undecided ({@code directBatchPairs=0}); neither allocates per batch.
     */
    @Test
    void noAllocationPerBatchOnTheSmallBatchPath() {
        for (int txns : new int[] {1, 3}) {
            stored.clear();
            generate("longtrace", Map.of("txns", Integer.toString(txns)));
            for (String pairs : new String[] {"128", "0"}) {
                try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree")
                        .option("directBatchPairs", pairs).build())) {
                    ConflictBatch batch = cs.newBatch();
                    BatchResult result = new BatchResult();
                    run(cs, batch, result, 8 * BATCHES);
                    long bytes = run(cs, batch, result, 2 * BATCHES);
                    assertTrue(bytes < 4096, txns + " transactions a batch, directBatchPairs=" + pairs + ": allocated "
                            + bytes + " bytes over " + 2 * BATCHES + " batches");
                }
            }
        }
    }
}
