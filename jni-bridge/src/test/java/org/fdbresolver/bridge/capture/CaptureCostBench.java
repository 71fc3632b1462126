package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.LoadedTrace;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What capturing costs the resolving thread, with the noise of a shared machine cancelled out: one JVM, two conflict
 * sets of the tree engine fed the same batches alternately, one deciding only, one deciding and then recording the
 * batch ({@link Capture#record}, the writer thread compressing beside). After untimed passes (the golden traces are
 * too short for the JIT to settle within one), prints the timed pass's thread CPU and wall of both, and the
 * difference per batch; asserts only that both decide alike and that the capture kept up. Run with
 * {@code ./mvnw -pl jni-bridge -am test -Dgroups=benchmark -Dtest.excludedGroups= -Dtest=CaptureCostBench
 * -Dsurefire.failIfNoSpecifiedTests=false}; {@code -Dfdbresolver.bench.traces=A,B} (absolute paths) adds traces.
 */
@Tag("benchmark")
class CaptureCostBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    static Stream<Path> traces() throws Exception {
        List<Path> traces = new ArrayList<>();
        for (String name : Golden.manifest().keySet()) {
            traces.add(Golden.trace(name));
        }
        String more = System.getProperty("fdbresolver.bench.traces", "");
        for (String t : more.split(",")) {
            if (!t.isBlank()) {
                traces.add(Path.of(t));
            }
        }
        return traces.stream();
    }

    @ParameterizedTest
    @MethodSource("traces")
    void recordingABatchBesideDecidingIt(Path trace, @TempDir Path dir) throws Exception {
        LoadedTrace loaded = LoadedTrace.load(trace);
        int n = loaded.batchCount();
        int passes = Integer.getInteger("fdbresolver.bench.passes", n < 1000 ? 20 : 2);
        long[] plain = new long[2];
        long[] captured = new long[2];
        long captureBytes = 0;
        long recordWall = 0;
        for (int pass = 0; pass < passes; pass++) {
            boolean timed = pass == passes - 1;
            List<String> warnings = new CopyOnWriteArrayList<>();
            Path folder = Files.createDirectories(dir.resolve("pass-" + pass));
            Capture capture = Capture.open(new CaptureSettings(folder, 64L << 20, 1L << 40, 256 << 20, "engine=tree"),
                    "tree", warnings::add);
            try (ConflictSet a = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build());
                 ConflictSet b = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
                BatchResult ra = new BatchResult();
                BatchResult rb = new BatchResult();
                for (int i = 0; i < n; i++) {
                    long v = loaded.version(i);
                    long o = loaded.newOldestVersion(i);
                    long c0 = THREADS.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    a.detectConflicts(loaded.batch(i), v, o, ra);
                    long w1 = System.nanoTime();
                    long c1 = THREADS.getCurrentThreadCpuTime();
                    b.detectConflicts(loaded.batch(i), v, o, rb);
                    long wr = System.nanoTime();
                    capture.record(loaded.batch(i), rb, v, o);
                    long w2 = System.nanoTime();
                    if (timed) {
                        recordWall += w2 - wr;
                    }
                    long c2 = THREADS.getCurrentThreadCpuTime();
                    if (timed) {
                        plain[0] += c1 - c0;
                        plain[1] += w1 - w0;
                        captured[0] += c2 - c1;
                        captured[1] += w2 - w1;
                    }
                    assertArrayEquals(java.util.Arrays.copyOf(ra.decisionBytes(), ra.transactionCount()),
                            java.util.Arrays.copyOf(rb.decisionBytes(), rb.transactionCount()));
                }
            }
            capture.close();
            assertTrue(warnings.isEmpty(), "the capture kept up: " + warnings);
            if (timed) {
                try (Stream<Path> files = Files.walk(folder)) {
                    captureBytes = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
                }
            }
        }
        System.out.printf("capture-cost %s batches %d transactions %d passes %d | thread-cpu ms: decide %.1f, decide+capture %.1f,"
                        + " capture %.1f us/batch (%.1f%%) | wall ms: %.1f, %.1f, %.1f us/batch | capture %d bytes/batch%n",
                trace.getFileName(), n, loaded.transactionCount(), passes, plain[0] / 1e6, captured[0] / 1e6,
                (captured[0] - plain[0]) / 1e3 / n, 100.0 * (captured[0] - plain[0]) / plain[0],
                plain[1] / 1e6, captured[1] / 1e6, (captured[1] - plain[1]) / 1e3 / n, captureBytes / n);
        System.out.printf("capture-cost %s record() wall %.1f us/batch%n", trace.getFileName(), recordWall / 1e3 / n);
    }
}
