package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native replay driver, through the JNI bridge and fdbresolver.hpp, gives FoundationDB's own decision
 * hash and conflicting-keys hash (testdata/golden/MANIFEST.tsv) on every golden trace, under
 * {@code -Xcheck:jni} with no warning; and rejects every malformed trace with one error line.
 * The golden directory is the system property {@code fdbresolver.golden}.
 */
class ReplayGoldenTest {
    static final List<String> ENGINES = List.of("reference", "tree");

    /**
     * The golden set: {@code fdbresolver.golden} (the POM sets it to the repository's testdata/golden,
     * {@code -Dfdbresolver.golden=DIR} names another), else testdata/golden under the project root. Missing
     * traces fail the test.
     */
    static Path goldenDir() {
        String configured = System.getProperty("fdbresolver.golden");
        Path dir = configured != null ? Path.of(configured) : Path.of("..", "testdata", "golden");
        assertTrue(Files.isRegularFile(dir.resolve("MANIFEST.tsv")), "golden traces not found at "
                + dir.toAbsolutePath().normalize() + (configured != null ? " (named by -Dfdbresolver.golden)"
                        : " (the repository's testdata/golden is missing)"));
        return dir;
    }

    /** MANIFEST.tsv rows by trace name, each a map from column name to value. */
    static Map<String, Map<String, String>> manifest(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        String[] header = lines.get(0).split("\t");
        Map<String, Map<String, String>> rows = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split("\t");
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length && i < cells.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.put(cells[0], row);
        }
        return rows;
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("goldens")
    void replayGivesFoundationDbHashes(String name, String engine) throws Exception {
        Path dir = goldenDir();
        Map<String, String> expected = manifest(dir.resolve("MANIFEST.tsv")).get(name);
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay",
                List.of(dir.resolve(name + ".trace.gz").toString(), "--engine", engine, "--warmup", "10"),
                "-Xcheck:jni -Xmx1g");
        assertEquals(0, run.exitCode(), run.all());
        assertFalse(run.all().toLowerCase(Locale.ROOT).contains("warning"), "-Xcheck:jni warned:\n" + run.all());
        Map<String, String> got = run.values();
        assertEquals(expected.get("decision hash"), got.get("decision-hash"), run.all());
        assertEquals(expected.get("conflicting-keys hash"), got.get("conflicting-keys-hash"), run.all());
        assertEquals(expected.get("batches"), got.get("batches"));
        assertEquals(expected.get("transactions"), got.get("transactions"));
        assertEquals(expected.get("commit"), got.get("commit"));
        assertEquals(expected.get("conflict"), got.get("conflict"));
        assertEquals(expected.get("too_old"), got.get("too-old"));
        for (String timing : List.of("seconds", "transactions/sec", "bridge-seconds", "engine-seconds")) {
            assertTrue(got.containsKey(timing), "missing " + timing + ":\n" + run.stdout());
        }
    }

    /** Every golden trace with each engine: the reference oracle and the tree engine. */
    static Stream<Arguments> goldens() throws IOException {
        return manifest(goldenDir().resolve("MANIFEST.tsv")).keySet().stream().sorted()
                .flatMap(name -> ENGINES.stream().map(engine -> Arguments.of(name, engine)));
    }

    static Stream<String> invalidTraces() throws IOException {
        return manifest(goldenDir().resolve("invalid/MANIFEST.tsv")).keySet().stream().sorted();
    }

    @ParameterizedTest
    @MethodSource("invalidTraces")
    void malformedTraceGivesOneErrorLine(String name) throws Exception {
        Path dir = goldenDir().resolve("invalid");
        Map<String, String> row = manifest(dir.resolve("MANIFEST.tsv")).get(name);
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay",
                List.of(dir.resolve(name).toString(), "--engine", "reference"), "-Xmx256m");
        assertNotEquals(0, run.exitCode(), run.all());
        assertEquals("", run.stdout(), "no results for a rejected trace");
        String[] lines = run.stderr().strip().split("\n");
        assertEquals(1, lines.length, run.stderr());
        assertTrue(lines[0].startsWith("fdbresolver-replay: error: "), lines[0]);
        String where = row.get("where").split(",")[0]; // "batch 3" or "header"
        assertTrue(lines[0].contains(where), "error should name " + where + ": " + lines[0]);
    }

    @Test
    void truncatedGzipGivesOneErrorLine(@TempDir Path tmp) throws Exception {
        byte[] whole = Files.readAllBytes(goldenDir().resolve("adversarial.trace.gz"));
        Path cut = tmp.resolve("cut.trace.gz");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay",
                List.of(cut.toString(), "--engine", "reference"), "-Xmx256m");
        assertNotEquals(0, run.exitCode());
        assertEquals(1, run.stderr().strip().split("\n").length, run.stderr());
        assertTrue(run.stderr().startsWith("fdbresolver-replay: error: malformed trace"), run.stderr());
    }

    @ParameterizedTest
    @ValueSource(strings = {"no-such-file.trace", "--warmup"})
    void badCommandLineFails(String arg) throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay", List.of(arg), "-Xmx256m");
        assertNotEquals(0, run.exitCode());
        assertTrue(run.stderr().contains("error"), run.stderr());
    }
}
