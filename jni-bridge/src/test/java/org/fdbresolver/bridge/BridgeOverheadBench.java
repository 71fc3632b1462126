package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bridge overhead: the same engine on the same trace, through the JNI bridge (fdbresolver-replay) and
 * in-process ({@link InProcessReplay}), each in a fresh process with the same JVM options and warmup;
 * prints the best of {@code fdbresolver.bench.runs} runs (default 3) of each and their ratios, by wall
 * time and by the resolving thread's CPU time (the engine runs on the caller's thread in both, and CPU
 * time is what survives a machine shared with other work). Timing
 * never fails the test; only equal decision hashes are asserted. Run with
 * {@code ./mvnw -pl jni-bridge -am test -Dgroups=benchmark -Dtest=BridgeOverheadBench
 * -Dsurefire.failIfNoSpecifiedTests=false} (engine: {@code -Dfdbresolver.bench.engine}, default reference).
 */
@Tag("benchmark")
class BridgeOverheadBench {
    private static final String JVM_OPTIONS = "-Xmx4g -XX:+UseParallelGC";

    @ParameterizedTest
    @ValueSource(strings = {"conflictset-range", "custom-point"})
    void bridgeVersusInProcess(String name) throws Exception {
        Path trace = ReplayGoldenTest.goldenDir().resolve(name + ".trace.gz");
        String engine = System.getProperty("fdbresolver.bench.engine", "reference");
        int runs = Integer.getInteger("fdbresolver.bench.runs", 3);
        // Half the trace untimed by default: the goldens are short, and the JIT needs a few hundred
        // thousand transactions before either path runs at its steady speed.
        long batches = Long.parseLong(ReplayGoldenTest.manifest(ReplayGoldenTest.goldenDir().resolve("MANIFEST.tsv"))
                .get(name).get("batches"));
        String warmup = System.getProperty("fdbresolver.bench.warmup", Long.toString(batches / 2));
        Map<String, String> bridge = null;
        Map<String, String> inProcess = null;
        for (int i = 0; i < runs; i++) {
            // Alternate the two so that load from elsewhere on the machine hits both alike.
            NativeProgram.Run run = NativeProgram.run("fdbresolver-replay",
                    List.of(trace.toString(), "--engine", engine, "--warmup", warmup), JVM_OPTIONS);
            assertEquals(0, run.exitCode(), run.all());
            bridge = best(bridge, run.values());
            inProcess = best(inProcess, inProcess(trace, engine, warmup));
        }
        assertEquals(inProcess.get("decision-hash"), bridge.get("decision-hash"));
        double total = Double.parseDouble(bridge.get("seconds"));
        double reference = Double.parseDouble(inProcess.get("seconds"));
        double totalCpu = Double.parseDouble(bridge.get("cpu-seconds"));
        double referenceCpu = Double.parseDouble(inProcess.get("cpu-seconds"));
        double outside = Double.parseDouble(bridge.get("bridge-seconds"));
        double fill = Double.parseDouble(inProcess.get("fill-seconds"));
        long timed = Long.parseLong(bridge.get("transactions")) * (batches - Long.parseLong(warmup)) / batches;
        System.out.printf("bridge-overhead %s engine=%s runs=%d warmup=%s: through the bridge %.3f s wall, %.3f s cpu "
                        + "(engine %s s, outside the engine %.3f s); in-process %.3f s wall, %.3f s cpu (engine %s s, "
                        + "filling the batch %.3f s); ratio wall %.3f, cpu %.3f; outside-the-engine difference "
                        + "%+.0f ns per transaction%n",
                name, engine, runs, warmup, total, totalCpu, bridge.get("engine-seconds"), outside, reference,
                referenceCpu, inProcess.get("engine-seconds"), fill, total / reference, totalCpu / referenceCpu,
                1e9 * (outside - fill) / timed);
    }

    /** The run with less CPU time on the resolving thread (least disturbed by other load). */
    private static Map<String, String> best(Map<String, String> a, Map<String, String> b) {
        if (a == null) {
            return b;
        }
        return Double.parseDouble(b.get("cpu-seconds")) < Double.parseDouble(a.get("cpu-seconds")) ? b : a;
    }

    private static Map<String, String> inProcess(Path trace, String engine, String warmup) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(JVM_OPTIONS.split(" ")));
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp", NativeProgram.engineClassPath(),
                InProcessReplay.class.getName(), trace.toString(), "--engine", engine, "--warmup", warmup));
        File out = Files.createTempFile("inprocess", ".out").toFile();
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
            int exit = p.waitFor();
            String text = Files.readString(out.toPath(), StandardCharsets.UTF_8);
            assertEquals(0, exit, text);
            Map<String, String> values = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                int colon = line.indexOf(": ");
                if (colon > 0) {
                    values.put(line.substring(0, colon), line.substring(colon + 2).trim());
                }
            }
            return values;
        } finally {
            out.delete();
        }
    }
}
