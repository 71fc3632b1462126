package org.fdbresolver.containers.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.apple.foundationdb.Database;
import com.apple.foundationdb.Transaction;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fdbresolver.containers.cluster.FdbCluster.Role;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Long transactions in a real cluster (issue 16): the Resolver's write window raised to 90 s
 * ({@code MAX_WRITE_TRANSACTION_LIFE_VERSIONS}; the storage servers' read window stays 5 s), a steady write load, and
 * fdb-java clients whose read-modify-write transactions read at once, think for 10, 30 or 60 s, then write and
 * commit. Two kinds of them: <em>quiet</em> ones read keys nobody else writes, and must commit whenever the
 * Resolver holds their window; <em>contended</em> ones read a key the load is sure to write while they think, and
 * must never commit (a COMMIT there would be a wrong answer). Stock FoundationDB, fdbresolver with a budget that
 * holds the window, and fdbresolver with a budget far too small for it (it must answer the oldest TOO_OLD and
 * commit nothing wrong, within its memory). Each run prints a {@code long-tx-row} line and writes its samples of
 * fdbserver's resident memory and the plugin's history bytes (from the resolution process's trace events) to
 * {@code target/long-transactions/<run>.tsv}; the last run draws them all in {@code long-transactions.png}.
 * About 4 minutes per cluster: tagged {@code soak}, so the default test run leaves it out
 * ({@code -Dit.excludedGroups=benchmark -Dit.test=LongTransactionIT} runs it).
 */
@Tag("docker")
@Tag("fdb-cluster")
@Tag("soak")
class LongTransactionIT {
    static final long WINDOW_SECONDS = 90;
    static final int[] THINK_SECONDS = {10, 30, 60};
    private static final int QUIET_PER_DURATION = 4;
    private static final int CONTENDED_PER_DURATION = 2;
    private static final int HOT_KEYS = 64;
    private static final Path OUT = Path.of("target", "long-transactions").toAbsolutePath();
    private static final Map<String, List<double[]>> SERIES = new ConcurrentHashMap<>();

    private FdbBuild build;

    @BeforeEach
    void requirements() {
        build = FdbBuild.requireOrAbort();
        FdbImage.requireDocker();
    }

    private static ClusterSpec windowed(ClusterSpec spec) {
        return spec.withKnob("--knob_max_write_transaction_life_versions=" + WINDOW_SECONDS * 1_000_000L);
    }

    @Test
    void stockHoldsTheRaisedWindow() throws Exception {
        Outcome o = run(windowed(ClusterSpec.stock("long-tx-stock")), "stock", 0);
        o.assertEveryQuietCommitted();
        o.assertNoContendedCommitted();
    }

    /**
     * The plugin alone (mode=plugin, the operator's fast path) with a 192 MiB budget (64 MiB held 30 s of this load, not 60: measured), and a capture of every batch
     * in the log folder, so that the skip list's bytes for the same traffic can be counted offline
     * (docs/long-transactions.md).
     */
    @Test
    void thePluginHoldsTheRaisedWindowWithinItsBudget() throws Exception {
        ClusterSpec spec = windowed(ClusterSpec.plugin("long-tx-plugin").withSettings("memory_budget=192m;capture=/var/fdb/logs/capture"))
                .withMode("plugin");
        Outcome o = run(spec, "plugin 192m", 192L << 20);
        o.assertEveryQuietCommitted();
        o.assertNoContendedCommitted();
        assertEquals(0, o.metrics.getOrDefault("PluginTooOldBudget", 0L), "the budget held the window: " + o.metrics);
    }

    /**
     * A 1 MiB budget cannot hold 90 s of this load: the plugin answers the oldest transactions TOO_OLD where
     * FoundationDB would check them (counted in ResolverMetrics), commits no contended one, and its history
     * stays inside the budget.
     */
    @Test
    void aBudgetTooSmallForTheWindowAnswersTooOldAndCommitsNothingWrong() throws Exception {
        ClusterSpec spec = windowed(ClusterSpec.plugin("long-tx-small").withSettings("memory_budget=1m")).withMode("plugin");
        Outcome o = run(spec, "plugin 1m", 1L << 20);
        o.assertNoContendedCommitted();
        assertTrue(o.tooOld(60) > 0, "the 60 s transactions were answered too old: " + o.counts);
        assertTrue(o.metrics.getOrDefault("PluginTooOldBudget", 0L) > 0, "ResolverMetrics counts the budget's TOO_OLD: " + o.metrics);
        assertTrue(o.maxHistoryBytes <= 1L << 20, "the history within its budget: " + o.maxHistoryBytes);
    }

    /** What one run's long transactions got, by think time and kind: committed, conflict, too old, other. */
    private record Outcome(String label, Map<String, long[]> counts, Map<String, Long> metrics, long maxHistoryBytes) {
        long count(String kind, int seconds, int outcome) {
            return counts.getOrDefault(kind + " " + seconds + " s", new long[4])[outcome];
        }

        long tooOld(int seconds) {
            return count("quiet", seconds, 2) + count("contended", seconds, 2);
        }

        void assertEveryQuietCommitted() {
            for (int s : THINK_SECONDS) {
                assertEquals(QUIET_PER_DURATION * 2L, count("quiet", s, 0), label + ": every quiet " + s + " s transaction committed: " + show());
            }
        }

        void assertNoContendedCommitted() {
            for (int s : THINK_SECONDS) {
                assertEquals(0, count("contended", s, 0), label + ": no contended " + s + " s transaction committed: " + show());
                assertEquals(CONTENDED_PER_DURATION * 2L, count("contended", s, 1) + count("contended", s, 2),
                        label + ": every contended " + s + " s transaction aborted, by conflict or as too old: " + show());
            }
        }

        String show() {
            StringBuilder b = new StringBuilder();
            counts.forEach((k, v) -> b.append(String.format(Locale.ROOT, "%s: %d committed, %d conflict, %d too old, %d other; ",
                    k, v[0], v[1], v[2], v[3])));
            return b.toString();
        }
    }

    /**
     * Starts the cluster, runs the write load, and two rounds of long transactions (every think time, both kinds,
     * at once), the second starting once the first's longest is done, so that it runs against a full window.
     */
    private Outcome run(ClusterSpec spec, String label, long budget) throws Exception {
        Files.createDirectories(OUT);
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            Role resolver = cluster.roles(cluster.status(), "resolver").getFirst();
            long generation = cluster.status().path("cluster").path("generation").asLong();
            Database db = cluster.database();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            List<CompletableFuture<Void>> load = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int id = w;
                load.add(CompletableFuture.runAsync(() -> writeLoad(db, id, stop, written)));
            }
            Thread.sleep(20_000);
            Map<String, long[]> counts = new LinkedHashMap<>();
            for (int round = 0; round < 2; round++) {
                List<CompletableFuture<Void>> longOnes = new ArrayList<>();
                for (int s : THINK_SECONDS) {
                    for (int i = 0; i < QUIET_PER_DURATION + CONTENDED_PER_DURATION; i++) {
                        boolean contended = i >= QUIET_PER_DURATION;
                        String name = (contended ? "contended " : "quiet ") + s + " s";
                        String key = "long/" + round + "/" + s + "/" + i;
                        int hot = (round * 31 + s + i) % HOT_KEYS;
                        longOnes.add(CompletableFuture.runAsync(() -> {
                            int outcome = longTransaction(db, key, contended ? hot : -1, s);
                            synchronized (counts) {
                                counts.computeIfAbsent(name, k -> new long[4])[outcome]++;
                            }
                        }));
                    }
                }
                CompletableFuture.allOf(longOnes.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            }
            stop.set(true);
            CompletableFuture.allOf(load.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
            double end = System.currentTimeMillis() / 1000.0;
            long recoveries = cluster.status().path("cluster").path("generation").asLong() - generation;

            TraceLog log = cluster.trace(resolver.container());
            Map<String, Long> metrics = new LinkedHashMap<>();
            if (spec.usesPlugin()) {
                TraceLog.Event m = cluster.awaitTrace(resolver.container(), e -> e.type().equals("ResolverMetrics")
                        && e.id().equals(resolver.id()) && e.time() > end, Duration.ofSeconds(60), "ResolverMetrics after the run");
                for (String c : List.of("PluginTooOldBudget", "PluginHistoryBytes", "PluginMemoryBudgetBytes", "PluginRetainedVersion",
                        "PluginActive", "PluginFallbacks", "PluginHeapUsedBytes", "PluginHeapMaxBytes")) {
                    metrics.put(c, m.counter(c));
                }
            }
            List<double[]> samples = samples(log, resolver);
            writeSamples(spec.name(), samples);
            SERIES.put(label, samples);
            plot();
            long maxResident = (long) samples.stream().mapToDouble(x -> x[1]).max().orElse(0);
            long maxHistory = (long) samples.stream().mapToDouble(x -> x[2]).max().orElse(0);
            Outcome o = new Outcome(label, counts, metrics, maxHistory);
            System.out.printf(Locale.ROOT, "long-tx-row | %s | window %d s | %,d keys written | %s| recoveries %d | resident at most %,d |"
                    + " history at most %,d | %s%n", label, WINDOW_SECONDS, written.get(), o.show(), recoveries, maxResident, maxHistory, metrics);
            for (String name : cluster.containerNames()) {
                assertEquals(List.of(), cluster.trace(name).filter(e -> e.severity() >= 40), name + ": no SevError");
            }
            assertEquals(0, recoveries, "no recovery during the run");
            if (spec.usesPlugin()) {
                assertEquals(1L, metrics.get("PluginActive"), "the plugin decided the whole run (no fallback)");
                assertTrue(metrics.get("PluginHistoryBytes") <= budget, "history within the budget: " + metrics);
            }
            assertTrue(maxResident < 2L << 30, "fdbserver within its --memory of 2 GiB: " + maxResident);
            return o;
        }
    }

    /** Keeps writing: new keys (the history grows with them) and every hot key once a second or so. */
    private static void writeLoad(Database db, int id, AtomicBoolean stop, AtomicLong written) {
        long n = 0;
        while (!stop.get()) {
            long base = n;
            db.run(tr -> {
                for (int k = 0; k < 50; k++) {
                    tr.set(("load/" + id + "/" + (base + k) + "/" + "x".repeat(24)).getBytes(StandardCharsets.UTF_8), new byte[8]);
                }
                tr.set(("hot/" + (base / 50 % HOT_KEYS)).getBytes(StandardCharsets.UTF_8), new byte[8]);
                return null;
            });
            n += 50;
            written.addAndGet(51);
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Reads at once (inside the storage servers' 5 s window), thinks, writes, commits: 0 committed, 1 conflict,
     * 2 too old, 3 another error. A contended one reads hot key {@code hot}, which the load writes every few
     * seconds, so its commit must not succeed. No retry: the first answer is the one counted.
     */
    private static int longTransaction(Database db, String key, int hot, int thinkSeconds) {
        try (Transaction tr = db.createTransaction()) {
            byte[] read = (hot >= 0 ? "hot/" + hot : key + "/read").getBytes(StandardCharsets.UTF_8);
            tr.get(read).join();
            Thread.sleep(thinkSeconds * 1000L);
            tr.set(key.getBytes(StandardCharsets.UTF_8), new byte[] {1});
            tr.commit().join();
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 3;
        } catch (RuntimeException e) {
            int code = FdbErrors.code(e);
            return code == FdbErrors.NOT_COMMITTED ? 1 : code == FdbErrors.TRANSACTION_TOO_OLD ? 2 : 3;
        }
    }

    /** Seconds since the run's first sample, fdbserver's resident bytes, the plugin's history bytes (0 for stock). */
    private static List<double[]> samples(TraceLog log, Role resolver) {
        List<double[]> out = new ArrayList<>();
        Map<Long, Double> history = new LinkedHashMap<>();
        for (TraceLog.Event e : log.filter(e -> e.type().equals("ResolverMetrics") && e.id().equals(resolver.id())
                && e.detail("PluginHistoryBytes") != null)) {
            history.put(Math.round(e.time()), (double) e.counter("PluginHistoryBytes"));
        }
        List<TraceLog.Event> processes = log.ofType("ProcessMetrics");
        double t0 = processes.isEmpty() ? 0 : processes.getFirst().time();
        double lastHistory = 0;
        for (TraceLog.Event e : processes) {
            Double h = history.get(Math.round(e.time()));
            for (long d = -2; h == null && d <= 2; d++) {
                h = history.get(Math.round(e.time()) + d);
            }
            lastHistory = h != null ? h : lastHistory;
            out.add(new double[] {e.time() - t0, e.counter("ResidentMemory"), lastHistory});
        }
        return out;
    }

    private static void writeSamples(String name, List<double[]> samples) throws IOException {
        StringBuilder b = new StringBuilder("seconds\tresident_bytes\thistory_bytes\n");
        for (double[] s : samples) {
            b.append(String.format(Locale.ROOT, "%.1f\t%.0f\t%.0f%n", s[0], s[1], s[2]));
        }
        Files.writeString(OUT.resolve(name + ".tsv"), b);
    }

    /** fdbserver's resident memory of every run so far (solid) and the plugin's history bytes (markers only). */
    private static void plot() throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(500).title("Resolver process, " + WINDOW_SECONDS
                + " s write window: resident memory and history").xAxisTitle("seconds").yAxisTitle("MiB").build();
        Color[] colors = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};
        int c = 0;
        for (Map.Entry<String, List<double[]>> e : new java.util.TreeMap<>(SERIES).entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(s -> s[0]).toArray();
            if (x.length == 0) {
                continue;
            }
            XYSeries rss = chart.addSeries(e.getKey() + ": fdbserver resident", x,
                    e.getValue().stream().mapToDouble(s -> s[1] / (1 << 20)).toArray());
            rss.setMarker(SeriesMarkers.NONE);
            rss.setLineColor(colors[c % colors.length]);
            if (!e.getKey().equals("stock")) {
                XYSeries h = chart.addSeries(e.getKey() + ": history", x, e.getValue().stream().mapToDouble(s -> s[2] / (1 << 20)).toArray());
                h.setMarker(SeriesMarkers.CIRCLE);
                h.setMarkerColor(colors[c % colors.length]);
                h.setLineColor(colors[c % colors.length]);
            }
            c++;
        }
        BitmapEncoder.saveBitmap(chart, OUT.resolve("long-transactions.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
