package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, memory: when the last resolver of a JVM the bridge started closes (a fallback to the skip list, a
 * Resolver's end), its history's heap goes back to the system, not only to the JVM. Each case runs
 * {@link HeapReturnProbe} in a JVM of its own with the collector the bridge's JVM has by default (G1), about 100 MiB
 * of history, and reads the committed heap before the close and after it finished.
 */
class HeapReturnTest {
    @Test
    void theLastCloseGivesTheHistorysHeapBackInAJvmTheBridgeStarted() throws Exception {
        Map<String, Long> probe = runProbe(true);
        assertTrue(probe.get("history-bytes") > 64L << 20, "the probe filled a history: " + probe);
        assertEquals(1, probe.get("heap-returns"), "one collection after the last close: " + probe);
        assertTrue(probe.get("committed-after") < probe.get("committed-before") / 2,
                "the committed heap shrank to less than half: " + probe);
    }

    @Test
    void aJvmTheBridgeDidNotStartKeepsItsHeapAsItsOwnerSetIt() throws Exception {
        Map<String, Long> probe = runProbe(false);
        assertEquals(0, probe.get("heap-returns"), "no collection in a host's own JVM: " + probe);
    }

    /** An operator's {@code -XX:+AlwaysPreTouch} keeps the heap touched: giving it back would put the faults back. */
    @Test
    void aPreTouchedHeapIsKept() throws Exception {
        Map<String, Long> probe = runProbe(true, "-XX:+AlwaysPreTouch");
        assertEquals(0, probe.get("heap-returns"), "no collection with a pre-touched heap: " + probe);
    }

    /**
     * The first open's warm-up leaves its garbage in the young generation; with Serial the bridge collects it in the
     * open (a full collection), not in a young collection inside the first real batches. Not with G1 (the default),
     * which would shrink the heap, nor in a host's own JVM.
     */
    @Test
    void theWarmUpsGarbageIsCollectedInTheOpenWithSerialOnly() throws Exception {
        assertEquals(1, runProbeWith("-XX:+UseSerialGC", true).get("warm-up-collections"), "Serial, the bridge's JVM");
        assertEquals(0, runProbeWith("-XX:+UseSerialGC", false).get("warm-up-collections"), "Serial, a host's own JVM");
        assertEquals(0, runProbe(true).get("warm-up-collections"), "G1");
    }

    private static Map<String, Long> runProbe(boolean ownJvm, String... jvmOptions) throws IOException, InterruptedException {
        return runProbeWith("-XX:+UseG1GC", ownJvm, jvmOptions);
    }

    private static Map<String, Long> runProbeWith(String collector, boolean ownJvm, String... jvmOptions)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of(java, collector, "-Xmx1g", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-Dfdbresolver.bridge.ownJvm=" + ownJvm, "-cp", System.getProperty("java.class.path"),
                HeapReturnProbe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        Process process = pb.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the probe ended");
        assertEquals(0, process.exitValue(), output);
        Map<String, Long> values = new HashMap<>();
        for (String line : output.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0 && line.substring(colon + 2).trim().matches("-?\\d+")) {
                values.put(line.substring(0, colon), Long.parseLong(line.substring(colon + 2).trim()));
            }
        }
        for (String name : List.of("history-bytes", "committed-before", "committed-after", "heap-returns", "warm-up-collections")) {
            assertTrue(values.containsKey(name), () -> "the probe printed " + name + ": " + output);
        }
        return values;
    }
}
