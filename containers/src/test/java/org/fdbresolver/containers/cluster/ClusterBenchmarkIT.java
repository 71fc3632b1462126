package org.fdbresolver.containers.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.containers.cluster.BankWorkload.Result;
import org.fdbresolver.containers.cluster.FdbCluster.Role;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The integrated run: the same bank workload, the same containers and settings, against a stock
 * cluster (the plugin knob unset) and a plugin cluster, alternately, {@code rounds} times. For each:
 * what the clients saw (commits per second, conflict rate, commit and transfer latency p50/p99) and
 * the resolver's own time per batch from FoundationDB's metrics ({@link ResolverTimes}), and the CPU
 * the resolver's process and all processes used (their cgroups' counters; 100 % is one core). Prints a
 * Markdown table and writes it to {@code target/cluster-benchmark.md}.
 *
 * <p>Tagged {@code benchmark} (excluded by default); {@code scripts/fdb-cluster-bench} runs it. Settings:
 * {@code -Dfdbresolver.clusterBench.rounds=2}, {@code .warmupSeconds=20}, {@code .seconds=60},
 * {@code .clients=16}; for a budget that binds (issue 31), {@code .pluginSettings=memory_budget=4m} (added to the
 * plugin's configuration) and {@code .floodClients=4} (writers of 200 new keys a transaction beside the bank, in
 * both clusters). Latency columns: the clients' commit p50/p99/max, the Resolver's ComputeTime p99 and largest
 * bucket, the plugin's own batch latency (its p99 and maximum over the window's intervals), and the SlowTask events
 * FoundationDB logged on the resolver's process (sampled: a count of long pauses, with the longest).
 *
 * <p>Two more settings show what a budget that binds and a lost resolver cost the clients (issue 31, item 4).
 * {@code .slowReaders=N} (with {@code .slowReaderDelayMillis=1000}): clients that read a key of their own no one
 * writes, hold their read version that long, then write another and commit — only a read version older than the
 * resolver's window makes them fail, so their TOO_OLD ({@code transaction_too_old}, 1007) count is what the budget
 * forgot that FoundationDB's 5-second window keeps. {@code .killResolverAtSeconds=S}: S seconds into the measured
 * window the resolver's process is killed (SIGKILL); both clusters then have two resolution processes, so the
 * recovery recruits a new resolver on the other one, and the row's resolver figures are that successor's from the
 * kill on (no CPU columns: the killed container's counters are gone).
 */
@Tag("docker")
@Tag("fdb-cluster")
@Tag("benchmark")
class ClusterBenchmarkIT {
    /** Histogram events every 10 s instead of 300 s, in both clusters, so a one-minute window has some. */
    private static final String HISTOGRAM_KNOB = "--knob_histogram_report_interval=10";

    /** {@code resolverCpu}, {@code clusterCpu}: CPU seconds per second over the measured window. */
    private record Row(String cluster, int round, Result client, ResolverTimes resolver, double resolverCpu, double clusterCpu,
            SlowReaders.Counts slowReaders, String killed, SlowBatches slowBatches) {
    }

    /** The run's extra load and fault: flood writers, slow readers, the resolver's kill (seconds into the window; 0: none). */
    private record Load(int floodClients, int slowReaders, Duration slowReaderDelay, int killResolverAtSeconds) {
    }

    @Test
    void stockAndPluginClustersUnderTheSameWorkload() throws Exception {
        FdbBuild build = FdbBuild.requireOrAbort();
        FdbImage.requireDocker();
        int rounds = Integer.getInteger("fdbresolver.clusterBench.rounds", 2);
        Duration warmup = Duration.ofSeconds(Integer.getInteger("fdbresolver.clusterBench.warmupSeconds", 20));
        Duration measured = Duration.ofSeconds(Integer.getInteger("fdbresolver.clusterBench.seconds", 60));
        BankWorkload.Settings settings = BankWorkload.Settings.standard().withClients(Integer.getInteger("fdbresolver.clusterBench.clients", 16));
        String pluginSettings = System.getProperty("fdbresolver.clusterBench.pluginSettings", "");
        Load load = new Load(Integer.getInteger("fdbresolver.clusterBench.floodClients", 0),
                Integer.getInteger("fdbresolver.clusterBench.slowReaders", 0),
                Duration.ofMillis(Integer.getInteger("fdbresolver.clusterBench.slowReaderDelayMillis", 1000)),
                Integer.getInteger("fdbresolver.clusterBench.killResolverAtSeconds", 0));
        if (load.killResolverAtSeconds() >= measured.toSeconds()) {
            throw new IllegalArgumentException("the resolver's kill must come within the measured " + measured.toSeconds() + " s");
        }
        ClusterSpec stock = ClusterSpec.stock("bench-stock");
        ClusterSpec plugin = pluginSettings.isBlank() ? ClusterSpec.plugin("bench-plugin") : ClusterSpec.plugin("bench-plugin").withSettings(pluginSettings);
        int resolutionProcesses = load.killResolverAtSeconds() > 0 ? 2 : 1;
        if (resolutionProcesses == 2) {
            // A second resolution process for the recovery to recruit the new resolver on.
            stock = stock.withResolvers(1, 2);
            plugin = plugin.withResolvers(1, 2);
        }

        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (ClusterSpec spec : List.of(stock, plugin)) {
                rows.add(run(build, spec.withKnob(HISTOGRAM_KNOB), round, settings, load, warmup, measured));
                System.out.println(table(rows));
            }
        }
        String report = "Bank workload: " + settings.accounts() + " accounts, " + settings.clients() + " clients, warm-up " + warmup.toSeconds()
                + " s, measured " + measured.toSeconds() + " s per run; cluster: stateless, log, storage, " + resolutionProcesses
                + " resolution process" + (resolutionProcesses == 1 ? "" : "es")
                + " (configure new single memory, 1 log, 1 commit proxy, 1 GRV proxy, 1 resolver)" + pinning()
                + (load.floodClients() > 0 ? "; " + load.floodClients() + " flood writers beside the bank" : "")
                + (load.slowReaders() > 0 ? "; " + load.slowReaders() + " slow readers holding their read version "
                        + load.slowReaderDelay().toMillis() + " ms" : "")
                + (load.killResolverAtSeconds() > 0 ? "; the resolver's process killed " + load.killResolverAtSeconds()
                        + " s into the measured window" : "")
                + (pluginSettings.isBlank() ? "" : "; the plugin with " + pluginSettings) + ".\n\n" + table(rows) + slowBatches(rows);
        Path out = Path.of("target", "cluster-benchmark.md");
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("written to " + out.toAbsolutePath());
    }

    private static Row run(FdbBuild build, ClusterSpec spec, int round, BankWorkload.Settings settings, Load load, Duration warmup,
            Duration measured) throws Exception {
        int floodClients = load.floodClients();
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            Role resolver = cluster.roles(cluster.status(), "resolver").getFirst();
            BankWorkload bank = new BankWorkload(cluster.database(), settings);
            bank.load();
            java.util.concurrent.atomic.AtomicBoolean stopFlood = new java.util.concurrent.atomic.AtomicBoolean();
            List<CompletableFuture<Void>> flood = new ArrayList<>();
            for (int w = 0; w < floodClients; w++) {
                int id = w;
                flood.add(CompletableFuture.runAsync(() -> {
                    for (long n = 0; !stopFlood.get(); n += 200) {
                        long base = n;
                        cluster.database().run(tr -> {
                            for (int k = 0; k < 200; k++) {
                                tr.set(("flood/" + id + "/" + (base + k) + "/" + "x".repeat(40)).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        new byte[8]);
                            }
                            return null;
                        });
                    }
                }));
            }
            SlowReaders slow = new SlowReaders(cluster.database(), load.slowReaders(), load.slowReaderDelay());
            slow.start();
            double from = System.currentTimeMillis() / 1000.0 + warmup.toSeconds();
            CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> bank.runFor(warmup, measured));
            // CPU of the resolver's process and of all processes over the measured window.
            Thread.sleep(warmup.toMillis());
            boolean kill = load.killResolverAtSeconds() > 0;
            long[] cpuFrom = kill ? null : cpu(cluster, resolver.container());
            SlowReaders.Counts slowFrom = slow.counts();
            long wallFrom = System.nanoTime();
            String killed = "";
            double resolverFrom = from;
            if (kill) {
                Thread.sleep(load.killResolverAtSeconds() * 1000L);
                resolverFrom = System.currentTimeMillis() / 1000.0;
                cluster.kill(resolver.container());
                killed = "killed at " + load.killResolverAtSeconds() + " s";
                Thread.sleep(measured.toMillis() - load.killResolverAtSeconds() * 1000L);
            } else {
                Thread.sleep(measured.toMillis());
            }
            long[] cpuTo = kill ? null : cpu(cluster, resolver.container());
            SlowReaders.Counts slowCounts = slow.counts().minus(slowFrom);
            double wall = System.nanoTime() - wallFrom;
            Result result = running.get(10, TimeUnit.MINUTES);
            stopFlood.set(true);
            CompletableFuture.allOf(flood.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
            slow.stop();
            double to = from + measured.toSeconds();
            if (kill) {
                Role successor = cluster.roles(cluster.awaitHealthy(Duration.ofMinutes(2), s -> true), "resolver").getFirst();
                killed += ", successor on " + successor.container();
                resolver = successor;
            }
            System.out.println(spec.name() + " round " + round + ": " + result.summary());
            assertNull(result.failure(), () -> "the workload failed: " + result.failure());
            BankWorkload.Audit audit = bank.audit();
            assertEquals(List.of(), audit.violations(), "a benchmark of a wrong cluster means nothing");
            // ResolverMetrics come every 5 s and histograms every 10 s: wait for the ones that close the window.
            Thread.sleep(11_000);
            TraceLog trace = cluster.trace(resolver.container());
            return new Row(spec.usesPlugin() ? "plugin (tree)" : "stock", round, result, ResolverTimes.of(trace, resolverFrom, to),
                    kill ? Double.NaN : (cpuTo[0] - cpuFrom[0]) / wall, kill ? Double.NaN : (cpuTo[1] - cpuFrom[1]) / wall, slowCounts, killed,
                    SlowBatches.of(trace, resolverFrom, to));
        }
    }

    /** How the containers were pinned to CPUs, if they were ({@link FdbCluster#RESOLVER_CPUS}). */
    private static String pinning() {
        String resolver = System.getProperty(FdbCluster.RESOLVER_CPUS, "");
        return resolver.isBlank() ? "; no CPU pinning"
                : "; the resolution process pinned to CPU " + resolver + ", every other process, the clients and Maven to CPU "
                        + System.getProperty(FdbCluster.OTHER_CPUS, "?");
    }

    /** {resolver's container, all containers}: CPU nanoseconds so far. */
    private static long[] cpu(FdbCluster cluster, String resolver) throws Exception {
        long[] nanos = new long[2];
        for (String name : cluster.containerNames()) {
            long n = cluster.cpuNanos(name);
            nanos[1] += n;
            if (name.equals(resolver)) {
                nanos[0] = n;
            }
        }
        return nanos;
    }

    private static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| cluster | round | commits/s | conflict rate | commit p50 ms | commit p99 ms | commit max ms | transfer p50 ms | transfer p99 ms "
                + "| resolver batches/s | txns/batch | ComputeTime mean µs | ComputeTime p50 / p99 / max µs (bucket bound) "
                + "| plugin call µs/batch | engine µs/batch | plugin batch p99 / max µs | TOO_OLD by the budget | SlowTask events (longest s) "
                + "| resolver process CPU | all processes CPU | slow readers: commits / TOO_OLD / other errors | resolver killed |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            Result c = r.client;
            ResolverTimes t = r.resolver;
            sb.append(String.format("| %s | %d | %.0f | %.1f %% | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.1f | %.0f | < %d / < %d / < %d | %s | %s "
                    + "| %s | %s | %d (%.3f) | %s | %s | %s | %s |%n",
                    r.cluster, r.round, c.commitsPerSecond(), 100 * c.conflictRate(), Result.millis(c.commitLatencyMicros(), 50),
                    Result.millis(c.commitLatencyMicros(), 99), c.commitLatencyMicros().getMaxValue() / 1000.0,
                    Result.millis(c.transferLatencyMicros(), 50), Result.millis(c.transferLatencyMicros(), 99),
                    t.batches() / t.seconds(), t.batches() == 0 ? 0.0 : (double) t.transactions() / t.batches(), t.computeMeanMicros(),
                    t.computeP50Micros(), t.computeP99Micros(), t.computeMaxMicros(), micros(t.pluginResolveMicros()), micros(t.pluginEngineMicros()),
                    t.pluginMaxMicros() < 0 ? "–" : t.pluginP99Micros() + " / " + t.pluginMaxMicros(),
                    t.pluginTooOldBudget() < 0 ? "–" : Long.toString(t.pluginTooOldBudget()), t.slowTasks(), t.slowTaskMaxSeconds(),
                    percent(r.resolverCpu), percent(r.clusterCpu), r.slowReaders.isEmpty() ? "–" : r.slowReaders.toString(),
                    r.killed.isEmpty() ? "–" : r.killed));
        }
        return sb.toString();
    }

    /**
     * The plugin's batches slower than its {@code slow_batch_micros} in each plugin run's window (the successor's, when
     * the resolver was killed): how many, where their time went, and the slowest ten.
     */
    private static String slowBatches(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        for (Row r : rows) {
            if (r.slowBatches.counted() < 0 && r.slowBatches.logged().isEmpty()) {
                continue;
            }
            sb.append("\n").append(r.cluster).append(", round ").append(r.round).append(r.killed.isEmpty() ? "" : " (the successor's window)")
                    .append(": slow batches ").append(r.slowBatches.summary()).append("\n");
            if (!r.slowBatches.logged().isEmpty()) {
                sb.append("\n").append(SlowBatches.SLOWEST_HEADER).append(r.slowBatches.slowestRows(10));
            }
        }
        return sb.isEmpty() ? "" : "\nThe plugin's slow batches (ResolverConflictSetPluginSlowBatch; slow_batch_micros in its settings):\n" + sb;
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "–" : String.format("%.0f %%", 100 * v);
    }

    private static String micros(double v) {
        return Double.isNaN(v) ? "–" : String.format("%.0f", v);
    }
}
