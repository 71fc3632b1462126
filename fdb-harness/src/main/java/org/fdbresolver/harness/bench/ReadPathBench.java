package org.fdbresolver.harness.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Keys;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.pipeline.SortedReads;
import org.fdbresolver.tree.HistoryTree;
import org.fdbresolver.tree.TreeEngine;
import org.fdbresolver.trace.v1.Batch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The history read check alone, for comparing read paths: the tree engine resolves a workload's first
 * {@code historyBatches} batches (building the history), then each invocation checks the non-empty reads
 * of the next {@code readBatches} batches, sorted by begin as the pipeline hands them over, against that
 * history (which reads never change), each batch's snapshots shifted as if it came right after the
 * history (so that the last batches' writes are newer than the reads, as in the resolver). Score: time per invocation; divide by {@code reads} (printed at
 * setup) for time per read. The reads of many batches touch more leaves than the caches hold, as a
 * resolver's do.
 *
 * <pre>
 * java -cp "fdb-harness/target/classes:plugin/target/classes:fdb-harness/target/lib/*" org.openjdk.jmh.Main \
 *     ReadPathBench -p workload=conflictset-point -p readPath=single,batched
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-XX:+UseParallelGC"})
public class ReadPathBench {

    @Param({"conflictset-point", "custom-point", "conflictset-range", "custom-range", "skiplisttest", "longtrace"})
    public String workload;

    @Param({"single", "batched"})
    public String readPath;

    @Param({"16"})
    public int readWays;

    @Param({"true"})
    public boolean readTouch;

    @Param({"600"})
    public int historyBatches;

    @Param({"100"})
    public int readBatches;

    private HistoryTree tree;
    private final List<SortedReads> batches = new ArrayList<>();

    @Setup
    public void setUp() {
        Workload w = Workloads.get(workload).create(new WorkloadParams(OptionalLong.empty(),
                OptionalLong.of(historyBatches + readBatches), Map.of()));
        var engine = Engines.create(ConflictSetConfig.builder().engine(TreeEngine.NAME).memoryBudgetBytes(4L << 30)
                .option(TreeEngine.READ_PATH, readPath).option(TreeEngine.READ_WAYS, Integer.toString(readWays))
                .option(TreeEngine.READ_TOUCH, Boolean.toString(readTouch)).option(TreeEngine.READ_BATCHED_FROM_BYTES, "0").build());
        TraceBatches converter = new TraceBatches();
        BatchResult result = new BatchResult();
        ConflictBatch scratch = ConflictBatch.detached();
        long reads = 0;
        long next = 0;
        for (int i = 0; i < historyBatches + readBatches; i++) {
            Batch b = w.nextBatch();
            if (i < historyBatches) {
                converter.load(b, scratch);
                engine.detectConflicts(scratch, b.getVersion(), b.getNewOldestVersion(), result);
            } else {
                // Every read batch is checked as if it came right after the history: snapshots shifted
                // back by how far its version is past the first read batch's.
                if (i == historyBatches) {
                    next = b.getVersion();
                }
                ConflictBatch cb = ConflictBatch.detached();
                converter.load(b, cb);
                batches.add(sortedReads(cb, b.getVersion() - next));
                reads += batches.getLast().count();
            }
        }
        tree = ((TreeEngine) engine).tree();
        System.out.println("\n" + reads + " reads against " + tree.historyBytes() + " history bytes (height " + tree.height() + ")");
    }

    /** The batch's non-empty reads sorted by begin, as the pipeline gives them to the history. */
    private static SortedReads sortedReads(ConflictBatch cb, long shift) {
        byte[] keys = cb.keys();
        List<int[]> reads = new ArrayList<>();
        for (int t = 0; t < cb.transactionCount(); t++) {
            for (int r = cb.readStart(t); r < cb.readEnd(t); r++) {
                if (!cb.readIsEmpty(r)) {
                    reads.add(new int[] {r, t});
                }
            }
        }
        reads.sort((x, y) -> Keys.compare(keys, cb.readBeginOffset(x[0]), cb.readBeginLength(x[0]),
                keys, cb.readBeginOffset(y[0]), cb.readBeginLength(y[0])));
        SortedReads out = new SortedReads();
        out.reset(keys);
        for (int[] x : reads) {
            int r = x[0];
            out.add(cb.readBeginOffset(r), cb.readBeginLength(r), cb.readEndOffset(r), cb.readEndLength(r),
                    cb.readSnapshot(x[1]) - shift);
        }
        return out;
    }

    @Benchmark
    public int checkReads() {
        int conflicts = 0;
        for (SortedReads reads : batches) {
            reads.clearConflicts();
            tree.checkSorted(reads);
            for (int i = 0, n = reads.count(); i < n; i++) {
                conflicts += reads.conflict(i) ? 1 : 0;
            }
        }
        return conflicts;
    }
}
