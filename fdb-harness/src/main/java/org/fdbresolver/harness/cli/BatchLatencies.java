package org.fdbresolver.harness.cli;

import java.util.Arrays;
import java.util.Locale;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.Phase;

/**
 * Every timed batch's latency (wall-clock, and the resolving thread's CPU time) and time per phase (issue 31: a Resolver holds every commit of the cluster while it
 * decides one batch, so the slowest batch matters as much as the throughput). The arrays are made before timing
 * starts and filled in place: recording a batch allocates nothing. Percentiles are nearest-rank over the recorded
 * batches; the slowest batches are listed with their phases, from the conflict set's own phase timers (the figures
 * its Flight Recorder event carries).
 */
final class BatchLatencies {
    /** How many of the slowest batches are listed with their phases. */
    static final int SLOWEST = 5;
    private static final Phase[] PHASES = Phase.values();

    private final long[] nanos;
    /** The resolving thread's CPU time per batch (-1: the JVM cannot tell). */
    private final long[] cpuNanos;
    private final long[] phaseNanos;
    private final int[] batchIndex;
    private final long[] version;
    private int count;

    BatchLatencies(int batches) {
        nanos = new long[batches];
        cpuNanos = new long[batches];
        phaseNanos = new long[batches * PHASES.length];
        batchIndex = new int[batches];
        version = new long[batches];
    }

    /**
     * Records one batch: its index in the trace, version, wall-clock time and the resolving thread's CPU time (-1:
     * unknown), and its phases from {@code cs}.
     */
    void record(int index, long batchVersion, long batchNanos, long batchCpuNanos, ConflictSet cs) {
        int i = count++;
        nanos[i] = batchNanos;
        cpuNanos[i] = batchCpuNanos;
        batchIndex[i] = index;
        version[i] = batchVersion;
        cs.lastPhaseNanos(phaseNanos, i * PHASES.length);
    }

    int count() {
        return count;
    }

    /** The recorded batches' CPU times summed (each from just before to just after its batch), or -1 if unknown. */
    long cpuNanosSum() {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            if (cpuNanos[i] < 0) {
                return -1;
            }
            sum += cpuNanos[i];
        }
        return sum;
    }

    /** The nearest-rank {@code q} quantile (0 < q <= 1) of {@code sorted}. */
    private static long quantileOfSorted(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Adds the latency lines to {@code context}: the quantiles, the maximum over the median, the slowest batches. */
    void lines(CommandContext context) {
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        long p50 = quantileOfSorted(sorted, 0.5);
        long max = count == 0 ? 0 : sorted[count - 1];
        context.line("latency-p50", millis(p50));
        context.line("latency-p90", millis(quantileOfSorted(sorted, 0.9)));
        context.line("latency-p99", millis(quantileOfSorted(sorted, 0.99)));
        context.line("latency-p99.9", millis(quantileOfSorted(sorted, 0.999)));
        context.line("latency-max", millis(max));
        context.line("latency-max-to-p50", p50 <= 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", (double) max / p50));
        // The same of the resolving thread's CPU time: what the engine computed, whatever else the cores ran.
        long[] cpu = Arrays.copyOf(cpuNanos, count);
        Arrays.sort(cpu);
        boolean cpuKnown = count > 0 && cpu[0] >= 0;
        for (String q : new String[] {"p50", "p90", "p99", "p99.9", "max"}) {
            double quantile = q.equals("max") ? 1.0 : Double.parseDouble(q.substring(1)) / 100;
            context.line("cpu-latency-" + q, cpuKnown ? millis(quantileOfSorted(cpu, quantile)) : "n/a");
        }
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        // Slowest first; equal times in trace order, so that the listing is stable.
        Arrays.sort(order, (a, b) -> nanos[a] != nanos[b] ? Long.compare(nanos[b], nanos[a]) : Integer.compare(a, b));
        for (int k = 0; k < Math.min(SLOWEST, count); k++) {
            context.line("slowest-" + (k + 1), describe(order[k]));
        }
        // The slowest by CPU time: on shared cores the slowest by wall-clock time are mostly batches the system
        // descheduled; these are the engine's own slowest.
        if (cpuKnown) {
            Arrays.sort(order, (a, b) -> cpuNanos[a] != cpuNanos[b] ? Long.compare(cpuNanos[b], cpuNanos[a]) : Integer.compare(a, b));
            for (int k = 0; k < Math.min(SLOWEST, count); k++) {
                context.line("slowest-cpu-" + (k + 1), describe(order[k]));
            }
        }
    }

    /** One batch as {@code batch I (version V) T ms: sort S, checkRead R, ... ms}. */
    private String describe(int i) {
        StringBuilder sb = new StringBuilder();
        sb.append("batch ").append(batchIndex[i]).append(" (version ").append(version[i]).append(") ")
                .append(millis(nanos[i])).append(" (cpu ").append(cpuNanos[i] < 0 ? "n/a" : millis(cpuNanos[i])).append("):");
        for (int p = 0; p < PHASES.length; p++) {
            sb.append(p == 0 ? " " : ", ").append(PHASES[p].counterName()).append(' ')
                    .append(String.format(Locale.ROOT, "%.3f", phaseNanos[i * PHASES.length + p] / 1e6));
        }
        return sb.append(" ms").toString();
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
}
