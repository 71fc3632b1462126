package org.fdbresolver.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fdbresolver.harness.retention.PlotSeries;
import org.fdbresolver.harness.retention.RetentionPlots;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;

/**
 * A long trace under a fixed budget in a memory-capped container, as an operator would run the resolver for
 * hours: {@code fdbresolver gen longtrace} streams through a FIFO into {@code fdbresolver retention} (one
 * budget, CSV only), while the container samples the resolver's resident memory from {@code /proc} and the
 * JVM logs every garbage collection. It checks that resident memory stops growing once the budget binds, that
 * no full collection happens, and that the retained age holds steady; it writes the samples, the GC log, the
 * CSV and three plots to {@code target/soak/NAME/} (docs/retention.md shows a run).
 *
 * <p>The short soak (twenty minutes of version time, 9.8 million transactions, under a minute here) runs with
 * the other container tests.
 * The long one is tagged {@code soak}, excluded by default:
 * <pre>
 * ./mvnw -B -o verify -pl containers -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=RetentionSoakIT -Dit.excludedGroups= [-Dfdbresolver.soak.batches=230400]
 * </pre>
 */
@Tag("docker")
class RetentionSoakIT {
    private static final long MIB = 1L << 20;
    /** longtrace's 31.25 ms per batch. */
    private static final double SECONDS_PER_BATCH = 0.03125;
    private static final Pattern GC_LINE = Pattern.compile("\\[([0-9.]+)s\\].*GC\\(\\d+\\) (Pause \\w+).* (\\d+)M->(\\d+)M\\((\\d+)M\\)");

    /**
     * One soak: the trace (batches of {@code txns} transactions, a 600-second window so only the budget drops
     * history), the budget, the resolver's heap and the container's memory cap.
     */
    private record Soak(String name, long batches, int txns, long budgetBytes, int heapMib, long containerBytes) {
    }

    @BeforeAll
    static void docker() {
        ResolverImage.requireDocker();
    }

    @Test
    void twentyMinutesOfVersionTimeUnderABudget() throws Exception {
        check(run(new Soak("short", 38_400, 256, 16 * MIB, 160, 448 * MIB)));
    }

    @Test
    @Tag("soak")
    void hoursOfVersionTimeUnderABudget() throws Exception {
        long batches = Long.getLong("fdbresolver.soak.batches", 230_400); // two hours of version time
        check(run(new Soak("long", batches, 512, 64 * MIB, 256, 640 * MIB)));
    }

    /** What a soak left: the summary lines, the samples, the GC log and the CSV, in its folder. */
    private record Result(Soak soak, Path dir, Map<String, String> summary, List<double[]> samples, String gcLog) {
    }

    private static Result run(Soak s) throws Exception {
        Path dir = Path.of("target", "soak", s.name()).toAbsolutePath();
        deleteRecursively(dir);
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx")); // the container's user writes
        String java = "java -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow -cp '/opt/fdbresolver/lib/*' ";
        String main = "org.fdbresolver.harness.cli.Main";
        String script = String.join("\n",
                "set -e",
                "cd /tmp && mkfifo trace",
                java + "-Xmx96m " + main + " gen longtrace --batches " + s.batches() + " --txns " + s.txns()
                        + " --window 600000000 --seed 17 --out trace > /out/gen.txt &",
                "gen=$!",
                // A fixed, pre-touched heap: resident memory then shows any growth outside the heap at once,
                // and the heap after each collection shows the live data.
                java + "-Xms" + s.heapMib() + "m -Xmx" + s.heapMib() + "m -XX:+AlwaysPreTouch -Xlog:gc:file=/out/gc.log " + main
                        + " retention trace --budget " + s.budgetBytes() + " --out /out --csv-only > /out/summary.txt &",
                "resolver=$!",
                "start=$(date +%s.%N)",
                // elapsed seconds, resolver RSS (kB), CSV rows so far (about the batches done), the container's memory
                "while kill -0 $resolver 2>/dev/null; do",
                "  rss=$(awk '/^VmRSS/ {print $2}' /proc/$resolver/status 2>/dev/null || true)",
                "  rows=$(cat /out/retention.csv.tmp 2>/dev/null | wc -l || true)",
                "  cg=$(cat /sys/fs/cgroup/memory.current 2>/dev/null || cat /sys/fs/cgroup/memory/memory.usage_in_bytes 2>/dev/null || echo 0)",
                "  [ -n \"$rss\" ] && echo \"sample $(echo \"$(date +%s.%N) - $start\" | awk '{print $1 - $3}' ) $rss $rows $cg\"",
                "  sleep 1",
                "done",
                "wait $resolver",
                "wait $gen",
                "cat /out/summary.txt");
        String logs;
        try (GenericContainer<?> c = new GenericContainer<>(ResolverImage.get())) {
            c.withNetworkMode("none")
                    .withCreateContainerCmdModifier(cmd -> {
                        cmd.withEntrypoint("bash", "-c", script);
                        cmd.getHostConfig().withMemory(s.containerBytes()).withMemorySwap(s.containerBytes())
                                .withBinds(new Bind(dir.toString(), new Volume("/out"), AccessMode.rw));
                    })
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofHours(4)));
            c.start();
            logs = c.getLogs();
        }
        Files.writeString(dir.resolve("container.log"), logs);
        Map<String, String> summary = new HashMap<>();
        List<double[]> samples = new ArrayList<>();
        for (String line : logs.split("\n")) {
            if (line.startsWith("sample ")) {
                samples.add(Arrays.stream(line.substring(7).trim().split(" +")).mapToDouble(Double::parseDouble).toArray());
            } else if (line.indexOf(": ") > 0) {
                summary.put(line.substring(0, line.indexOf(": ")), line.substring(line.indexOf(": ") + 2).trim());
            }
        }
        return new Result(s, dir, summary, samples, Files.readString(dir.resolve("gc.log")));
    }

    private static void check(Result r) throws IOException {
        Soak s = r.soak();
        String p = "budget-" + (s.budgetBytes() / MIB) + "MiB-";
        assertEquals(Long.toString(s.batches()), r.summary().get("batches"), "every batch resolved:\n" + r.summary());
        long history = Long.parseLong(r.summary().get(p + "history-bytes"));
        assertTrue(history <= s.budgetBytes(), "history " + history + " within the budget");
        assertTrue(!r.summary().get(p + "bound-from-seconds").equals("never"), "the budget bound: " + r.summary());

        // Garbage collections: none full; the heap after each young collection stays flat once the budget binds.
        List<double[]> gcs = new ArrayList<>(); // seconds, heap after (MiB)
        int full = 0;
        for (String line : r.gcLog().split("\n")) {
            Matcher m = GC_LINE.matcher(line);
            if (m.find()) {
                full += m.group(2).equals("Pause Full") ? 1 : 0;
                gcs.add(new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(4))});
            }
        }
        assertEquals(0, full, "full collections in " + r.dir().resolve("gc.log"));
        assertTrue(!gcs.isEmpty(), "no collection logged: is -Xlog:gc working?");

        // Resident memory: after warm-up (the first quarter of the run) it grows by at most a few MiB.
        List<double[]> samples = r.samples();
        assertTrue(samples.size() >= 8, "samples: " + samples.size());
        double warm = peak(samples, 0.25, 0.5, 1);
        double late = peak(samples, 0.5, 1.0, 1);
        double growthMib = (late - warm) / 1024;
        Files.writeString(r.dir().resolve("findings.txt"), String.format(Locale.ROOT,
                "samples %d, rss peak 25-50%%: %.1f MiB, 50-100%%: %.1f MiB, growth %.1f MiB; young GCs %d, full GCs %d%n",
                samples.size(), warm / 1024, late / 1024, growthMib, gcs.size(), full));
        assertTrue(growthMib <= 8, String.format(Locale.ROOT, "resident memory grew %.1f MiB after warm-up (%.1f -> %.1f MiB)",
                growthMib, warm / 1024, late / 1024));

        // Retained age in the second half of the trace: no trend, no collapse.
        List<double[]> ages = ages(r.dir().resolve("retention.csv")); // trace seconds, retained age
        List<double[]> second = ages.subList(ages.size() / 2, ages.size());
        double[] a = second.stream().mapToDouble(x -> x[1]).sorted().toArray();
        double median = a[a.length / 2];
        double q3 = mean(ages.subList(ages.size() / 2, 3 * ages.size() / 4));
        double q4 = mean(ages.subList(3 * ages.size() / 4, ages.size()));
        Files.writeString(r.dir().resolve("findings.txt"), String.format(Locale.ROOT,
                "retained age, second half: min %.3f s, median %.3f s, max %.3f s; mean third quarter %.3f s, last quarter %.3f s%n",
                a[0], median, a[a.length - 1], q3, q4), java.nio.file.StandardOpenOption.APPEND);
        plots(r, gcs, ages);
        assertTrue(a[0] >= 0.5 * median, "retained age fell to " + a[0] + " s (median " + median + " s)");
        assertTrue(Math.abs(q4 - q3) <= 0.15 * q3, "retained age drifts: " + q3 + " s then " + q4 + " s");
    }

    /** The largest value of column {@code col} among the samples between two fractions of the run. */
    private static double peak(List<double[]> samples, double from, double to, int col) {
        int a = (int) (samples.size() * from);
        int b = Math.max(a + 1, (int) (samples.size() * to));
        return samples.subList(a, b).stream().mapToDouble(x -> x[col]).max().orElseThrow();
    }

    private static double mean(List<double[]> xs) {
        return xs.stream().mapToDouble(x -> x[1]).average().orElseThrow();
    }

    private static List<double[]> ages(Path csv) throws IOException {
        List<double[]> out = new ArrayList<>();
        try (var lines = Files.lines(csv)) {
            lines.skip(1).forEach(l -> {
                String[] f = l.split(",");
                out.add(new double[] {Double.parseDouble(f[3]), Double.parseDouble(f[6]), Double.parseDouble(f[7])});
            });
        }
        return out;
    }

    /** soak-memory.png (resident memory, heap after GC, the budget), and the retention report's two plots. */
    private static void plots(Result r, List<double[]> gcs, List<double[]> ages) throws IOException {
        Soak s = r.soak();
        double traceSeconds = ages.getLast()[0];
        // Samples are taken in wall time; the CSV rows written by then give their trace time.
        XYChart chart = new XYChartBuilder().width(RetentionPlots.WIDTH).height(RetentionPlots.HEIGHT)
                .title(String.format(Locale.ROOT, "Soak: longtrace, %d batches of %d transactions, budget %d MiB, heap %d MiB, container %d MiB",
                        s.batches(), s.txns(), s.budgetBytes() / MIB, s.heapMib(), s.containerBytes() / MIB))
                .xAxisTitle("wall time (s)").yAxisTitle("MiB").build();
        chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setMarkerSize(0);
        double[] t = r.samples().stream().mapToDouble(x -> x[0]).toArray();
        line(chart, "resolver JVM resident memory (VmRSS)", t,
                r.samples().stream().mapToDouble(x -> x[1] / 1024).toArray(), new Color(0x1f77b4), false);
        if (r.samples().stream().anyMatch(x -> x[3] > 0)) {
            line(chart, "container memory (cgroup: both JVMs and page cache)", t,
                    r.samples().stream().mapToDouble(x -> x[3] / MIB).toArray(), new Color(0x7f7f7f), false);
        }
        line(chart, "resolver heap after each collection", gcs.stream().mapToDouble(x -> x[0]).toArray(),
                gcs.stream().mapToDouble(x -> x[1]).toArray(), new Color(0x2ca02c), false);
        line(chart, "memory budget", new double[] {0, t[t.length - 1]},
                new double[] {s.budgetBytes() / (double) MIB, s.budgetBytes() / (double) MIB}, new Color(0xd62728), true);
        try (OutputStream out = Files.newOutputStream(r.dir().resolve("soak-memory.png"))) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
        PlotSeries age = new PlotSeries(4096);
        PlotSeries history = new PlotSeries(4096);
        for (double[] x : ages) {
            age.add(x[0], Math.min(x[0], x[1]));
            history.add(x[0], x[2]);
        }
        List<RetentionPlots.BudgetLines> lines = List.of(new RetentionPlots.BudgetLines(
                (s.budgetBytes() / MIB) + " MiB", s.budgetBytes(), age, history, Double.NaN));
        try (OutputStream out = Files.newOutputStream(r.dir().resolve("retained-age.png"))) {
            RetentionPlots.writeRetainedAge("Soak: retained age under a fixed budget", "tree", lines, null, traceSeconds, out);
        }
        try (OutputStream out = Files.newOutputStream(r.dir().resolve("history-bytes.png"))) {
            RetentionPlots.writeHistoryBytes("Soak: history bytes under a fixed budget", "tree", lines, traceSeconds, out);
        }
    }

    private static void line(XYChart chart, String name, double[] x, double[] y, Color color, boolean dashed) {
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(color);
        s.setLineStyle(dashed ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
