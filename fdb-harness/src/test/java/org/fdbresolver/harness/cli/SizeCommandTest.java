package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.harness.sizing.MemoryPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code size}: its figures agree with each other and with direct measurement. On a small shape (a 4-second window
 * of 10,000 writes per second, 16-byte keys, the longtrace model's key distribution): measured at a quarter of the
 * rate, key space and hot set, the history and skip-list bytes it predicts are within {@link #SCALE_TOLERANCE} of
 * what it measures at full scale ({@link #SPACING_TOLERANCE} when scaled by spacing); with uniform keys (nothing written twice to speak of) doubling the window
 * doubles them within {@link #DOUBLING_TOLERANCE}; the budget is the history over the share, the heap and
 * fdbserver's --memory follow from it as the bridge plans them; the trace it prints replays, under the budget it
 * checked, with the whole window kept, and under 80 % of it with less. No timing is checked.
 */
class SizeCommandTest {
    /**
     * Predicted at a quarter scale against measured at full scale, scaled by batches (measured on this shape:
     * −2.3 % for the engine, −1.5 % for the skip list).
     */
    static final double SCALE_TOLERANCE = 0.05;
    /** The same scaled by spacing, which drifts further (measured: +4.1 % and +2.9 %). */
    static final double SPACING_TOLERANCE = 0.08;
    /** Twice the window against twice the bytes, uniform keys. */
    static final double DOUBLING_TOLERANCE = 0.08;
    static final String[] SHAPE = {"--rate", "10000", "--key-length", "16", "--seed", "7"};

    static CliRun full;
    static CliRun quarter;

    @TempDir
    static Path dir;

    static CliRun size(String... args) {
        List<String> all = new ArrayList<>(List.of("size"));
        all.addAll(Arrays.asList(SHAPE));
        all.addAll(Arrays.asList(args));
        CliRun run = CliRun.of(all.toArray(String[]::new));
        assertEquals(0, run.code(), run::toString);
        return run;
    }

    @BeforeAll
    static void measure() {
        full = size("--window", "4", "--max-window-writes", "100000");
        quarter = size("--window", "4", "--max-window-writes", "10000");
    }

    static double number(CliRun run, String name) {
        return Double.parseDouble(run.value(name).split(" ")[0]);
    }

    static void assertClose(double expected, double actual, double tolerance, String what) {
        assertTrue(Math.abs(actual / expected - 1) <= tolerance, what + ": " + actual + " against " + expected
                + " (" + String.format("%+.1f%%", 100 * (actual / expected - 1)) + ", tolerance " + 100 * tolerance + "%)");
    }

    @Test
    void aPredictionFromAQuarterScaleMatchesTheMeasurementAtFullScale() {
        assertEquals("1.000000", full.value("scale"));
        double scale = number(quarter, "scale"); // whole transactions per batch: about a quarter
        assertTrue(scale > 0.24 && scale < 0.26, quarter::toString);
        assertTrue(quarter.value("note").startsWith("measured at a scale of 0.2"), quarter::toString);
        assertEquals(full.value("measured-batch-interval-seconds"), quarter.value("measured-batch-interval-seconds"));
        assertEquals(Math.round(242 * scale), Long.parseLong(quarter.value("measured-transactions-per-batch")));
        // At full scale the trace offers what was asked: 40,000 writes in a window, within 2 %.
        assertClose(40_000, number(full, "measured-window-writes"), 0.02, "writes in the window at full scale");
        assertClose(40_000 * scale, number(quarter, "measured-window-writes"), 0.02, "writes in the window at a quarter");
        // (the scale is printed with six decimals)
        assertEquals(10_000_000 * scale, number(quarter, "measured-keyspace"), 10);
        assertEquals(100_000 * scale, number(quarter, "measured-hot-keys"), 1);
        // Scaled by spacing instead: each batch as asked, four times further apart.
        CliRun spacing = size("--window", "4", "--max-window-writes", "10000", "--scale-by", "SPACING");
        assertEquals("0.250000", spacing.value("scale"));
        assertEquals("0.125000", spacing.value("measured-batch-interval-seconds"));
        assertEquals("242", spacing.value("measured-transactions-per-batch"));
        for (String name : List.of("tree-history-bytes", "fdb-skiplist-bytes")) {
            assertClose(number(full, name), number(quarter, name), SCALE_TOLERANCE, name + " predicted at a quarter");
            assertClose(number(full, name), number(spacing, name), SPACING_TOLERANCE, name + " predicted at a quarter, by spacing");
        }
        // At full scale nothing is extrapolated but the writes in the window, which are about what was asked.
        assertClose(number(full, "tree-history-bytes-measured"), number(full, "tree-history-bytes"), 0.02, "tree at full scale");
    }

    @Test
    void doublingTheWindowDoublesTheBytesWithUniformKeys() {
        CliRun one = size("--window", "2", "--hot-fraction", "0", "--max-window-writes", "100000");
        CliRun two = size("--window", "4", "--hot-fraction", "0", "--max-window-writes", "100000");
        for (String name : List.of("tree-history-bytes", "fdb-skiplist-bytes", "window-writes")) {
            assertClose(2 * number(one, name), number(two, name), DOUBLING_TOLERANCE, name + " at twice the window");
        }
    }

    @Test
    void theBudgetIsTheHistoryOverTheShareAndTheMemoryFollowsFromIt() {
        for (CliRun run : List.of(full, quarter)) {
            double share = number(run, "history-share");
            assertTrue(share > 0.85 && share <= 1, run::toString);
            long budget = Long.parseLong(run.value("budget-bytes"));
            double exact = number(run, "tree-history-bytes") / share; // the share as printed, four decimals
            assertTrue(budget >= exact * (1 - 1e-4) && budget < exact * (1 + 1e-4) + (1 << 20), run::toString);
            assertEquals(0, budget % (1 << 20));
            assertEquals("engine=tree;memory_budget=" + (budget >> 20) + "m", run.value("plugin-config"));
            long heap = Long.parseLong(run.value("jvm-heap-bytes"));
            assertEquals(MemoryPlan.roundUpToMib(budget + budget / 8 + (192L << 20)), heap);
            long nonHeap = Long.parseLong(run.value("jvm-non-heap-bytes"));
            assertEquals((192L << 20) + heap / 16, nonHeap);
            assertEquals(heap + nonHeap, Long.parseLong(run.value("jvm-bytes")));
            long memory = Long.parseLong(run.value("fdbserver-memory-bytes"));
            assertEquals(MemoryPlan.roundUpToMib(heap + nonHeap + (1L << 30)), memory);
            long skipList = Long.parseLong(run.value("fdb-skiplist-bytes"));
            assertEquals(MemoryPlan.roundUpToMib(heap + nonHeap + (1L << 30) + skipList),
                    Long.parseLong(run.value("fdbserver-memory-shadow-bytes")));
            // bytes per write and the extrapolation agree
            double perWrite = number(run, "tree-bytes-per-write");
            assertClose(perWrite * number(run, "window-writes"), number(run, "tree-history-bytes"), 0.001, "tree per write");
            assertClose(number(run, "fdb-skiplist-bytes") / number(run, "tree-history-bytes"), number(run, "fdb-over-tree"), 0.01,
                    "fdb-over-tree");
            assertTrue(run.value("fdb-measured-by").startsWith("model") || run.value("fdb-measured-by").startsWith("native"));
        }
    }

    @Test
    void theBudgetHoldsTheWindowAtTheScaleMeasuredAndEightyPercentDoesNot() {
        for (CliRun run : List.of(full, quarter)) {
            assertEquals("4.000000 (never bound: the whole window)", run.value("check-retained-age-min-seconds"), run::toString);
            assertEquals("0", run.value("check-too-old-budget"));
            assertTrue(number(run, "check-low-retained-age-min-seconds") < 4, run::toString);
            assertTrue(run.value("check-low-retained-age-min-seconds").endsWith("(bound)"));
            assertTrue(Long.parseLong(run.value("check-low-too-old-budget")) > 0);
            long check = Long.parseLong(run.value("check-budget-bytes"));
            assertEquals((long) Math.floor(check * 0.8), Long.parseLong(run.value("check-low-budget-bytes")));
            // (the share is printed with four decimals)
            assertClose(number(run, "tree-history-bytes-measured") / number(run, "history-share"), check, 1e-4, "check budget");
        }
    }

    /** The trace it prints is the trace it measured: retention finds the same under the budgets it checked. */
    @Test
    void thePrintedTraceReplaysAsTheChecksSay() {
        String command = quarter.value("trace-command");
        Path trace = dir.resolve("shape.trace");
        List<String> args = new ArrayList<>(Arrays.asList(command.replace("fdbresolver ", "")
                .replace("--out shape.trace", "--out " + trace).split(" ")));
        CliRun gen = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, gen.code(), gen::toString);
        assertEquals(quarter.value("trace-batches"), gen.value("batches"));
        assertEquals(quarter.value("trace-transactions"), gen.value("transactions"));
        String budget = quarter.value("check-budget-bytes");
        String low = quarter.value("check-low-budget-bytes");
        CliRun retention = CliRun.of("retention", trace.toString(), "--budget", budget + "," + low, "--csv-only",
                "--out", dir.resolve("r").toString());
        assertEquals(0, retention.code(), retention::toString);
        String b = "budget-" + RetentionCommand.name(Long.parseLong(budget)) + "-";
        String l = "budget-" + RetentionCommand.name(Long.parseLong(low)) + "-";
        assertEquals("never", retention.value(b + "bound-from-seconds"), retention::toString);
        assertEquals("0", retention.value(b + "too-old-budget"));
        assertEquals(quarter.value("check-low-retained-age-min-seconds").split(" ")[0], retention.value(l + "retained-age-min-seconds"));
        assertEquals(quarter.value("check-low-too-old-budget"), retention.value(l + "too-old-budget"));
        // and the full-scale command of a shape measured at full scale is the command of the trace measured
        assertEquals(full.value("trace-command").replace("shape.trace", "shape-full.trace"), full.value("full-trace-command"));
    }

    /** The key shape size asks for changes the keys' bytes only: the same draws decide alike. */
    @Test
    void longerKeysDecideAsTheEightByteOnes() {
        List<String> hashes = new ArrayList<>();
        for (List<String> keys : List.of(List.<String>of(), List.of("--key-length", "32", "--key-prefix", "4"),
                List.of("--key-length", "5", "--key-prefix", "1"))) {
            Path trace = dir.resolve("keys" + hashes.size() + ".trace");
            List<String> args = new ArrayList<>(List.of("gen", "longtrace", "--batches", "20", "--txns", "512",
                    "--keyspace", "1000000", "--out", trace.toString()));
            args.addAll(keys);
            CliRun gen = CliRun.of(args.toArray(String[]::new));
            assertEquals(0, gen.code(), gen::toString);
            CliRun resolve = CliRun.of("resolve", trace.toString());
            assertEquals(0, resolve.code(), resolve::toString);
            assertTrue(Long.parseLong(resolve.value("conflict")) > 0, resolve::toString);
            hashes.add(resolve.value("decision-hash"));
        }
        assertEquals(1, hashes.stream().distinct().count(), hashes::toString);
    }

    @Test
    void badShapesAreOneErrorLine() {
        List<List<String>> cases = List.of(
                List.of("size", "--rate", "100", "--key-length", "8"),
                List.of("size", "--window", "0", "--rate", "100", "--key-length", "8"),
                List.of("size", "--window", "5", "--rate", "lots", "--key-length", "8"),
                List.of("size", "--window", "5000", "--rate", "100", "--key-length", "8"),
                List.of("size", "--window", "5", "--rate", "100", "--key-length", "8", "--key-prefix", "8"),
                List.of("size", "--window", "5", "--rate", "100", "--key-length", "3", "--keyspace", "100000000"),
                List.of("size", "--window", "5", "--rate", "100", "--key-length", "8", "--range-fraction", "1.5"),
                List.of("size", "--window", "5", "--rate", "100", "--key-length", "8", "--engine", "reference"),
                List.of("size", "--window", "5", "--rate", "100", "--key-length", "8", "--engine-option", "nodeBytes=3"));
        for (List<String> args : cases) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(2, run.code(), run::toString);
            assertEquals("", run.out(), run::toString);
            assertEquals(1, run.errLines().size(), run::toString);
            assertTrue(run.errLines().getFirst().startsWith("error: "), run::toString);
        }
        assertTrue(CliRun.of("size", "--window", "5000", "--rate", "100", "--key-length", "8").err().contains("2^30 versions"));
        assertTrue(CliRun.of("size", "--window", "5", "--rate", "100", "--key-length", "3", "--keyspace", "100000000").err()
                .contains("do not fit in the 3 bytes"));
    }
}
