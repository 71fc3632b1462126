package org.fdbresolver.harness.bench;

import java.util.concurrent.TimeUnit;
import org.fdbresolver.pipeline.BatchWorkers;
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
 * The coordination cost of one phase across threads: a fork and a join of {@link BatchWorkers} whose parts do
 * (almost) nothing, back to back, so the workers are still spinning from the phase before, as within a batch.
 * The score is the time per phase: what a phase must save to be worth cutting (docs/tree.md's model).
 *
 * <pre>
 * java -cp "fdb-harness/target/classes:plugin/target/classes:fdb-harness/target/lib/*" org.openjdk.jmh.Main WorkersBench
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WorkersBench {
    @Param({"2"})
    public int threads;

    /** Parts per phase (the engine cuts up to four per thread). */
    @Param({"2", "8"})
    public int parts;

    private BatchWorkers workers;
    private final long[] sink = new long[64 * 8];
    private final BatchWorkers.Task task = part -> sink[part * 8]++;

    @Setup
    public void setUp() {
        workers = new BatchWorkers(threads, "fdbresolver-bench");
    }

    @TearDown
    public void tearDown() {
        workers.close();
    }

    @Benchmark
    public long phase() {
        workers.run(task, parts);
        return sink[0];
    }
}
