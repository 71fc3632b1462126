package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.api.Phase;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.DecisionWriter;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The CLI run in-process: outputs, exit codes and files left behind. */
class CliTest {
    /** Small golden traces (the adversarial ones report conflicting keys; point-hot has TOO_OLD). */
    static final List<String> SMALL_GOLDEN = List.of("adversarial", "adversarial-report-all", "conflictset-point-hot");

    static Map<String, String> goldenRow(String name) throws IOException {
        return GoldenFiles.goldenManifest().stream().filter(r -> r.get("name").equals(name)).findFirst().orElseThrow();
    }

    static void assumeReference() {
        assertTrue(Engines.all().containsKey("reference"), "the reference engine is not on the class path");
    }

    @ParameterizedTest
    @MethodSource("smallGolden")
    void resolveWithTheReferenceGivesFoundationDbsHashes(String name, @TempDir Path dir) throws IOException {
        assumeReference();
        Map<String, String> row = goldenRow(name);
        Path golden = GoldenFiles.dir();
        Path out = dir.resolve(name + ".decisions.gz");
        CliRun run = CliRun.of("resolve", golden.resolve(name + ".trace.gz").toString(), "--engine", "reference",
                "--out", out.toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals("", run.err());
        assertEquals(row.get("offered sha256"), run.value("offered-hash"));
        assertEquals(row.get("decision hash"), run.value("decision-hash"));
        assertEquals(row.get("conflicting-keys hash"), run.value("conflicting-keys-hash"));
        assertEquals(row.get("batches"), run.value("batches"));
        assertEquals(row.get("transactions"), run.value("transactions"));
        assertEquals(row.get("commit"), run.value("commit"));
        assertEquals(row.get("conflict"), run.value("conflict"));
        assertEquals(row.get("too_old"), run.value("too-old"));
        assertEquals("reference", run.value("engine"));
        assertTrue(Double.parseDouble(run.value("seconds")) >= 0);
        assertFalse(Files.exists(dir.resolve(name + ".decisions.gz.tmp")));

        // The file written hashes the same and equals FoundationDB's decisions transaction for transaction.
        CliRun hash = CliRun.of("hash", out.toString());
        assertEquals(0, hash.code(), hash::toString);
        assertEquals(row.get("decision hash"), hash.value("decision-hash"));
        assertEquals(row.get("conflicting-keys hash"), hash.value("conflicting-keys-hash"));
        assertEquals(row.get("offered sha256"), hash.value("trace-sha256"));
        assertEquals("reference", hash.value("engine"));
        CliRun diff = CliRun.of("diff", out.toString(), golden.resolve(name + ".decisions.gz").toString());
        assertEquals(0, diff.code(), diff::toString);
        assertEquals("yes", diff.value("same"));
        assertEquals("yes", diff.value("same-trace"));
        assertEquals("none", diff.value("first-difference"));
    }

    /** Every registered engine, through resolve and bench, on a trace that reports conflicting keys. */
    @ParameterizedTest
    @MethodSource("engines")
    void everyEngineResolvesAndBenchesAGoldenTrace(String engine) throws IOException {
        Map<String, String> row = goldenRow("adversarial-report-all");
        String trace = GoldenFiles.dir().resolve("adversarial-report-all.trace.gz").toString();
        for (CliRun run : List.of(CliRun.of("resolve", trace, "--engine", engine), CliRun.of("bench", trace, "--engine", engine))) {
            assertEquals(0, run.code(), run::toString);
            assertEquals(engine, run.value("engine"));
            assertEquals(row.get("decision hash"), run.value("decision-hash"));
            assertEquals(row.get("conflicting-keys hash"), run.value("conflicting-keys-hash"));
        }
    }

    static Stream<String> engines() {
        return Engines.all().keySet().stream();
    }

    static Stream<String> smallGolden() {
        return SMALL_GOLDEN.stream();
    }

    /** The oracle's error for each invalid trace, after the file's name as the CLI names it (issue 19). */
    static Stream<Arguments> invalidRows() throws IOException {
        return GoldenFiles.invalidManifest().stream().map(r -> Arguments.of(r.get("name"), "error: "
                + GoldenFiles.dir().resolve("invalid").resolve(r.get("name")) + ": "
                + GoldenFiles.expectedError(r).substring("error: ".length())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidRows")
    void eachInvalidTraceIsOneErrorLineAndNoDecisionFile(String name, String expected, @TempDir Path dir) {
        assumeReference();
        Path out = dir.resolve("out.decisions");
        CliRun run = CliRun.of("resolve", GoldenFiles.dir().resolve("invalid").resolve(name).toString(),
                "--engine", "reference", "--out", out.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of(expected), run.errLines());
        assertEquals("", run.out());
        assertEquals(List.of(), list(dir), "no decision file, no temp file");

        CliRun bench = CliRun.of("bench", GoldenFiles.dir().resolve("invalid").resolve(name).toString(), "--engine", "reference");
        assertEquals(2, bench.code(), bench::toString);
        assertEquals(List.of(expected), bench.errLines());
    }

    static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void hashOfAGoldenDecisionFile() throws IOException {
        Map<String, String> row = goldenRow("conflictset-range-window");
        CliRun run = CliRun.of("hash", GoldenFiles.dir().resolve("conflictset-range-window.decisions.gz").toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals(row.get("decision hash"), run.value("decision-hash"));
        assertEquals(row.get("conflicting-keys hash"), run.value("conflicting-keys-hash"));
        assertEquals(row.get("batches"), run.value("batches"));
        assertEquals(row.get("transactions"), run.value("transactions"));
        assertEquals(row.get("commit"), run.value("commit"));
        assertEquals(row.get("conflict"), run.value("conflict"));
        assertEquals(row.get("too_old"), run.value("too-old"));
    }

    @Test
    void diffNamesTheFirstDifferenceAndExitsOne(@TempDir Path dir) throws IOException {
        Path golden = GoldenFiles.dir().resolve("adversarial-report-all.decisions.gz");
        Path changed = dir.resolve("changed.decisions");
        // Copy FoundationDB's file, flipping the decision of one transaction and one conflicting-reads entry.
        long flippedBatch = -1;
        int flippedTransaction = -1;
        String flippedFrom = null;
        long entryBatch = -1;
        try (DecisionReader in = DecisionReader.open(golden);
             DecisionWriter out = DecisionWriter.create(changed, "edited", in.header().getTraceSha256().toByteArray())) {
            long batch = 0;
            for (BatchDecisions d; (d = in.next()) != null; batch++) {
                BatchDecisions.Builder b = d.toBuilder();
                if (flippedBatch < 0 && batch >= 10 && d.getDecisions().size() > 1) {
                    byte[] bytes = d.getDecisions().toByteArray();
                    flippedBatch = batch;
                    flippedTransaction = 1;
                    flippedFrom = org.fdbresolver.api.Decision.ofCode(bytes[1]).name();
                    bytes[1] = (byte) (bytes[1] == 0 ? 1 : 0);
                    b.setDecisions(ByteString.copyFrom(bytes));
                } else if (flippedBatch >= 0 && entryBatch < 0 && d.getConflictingReadsCount() > 0) {
                    entryBatch = batch;
                    ConflictingReads c = d.getConflictingReads(0);
                    b.setConflictingReads(0, c.toBuilder().addReadRanges(999));
                }
                out.write(b.build());
            }
            out.commit();
        }
        assertTrue(flippedBatch >= 0 && entryBatch >= 0, "the golden file has something to change");
        CliRun run = CliRun.of("diff", golden.toString(), changed.toString());
        assertEquals(1, run.code(), run::toString);
        assertEquals("no", run.value("same"));
        assertEquals("1", run.value("differing-transactions"));
        assertEquals("1", run.value("differing-conflicting-reads"));
        assertEquals("2", run.value("differing-batches"));
        String to = flippedFrom.equals("COMMIT") ? "CONFLICT" : "COMMIT";
        assertTrue(run.value("first-difference").matches("batch " + flippedBatch + " \\(version \\d+\\) transaction "
                + flippedTransaction + ": a " + flippedFrom + ", b " + to), run.value("first-difference"));
        assertTrue(run.value("first-conflicting-reads-difference").startsWith("batch " + entryBatch + " "),
                run.value("first-conflicting-reads-difference"));
        assertTrue(run.value("first-conflicting-reads-difference").endsWith(", 999]"),
                run.value("first-conflicting-reads-difference"));

        CliRun same = CliRun.of("diff", golden.toString(), golden.toString());
        assertEquals(0, same.code(), same::toString);
        assertEquals("yes", same.value("same"));
    }

    @Test
    void diffOfFilesWithDifferentBatchCounts(@TempDir Path dir) throws IOException {
        Path golden = GoldenFiles.dir().resolve("adversarial.decisions.gz");
        Path shorter = dir.resolve("short.decisions.gz");
        long kept = 0;
        long dropped = 0;
        try (DecisionReader in = DecisionReader.open(golden);
             DecisionWriter out = DecisionWriter.create(shorter, "cut", in.header().getTraceSha256().toByteArray())) {
            for (BatchDecisions d; (d = in.next()) != null; ) {
                if (kept < 100) {
                    out.write(d);
                    kept++;
                } else {
                    dropped += d.getDecisions().size();
                }
            }
            out.commit();
        }
        CliRun run = CliRun.of("diff", golden.toString(), shorter.toString());
        assertEquals(1, run.code(), run::toString);
        assertEquals("a 316, b 100", run.value("batches"));
        assertEquals(Long.toString(dropped), run.value("differing-transactions"));
        assertTrue(run.value("first-difference").matches("batch 100 \\(version \\d+\\): only a has this batch"),
                run.value("first-difference"));
    }

    @Test
    void benchPrintsEveryLineForAnyEngine() throws IOException {
        assumeReference();
        Map<String, String> row = goldenRow("adversarial-report-all");
        CliRun run = CliRun.of("bench", GoldenFiles.dir().resolve("adversarial-report-all.trace.gz").toString(),
                "--engine", "reference", "--warmup", "50");
        assertEquals(0, run.code(), run::toString);
        assertEquals("50", run.value("warmup-batches"));
        assertEquals(Long.toString(Long.parseLong(row.get("batches")) - 50), run.value("timed-batches"));
        assertEquals(row.get("decision hash"), run.value("decision-hash"), "warm-up batches are hashed too");
        assertEquals(row.get("conflicting-keys hash"), run.value("conflicting-keys-hash"));
        for (Phase p : Phase.values()) {
            assertTrue(run.value("phase-" + p.counterName()).matches("\\d+\\.\\d{3} s \\(\\d+\\.\\d%\\)"),
                    run.value("phase-" + p.counterName()));
        }
        assertTrue(Long.parseLong(run.value("allocated-bytes-per-batch")) >= 0);
        assertTrue(Long.parseLong(run.value("gc-count")) >= 0);
        assertTrue(Double.parseDouble(run.value("gc-seconds")) >= 0);
        assertTrue(Long.parseLong(run.value("history-bytes")) >= 0);
        Long.parseLong(run.value("retained-version"));
        Long.parseLong(run.value("transactions/sec"));
        // Per-batch latency: quantiles in order, the slowest batches slowest first, each with its phases.
        double previous = 0;
        for (String q : List.of("p50", "p90", "p99", "p99.9", "max")) {
            String v = run.value("latency-" + q);
            assertTrue(v.matches("\\d+\\.\\d{3} ms"), "latency-" + q + ": " + v);
            double ms = Double.parseDouble(v.substring(0, v.length() - 3));
            assertTrue(ms >= previous, "latency-" + q + " below the quantile before it: " + v);
            previous = ms;
        }
        assertTrue(Double.parseDouble(run.value("latency-max-to-p50")) >= 1.0, run.value("latency-max-to-p50"));
        String slowestLine = run.value("slowest-1");
        for (String q : List.of("p50", "p90", "p99", "p99.9", "max")) {
            assertTrue(run.value("cpu-latency-" + q).matches("\\d+\\.\\d{3} ms|n/a"), run.value("cpu-latency-" + q));
        }
        assertTrue(slowestLine.matches("batch \\d+ \\(version \\d+\\) \\d+\\.\\d{3} ms \\(cpu (\\d+\\.\\d{3} ms|n/a)\\): sort \\d+\\.\\d{3}, checkRead "
                + "\\d+\\.\\d{3}, checkIntraBatch \\d+\\.\\d{3}, combine \\d+\\.\\d{3}, mergeWrite \\d+\\.\\d{3}, "
                + "removeBefore \\d+\\.\\d{3} ms"), slowestLine);
        assertTrue(Integer.parseInt(slowestLine.split(" ")[1]) >= 50, "a warm-up batch is listed: " + slowestLine);
        assertEquals(run.value("latency-max"), slowestLine.split(" ")[4] + " ms", "the slowest batch is the maximum");
        if (!run.value("cpu-latency-max").equals("n/a")) {
            String slowestCpu = run.value("slowest-cpu-1");
            assertEquals(run.value("cpu-latency-max"), slowestCpu.substring(slowestCpu.indexOf("(cpu ") + 5, slowestCpu.indexOf("):")),
                    "the slowest batch by CPU time is the CPU maximum");
        }
        for (int k = 2; k <= BatchLatencies.SLOWEST; k++) {
            String t = run.value("slowest-" + k).split(" ")[4];
            assertTrue(Double.parseDouble(t) <= Double.parseDouble(run.value("slowest-" + (k - 1)).split(" ")[4]),
                    "slowest-" + k + " is slower than slowest-" + (k - 1));
        }
    }

    @Test
    void demoOnAGivenTraceAgrees() {
        assumeReference();
        CliRun run = CliRun.of("demo", "--trace", GoldenFiles.dir().resolve("adversarial.trace.gz").toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals("yes", run.value("agree"));
        assertEquals("1173", run.value("transactions"));
    }

    @Test
    void demoGeneratesItsDefaultTrace() {
        assumeReference();
        assertTrue(Workloads.all().containsKey(DemoCommand.DEFAULT_WORKLOAD), "the default workload is not registered yet");
        CliRun run = CliRun.of("demo", "--batches", "20");
        assertEquals(0, run.code(), run::toString);
        assertEquals("yes", run.value("agree"));
        assertEquals("20", run.value("batches"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gen", "resolve", "hash", "diff", "bench", "demo", "retention", "fuzz"})
    void helpForEachCommand(String command) {
        for (CliRun run : List.of(CliRun.of(command, "--help"), CliRun.of(command, "-h"), CliRun.of("help", command))) {
            assertEquals(0, run.code(), run::toString);
            assertTrue(run.out().startsWith("usage: fdbresolver " + command), run.out());
            assertTrue(run.out().contains("--help"), run.out());
            assertEquals("", run.err());
        }
    }

    @Test
    void helpListsEnginesFromTheRegistry() {
        CliRun run = CliRun.of("resolve", "--help");
        for (String engine : Engines.all().keySet()) {
            assertTrue(run.out().contains("\n  " + engine + " "), run.out());
        }
    }

    @Test
    void overview() {
        CliRun run = CliRun.of("--help");
        assertEquals(0, run.code());
        for (String c : List.of("gen", "resolve", "hash", "diff", "bench", "demo", "retention", "fuzz")) {
            assertTrue(run.out().contains("\n  " + c + " "), run.out());
        }
    }

    static Stream<Arguments> usageErrors() {
        String trace = GoldenFiles.dir().resolve("adversarial.trace.gz").toString();
        return Stream.of(
                Arguments.of(List.of(), "error: no command given (see fdbresolver --help)"),
                Arguments.of(List.of("help", "frobnicate"), "error: unknown subcommand 'frobnicate' (see fdbresolver --help)"),
                Arguments.of(List.of("frobnicate"), "error: unknown command 'frobnicate'; commands: gen, resolve, hash, diff, bench, demo, retention, size, fuzz, regroup (see fdbresolver --help)"),
                Arguments.of(List.of("resolve", trace, "--engine", "reference", "--colour", "red"),
                        "error: unknown option '--colour' (see fdbresolver resolve --help)"),
                Arguments.of(List.of("resolve", trace, "--engine"),
                        "error: missing required parameter for option '--engine' (NAME) (see fdbresolver resolve --help)"),
                Arguments.of(List.of("resolve", trace, "--engine", "reference", "--budget", "lots"),
                        "error: invalid value for option '--budget': 'lots' is not a byte count such as 1073741824, 512m, 2g or 64KiB"
                                + " (see fdbresolver resolve --help)"),
                Arguments.of(List.of("resolve", trace, "--engine", "no-such-engine"),
                        "error: unknown engine 'no-such-engine' (engines: " + String.join(", ", Engines.all().keySet()) + ")"),
                Arguments.of(List.of("resolve", "/nonexistent/x.trace", "--engine", "reference"),
                        "error: trace /nonexistent/x.trace does not exist"),
                Arguments.of(List.of("resolve", "/nonexistent/x.trace", "--engine", "reference", "--out", "/tmp/never.decisions"),
                        "error: trace /nonexistent/x.trace does not exist"),
                Arguments.of(List.of("hash"), "error: missing required parameter: 'DECISIONS' (see fdbresolver hash --help)"),
                Arguments.of(List.of("hash", "a", "b"), "error: unexpected argument 'b' (see fdbresolver hash --help)"),
                Arguments.of(List.of("hash", trace),
                        "error: " + trace + ": decision header: format is 'fdb-resolver-trace/1', expected 'fdb-resolver-decisions/1' (this is a trace, not a decision file)"),
                Arguments.of(List.of("bench", trace, "--engine", "reference", "--warmup", "-3"),
                        "error: invalid value for option '--warmup': '-3' is negative: wanted 0 or more (see fdbresolver bench --help)"),
                Arguments.of(List.of("gen", "no-such-workload", "--out", "/tmp/x.trace"),
                        "error: unknown workload 'no-such-workload' (known: " + String.join(", ", Workloads.all().keySet())
                                + ") (see fdbresolver gen --help)"));
    }

    @ParameterizedTest
    @MethodSource("usageErrors")
    void usageErrorsAreOneLineAndExitTwo(List<String> args, String expected) {
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of(expected), run.errLines());
    }

    @Test
    void verboseAddsTheStackTrace() {
        CliRun run = CliRun.of("hash", "/nonexistent/x.decisions", "--verbose");
        assertEquals(2, run.code());
        assertTrue(run.errLines().getFirst().startsWith("error: "), run.err());
        assertTrue(run.errLines().size() > 1, run.err());
    }

    @Test
    void failedResolveKeepsAnEarlierFileAndLeavesNoTemp(@TempDir Path dir) throws IOException {
        assumeReference();
        Path out = Files.writeString(dir.resolve("d.decisions"), "earlier");
        CliRun run = CliRun.of("resolve", GoldenFiles.dir().resolve("invalid").resolve("truncated.trace").toString(),
                "--engine", "reference", "--out", out.toString());
        assertEquals(2, run.code());
        assertEquals("earlier", Files.readString(out));
        assertEquals(List.of(out), list(dir));
    }

    @Test
    void outputIntoAMissingDirectoryOrOntoADirectory(@TempDir Path dir) {
        assumeReference();
        String trace = GoldenFiles.dir().resolve("adversarial.trace.gz").toString();
        Path missing = dir.resolve("no-such-dir").resolve("d.decisions");
        CliRun run = CliRun.of("resolve", trace, "--engine", "reference", "--out", missing.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: " + missing + ": cannot write it: directory " + missing.getParent() + " does not exist"),
                run.errLines());
        CliRun onto = CliRun.of("resolve", trace, "--engine", "reference", "--out", dir.toString());
        assertEquals(2, onto.code(), onto::toString);
        assertEquals(List.of("error: " + dir + ": is a directory"), onto.errLines());
        assertEquals(List.of(), list(dir));
    }

    @Test
    void byteCounts() {
        assertEquals(1L << 30, SizeConverter.parse("1g"));
        assertEquals(512L << 20, SizeConverter.parse("512MiB"));
        assertEquals(3000, SizeConverter.parse("3000"));
        assertEquals(2L << 10, SizeConverter.parse("2KB"));
    }
}
