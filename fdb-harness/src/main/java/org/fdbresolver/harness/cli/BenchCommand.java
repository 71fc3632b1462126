package org.fdbresolver.harness.cli;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Locale;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetStats;
import org.fdbresolver.api.Phase;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.LoadedTrace;
import org.fdbresolver.tree.TreeEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench TRACE [--engine NAME] [--cycles N]}: loads the whole trace first (untimed; {@code --cycles} copies
 * of it, versions shifted, as {@link LoadedTrace#cycled} makes them), resolves the warm-up batches untimed, then
 * times the engine alone over the rest. Prints the same lines for every engine.
 */
@Command(name = "bench", description = "Time one engine on a trace loaded in memory; print throughput, time per phase and per-batch latency.")
final class BenchCommand extends Subcommand {
    @Parameters(paramLabel = "TRACE", description = "the trace to time (plain or gzip)")
    Path tracePath;

    @Mixin
    EngineOptions engine;

    @Option(names = "--warmup", paramLabel = "N", order = 20, converter = CountConverter.class,
            description = "batches resolved before timing starts, untimed; fewer than the trace has "
                    + "(default: a tenth of the trace, at most 1000)")
    Long warmupBatches;

    @Option(names = "--cycles", paramLabel = "N", order = 21, defaultValue = "1", converter = CountConverter.class,
            description = "resolve the trace N times (default: 1), each time with every version, oldest version and "
                    + "read snapshot shifted past the last: a short trace (a capture) as a long run; batches are "
                    + "counted, hashed and warmed up across the cycles")
    long cycles;

    @Option(names = "--batch-cpu", negatable = true, defaultValue = "true", fallbackValue = "true", order = 22,
            description = "read the resolving thread's CPU clock around every timed batch (the default), for "
                    + "batch-cpu-seconds, the cpu-latency lines and slowest-cpu; --no-batch-cpu leaves them n/a and "
                    + "keeps those two clock reads a batch (a system call each on some virtual machines) out of "
                    + "cpu-seconds, for small batches")
    boolean batchCpu;

    @Option(names = "--settle-jit", order = 23,
            description = "before the trace, warm engine tree as the bridge's first open does and then let the JIT settle "
                    + "(the engine options warmUpBatches=2000 and warmUpSettleMillis=30000, unless given): the timed "
                    + "batches then run the code a long-running Resolver runs, where without it C2 may still compile "
                    + "on another core through the timed part of a short trace (docs/latency.md)")
    boolean settleJit;

    @Option(names = "--evict-caches", paramLabel = "BYTES", order = 24, converter = SizeConverter.class,
            description = "between two timed batches (untimed), write over a buffer of BYTES (e.g. 16m), one word a "
                    + "cache line, so that each batch meets the history as cold as inside fdbserver, where the rest of "
                    + "the process runs on the core between batches; the comparator takes the same option "
                    + "(docs/cluster.md); cpu-seconds is then n/a (it would count the eviction)")
    Long evictCacheBytes;

    /** {@link #settleJit}'s engine options, each unless given. */
    static final java.util.Map<String, String> SETTLE_JIT_OPTIONS = java.util.Map.of(TreeEngine.WARM_UP_BATCHES,
            Integer.toString(TreeEngine.FIRST_OPEN_WARM_UP_BATCHES), TreeEngine.WARM_UP_SETTLE_MILLIS, "30000");

    @Override
    Path input() {
        return tracePath;
    }

    @Override
    String details() {
        return EngineOptions.listing() + """

                The trace is read and converted before anything is timed; only detectConflicts calls
                of the batches after the warm-up are timed.
                prints (one 'name: value' per line):
                  engine, offered-hash (SHA-256 of the trace file as stored), batches (over all the cycles),
                  cycles, warmup-batches,
                  timed-batches, timed-transactions,
                  seconds (timed part), cpu-seconds (of this thread and the engine's workers, timed part),
                  batch-cpu-seconds (this thread's CPU time of each timed batch, summed: the skip list comparator's
                  cpu-seconds; n/a with --no-batch-cpu),
                  transactions/sec,
                  phase-sort, phase-checkRead, phase-checkIntraBatch, phase-combine, phase-mergeWrite,
                  phase-removeBefore (each 'S s (P%)' of the timed seconds; 0 for an engine without phase timers),
                  allocated-bytes-per-batch (this thread and the engine's workers, timed part), gc-count and gc-seconds (timed part),
                  history-bytes, retained-version (after the last batch),
                  decision-hash, conflicting-keys-hash (of every batch, warm-up included),
                  latency-p50, latency-p90, latency-p99, latency-p99.9, latency-max (of one timed batch, 'T ms'),
                  latency-max-to-p50 (the slowest batch over the median),
                  cpu-latency-p50, cpu-latency-p90, cpu-latency-p99, cpu-latency-p99.9, cpu-latency-max (the same of
                  the resolving thread's CPU time per batch, without the engine's workers; 'n/a' if the JVM cannot tell),
                  slowest-1, slowest-2, slowest-3, slowest-4, slowest-5 (the slowest timed batches, slowest first:
                  index, version, time, CPU time and time per phase; fewer when fewer batches were timed),
                  slowest-cpu-1, slowest-cpu-2, slowest-cpu-3, slowest-cpu-4, slowest-cpu-5 (the same, by the resolving
                  thread's CPU time; none if the JVM cannot tell),
                  full-sweep-evictions (times the budget swept the whole history in one batch, warm-up included)
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        if (cycles == 0) {
            throw new UsageException("--cycles 0 resolves nothing (give 1 or more)");
        }
        if (evictCacheBytes != null && (evictCacheBytes < CacheEvictor.MIN_BYTES || evictCacheBytes > CacheEvictor.MAX_BYTES)) {
            throw new UsageException("--evict-caches " + evictCacheBytes + ": give 64 bytes to 2 GiB");
        }
        var config = engine.config();
        EngineOptions.open(config).close(); // an unknown engine fails before the load, not after
        if (settleJit) {
            if (!"tree".equals(config.engine())) {
                throw new UsageException("--settle-jit warms engine tree only, not " + config.engine());
            }
            var given = config;
            var settled = config.toBuilder();
            SETTLE_JIT_OPTIONS.forEach((name, value) -> settled.option(name, given.option(name, value)));
            config = settled.build();
        }

        long size = CaptureChain.storedBytes(tracePath);
        LoadedTrace trace;
        try (Progress progress = context.progress("loading", size, "bytes")) {
            long[] loaded = new long[1];
            trace = LoadedTrace.load(tracePath, read -> progress.update(read, ++loaded[0], 0));
        }
        try {
            trace = trace.cycled(cycles);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--cycles " + cycles + ": " + e.getMessage());
        }
        int batches = trace.batchCount();
        if (batches == 0) {
            throw new UsageException(tracePath + ": the trace has no batches, nothing to time");
        }
        long warmup = warmupBatches != null ? warmupBatches : Math.min(batches / 10, 1000);
        if (warmup >= batches) {
            throw new UsageException("--warmup " + warmup + " leaves nothing to time: " + tracePath + " has " + batches
                    + " batches" + (cycles > 1 ? " over " + cycles + " cycles" : "")
                    + " (use --warmup " + (batches - 1) + " or less)");
        }
        int timedFrom = (int) warmup;

        DecisionHasher hasher = new DecisionHasher();
        BatchResult result = new BatchResult();
        JvmCounters jvm = new JvmCounters();
        long timedNanos = 0;
        BatchLatencies latencies = new BatchLatencies(batches - timedFrom);
        ThreadMXBean threadCpu = ManagementFactory.getThreadMXBean();
        // A thread's CPU clock is a system call on some virtual machines (3.4-4.2 us a read on this project's), as much
        // as a whole small batch: --no-batch-cpu keeps it out of the loop whose cpu-seconds are compared.
        boolean cpuPerBatch = batchCpu && threadCpu.isCurrentThreadCpuTimeSupported() && threadCpu.isThreadCpuTimeEnabled();
        long[] phasesBefore;
        ConflictSetStats after;
        try (ConflictSet cs = EngineOptions.open(config);
             Progress progress = context.progress(cs.engineName(), batches, "batches")) {
            for (int i = 0; i < timedFrom; i++) {
                cs.detectConflicts(trace.batch(i), trace.version(i), trace.newOldestVersion(i), result);
                hasher.add(result);
                progress.update(i + 1, i + 1, hasher.transactions());
            }
            // Settle the heap before timing: the loaded trace was just allocated and would otherwise be
            // copied and promoted by collections inside the timed part, which the engine never caused.
            System.gc();
            phasesBefore = cs.stats().phaseNanos();
            CacheEvictor evictor = evictCacheBytes == null ? null : new CacheEvictor(evictCacheBytes);
            jvm.start();
            for (int i = timedFrom; i < batches; i++) {
                long c0 = cpuPerBatch ? threadCpu.getCurrentThreadCpuTime() : -1;
                long t0 = System.nanoTime();
                cs.detectConflicts(trace.batch(i), trace.version(i), trace.newOldestVersion(i), result);
                long nanos = System.nanoTime() - t0;
                long cpuNanos = cpuPerBatch ? threadCpu.getCurrentThreadCpuTime() - c0 : -1;
                timedNanos += nanos;
                latencies.record(i, trace.version(i), nanos, cpuNanos, cs);
                hasher.add(result);
                progress.update(i + 1, i + 1, hasher.transactions());
                if (evictor != null) {
                    evictor.evict();
                }
            }
            jvm.stop();
            after = cs.stats();
        }

        long timedTransactions = trace.transactionCount(timedFrom, batches);
        context.line("engine", after.engine());
        context.line("offered-hash", Hashes.hex(trace.offeredSha256()));
        context.line("batches", batches);
        context.line("cycles", cycles);
        context.line("warmup-batches", warmup);
        context.line("timed-batches", batches - warmup);
        context.line("timed-transactions", timedTransactions);
        context.line("seconds", CommandContext.seconds(timedNanos));
        context.line("cpu-seconds", jvm.cpuNanos() < 0 || evictCacheBytes != null ? "n/a" : CommandContext.seconds(jvm.cpuNanos()));
        long batchCpu = latencies.cpuNanosSum();
        context.line("batch-cpu-seconds", batchCpu < 0 || latencies.count() == 0 ? "n/a" : CommandContext.seconds(batchCpu));
        context.line("transactions/sec", CommandContext.rate(timedTransactions, timedNanos));
        for (Phase phase : Phase.values()) {
            long nanos = after.phaseNanos(phase) - phasesBefore[phase.ordinal()];
            double share = timedNanos <= 0 ? 0 : 100.0 * nanos / timedNanos;
            context.line("phase-" + phase.counterName(),
                    String.format(Locale.ROOT, "%.3f s (%.1f%%)", nanos / 1e9, share));
        }
        long timedBatches = batches - warmup;
        context.line("allocated-bytes-per-batch", jvm.allocatedBytes() < 0 ? "n/a"
                : Long.toString(timedBatches == 0 ? 0 : jvm.allocatedBytes() / timedBatches));
        context.line("gc-count", jvm.gcCount());
        context.line("gc-seconds", CommandContext.seconds(jvm.gcMillis() * 1_000_000L));
        context.line("history-bytes", after.historyBytes());
        context.line("retained-version", after.retainedVersion());
        context.line("decision-hash", hasher.decisionHash());
        context.line("conflicting-keys-hash", hasher.conflictingKeysHash());
        latencies.lines(context);
        context.line("full-sweep-evictions", after.fullSweepEvictions());
        return ExitCodes.OK;
    }
}
