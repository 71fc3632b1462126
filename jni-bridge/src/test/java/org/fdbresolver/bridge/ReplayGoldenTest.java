package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.fdbresolver.harness.trace.TraceFormatException;
import org.fdbresolver.harness.trace.TraceFormats;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.DecisionHeader;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
        Path repository = Path.of("..", "testdata", "golden").toAbsolutePath().normalize();
        Path dir = configured != null ? Path.of(configured) : repository;
        assertTrue(Files.isRegularFile(dir.resolve("MANIFEST.tsv")), "golden traces not found at "
                + dir.toAbsolutePath().normalize() + (dir.toAbsolutePath().normalize().equals(repository)
                        ? " (the repository's testdata/golden is missing)" : " (named by -Dfdbresolver.golden)"));
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
                List.of(dir.resolve(name + ".trace.gz").toString(), "--engine", engine, "--warmup", "1"),
                "-Xcheck:jni"); // the heap is sized from the budget (issue 15)
        assertEquals(0, run.exitCode(), run.all());
        assertFalse(run.all().toLowerCase(Locale.ROOT).contains("warning"), "-Xcheck:jni warned:\n" + run.all());
        Map<String, String> got = run.values();
        assertEquals(engine, got.get("engine"), "the engine that ran, named by the library");
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

    /**
     * Each invalid trace: exit 2, nothing on stdout, and one error line naming the file, then exactly the
     * error the reference oracle gives (invalid/MANIFEST.tsv; the Java CLI prints the same words).
     */
    @ParameterizedTest
    @MethodSource("invalidTraces")
    void invalidTraceGivesTheOraclesErrorNamingTheFile(String name) throws Exception {
        Path dir = goldenDir().resolve("invalid");
        Map<String, String> row = manifest(dir.resolve("MANIFEST.tsv")).get(name);
        String oracle = row.entrySet().stream().filter(e -> e.getKey().contains("error")).findFirst().orElseThrow().getValue();
        Path trace = dir.resolve(name);
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay", List.of(trace.toString(), "--engine", "reference"),
                "-Xmx256m");
        assertEquals(2, run.exitCode(), run.all());
        assertEquals("", run.stdout(), "no results for a rejected trace");
        assertEquals(List.of("error: " + trace + ": " + oracle.substring("error: ".length())), run.stderrLines());
    }

    /**
     * Damaged files the invalid set does not cover: the driver's hand-written reader names the same fault in
     * the same words as the Java reader (fdb-harness TraceReader), after the file's name, and exits 2.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("damagedFiles")
    void damagedFileGivesTheJavaReadersError(String name, byte[] bytes, @TempDir Path tmp) throws Exception {
        Path file = Files.write(tmp.resolve(name), bytes);
        String javaError = javaReaderError(file);
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay", List.of(file.toString(), "--engine", "reference"),
                "-Xmx256m");
        assertEquals(2, run.exitCode(), run.all());
        assertEquals("", run.stdout());
        assertEquals(List.of("error: " + file + ": " + javaError), run.stderrLines());
    }

    static Stream<Arguments> damagedFiles() throws IOException {
        byte[] golden = Files.readAllBytes(goldenDir().resolve("adversarial.trace.gz"));
        ByteArrayOutputStream emptyGzip = new ByteArrayOutputStream();
        new GZIPOutputStream(emptyGzip).close();
        ByteArrayOutputStream decisionFile = new ByteArrayOutputStream();
        DecisionHeader.newBuilder().setFormat(TraceFormats.DECISIONS).setEngine("x").build().writeDelimitedTo(decisionFile);
        return Stream.of(
                Arguments.of("cut.trace.gz", Arrays.copyOf(golden, golden.length / 2)),
                Arguments.of("empty.trace", new byte[0]),
                Arguments.of("empty.trace.gz", emptyGzip.toByteArray()),
                Arguments.of("notes.txt", "hello, world\n".getBytes(StandardCharsets.US_ASCII)),
                Arguments.of("d.decisions", decisionFile.toByteArray()),
                Arguments.of("length-cut.trace", headerThen(0x80)),
                Arguments.of("over-limit.trace", headerThen(0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3)),
                Arguments.of("bogus-length.trace", headerThen(0x80, 0x80, 0x80, 0x80, 0x04, 1, 2, 3)),
                Arguments.of("bad-wire-type.trace", headerThen(0x02, 0x0e, 0x00)),
                Arguments.of("past-the-end.trace", headerThen(0x03, 0x1a, 0x63, 0x00)));
    }

    /** The Java reader's message for a damaged trace file. */
    static String javaReaderError(Path file) throws IOException {
        try (TraceReader reader = TraceReader.open(file)) {
            while (reader.next() != null) {
                // read to the fault
            }
        } catch (TraceFormatException e) {
            return e.getMessage();
        }
        throw new AssertionError("the Java reader accepts " + file);
    }

    private static byte[] headerThen(int... tail) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(bytes);
        for (int b : tail) {
            bytes.write(b);
        }
        return bytes.toByteArray();
    }
}
