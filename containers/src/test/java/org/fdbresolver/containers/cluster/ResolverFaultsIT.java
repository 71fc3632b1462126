package org.fdbresolver.containers.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.apple.foundationdb.Database;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fdbresolver.containers.cluster.BankWorkload.Audit;
import org.fdbresolver.containers.cluster.BankWorkload.Result;
import org.fdbresolver.containers.cluster.FdbCluster.Role;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults of the plugin inside a real cluster under the fdb-java bank workload (issue 15): a batch that throws,
 * a real out-of-memory error, malformed output (each in mode=plugin), a wrong COMMIT in mode=guarded, a library
 * that is not there; and a write flood against a small budget. Each must end in the Resolver hook's fallback to
 * its skip list (or the skip list from the start) with no recovery, the bank's invariants intact, no wrong
 * COMMIT, and, for the budget, TOO_OLD answers visible in ResolverMetrics and trace events, never an
 * out-of-memory error. The fault is triggered mid-workload by writing a marker key that the test engine
 * ({@code test-faulty}, jni-bridge's test classes) watches for. Each test prints a {@code fault-row} line: what
 * the cluster did (recoveries, the longest stall of the clients' transfers around the fault, the transactions
 * aborted by kind) and whether the invariant held; docs/fdb-integration.md's fault table is made of them.
 */
@Tag("docker")
@Tag("fdb-cluster")
class ResolverFaultsIT {
    private static final Duration WORKLOAD_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration EVENT_WAIT = Duration.ofSeconds(60);
    private static final String TRIGGER = "fault!";

    private FdbBuild build;
    private Path testClasses;

    @BeforeEach
    void requirements() {
        build = FdbBuild.requireOrAbort();
        FdbImage.requireDocker();
        testClasses = build.repoRoot().resolve("jni-bridge/target/test-classes");
        assertTrue(Files.isDirectory(testClasses.resolve("org/fdbresolver/bridge/testengine")),
                "the bridge's test classes are built (" + testClasses + "): build jni-bridge's tests first");
    }

    private ClusterSpec faulty(String name, String mode, String fault) {
        return ClusterSpec.plugin(name).withTestEngine("test-faulty", testClasses).withMode(mode)
                .withSettings("engine_option=fault=" + fault + ";engine_option=trigger=" + TRIGGER);
    }

    @Test
    void aBatchThatThrowsHandsOverToTheSkipList() throws Exception {
        runFault(faulty("fault-throw", "plugin", "throw"), "plugin", "throw", true);
    }

    @Test
    void anOutOfMemoryErrorHandsOverToTheSkipList() throws Exception {
        runFault(faulty("fault-oom", "plugin", "oom"), "plugin", "oom", true);
    }

    @Test
    void malformedOutputIsCaughtBeforeItIsSent() throws Exception {
        runFault(faulty("fault-malformed", "plugin", "malformed"), "plugin", "malformed", true);
    }

    @Test
    void aWrongCommitInGuardedModeIsNeverSent() throws Exception {
        runFault(faulty("fault-wrong-commit", "guarded", "wrong-commit"), "guarded", "wrong-commit", true);
    }

    /**
     * Plugin mode's metadata guard: the engine answers COMMIT for a transaction that conflicts on a system key (it
     * read one written after its read version); the skip list, which holds the system keys' history beside the
     * plugin, finds the conflict, and the COMMIT is never sent (the client sees the skip list's answer after the
     * fallback: too old, as its history starts at that batch, or not committed).
     */
    @Test
    void aWrongCommitOnTheSystemKeysInPluginModeIsNeverSent() throws Exception {
        runFault(faulty("fault-wrong-commit-metadata", "plugin", "wrong-commit-system"), "plugin", "wrong-commit-system", true);
    }

    @Test
    void aMissingLibraryLeavesTheSkipListDeciding() throws Exception {
        ClusterSpec spec = ClusterSpec.plugin("fault-missing-library").withLibrary("/opt/fdbresolver/native/no-such-library.so");
        runFault(spec, "plugin", "missing-library", false);
    }

    /**
     * Runs the bank workload, writes the trigger key a quarter of the way through (for a fault the engine
     * injects), and checks what the hook and the cluster did.
     */
    private void runFault(ClusterSpec spec, String mode, String fault, boolean triggered) throws Exception {
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            JsonNode before = cluster.status();
            Role resolver = single(cluster.roles(before, "resolver"));
            long generation = before.path("cluster").path("generation").asLong();
            if (!triggered) {
                TraceLog.Event failed = cluster.awaitTrace(resolver.container(),
                        e -> e.type().equals("ResolverConflictSetPluginOpenFailed") && e.id().equals(resolver.id()), EVENT_WAIT,
                        "ResolverConflictSetPluginOpenFailed of resolver " + resolver.id());
                System.out.println(fault + ": " + failed);
                assertEquals("SkipList", failed.detail("Decides"));
            } else {
                TraceLog.Event opened = cluster.awaitTrace(resolver.container(), e -> e.type().equals("ResolverConflictSetPluginOpened")
                        && e.id().equals(resolver.id()), EVENT_WAIT, "the plugin opened");
                // The JVM started with fdbserver (the knob set), before any recruitment: the Resolver's open found it.
                TraceLog.Event prestarted = cluster.awaitTrace(resolver.container(),
                        e -> e.type().equals("ResolverConflictSetPluginPrestarted"), EVENT_WAIT, "the plugin's JVM started with fdbserver");
                assertTrue(prestarted.time() <= opened.time(), () -> "started before the Resolver opened: " + prestarted + ", " + opened);
                System.out.printf(Locale.ROOT, "%s: the JVM started with fdbserver in %s s; the Resolver's open then took %s s%n",
                        fault, prestarted.detail("Seconds"), opened.detail("OpenSeconds"));
            }
            BankWorkload bank = new BankWorkload(cluster.database(), BankWorkload.Settings.standard());
            bank.load();
            int perClient = 400;
            Progress progress = new Progress(bank);
            CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> bank.runTransfers(perClient, WORKLOAD_TIMEOUT));
            bank.awaitTransfers(running, 16L * perClient / 4, WORKLOAD_TIMEOUT);
            double faultAt = nowSeconds();
            if (triggered) {
                writeTrigger(cluster.database(), fault);
            }
            Result result = running.get(WORKLOAD_TIMEOUT.toMinutes() + 1, TimeUnit.MINUTES);
            progress.stop();
            System.out.println(fault + " workload: " + result.summary());
            assertNull(result.failure(), () -> "the workload failed: " + result.failure());
            assertEquals(List.of(), result.violations(), "nothing committed twice");
            Audit audit = bank.audit();
            System.out.println(fault + " audit: " + audit);
            boolean invariantHeld = audit.violations().isEmpty() && audit.sum() == audit.expectedSum()
                    && audit.transferRecords() == 16L * perClient;

            JsonNode after = cluster.status();
            long recoveries = after.path("cluster").path("generation").asLong() - generation;
            TraceLog log = cluster.trace(resolver.container());
            List<TraceLog.Event> fallbacks = log.ofType("ResolverConflictSetPluginFallback");
            List<TraceLog.Event> errors = new ArrayList<>();
            for (String name : cluster.containerNames()) {
                errors.addAll(cluster.trace(name).filter(e -> e.severity() >= 40));
            }
            // Counters from an interval that ended after the workload, so after any fallback it caused (ResolverMetrics
            // is logged every 5 s, its first one when the role starts): an earlier event may not count the fallback yet.
            // An event of no interval (Elapsed 0, every counter 0, seen right after a fallback) counts nothing.
            double workloadEnd = nowSeconds();
            TraceLog.Event metrics = cluster.awaitTrace(resolver.container(), e -> e.type().equals("ResolverMetrics")
                    && e.id().equals(resolver.id()) && e.time() > workloadEnd && e.number("Elapsed") > 0,
                    EVENT_WAIT, "ResolverMetrics after the workload");
            long tooOld = result.errors().getOrDefault(FdbErrors.TRANSACTION_TOO_OLD, 0L);
            double stall = progress.longestStallAround(faultAt);
            System.out.printf(Locale.ROOT, "fault-row | %s | cluster (bank, 16 clients) | mode=%s | fallbacks %d: %s | recoveries %d"
                    + " | longest stall of transfers around the fault %.2f s | aborted: %d too old, %d conflicts, retries %s"
                    + " | PluginTooOldAfterFallback %d | SevError %s | invariant %s%n",
                    fault, mode, fallbacks.size(), fallbacks.isEmpty() ? "-" : fallbacks.getFirst().detail("Reason"), recoveries,
                    stall, tooOld, result.conflicts(), result.errors(), metrics.counter("PluginTooOldAfterFallback"),
                    errors.stream().map(TraceLog.Event::type).distinct().toList(), invariantHeld ? "held" : "BROKEN");

            assertTrue(invariantHeld, "the bank's invariants held: " + audit);
            assertEquals(0, recoveries, "no recovery: the hook fell back instead of failing the role");
            assertEquals(0, metrics.counter("PluginActive"), () -> "the plugin is off after the fault: " + metrics);
            if (triggered) {
                assertEquals(1, fallbacks.size(), "one fallback: " + fallbacks);
                assertEquals(1, metrics.counter("PluginFallbacks"), () -> "PluginFallbacks in " + metrics + ", after " + fallbacks);
            }
            if (fault.equals("wrong-commit")) {
                // The one SevError of guarded mode: the difference, logged once; the skip list's answer was sent.
                assertEquals(List.of("ResolverConflictSetPluginDiffers"), errors.stream().map(TraceLog.Event::type).toList(), "" + errors);
                assertEquals("SkipList", errors.getFirst().detail("Sent"));
            } else if (fault.equals("wrong-commit-system")) {
                // The metadata guard's one SevError: the skip list found the system keys conflicting; its answer was sent.
                assertEquals(List.of("ResolverConflictSetPluginMetadataDiffers"), errors.stream().map(TraceLog.Event::type).toList(),
                        "" + errors);
                assertEquals("CONFLICT", errors.getFirst().detail("SkipList"));
                assertTrue(metrics.counter("PluginMetadataBatches") > 0, () -> "the guard checked batches: " + metrics);
            } else {
                assertEquals(List.of(), errors, "no SevError anywhere");
            }
            assertEquals(List.of(), cluster.jvmCrashDumps(), "no JVM crash dump");
        }
    }

    /**
     * A write flood against a 4 MiB budget, with the documented JVM settings (no -Xmx: the bridge sizes the heap),
     * and readers that take two to three seconds between their read and their commit: the budget cannot hold the
     * window they need, so the plugin answers some of them TOO_OLD where FoundationDB would check them. That shows
     * in ResolverMetrics (PluginTooOldBudget, PluginRetainedVersion above the oldest version) and in trace events;
     * the heap and fdbserver's resident memory stay bounded and nothing runs out of memory.
     */
    @Test
    void aWriteFloodAgainstASmallBudgetAnswersTooOldAndStaysInItsMemory() throws Exception {
        ClusterSpec spec = ClusterSpec.plugin("write-flood").withSettings("memory_budget=4m");
        try (FdbCluster cluster = FdbCluster.start(build, spec)) {
            Role resolver = single(cluster.roles(cluster.status(), "resolver"));
            cluster.awaitTrace(resolver.container(), e -> e.type().equals("ResolverConflictSetPluginOpened")
                    && e.id().equals(resolver.id()), EVENT_WAIT, "the plugin opened");
            Database db = cluster.database();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            AtomicLong slowCommitted = new AtomicLong();
            AtomicLong slowTooOld = new AtomicLong();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                int id = w;
                workers.add(CompletableFuture.runAsync(() -> {
                    long n = 0;
                    while (!stop.get()) {
                        long base = n;
                        db.run(tr -> {
                            for (int k = 0; k < 200; k++) {
                                tr.set(("flood/" + id + "/" + (base + k) + "/" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8), new byte[8]);
                            }
                            return null;
                        });
                        n += 200;
                        written.addAndGet(200);
                    }
                }));
            }
            for (int r = 0; r < 4; r++) {
                int id = r;
                workers.add(CompletableFuture.runAsync(() -> {
                    while (!stop.get()) {
                        try (var tr = db.createTransaction()) {
                            tr.get(("flood/" + id + "/0/" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8)).join();
                            Thread.sleep(2000 + 250L * id);
                            tr.set(("slow/" + id).getBytes(StandardCharsets.UTF_8), new byte[8]);
                            tr.commit().join();
                            slowCommitted.incrementAndGet();
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            if (FdbErrors.code(e) == FdbErrors.TRANSACTION_TOO_OLD) {
                                slowTooOld.incrementAndGet();
                            }
                        }
                    }
                }));
            }
            Thread.sleep(60_000);
            stop.set(true);
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
            double end = nowSeconds();
            TraceLog.Event metrics = cluster.awaitTrace(resolver.container(), e -> e.type().equals("ResolverMetrics")
                    && e.id().equals(resolver.id()) && e.time() > end + 1, EVENT_WAIT, "ResolverMetrics after the flood");
            TraceLog log = cluster.trace(resolver.container());
            List<TraceLog.Event> budgetEvents = log.filter(e -> e.type().equals("ResolverConflictSetPluginBudgetTooOld")
                    || e.type().equals("ResolverConflictSetPluginBudgetBinding"));
            long maxResident = log.ofType("ProcessMetrics").stream().mapToLong(e -> e.counter("ResidentMemory")).max().orElse(0);
            long maxHeapUsed = log.filter(e -> e.type().equals("ResolverMetrics") && e.id().equals(resolver.id()))
                    .stream().mapToLong(e -> e.counter("PluginHeapUsedBytes")).max().orElse(0);
            System.out.printf(Locale.ROOT, "write-flood: %,d keys written, slow readers: %d committed, %d too old; PluginTooOldBudget %d,"
                    + " PluginHistoryBytes %,d of %,d, PluginRetainedVersion %d, heap used at most %,d of %,d, fdbserver resident at most"
                    + " %,d; budget events %d (first %s)%n",
                    written.get(), slowCommitted.get(), slowTooOld.get(), metrics.counter("PluginTooOldBudget"),
                    metrics.counter("PluginHistoryBytes"), metrics.counter("PluginMemoryBudgetBytes"), metrics.counter("PluginRetainedVersion"),
                    maxHeapUsed, metrics.counter("PluginHeapMaxBytes"), maxResident, budgetEvents.size(),
                    budgetEvents.isEmpty() ? "-" : budgetEvents.getFirst());
            assertTrue(metrics.counter("PluginTooOldBudget") > 0, "the budget answered TOO_OLD: " + metrics);
            assertFalse(budgetEvents.isEmpty(), "a trace event says so");
            assertTrue(slowTooOld.get() > 0, "the clients saw transaction_too_old");
            assertEquals(1, metrics.counter("PluginActive"), "no fallback: the budget's TOO_OLD is allowed");
            assertTrue(metrics.counter("PluginHistoryBytes") <= 4L << 20, "the history within its budget");
            assertTrue(maxHeapUsed <= metrics.counter("PluginHeapMaxBytes"));
            assertTrue(maxResident < 2L << 30, "fdbserver within its --memory");
            for (String name : cluster.containerNames()) {
                assertEquals(List.of(), cluster.trace(name).filter(e -> e.severity() >= 40), name + ": no SevError");
            }
            assertEquals(List.of(), cluster.jvmCrashDumps(), "no JVM crash dump (no out-of-memory error)");
        }
    }

    /**
     * Writes the key the test engine watches for: the batch holding it is the faulty one. For a wrong COMMIT the
     * trigger goes with a transaction that must conflict (it read a key written after its read version), so that the
     * faulty batch holds a CONFLICT for the engine to turn into a COMMIT; guarded mode must send the skip list's
     * answer, and the client sees not_committed. For a wrong COMMIT on the system keys the probe is a system key, and
     * the skip list answers after plugin mode's fallback: too old (its history starts at that batch) or not committed.
     */
    private static void writeTrigger(Database db, String fault) {
        byte[] trigger = (TRIGGER + fault).getBytes(StandardCharsets.UTF_8);
        if (fault.equals("wrong-commit-system")) {
            byte[] probe = "\u00ff/fdbresolver/guard-probe".getBytes(StandardCharsets.ISO_8859_1);
            try (var tr = db.createTransaction()) {
                tr.options().setAccessSystemKeys();
                tr.get(probe).join();
                db.run(other -> {
                    other.options().setAccessSystemKeys();
                    other.set(probe, new byte[] {2});
                    return null;
                });
                tr.set(trigger, new byte[] {1});
                try {
                    tr.commit().join();
                    throw new AssertionError("a transaction that read a system key written after its read version committed: the metadata"
                            + " guard let the wrong COMMIT through");
                } catch (RuntimeException e) {
                    int code = FdbErrors.code(e);
                    assertTrue(code == FdbErrors.NOT_COMMITTED || code == FdbErrors.TRANSACTION_TOO_OLD,
                            () -> "the skip list's answer reached the client: " + e);
                }
            }
            return;
        }
        if (!fault.equals("wrong-commit")) {
            db.run(tr -> {
                tr.set(trigger, new byte[] {1});
                return null;
            });
            return;
        }
        byte[] probe = "fault-probe".getBytes(StandardCharsets.UTF_8);
        try (var tr = db.createTransaction()) {
            tr.get(probe).join();
            db.run(other -> {
                other.set(probe, new byte[] {2});
                return null;
            });
            tr.set(trigger, new byte[] {1});
            try {
                tr.commit().join();
                throw new AssertionError("a transaction that read a key written after its read version committed: the wrong COMMIT was sent");
            } catch (RuntimeException e) {
                assertEquals(FdbErrors.NOT_COMMITTED, FdbErrors.code(e), () -> "the skip list's CONFLICT reached the client: " + e);
            }
        }
    }

    /** The clients' completed transfers sampled every 20 ms, to find the longest time without one. */
    private static final class Progress {
        private final List<double[]> samples = new ArrayList<>();
        private final Thread thread;
        private volatile boolean running = true;

        Progress(BankWorkload bank) {
            thread = new Thread(() -> {
                while (running) {
                    synchronized (samples) {
                        samples.add(new double[] {nowSeconds(), bank.transfersDone()});
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        /** The longest run of samples without a new transfer that ends within 30 s after {@code at}. */
        double longestStallAround(double at) {
            double longest = 0;
            synchronized (samples) {
                double since = samples.isEmpty() ? at : samples.getFirst()[0];
                double last = -1;
                for (double[] s : samples) {
                    if (s[1] != last) {
                        if (s[0] >= at - 1 && since <= at + 30) {
                            longest = Math.max(longest, s[0] - since);
                        }
                        since = s[0];
                        last = s[1];
                    }
                }
            }
            return longest;
        }
    }

    private static Role single(List<Role> roles) {
        assertEquals(1, roles.size(), "one resolver: " + roles);
        return roles.getFirst();
    }

    private static double nowSeconds() {
        return System.currentTimeMillis() / 1000.0;
    }
}
