package org.fdbresolver.containers.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The resolver's own time per batch over a measured window, from FoundationDB's metrics in its trace:
 * the {@code Histogram} events of group {@code Resolver}, op {@code ComputeTime} (the Resolver's compute
 * phase of each batch — conflict detection and the state-transaction bookkeeping around it; log2
 * buckets in microseconds, written every HISTOGRAM_REPORT_INTERVAL and then cleared), and the
 * {@code ResolverMetrics} counters (batches, transactions, and with the plugin its own nanosecond totals).
 *
 * @param seconds            the span of the ResolverMetrics events the counters are taken from (they come
 *                           every WORKER_LOGGING_INTERVAL, 5 s: the window rounded to them)
 * @param batches            ResolveBatchStart over the window
 * @param transactions       ResolvedTransactions over the window
 * @param computeSamples     batches the ComputeTime histograms counted
 * @param computeMeanMicros  their mean, each bucket taken at its geometric middle (log2 buckets: ±40 %)
 * @param computeP50Micros   the upper bound of the bucket holding the median
 * @param computeP99Micros   the upper bound of the bucket holding the 99th percentile
 * @param pluginResolveMicros per batch, the time in the plugin call (crossing, copies, engine); NaN when stock
 * @param pluginEngineMicros per batch, the time inside the Java engine; NaN when stock
 */
record ResolverTimes(double seconds, long batches, long transactions, long computeSamples, double computeMeanMicros, long computeP50Micros,
        long computeP99Micros, double pluginResolveMicros, double pluginEngineMicros, long computeMaxMicros, long slowTasks,
        double slowTaskMaxSeconds, long pluginP99Micros, long pluginMaxMicros, long pluginTooOldBudget) {

    /** Over {@code [from, to]} (seconds since the epoch) of one resolver process's trace. */
    static ResolverTimes of(TraceLog trace, double from, double to) {
        TraceLog.Event last = lastAtOrBefore(trace.filter(e -> e.type().equals("ResolverMetrics")), to);
        // The same Resolver's events only: a recovery starts another one, with counters from zero.
        String id = last == null ? "" : last.id();
        TraceLog.Event first = lastAtOrBefore(trace.filter(e -> e.type().equals("ResolverMetrics") && e.id().equals(id)), from);
        long batches = delta(first, last, "ResolveBatchStart");
        long transactions = delta(first, last, "ResolvedTransactions");
        double pluginResolve = Double.NaN;
        double pluginEngine = Double.NaN;
        if (last != null && last.detail("PluginBatches") != null) {
            long pluginBatches = delta(first, last, "PluginBatches");
            pluginResolve = delta(first, last, "PluginResolveNanos") / 1e3 / pluginBatches;
            pluginEngine = delta(first, last, "PluginEngineNanos") / 1e3 / pluginBatches;
        }
        // A histogram event covers the interval before it: the ones written inside the window.
        long[] buckets = new long[32];
        for (TraceLog.Event e : trace.filter(e -> e.type().equals("Histogram") && "Resolver".equals(e.detail("Group"))
                && "ComputeTime".equals(e.detail("Op")) && e.time() > from && e.time() <= to)) {
            for (Map.Entry<String, JsonNode> field : e.json().properties()) {
                if (field.getKey().startsWith("LessThan")) {
                    // "LessThan0.128" milliseconds is the bucket [64, 128) microseconds.
                    long upperMicros = Math.round(Double.parseDouble(field.getKey().substring("LessThan".length())) * 1000);
                    buckets[Long.numberOfTrailingZeros(upperMicros) - 1] += field.getValue().asLong();
                }
            }
        }
        long samples = 0;
        double sum = 0;
        for (int i = 0; i < 32; i++) {
            samples += buckets[i];
            sum += buckets[i] * Math.sqrt((double) (1L << i) * (1L << (i + 1)));
        }
        double seconds = last == null ? Double.NaN : last.time() - (first == null ? from : first.time());
        long computeMax = -1;
        for (int i = 0; i < 32; i++) {
            if (buckets[i] > 0) {
                computeMax = 1L << (i + 1);
            }
        }
        // Pauses of the process's network thread (FoundationDB samples SlowTask events: a count, not every pause) and
        // the plugin's own batch latency (its figures cover the interval before each ResolverMetrics event).
        List<TraceLog.Event> slow = trace.filter(e -> e.type().equals("SlowTask") && e.time() > from && e.time() <= to);
        double slowMax = slow.stream().mapToDouble(e -> Double.parseDouble(e.detail("Duration"))).max().orElse(0);
        List<TraceLog.Event> window = trace.filter(e -> e.type().equals("ResolverMetrics") && e.id().equals(id) && e.time() > from
                && e.time() <= to && e.detail("PluginLatencyMaxMicros") != null);
        long pluginP99 = window.stream().mapToLong(e -> e.counter("PluginLatencyP99Micros")).max().orElse(-1);
        long pluginMax = window.stream().mapToLong(e -> e.counter("PluginLatencyMaxMicros")).max().orElse(-1);
        long tooOldBudget = last != null && last.detail("PluginTooOldBudget") != null ? delta(first, last, "PluginTooOldBudget") : -1;
        return new ResolverTimes(seconds, batches, transactions, samples, samples == 0 ? Double.NaN : sum / samples, percentile(buckets, samples, 0.50),
                percentile(buckets, samples, 0.99), pluginResolve, pluginEngine, computeMax, slow.size(), slowMax, pluginP99, pluginMax,
                tooOldBudget);
    }

    private static long percentile(long[] buckets, long samples, double p) {
        long seen = 0;
        for (int i = 0; i < 32; i++) {
            seen += buckets[i];
            if (samples > 0 && seen >= Math.ceil(p * samples)) {
                return 1L << (i + 1);
            }
        }
        return -1;
    }

    static TraceLog.Event lastAtOrBefore(List<TraceLog.Event> events, double time) {
        TraceLog.Event found = null;
        for (TraceLog.Event e : events) {
            if (e.time() <= time) {
                found = e;
            }
        }
        return found;
    }

    static long delta(TraceLog.Event first, TraceLog.Event last, String counter) {
        if (last == null) {
            return 0;
        }
        return last.counter(counter) - (first == null ? 0 : first.counter(counter));
    }
}
