package org.fdbresolver.harness.bench;

import java.util.concurrent.TimeUnit;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.Engines;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One conflictset-range batch (500 transactions) per invocation through an engine, history carried
 * across invocations; the score is transactions per second. {@code generateOnly} measures the batch
 * generation that {@code resolve} includes, so the engine's share is the difference. With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} shows bytes allocated per transaction in steady state.
 *
 * <pre>
 * java -cp fdb-harness/target/classes:plugin/target/classes:$(cat fdb-harness/target/cp.txt) org.openjdk.jmh.Main TreeEngineBench -prof gc -f 1 -wi 3 -i 3
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-XX:+UseParallelGC"})
public class TreeEngineBench {
    private static final int TX = 500;

    @Param({"tree"})
    public String engine;

    @Param({"2048"})
    public int nodeBytes;

    /**
     * Versions of history kept (conflictset-range keeps 5,000,000 = 5000 batches, so its history grows
     * for the whole run; 100,000 reaches a steady state within seconds, which is what proves that
     * steady state allocates nothing).
     */
    @Param({"100000"})
    public long window;

    private ConflictEngine conflictEngine;
    private RangeBatchSource source;
    private final ConflictBatch batch = ConflictBatch.detached();
    private final BatchResult result = new BatchResult();

    @Setup(Level.Trial)
    public void setUp() {
        ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(2L << 30);
        if (engine.equals("tree")) {
            b.option("nodeBytes", Integer.toString(nodeBytes));
        }
        conflictEngine = Engines.create(b.build());
        source = new RangeBatchSource(1, 500, 10_000_000, window, 1000, 10);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.println("\nhistory bytes " + conflictEngine.historyBytes() + " after the trial");
        conflictEngine.close();
    }

    @Benchmark
    @OperationsPerInvocation(TX)
    public BatchResult resolve() {
        long now = source.fill(batch);
        conflictEngine.detectConflicts(batch, now, source.oldestVersion(), result);
        return result;
    }

    @Benchmark
    @OperationsPerInvocation(TX)
    public ConflictBatch generateOnly() {
        source.fill(batch);
        return batch;
    }
}
