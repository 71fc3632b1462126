package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.fdbresolver.harness.retention.RetentionCsv;
import org.fdbresolver.harness.retention.RetentionPlots;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code retention}: the CSV against the trace and the engine's own decisions, the plots, the summary, the errors. */
class RetentionCommandTest {
    private static final long MIB = 1 << 20;
    /** Big enough never to bind on the test trace. */
    private static final long LARGE = 256 * MIB;
    /** Small enough to bind on it (the engine holds the whole trace in about 1 MiB). */
    private static final long SMALL = 512 * 1024;

    @TempDir
    static Path shared;
    static Path trace;

    /** A longtrace with a window longer than the trace (so only a budget can drop history), some TOO_OLD reads. */
    @BeforeAll
    static void generate() {
        trace = shared.resolve("long.trace.gz");
        CliRun gen = CliRun.of("gen", "longtrace", "--out", trace.toString(), "--batches", "120", "--seed", "3",
                "--txns", "256", "--window", "600000000", "--too-old-fraction", "0.01");
        assertEquals(0, gen.code(), gen::toString);
    }

    private record Row(long budget, long batch, long version, double traceSeconds, long newOldest, long retained,
                       double age, long history, double used, int transactions, int tooOldFdb, int tooOldBudget) {
        static Row parse(String line) {
            String[] f = line.split(",", -1);
            assertEquals(12, f.length, line);
            return new Row(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Double.parseDouble(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Double.parseDouble(f[6]), Long.parseLong(f[7]),
                    Double.parseDouble(f[8]), Integer.parseInt(f[9]), Integer.parseInt(f[10]), Integer.parseInt(f[11]));
        }
    }

    private static List<Row> rows(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        assertEquals(RetentionCsv.HEADER, lines.getFirst());
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            rows.add(Row.parse(line));
        }
        return rows;
    }

    private static List<Batch> batches(Path file) throws IOException {
        List<Batch> batches = new ArrayList<>();
        try (TraceReader r = TraceReader.open(file)) {
            for (Batch b; (b = r.next()) != null; ) {
                batches.add(b);
            }
        }
        return batches;
    }

    /** TOO_OLD answers FoundationDB gives, from the trace alone: reads and a snapshot below new_oldest_version. */
    private static int fdbTooOld(Batch b) {
        int n = 0;
        for (Transaction t : b.getTransactionsList()) {
            if (t.getReadsCount() > 0 && t.getReadSnapshot() < b.getNewOldestVersion()) {
                n++;
            }
        }
        return n;
    }

    private static List<BatchDecisions> decisions(long budget, Path dir) throws IOException {
        Path out = dir.resolve("d" + budget + ".decisions");
        CliRun resolve = CliRun.of("resolve", trace.toString(), "--engine", "tree", "--budget", Long.toString(budget),
                "--out", out.toString());
        assertEquals(0, resolve.code(), resolve::toString);
        List<BatchDecisions> all = new ArrayList<>();
        try (DecisionReader r = DecisionReader.open(out)) {
            for (BatchDecisions d; (d = r.next()) != null; ) {
                all.add(d);
            }
        }
        return all;
    }

    @Test
    void theCsvHasOneRowPerBatchAndBudgetThatAgreesWithTheTraceAndTheDecisions(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("report");
        CliRun run = CliRun.of("retention", trace.toString(), "--budget", LARGE + "," + SMALL, "--out", out.toString());
        assertEquals(0, run.code(), run::toString);
        // The engine's warning for a budget below 1 MiB, once, as one line (issue 19: it was the JDK's two-line
        // log record, once per engine opened).
        assertEquals(List.of("warning: memory budget of 524,288 bytes is below 1,048,576: a batch whose writes do not fit"
                + " even with all older history dropped makes the engine forget all history (every older reader TOO_OLD;"
                + " counted in stats as forgottenBatches)"), run.errLines(), run::toString);

        List<Batch> batches = batches(trace);
        List<Row> rows = rows(out.resolve("retention.csv"));
        assertEquals(2 * batches.size(), rows.size());
        long first = batches.getFirst().getVersion();
        for (long budget : List.of(LARGE, SMALL)) {
            List<BatchDecisions> engineDecisions = decisions(budget, dir);
            List<Row> mine = rows.stream().filter(r -> r.budget() == budget).toList();
            assertEquals(batches.size(), mine.size());
            long tooOldFdb = 0;
            long tooOldBudget = 0;
            for (int i = 0; i < batches.size(); i++) {
                Batch b = batches.get(i);
                Row r = mine.get(i);
                assertEquals(i, r.batch());
                assertEquals(b.getVersion(), r.version());
                assertEquals(b.getNewOldestVersion(), r.newOldest());
                assertEquals((b.getVersion() - first) / 1e6, r.traceSeconds(), 1e-9);
                assertEquals(b.getTransactionsCount(), r.transactions());
                assertTrue(r.retained() >= r.newOldest(), "the retained version is at least new_oldest_version: " + r);
                assertEquals((r.version() - r.retained()) / 1e6, r.age(), 1e-9);
                assertTrue(r.history() > 0 && r.history() <= budget, "history within the budget: " + r);
                assertEquals((double) r.history() / budget, r.used(), 0.00005 + 1e-9); // printed with 4 decimals
                int engineTooOld = 0;
                for (byte d : engineDecisions.get(i).getDecisions().toByteArray()) {
                    engineTooOld += d == 2 ? 1 : 0;
                }
                assertEquals(fdbTooOld(b), r.tooOldFdb(), "batch " + i);
                assertEquals(engineTooOld - fdbTooOld(b), r.tooOldBudget(), "batch " + i);
                tooOldFdb += r.tooOldFdb();
                tooOldBudget += r.tooOldBudget();
            }
            Row last = mine.getLast();
            String p = "budget-" + RetentionCommand.name(budget) + "-";
            assertEquals(Long.toString(last.history()), run.value(p + "history-bytes"));
            assertEquals(String.format(Locale.ROOT, "%.6f", last.age()), run.value(p + "retained-age-seconds"));
            assertEquals(Long.toString(tooOldFdb), run.value(p + "too-old-fdb"));
            assertEquals(Long.toString(tooOldBudget), run.value(p + "too-old-budget"));
            boolean bound = mine.stream().anyMatch(r -> r.retained() > r.newOldest());
            assertEquals(bound, !run.value(p + "bound-from-seconds").equals("never"));
            if (bound) {
                double minUsed = mine.stream().dropWhile(r -> r.retained() <= r.newOldest()).mapToDouble(Row::used).min().orElseThrow();
                assertEquals(minUsed, Double.parseDouble(run.value(p + "used-min")), 0.0001);
            }
        }
        assertTrue(rows.stream().anyMatch(r -> r.tooOldFdb() > 0), "the trace has TOO_OLD reads of FoundationDB's");
        String large = "budget-" + RetentionCommand.name(LARGE) + "-";
        assertEquals("never", run.value(large + "bound-from-seconds"), "256 MiB holds this trace");
        assertEquals("0", run.value(large + "too-old-budget"));
        assertEquals("n/a", run.value(large + "used-min"));
        String small = "budget-" + RetentionCommand.name(SMALL) + "-";
        assertFalse(run.value(small + "bound-from-seconds").equals("never"), "512 KiB cannot hold this trace");
        assertEquals("120", run.value("batches"));
        assertEquals("256MiB, 512KiB", run.value("budgets"));
        assertEquals(List.of("history-bytes.png", "retained-age.png", "retention.csv"), names(out));
    }

    @Test
    void thePlotsArePngImagesWithSomethingDrawn(@TempDir Path dir) throws IOException {
        CliRun run = CliRun.of("retention", trace.toString(), "--budget", "256m,2m,3m", "--out", dir.toString());
        assertEquals(0, run.code(), run::toString);
        for (String name : List.of("retained-age.png", "history-bytes.png")) {
            Path png = dir.resolve(name);
            assertEquals(png.toString(), run.value(name.equals("retained-age.png") ? "plot-retained-age" : "plot-history-bytes"));
            BufferedImage image = ImageIO.read(png.toFile());
            assertNotNull(image, name + " is not an image ImageIO can read");
            assertEquals(RetentionPlots.WIDTH, image.getWidth());
            assertEquals(RetentionPlots.HEIGHT, image.getHeight());
            Set<Integer> colours = new HashSet<>();
            for (int y = 0; y < image.getHeight(); y += 3) {
                for (int x = 0; x < image.getWidth(); x += 3) {
                    colours.add(image.getRGB(x, y));
                }
            }
            assertTrue(colours.size() > 10, name + " has only " + colours.size() + " colours: nothing drawn");
        }
    }

    @Test
    void csvOnlyWritesNoPlots(@TempDir Path dir) throws IOException {
        CliRun run = CliRun.of("retention", trace.toString(), "--budget", "64m", "--out", dir.toString(), "--csv-only");
        assertEquals(0, run.code(), run::toString);
        assertEquals(List.of("retention.csv"), names(dir));
        assertFalse(run.values().containsKey("plot-retained-age"));
    }

    @Test
    void versusFdbFindsAWindowAndARatio(@TempDir Path dir) throws IOException {
        CliRun run = CliRun.of("retention", trace.toString(), "--budget", SMALL + ",256m", "--out", dir.toString(), "--csv-only",
                "--versus-fdb");
        assertEquals(0, run.code(), run::toString);
        String comparator = System.getenv(RetentionCommand.FDB_SKIPLIST_ENV);
        assertTrue(run.value("fdb-measured-by").startsWith(comparator == null || comparator.isBlank() ? "model" : "native"),
                run::toString);
        String small = "budget-" + RetentionCommand.name(SMALL) + "-";
        double window = Double.parseDouble(run.value(small + "fdb-window-seconds"));
        assertTrue(window > 0 && window < 3.75, run::toString);
        assertTrue(Long.parseLong(run.value(small + "fdb-peak-bytes")) <= SMALL, run::toString);
        // The engine holding the same window, no budget: fewer bytes than the skip list, by the ratio printed.
        long enginePeak = Long.parseLong(run.value(small + "engine-peak-bytes-at-fdb-window"));
        double memoryRatio = Double.parseDouble(run.value(small + "memory-ratio-at-fdb-window"));
        assertEquals((double) Long.parseLong(run.value(small + "fdb-peak-bytes")) / enginePeak, memoryRatio, 0.005);
        assertTrue(memoryRatio > 1, run::toString);
        // 256 MiB holds the whole trace for both: no ratio to give.
        assertTrue(run.value("budget-256MiB-fdb-window-seconds").startsWith("at least "), run::toString);
        assertTrue(run.value("budget-256MiB-history-ratio").startsWith("n/a"), run::toString);
    }

    static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Every refusal: one error line, exit 2, and nothing written. */
    @Test
    void badCommandLinesAreOneErrorLineAndWriteNothing(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        Path file = Files.writeString(dir.resolve("file"), "x");
        String t = trace.toString();
        String o = out.toString();
        Map<List<String>, String> cases = Map.ofEntries(
                Map.entry(List.of("retention", t, "--out", o),
                        "error: missing required option: '--budget=BYTES[,BYTES...]' (see fdbresolver retention --help)"),
                Map.entry(List.of("retention", t, "--budget", "lots", "--out", o),
                        "error: invalid value for option '--budget': 'lots' is not a byte count such as 1073741824, 512m, 2g or 64KiB (see fdbresolver retention --help)"),
                Map.entry(List.of("retention", t, "--budget", "8m,8388608", "--out", o),
                        "error: invalid value for option '--budget': '8m,8388608' names 8 MiB twice (8m and 8388608): each budget is replayed once (see fdbresolver retention --help)"),
                Map.entry(List.of("retention", t, "--budget", "4m,4m", "--out", o),
                        "error: invalid value for option '--budget': '4m,4m' names 4m twice: each budget is replayed once (see fdbresolver retention --help)"),
                Map.entry(List.of("retention", t, "--budget", "8m,", "--out", o),
                        "error: invalid value for option '--budget': '8m,' has an empty item: wanted BYTES[,BYTES...] such as 16m,64m (see fdbresolver retention --help)"),
                Map.entry(List.of("retention", t, "--budget", "8m", "--out", o, "--engine", "reference"),
                        "error: engine reference keeps all history and has no memory budget: retention has nothing to measure (use --engine tree)"),
                Map.entry(List.of("retention", dir.resolve("absent.trace").toString(), "--budget", "8m", "--out", o),
                        "error: trace " + dir.resolve("absent.trace") + " does not exist"),
                Map.entry(List.of("retention", t, "--budget", "8m", "--out", file.toString()),
                        "error: --out " + file + " is not a folder"),
                Map.entry(List.of("retention", t, "--budget", "8m", "--out", o, "--engine", "nope"),
                        "error: unknown engine 'nope' (engines: " + EngineOptions.known() + ")"),
                Map.entry(List.of("retention", t, "--budget", "8m", "--out", o, "--fdb-skiplist", file.toString(), "--versus-fdb"),
                        "error: --fdb-skiplist " + file + " is not an executable file (build it with scripts/build-fdb,"
                                + " or in a minute with scripts/build-skiplist)"),
                Map.entry(List.of("retention", "/dev/null", "--budget", "8m,16m", "--out", o),
                        "error: /dev/null is not a regular file and can be read only once: give one budget and no --versus-fdb"));
        for (var c : cases.entrySet()) {
            CliRun run = CliRun.of(c.getKey().toArray(String[]::new));
            assertEquals(2, run.code(), run::toString);
            assertEquals(List.of(c.getValue()), run.errLines(), run::toString);
            assertEquals("", run.out());
            assertEquals(List.of(), names(out), "nothing written for " + c.getKey());
        }
        CliRun tiny = CliRun.of("retention", t, "--budget", "8m,1k", "--out", o);
        assertEquals(2, tiny.code(), tiny::toString);
        assertEquals(1, tiny.errLines().size(), tiny::toString);
        assertTrue(tiny.errLines().getFirst().startsWith("error: engine tree: ") && tiny.errLines().getFirst().contains("1024"),
                tiny::toString);
        assertEquals(List.of(), names(out));
        CliRun option = CliRun.of("retention", t, "--budget", "8m", "--out", o, "--engine-option", "color=blue");
        assertEquals(2, option.code(), option::toString);
        assertTrue(option.errLines().getFirst().startsWith("error: engine tree: unknown option 'color'"), option::toString);
        assertEquals(List.of(), names(out));
    }

    @Test
    void anInvalidTraceIsItsErrorAndLeavesNoCsv(@TempDir Path dir) throws IOException {
        Map<String, String> row = GoldenFiles.invalidManifest().getFirst();
        CliRun run = CliRun.of("retention", GoldenFiles.dir().resolve("invalid").resolve(row.get("name")).toString(),
                "--budget", "8m", "--out", dir.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: " + GoldenFiles.dir().resolve("invalid").resolve(row.get("name")) + ": "
                + GoldenFiles.expectedError(row).substring("error: ".length())), run.errLines());
        assertEquals(List.of(), names(dir), "no CSV, no temp file");
    }

    /**
     * Issue 19: a trace without batches is an error, not a crash in the plotting library, and a failed run
     * leaves nothing behind: no CSV with only its header, no --out folder it created.
     */
    @Test
    void aTraceWithoutBatchesOrABrokenOneLeavesNothingBehind(@TempDir Path dir) throws IOException {
        Path zero = ErrorStyleTest.emptyTrace(dir.resolve("zero.trace"));
        byte[] bytes = new byte[4096];
        new SplittableRandom(19).nextBytes(bytes);
        bytes[0] = 0x7f; // not gzip's magic: a damaged plain trace
        Path noise = Files.write(dir.resolve("random.trace"), bytes);
        byte[] whole = Files.readAllBytes(trace);
        Path cut = Files.write(dir.resolve("cut.trace"), Arrays.copyOf(whole, whole.length / 2));
        Map<Path, String> errors = Map.of(
                zero, "error: " + zero + ": the trace has no batches, nothing to replay",
                noise, "error: " + noise + ": ",
                cut, "error: " + cut + ": batch ");
        for (var e : errors.entrySet()) {
            Path out = dir.resolve("new").resolve("report");
            CliRun run = CliRun.of("retention", e.getKey().toString(), "--budget", "4m", "--out", out.toString());
            assertEquals(2, run.code(), run::toString);
            assertEquals(1, run.errLines().size(), run::toString);
            assertTrue(run.errLines().getFirst().startsWith(e.getValue()), run::toString);
            assertFalse(Files.exists(dir.resolve("new")), "the folders it created are gone: " + run);
            // A folder that was there stays, empty.
            Path existing = Files.createDirectories(dir.resolve("existing"));
            assertEquals(2, CliRun.of("retention", e.getKey().toString(), "--budget", "4m", "--out", existing.toString()).code());
            assertEquals(List.of(), names(existing));
        }
    }
}
