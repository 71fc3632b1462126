package org.fdbresolver.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;

/**
 * The resolver in a container as an operator runs it: no network, a hard memory limit (cgroup), a
 * non-root user, only a Java runtime and the resolver's jars. A container killed for memory, or any
 * non-zero exit, fails the test.
 */
@Tag("docker")
class ResolverContainerIT {
    private static final String ENGINE = System.getProperty("fdbresolver.containerEngine", "tree");
    private static final long MIB = 1L << 20;
    /** The CLI as the image's entry point starts it, for scripts that run it more than once. */
    private static final String CLI = "java -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow -cp '/opt/fdbresolver/lib/*' "
            + "org.fdbresolver.harness.cli.Main";

    @BeforeAll
    static void docker() {
        ResolverImage.requireDocker();
    }

    /** Runs {@code script} with bash in a fresh container capped at {@code memoryBytes}; returns its output. */
    private static String run(String script, long memoryBytes, Path golden) throws Exception {
        try (GenericContainer<?> c = new GenericContainer<>(ResolverImage.get())) {
            c.withNetworkMode("none")
                    .withCreateContainerCmdModifier(cmd -> {
                        cmd.withEntrypoint("bash", "-c", script);
                        cmd.getHostConfig().withMemory(memoryBytes).withMemorySwap(memoryBytes);
                        if (golden != null) {
                            // A plain bind: withFileSystemBind would first probe mounting with an image
                            // that must be pulled, and nothing can be pulled here.
                            cmd.getHostConfig().withBinds(new Bind(golden.toString(), new Volume("/golden"), AccessMode.ro));
                        }
                    })
                    .withEnv("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70")
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(10)));
            c.start();
            return c.getLogs();
        }
    }

    private static Map<String, String> lines(String output) {
        Map<String, String> values = new HashMap<>();
        for (String line : output.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                values.put(line.substring(0, colon), line.substring(colon + 2).trim());
            }
        }
        return values;
    }

    /** The golden set: {@code fdbresolver.golden} (the repository's testdata/golden unless -D names another). */
    private static Path goldenDir() {
        String configured = System.getProperty("fdbresolver.golden");
        Path dir = (configured != null ? Path.of(configured) : Path.of("..", "testdata", "golden")).toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(dir.resolve("MANIFEST.tsv")), "golden traces folder absent: " + dir);
        return dir;
    }

    private static String manifestDecisionHash(Path golden, String name) throws Exception {
        List<String> rows = Files.readAllLines(golden.resolve("MANIFEST.tsv"));
        List<String> header = List.of(rows.get(0).split("\t"));
        for (String row : rows) {
            String[] f = row.split("\t");
            if (f[0].equals(name)) {
                return f[header.indexOf("decision hash")];
            }
        }
        throw new AssertionError("no manifest row " + name);
    }

    @Test
    void decidesAGoldenTraceLikeFoundationDbInsideAMemoryCappedContainer() throws Exception {
        Path golden = goldenDir();
        String out = run("exec " + CLI + " resolve /golden/longtrace.trace.gz --engine " + ENGINE, 512 * MIB, golden);
        assertEquals(manifestDecisionHash(golden, "longtrace"), lines(out).get("decision-hash"), out);
    }

    @Test
    void aBudgetFarBelowTheHistoryHoldsInASmallContainer() throws Exception {
        long budget = 8 * MIB;
        // A window far longer than the trace (longtrace starts at version 10^12): only the budget can
        // push the retained boundary above the first batch's version.
        String out = run("set -e; cd /tmp; " + CLI + " gen longtrace --batches 600 --seed 7 --window 100000000 --out t.trace >/dev/null; "
                + CLI + " bench t.trace --engine " + ENGINE + " --budget " + budget, 384 * MIB, null);
        Map<String, String> values = lines(out);
        long historyBytes = Long.parseLong(values.get("history-bytes").split(" ")[0]);
        assertTrue(historyBytes > 0 && historyBytes <= budget, "history bytes " + historyBytes + " within " + budget + ":\n" + out);
        long retained = Long.parseLong(values.get("retained-version"));
        assertTrue(retained > 1_000_000_000_000L, "the budget raised the retained boundary: " + retained + "\n" + out);
        assertTrue(values.containsKey("decision-hash"), out);
    }
}
