package org.fdbresolver.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/make-aot-cache, end to end (no Docker needed): it trains with the Resolver's settings (a budget, a JVM
 * option), the cache it writes is one a JVM started from the same installation opens, and a run with it decides as
 * one without. Here rather than in jni-bridge because the script trains on the installed layout (the bridge's jars
 * beside its library), which exists once jni-bridge is packaged, before this module's tests.
 */
class AotCacheScriptTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path TRACE = ROOT.resolve("testdata/golden/adversarial.trace.gz");
    private static final Path REPLAY = ROOT.resolve("jni-bridge/target/native/fdbresolver-replay");

    record Run(int exitCode, String output) {
        String value(String name) {
            for (String line : output.split("\n")) {
                if (line.startsWith(name + ": ")) {
                    return line.substring(name.length() + 2);
                }
            }
            return null;
        }
    }

    static Run run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("FDBRESOLVER_CLASS_PATH");
        // The bridge this module's build packaged: never a Maven build nested in this one (a stale one is an error).
        pb.environment().put("FDBRESOLVER_NO_BUILD", "1");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), command + " did not finish");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** The replay driver with the class path the bridge makes when none is set, as the cache was trained. */
    static List<String> replay(String... extra) {
        String native_ = REPLAY.getParent().toString();
        List<String> command = new ArrayList<>(List.of(REPLAY.toString(), TRACE.toString(), "--budget", "4m",
                "--class-path", native_ + "/../*:" + native_ + "/../lib/*"));
        command.addAll(List.of(extra));
        return command;
    }

    @Test
    void trainsWithTheResolversSettingsAndTheCacheServesTheSameDecisions(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("fdbresolver.aot");
        Run made = run(List.of(ROOT.resolve("scripts/make-aot-cache").toString(), "--out", cache.toString(),
                "--trace", TRACE.toString(), "--budget", "4m", "--jvm-option", "-XX:+UseSerialGC"));
        assertEquals(0, made.exitCode(), made.output());
        assertTrue(made.output().contains("use: jvm_option=-XX:AOTCache=" + cache), made.output());
        assertTrue(Files.size(cache) > 0);

        Run without = run(replay("--jvm-option", "-XX:+UseSerialGC"));
        Run with = run(replay("--jvm-option", "-XX:+UseSerialGC", "--jvm-option", "-XX:AOTCache=" + cache,
                "--jvm-option", "-Xlog:aot=info"));
        assertEquals(0, without.exitCode(), without.output());
        assertEquals(0, with.exitCode(), with.output());
        assertTrue(with.output().contains("Opened AOT cache " + cache), "the JVM did not open the cache:\n" + with.output());
        assertNotNull(without.value("decision-hash"), without.output());
        assertEquals(without.value("decision-hash"), with.value("decision-hash"));
    }

    @Test
    void aTrainingRunThatFailsIsReportedAndLeavesNoCache(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("fdbresolver.aot");
        Run refused = run(List.of(ROOT.resolve("scripts/make-aot-cache").toString(), "--out", cache.toString(),
                "--trace", TRACE.toString(), "--budget", "0"));
        assertEquals(2, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("error: --budget: '0' is zero"), refused.output());
        assertTrue(refused.output().contains("make-aot-cache: the training run failed"), refused.output());
        assertTrue(Files.notExists(cache));
        Run missing = run(List.of(ROOT.resolve("scripts/make-aot-cache").toString(), "--out", cache.toString(), "--budget"));
        assertEquals(2, missing.exitCode(), missing.output());
        assertTrue(missing.output().contains("make-aot-cache: --budget needs a size"), missing.output());
    }
}
