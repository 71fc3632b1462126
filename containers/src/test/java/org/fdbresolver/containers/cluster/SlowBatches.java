package org.fdbresolver.containers.cluster;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The plugin's slow batches over a window of one resolver process's trace: the glue's
 * {@code ResolverConflictSetPluginSlowBatch} events (a batch slower than {@code slow_batch_micros}; at most
 * ten a metrics interval are logged, all are counted in {@code PluginSlowBatches}). Each says where the
 * batch's wall time went — the network thread's CPU time (the rest it waited, descheduled), the engine's
 * own time — and how long after the Resolver's open it came, which is what separates a JVM still
 * compiling from a steady-state tail.
 *
 * @param counted the batches {@code PluginSlowBatches} counted over the window; -1 when the resolver's
 *                metrics carry no such figure (stock, or a build before it)
 * @param logged  the logged ones, in trace order
 */
record SlowBatches(long counted, List<Batch> logged) {

    /** One logged slow batch; times in microseconds. */
    record Batch(double time, double secondsSinceOpen, long batch, long micros, long cpuMicros, long engineMicros,
            long transactions, String largestPhase) {

        long waitedMicros() {
            return Math.max(0, micros - cpuMicros);
        }
    }

    /** The engine's phases as the event names them, in FoundationDB's counter order. */
    static final List<String> PHASES = List.of("SortMicros", "CheckReadMicros", "CheckIntraBatchMicros",
            "CombineMicros", "MergeWriteMicros", "RemoveBeforeMicros");

    /** Over {@code (from, to]} (seconds since the epoch). */
    static SlowBatches of(TraceLog trace, double from, double to) {
        List<Batch> logged = trace.filter(e -> e.type().equals("ResolverConflictSetPluginSlowBatch") && e.time() > from && e.time() <= to)
                .stream().map(SlowBatches::batch).toList();
        // The figure is the resolver's total since its open, read over the window as ResolverTimes reads its counters
        // (the same resolver's events only: a recovery's new one starts from zero).
        TraceLog.Event last = ResolverTimes.lastAtOrBefore(trace.filter(e -> e.type().equals("ResolverMetrics")), to);
        long counted = -1;
        if (last != null && last.detail("PluginSlowBatches") != null) {
            TraceLog.Event first = ResolverTimes.lastAtOrBefore(
                    trace.filter(e -> e.type().equals("ResolverMetrics") && e.id().equals(last.id())), from);
            counted = ResolverTimes.delta(first, last, "PluginSlowBatches");
        }
        return new SlowBatches(counted, logged);
    }

    private static Batch batch(TraceLog.Event e) {
        String largest = "–";
        long most = -1;
        for (String phase : PHASES) {
            if (e.detail(phase) != null && e.counter(phase) > most) {
                most = e.counter(phase);
                largest = phase.substring(0, phase.length() - "Micros".length()) + " " + most;
            }
        }
        return new Batch(e.time(), e.number("SecondsSinceOpen"), (long) e.number("Batch"), (long) e.number("Micros"),
                (long) e.number("CpuMicros"), e.detail("EngineMicros") == null ? -1 : (long) e.number("EngineMicros"),
                (long) e.number("Transactions"), largest);
    }

    /**
     * One line: how many, how the logged ones' wall time splits (waited off the CPU, in the engine), and when
     * after the open they came.
     */
    String summary() {
        if (logged.isEmpty()) {
            return counted < 0 ? "no figure" : counted + " counted, none logged";
        }
        long wall = logged.stream().mapToLong(Batch::micros).sum();
        long waited = logged.stream().mapToLong(Batch::waitedMicros).sum();
        long engine = logged.stream().filter(b -> b.engineMicros >= 0).mapToLong(Batch::engineMicros).sum();
        long early = logged.stream().filter(b -> b.secondsSinceOpen < 40).count();
        long mostlyWaiting = logged.stream().filter(b -> b.waitedMicros() * 2 > b.micros).count();
        return String.format(Locale.ROOT, "%d counted, %d logged: %.0f %% of their wall time off the CPU, %.0f %% in the engine; "
                + "%d mostly waiting; %d within 40 s of the open", counted, logged.size(), 100.0 * waited / wall, 100.0 * engine / wall,
                mostlyWaiting, early);
    }

    /** The {@code n} slowest logged batches as Markdown table rows. */
    String slowestRows(int n) {
        StringBuilder sb = new StringBuilder();
        for (Batch b : logged.stream().sorted(Comparator.comparingLong(Batch::micros).reversed()).limit(n).toList()) {
            sb.append(String.format(Locale.ROOT, "| %.1f | %d | %d | %d | %d | %s | %s | %d |%n", b.secondsSinceOpen, b.batch, b.micros,
                    b.cpuMicros, b.waitedMicros(), b.engineMicros < 0 ? "–" : Long.toString(b.engineMicros), b.largestPhase,
                    b.transactions));
        }
        return sb.toString();
    }

    static final String SLOWEST_HEADER = "| s since open | batch | µs | CPU µs | waited µs | engine µs | largest phase µs | transactions |\n"
            + "|---|---|---|---|---|---|---|---|\n";
}
