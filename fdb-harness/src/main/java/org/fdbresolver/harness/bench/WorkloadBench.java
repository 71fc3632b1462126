package org.fdbresolver.harness.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.trace.LoadedTrace;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One batch of a real workload per invocation (score: batches per second), history carried across
 * invocations. The workload's first {@code batches} batches are generated once; the run cycles through
 * them, shifting every version (batch version, oldest version, read snapshots) by the span of one cycle
 * ({@link LoadedTrace#cycleSpan}, as {@code fdbresolver bench --cycles}), so the engine sees one endless, valid trace. Filling the batch from the stored protobuf messages
 * allocates nothing, so with {@code -prof gc} {@code gc.alloc.rate.norm} is the engine's own allocation
 * per batch; {@code fillOnly} measures the filling alone.
 *
 * <p>{@code threads} is engine {@code tree}'s option (1: one thread; the gc profiler counts every thread's
 * allocation); {@code options} passes workload options ({@code "txns=5"}: batches of five transactions, as
 * inside FoundationDB), {@code engineOptions} more engine options ({@code "writeWays=0"}).
 *
 * <pre>
 * java -cp "fdb-harness/target/classes:plugin/target/classes:fdb-harness/target/lib/*" org.openjdk.jmh.Main WorkloadBench -prof gc
 * java -cp ... org.openjdk.jmh.Main WorkloadBench.resolve -p readPath=batched,single -prof gc
 * java -cp ... org.openjdk.jmh.Main WorkloadBench.resolve -p workload=conflictset-range -p options=txns=5,txns=50 -p threads=1,2
 * java -cp ... org.openjdk.jmh.Main WorkloadBench.resolve -p trace=testdata/golden/capture-txn-timeout.trace.gz -p batches=0
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-XX:+UseParallelGC"})
public class WorkloadBench {

    @Param({"skiplisttest", "conflictset-point", "conflictset-range", "custom-point", "custom-range", "longtrace"})
    public String workload;

    @Param({"tree"})
    public String engine;

    /** Engine {@code tree}'s read path ({@code batched} or {@code single}); ignored by other engines. */
    @Param({"batched"})
    public String readPath;

    /** Batches generated and cycled through. */
    @Param({"200"})
    public int batches;

    /** Engine {@code tree}'s {@code threads}. */
    @Param({"1"})
    public int threads;

    /** Workload options, {@code name=value} separated by {@code ;} (empty: the workload's defaults). */
    @Param({""})
    public String options;

    /** More engine options for {@code tree}, {@code name=value} separated by {@code ;}. */
    @Param({""})
    public String engineOptions;

    /**
     * A trace file (plain or gzip) cycled instead of {@code workload}'s batches, e.g. a capture of a real
     * Resolver's traffic ({@code testdata/golden/capture-txn-timeout.trace.gz}); empty: the workload's.
     * {@code batches} then caps how many of its batches are cycled (0: all).
     */
    @Param({""})
    public String trace;

    private final List<Batch> stored = new ArrayList<>();
    private long cycleSpan;
    private int next;
    private long shift;
    private byte[] scratch = new byte[1 << 16];

    private ConflictEngine conflictEngine;
    private final ConflictBatch batch = ConflictBatch.detached();
    private final BatchResult result = new BatchResult();

    @Setup
    public void setUp() {
        if (trace.isEmpty()) {
            Workload w = Workloads.get(workload).create(new WorkloadParams(OptionalLong.empty(), OptionalLong.of(batches), pairs(options)));
            for (Batch b; (b = w.nextBatch()) != null; ) {
                stored.add(b);
            }
        } else {
            try (TraceReader reader = TraceReader.open(Path.of(trace))) {
                for (Batch b; (batches == 0 || stored.size() < batches) && (b = reader.next()) != null; ) {
                    stored.add(b);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + trace, e);
            }
        }
        Batch first = stored.getFirst();
        Batch last = stored.getLast();
        long step = stored.size() > 1 ? stored.get(1).getVersion() - first.getVersion() : 1;
        cycleSpan = LoadedTrace.cycleSpan(first.getVersion(), last.getVersion(), step);
        ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(4L << 30);
        if (engine.equals("tree")) {
            config.option("readPath", readPath).option("readBatchedFromBytes", "0").option("threads", Integer.toString(threads));
            pairs(engineOptions).forEach(config::option);
        }
        conflictEngine = Engines.create(config.build());
    }

    private static java.util.Map<String, String> pairs(String text) {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String pair : text.split(";")) {
            if (!pair.isBlank()) {
                int eq = pair.indexOf('=');
                out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return out;
    }

    @TearDown
    public void tearDown() {
        System.out.println("\nhistory bytes " + conflictEngine.historyBytes() + " after the trial");
        conflictEngine.close();
    }

    @Benchmark
    public BatchResult resolve() {
        Batch b = fillNext();
        conflictEngine.detectConflicts(batch, b.getVersion() + shift, b.getNewOldestVersion() + shift, result);
        advance();
        return result;
    }

    @Benchmark
    public ConflictBatch fillOnly() {
        fillNext();
        advance();
        return batch;
    }

    private void advance() {
        if (++next == stored.size()) {
            next = 0;
            shift += cycleSpan;
        }
    }

    /** Copies the next stored batch into {@link #batch}, snapshots shifted; allocates nothing once warm. */
    private Batch fillNext() {
        Batch b = stored.get(next);
        batch.clear();
        for (int t = 0, n = b.getTransactionsCount(); t < n; t++) {
            Transaction tx = b.getTransactions(t);
            batch.addTransaction(tx.getReadSnapshot() + shift, tx.getReportConflictingKeys());
            for (int r = 0, reads = tx.getReadsCount(); r < reads; r++) {
                KeyRange range = tx.getReads(r);
                int bl = range.getBegin().size();
                int el = range.getEnd().size();
                byte[] s = scratch(bl + el);
                range.getBegin().copyTo(s, 0);
                range.getEnd().copyTo(s, bl);
                batch.addRead(s, 0, bl, s, bl, el);
            }
            for (int w = 0, writes = tx.getWritesCount(); w < writes; w++) {
                KeyRange range = tx.getWrites(w);
                int bl = range.getBegin().size();
                int el = range.getEnd().size();
                byte[] s = scratch(bl + el);
                range.getBegin().copyTo(s, 0);
                range.getEnd().copyTo(s, bl);
                batch.addWrite(s, 0, bl, s, bl, el);
            }
        }
        return b;
    }

    private byte[] scratch(int size) {
        if (scratch.length < size) {
            scratch = new byte[Math.max(size, scratch.length * 2)];
        }
        return scratch;
    }
}
