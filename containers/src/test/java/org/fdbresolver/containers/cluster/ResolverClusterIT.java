package org.fdbresolver.containers.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.fdbresolver.containers.cluster.BankWorkload.Audit;
import org.fdbresolver.containers.cluster.BankWorkload.Result;
import org.fdbresolver.containers.cluster.FdbCluster.Role;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FoundationDB clusters of real fdbserver processes, one per container on a private network, whose
 * Resolver decides with fdbresolver's engine inside fdbserver; a bank workload from many concurrent
 * fdb-java clients, audited afterwards ({@link BankWorkload}).
 *
 * <p>Needs the FoundationDB build ({@code scripts/build-fdb}) and Docker; without the build every test
 * aborts with the reason ({@link FdbBuild}). Each test starts its own cluster (about a minute).
 */
@Tag("docker")
@Tag("fdb-cluster")
class ResolverClusterIT {
    private static final Duration WORKLOAD_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration METRICS_WAIT = Duration.ofSeconds(30);
    /**
     * ResolverMetrics come every 5 s; an event stamped just after the workload's end (by the test's clock)
     * was seen to hold the counters of a second before it (the proxy's too). Two intervals later they are
     * final.
     */
    private static final double SETTLE_SECONDS = 10;
    private static final String PLUGIN_OPENED = "ResolverConflictSetPluginOpened";
    private static final String RESOLVER_METRICS = "ResolverMetrics";
    /** jni-bridge's test engine that commits every transaction and keeps no history: wrong on purpose. */
    private static final String COMMITS_EVERYTHING = "test-commit-all";

    private FdbBuild build;

    @BeforeEach
    void requirements() {
        build = FdbBuild.requireOrAbort();
        FdbImage.requireDocker();
    }

    @Test
    void ourEngineResolvesTheBankWorkloadWithoutLosingAnUpdate() throws Exception {
        // slow_batch_micros=1: every batch is slower than that, so the slow-batch figures and events are checked below.
        try (FdbCluster cluster = FdbCluster.start(build, ClusterSpec.plugin("one-resolver").withSettings("slow_batch_micros=1"))) {
            JsonNode status = cluster.status();
            System.out.println("roles: " + roleMap(cluster, status));
            Role resolver = single(cluster.roles(status, "resolver"));
            assertEquals(FdbCluster.resolution(1), resolver.container(), "the resolver is recruited on the resolution process: " + roleMap(cluster, status));
            assertPluginOpened(cluster, resolver, 0);

            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            Result result = bank.runTransfers(200, WORKLOAD_TIMEOUT);
            double end = nowSeconds();
            assertWorkloadClean(bank, result, 16 * 200);

            // Every conflict and every commit the clients saw was decided by the engine: the resolver's own counters
            // agree. Both awaited: the first ResolverMetrics event after the workload once held every conflict but 3,150
            // of the 3,200 commits (a loaded machine; the test stopped the cluster before the next event).
            TraceLog.Event metrics = cluster.awaitTrace(resolver.container(),
                    e -> isMetricsOf(e, resolver) && e.time() > end && e.counter("TransactionsConflicted") >= result.conflicts()
                            && e.counter("TransactionsAccepted") >= result.transfers(),
                    METRICS_WAIT, "ResolverMetrics after the workload with TransactionsConflicted >= " + result.conflicts()
                            + " and TransactionsAccepted >= " + result.transfers());
            System.out.println("resolver metrics: PluginBatches " + metrics.counter("PluginBatches") + ", TransactionsConflicted "
                    + metrics.counter("TransactionsConflicted") + ", TransactionsAccepted " + metrics.counter("TransactionsAccepted")
                    + ", PluginHistoryBytes " + metrics.counter("PluginHistoryBytes") + ", PluginResolveNanos " + metrics.counter("PluginResolveNanos"));
            assertTrue(metrics.counter("PluginBatches") >= metrics.counter("ResolveBatchStart") && metrics.counter("PluginBatches") > 0,
                    "the plugin resolved the Resolver's batches: " + metrics);
            assertTrue(metrics.counter("TransactionsAccepted") >= result.transfers(), metrics.toString());
            assertSlowBatchesLoggedAsTheyWere(cluster.trace(resolver.container()), resolver, metrics);
            assertClusterHealthy(cluster);
        }
    }

    /**
     * With {@code slow_batch_micros=1} every plugin batch is slow: all counted ({@code PluginSlowBatches} equals
     * {@code PluginBatches}), at most ten of each metrics interval logged, and each logged one's figures consistent:
     * the engine's time within the batch's wall time, its phases within the engine's time, the thread's CPU time
     * within the wall time (read a moment later: 100 µs of slack), batch numbers rising.
     */
    private static void assertSlowBatchesLoggedAsTheyWere(TraceLog trace, Role resolver, TraceLog.Event metrics) {
        assertEquals(metrics.counter("PluginBatches"), metrics.counter("PluginSlowBatches"), "every batch is slower than 1 µs: " + metrics);
        int inInterval = 0;
        int logged = 0;
        long lastBatch = 0;
        for (TraceLog.Event e : trace.filter(e -> e.id().equals(resolver.id()) && e.time() <= metrics.time()
                && (isMetricsOf(e, resolver) || e.type().equals("ResolverConflictSetPluginSlowBatch")))) {
            if (isMetricsOf(e, resolver)) {
                inInterval = 0;
                continue;
            }
            logged++;
            assertTrue(++inInterval <= 10, "at most ten slow batches logged per metrics interval: " + e);
            long micros = e.counter("Micros");
            long engine = e.counter("EngineMicros");
            long phases = 0;
            for (String phase : SlowBatches.PHASES) {
                phases += e.counter(phase);
            }
            assertTrue(micros >= 1 && engine >= 0 && engine <= micros && phases <= engine, "engine and phases within the batch: " + e);
            assertTrue(e.counter("CpuMicros") >= 0 && e.counter("CpuMicros") <= micros + 100, "CPU time within the wall time: " + e);
            assertTrue(e.counter("Transactions") >= 0 && e.number("SecondsSinceOpen") >= 0, e.toString());
            assertTrue(e.counter("Batch") > lastBatch, "batch numbers rise: " + e);
            lastBatch = e.counter("Batch");
        }
        assertTrue(logged > 0 && logged < metrics.counter("PluginBatches"),
                "some slow batches logged, not every one: " + logged + " of " + metrics.counter("PluginBatches"));
    }

    /**
     * Two resolvers, the key space split between them, each running our engine with FoundationDB's skip
     * list deciding every batch beside it: any batch where the two differ is a SevError, which
     * {@link #assertClusterHealthy} rejects. The same shape runs stock too
     * ({@link #stockFoundationDbWithTwoResolvers}).
     */
    @Test
    void twoResolversSplitTheKeySpaceAndBothRunOurEngine() throws Exception {
        ClusterSpec spec = twoResolvers(ClusterSpec.plugin("two-resolvers").guarded());
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            List<Role> resolvers = twoResolversRecruited(cluster);
            for (Role resolver : resolvers) {
                assertPluginOpened(cluster, resolver, 0);
            }
            Run run = runOnTwoResolvers(cluster);
            double end = run.end();
            long conflictedByResolvers = 0;
            for (Role resolver : resolvers) {
                String host = resolver.container();
                // Each resolver receives only the conflict ranges in its part of the key space: both got
                // some, both found conflicts, and the skip list checked every batch they decided.
                TraceLog.Event m = cluster.awaitTrace(host, e -> isMetricsOf(e, resolver) && e.time() > end + SETTLE_SECONDS
                        && e.counter("PluginBatches") > 0 && e.counter("PluginVerifiedBatches") == e.counter("PluginBatches")
                        && e.counter("ResolvedReadConflictRanges") > 0, METRICS_WAIT,
                        "ResolverMetrics of " + resolver.id() + " after the workload with PluginBatches > 0, all of them verified,"
                                + " and ResolvedReadConflictRanges > 0");
                System.out.println(host + ": " + resolverCounters(m) + ", PluginBatches " + m.counter("PluginBatches")
                        + ", PluginVerifiedBatches " + m.counter("PluginVerifiedBatches"));
                assertTrue(m.counter("TransactionsConflicted") > 0, host + " found conflicts: " + m);
                conflictedByResolvers += m.counter("TransactionsConflicted");
            }
            assertConflictsFoundByResolvers(run, conflictedByResolvers);
            assertClusterHealthy(cluster);
        }
    }

    /** The two-resolver shape with stock FoundationDB: the same workload and audit, no plugin anywhere. */
    @Test
    void stockFoundationDbWithTwoResolvers() throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, twoResolvers(ClusterSpec.stock("stock-two-resolvers")))) {
            List<Role> resolvers = twoResolversRecruited(cluster);
            Run run = runOnTwoResolvers(cluster);
            double end = run.end();
            long conflictedByResolvers = 0;
            for (Role resolver : resolvers) {
                TraceLog.Event m = cluster.awaitTrace(resolver.container(), e -> isMetricsOf(e, resolver) && e.time() > end + SETTLE_SECONDS
                        && e.counter("ResolvedReadConflictRanges") > 0, METRICS_WAIT, "ResolverMetrics of " + resolver.id());
                System.out.println(resolver.container() + ": " + resolverCounters(m));
                conflictedByResolvers += m.counter("TransactionsConflicted");
            }
            assertConflictsFoundByResolvers(run, conflictedByResolvers);
            for (String name : cluster.containerNames()) {
                assertEquals(List.of(), cluster.trace(name).ofType(PLUGIN_OPENED), name + ": the knob unset, no plugin opens");
            }
            assertClusterHealthy(cluster);
        }
    }

    /**
     * The sequencer moves key ranges between resolvers when their load differs by more than
     * MIN_BALANCE_DIFFERENCE (default 1e6, far above this small workload): 1e4, as simulation's fast
     * balancing uses.
     */
    private static ClusterSpec twoResolvers(ClusterSpec spec) {
        return spec.withResolvers(2, 2).withKnob("--knob_min_balance_difference=10000");
    }

    private static List<Role> twoResolversRecruited(FdbCluster cluster) throws Exception {
        JsonNode status = cluster.status();
        System.out.println("roles: " + roleMap(cluster, status));
        List<Role> resolvers = cluster.roles(status, "resolver");
        Set<String> hosts = resolvers.stream().map(Role::container).collect(Collectors.toSet());
        assertEquals(Set.of(FdbCluster.resolution(1), FdbCluster.resolution(2)), hosts,
                "one resolver on each resolution process: " + roleMap(cluster, status));
        return resolvers;
    }

    /** The workload's result and when it ended (seconds since the epoch). */
    private record Run(Result result, double end) {
    }

    /** The bank workload, audited; the sequencer must have split the key space. */
    private static Run runOnTwoResolvers(FdbCluster cluster) throws Exception {
        BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
        bank.load();
        Result result = bank.runTransfers(300, WORKLOAD_TIMEOUT);
        double end = nowSeconds();
        assertWorkloadClean(bank, result, 16 * 300);
        List<TraceLog.Event> moves = cluster.trace(FdbCluster.STATELESS).ofType("MovingResolutionRange");
        System.out.println("resolution ranges moved: " + moves.size() + (moves.isEmpty() ? "" : ", first " + moves.getFirst()));
        assertFalse(moves.isEmpty(), "the sequencer split the key space between the resolvers (MovingResolutionRange)");
        return new Run(result, end);
    }

    /**
     * Every not_committed a client saw was some resolver's CONFLICT (the proxy commits a transaction only
     * when every resolver it went to did; one conflicting at both counts twice here).
     */
    private static void assertConflictsFoundByResolvers(Run run, long conflictedByResolvers) {
        assertTrue(conflictedByResolvers >= run.result().conflicts(),
                "the clients' conflicts were found by the resolvers: " + conflictedByResolvers + " < " + run.result().conflicts());
    }

    private static String resolverCounters(TraceLog.Event m) {
        return "ResolvedReadConflictRanges " + m.counter("ResolvedReadConflictRanges") + ", ResolvedWriteConflictRanges "
                + m.counter("ResolvedWriteConflictRanges") + ", TransactionsAccepted " + m.counter("TransactionsAccepted")
                + ", TransactionsConflicted " + m.counter("TransactionsConflicted") + ", TransactionsTooOld " + m.counter("TransactionsTooOld");
    }

    @Test
    void killingTheResolverMidWorkloadRecruitsANewOneAndLosesNothing() throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, ClusterSpec.plugin("kill-resolver").withResolvers(1, 2))) {
            JsonNode before = cluster.status();
            System.out.println("roles: " + roleMap(cluster, before));
            Role victim = single(cluster.roles(before, "resolver"));
            assertTrue(victim.container().startsWith("resolution-"), "the resolver is on a resolution process: " + roleMap(cluster, before));
            assertPluginOpened(cluster, victim, 0);
            long generation = before.path("cluster").path("generation").asLong();

            int perClient = 500;
            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> bank.runTransfers(perClient, WORKLOAD_TIMEOUT));
            long total = 16L * perClient;
            bank.awaitTransfers(running, total / 4, WORKLOAD_TIMEOUT);
            double killedAt = nowSeconds();
            long doneAtKill = bank.transfersDone();
            cluster.kill(victim.container());
            System.out.println("killed " + victim.container() + " (resolver " + victim.id() + ") after " + doneAtKill + " of " + total + " transfers");

            Result result = running.get(WORKLOAD_TIMEOUT.toMinutes() + 1, TimeUnit.MINUTES);
            double end = nowSeconds();
            assertTrue(doneAtKill < total, "the kill came before the workload ended");
            assertWorkloadClean(bank, result, total);

            JsonNode after = cluster.awaitHealthy(Duration.ofMinutes(2), s -> true);
            Role successor = single(cluster.roles(after, "resolver"));
            System.out.println("new resolver " + successor.id() + " on " + successor.container() + "; generation " + generation + " -> "
                    + after.path("cluster").path("generation").asLong() + "; " + roleMap(cluster, after));
            assertNotEquals(victim.container(), successor.container(), "a new resolver was recruited elsewhere");
            assertTrue(successor.container().startsWith("resolution-"), "on the other resolution process: " + roleMap(cluster, after));
            assertTrue(after.path("cluster").path("generation").asLong() > generation, "the cluster went through a recovery");
            assertPluginOpened(cluster, successor, killedAt);
            TraceLog.Event m = cluster.awaitTrace(successor.container(),
                    e -> isMetricsOf(e, successor) && e.time() > end && e.counter("PluginBatches") > 0, METRICS_WAIT,
                    "ResolverMetrics with PluginBatches > 0 from the new resolver");
            System.out.println(successor.container() + ": PluginBatches " + m.counter("PluginBatches") + ", TransactionsConflicted "
                    + m.counter("TransactionsConflicted"));
            assertClusterHealthy(cluster);
        }
    }

    @Test
    void stoppingTheResolversContainerEndsItsJvmWithoutACrashDump() throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, ClusterSpec.plugin("stop-resolver").withResolvers(1, 2))) {
            Role resolver = single(cluster.roles(cluster.status(), "resolver"));
            assertPluginOpened(cluster, resolver, 0);
            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            assertWorkloadClean(bank, bank.runTransfers(50, WORKLOAD_TIMEOUT), 16 * 50);

            Duration grace = Duration.ofSeconds(30);
            long started = System.nanoTime();
            long exitCode = cluster.stop(resolver.container(), grace);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            System.out.println("docker stop " + resolver.container() + ": exit code " + exitCode + " after " + took.toMillis() + " ms");
            // tini reports a child ended by SIGTERM as 128 + 15; 137 would be the SIGKILL after the grace period,
            // 134 an abort, 139 a SIGSEGV.
            assertEquals(143, exitCode, "fdbserver ended by the SIGTERM of docker stop");
            assertTrue(took.compareTo(grace) < 0, "ended before the grace period ran out: " + took);
            assertEquals(List.of(), cluster.filesInContainer(resolver.container(), "/tmp", "hs_err"), "no JVM crash dump in /tmp");
            assertEquals(List.of(), cluster.filesInContainer(resolver.container(), "/var/fdb/data", "hs_err"), "no JVM crash dump in the data folder");
            assertEquals(List.of(), cluster.trace(resolver.container()).filter(e -> e.type().equals("Crash") || e.severity() >= 40),
                    "no crash or error event in the stopped process's trace");

            // The cluster carries on with a resolver on the other resolution process.
            JsonNode after = cluster.awaitHealthy(Duration.ofMinutes(2),
                    s -> !resolver.container().equals(single(cluster.roles(s, "resolver")).container()));
            Role successor = single(cluster.roles(after, "resolver"));
            assertTrue(successor.container().startsWith("resolution-"), roleMap(cluster, after));
            assertPluginOpened(cluster, successor, 0);
            assertWorkloadClean(bank, bank.runTransfers(50, WORKLOAD_TIMEOUT), 16 * 50 * 2);
            assertClusterHealthy(cluster);
        }
    }

    /**
     * FoundationDB ends a process cleanly on SIGUSR2 (its crash handler logs ProcessTerminated, flushes the trace
     * and exits by the signal). HotSpot suspends threads with SIGUSR2 unless told otherwise; the bridge moves it
     * to signal 60, so with the plugin's JVM inside, SIGUSR2 still ends fdbserver as stock (issue 15).
     */
    @Test
    void sigusr2StillEndsFdbserverCleanlyWithTheJvmInside() throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, ClusterSpec.plugin("sigusr2").withResolvers(1, 2))) {
            Role resolver = single(cluster.roles(cluster.status(), "resolver"));
            assertPluginOpened(cluster, resolver, 0);
            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            assertWorkloadClean(bank, bank.runTransfers(20, WORKLOAD_TIMEOUT), 16 * 20);
            long exitCode = cluster.signal(resolver.container(), "USR2", Duration.ofSeconds(30));
            System.out.println("SIGUSR2 to " + resolver.container() + ": exit code " + exitCode);
            // tini reports a child ended by SIGUSR2 as 128 + 12.
            assertEquals(140, exitCode, "fdbserver ended by SIGUSR2, as stock");
            TraceLog.Event terminated = onlyEvent(cluster.trace(resolver.container()).ofType("ProcessTerminated"));
            assertEquals("12", terminated.detail("Signal"), terminated.toString());
            assertEquals(List.of(), cluster.jvmCrashDumps(), "no JVM crash dump");
        }
    }

    private static TraceLog.Event onlyEvent(List<TraceLog.Event> events) {
        assertEquals(1, events.size(), "one event: " + events);
        return events.getFirst();
    }

    @Test
    void aResolverThatCommitsEverythingFailsTheAudit() throws Exception {
        // The bridge's own test engine (jni-bridge's test classes, which fdb-sim's cycle-broken uses too).
        Path classes = build.repoRoot().resolve("jni-bridge/target/test-classes");
        assertTrue(Files.isDirectory(classes.resolve("org/fdbresolver/bridge/testengine")),
                "the bridge's test classes are built (" + classes + "): build jni-bridge's tests first");
        // The metadata guard off: it would catch the engine's first wrong COMMIT on a system key (at the cluster's
        // start) and hand over to the skip list; this test is about the audit catching what gets through.
        ClusterSpec spec = ClusterSpec.plugin("commits-everything").withTestEngine(COMMITS_EVERYTHING, classes)
                .withSettings("metadata_guard=0");
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            Role resolver = single(cluster.roles(cluster.status(), "resolver"));
            TraceLog.Event opened = assertPluginOpened(cluster, resolver, 0);
            assertTrue(opened.detail("Config").contains("engine=" + COMMITS_EVERYTHING), opened.toString());

            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            Result result = bank.runTransfers(100, WORKLOAD_TIMEOUT);
            System.out.println("commits-everything: " + result.summary());
            assertNull(result.failure(), "the workload ran: " + result.failure());
            assertEquals(0, result.conflicts(), "a resolver that commits everything reports no conflict");
            Audit audit = bank.audit();
            System.out.println("commits-everything audit: " + audit);
            assertFalse(audit.violations().isEmpty(), "the audit must catch the lost updates of a resolver that ignores conflicts");
        }
    }

    @Test
    void stockFoundationDbPassesTheSameAudit() throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, ClusterSpec.stock("stock"))) {
            Role resolver = single(cluster.roles(cluster.status(), "resolver"));
            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            assertWorkloadClean(bank, bank.runTransfers(200, WORKLOAD_TIMEOUT), 16 * 200);
            for (String name : cluster.containerNames()) {
                assertEquals(List.of(), cluster.trace(name).ofType(PLUGIN_OPENED), name + ": the knob unset, no plugin opens");
            }
            assertTrue(resolver.container().startsWith("resolution-"));
            assertClusterHealthy(cluster);
        }
    }

    // ---- shared checks ------------------------------------------------------------------------------

    /** The workload finished, saw conflicts, and the audit found the database as the clients left it. */
    private static void assertWorkloadClean(BankWorkload bank, Result result, long expectedRecords) {
        System.out.println("workload: " + result.summary());
        assertNull(result.failure(), () -> "the workload failed: " + result.failure());
        assertEquals(List.of(), result.violations(), "nothing committed twice");
        assertTrue(result.conflicts() > 0, "the workload had contention (not_committed retries): " + result.summary());
        Audit audit = bank.audit();
        System.out.println("audit: " + audit);
        assertEquals(List.of(), audit.violations(), "the bank's invariants");
        assertEquals(audit.expectedSum(), audit.sum());
        assertEquals(expectedRecords, audit.transferRecords(), "one record per completed transfer");
        assertEquals(expectedRecords, audit.transfersCounted());
    }

    /** The resolver opened the plugin (after {@code after}, seconds since the epoch): its trace ID is the role's ID. */
    private static TraceLog.Event assertPluginOpened(FdbCluster cluster, Role resolver, double after) throws InterruptedException {
        TraceLog.Event opened = cluster.awaitTrace(resolver.container(),
                e -> e.type().equals(PLUGIN_OPENED) && e.id().equals(resolver.id()) && e.time() > after, METRICS_WAIT,
                PLUGIN_OPENED + " of resolver " + resolver.id());
        assertEquals(ClusterSpec.PLUGIN_LIBRARY, opened.detail("Library"), opened.toString());
        return opened;
    }

    /**
     * A ResolverMetrics event of this resolver. The first one comes when the Resolver starts, all zero, and
     * under load later than that: the counters are totals, so the tests wait for values, not for a time.
     */
    private static boolean isMetricsOf(TraceLog.Event e, Role resolver) {
        return e.type().equals(RESOLVER_METRICS) && e.id().equals(resolver.id());
    }

    /**
     * No process logged an error (SevError, 40: a plugin failure is one, so is fdbserver's crash handler's
     * "Crash"), and no JVM left a crash dump.
     */
    private static void assertClusterHealthy(FdbCluster cluster) {
        for (String name : cluster.containerNames()) {
            assertEquals(List.of(), cluster.trace(name).filter(e -> e.severity() >= 40), name + ": no SevError event");
        }
        assertEquals(List.of(), cluster.jvmCrashDumps(), "no JVM crash dump");
    }


    private static Role single(List<Role> roles) {
        assertEquals(1, roles.size(), "one resolver: " + roles);
        return roles.getFirst();
    }

    /** Container → roles, for messages. */
    private static String roleMap(FdbCluster cluster, JsonNode status) {
        StringBuilder sb = new StringBuilder();
        status.path("cluster").path("processes").elements().forEachRemaining(p -> {
            sb.append(cluster.containerAt(p.path("address").asText())).append('[').append(p.path("class_type").asText()).append("]=");
            p.path("roles").forEach(r -> sb.append(r.path("role").asText()).append(','));
            sb.append(' ');
        });
        return sb.toString().trim();
    }

    private static double nowSeconds() {
        return System.currentTimeMillis() / 1000.0;
    }
}
