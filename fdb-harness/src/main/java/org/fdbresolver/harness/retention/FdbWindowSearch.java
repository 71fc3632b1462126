package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The longest fixed window (in versions) whose history FoundationDB's skip list holds within a number of
 * bytes: the window {@code W} replaces each batch's {@code new_oldest_version} by {@code max(0, version - W)},
 * and the skip list's peak node bytes over the whole trace must not exceed the budget. Peak bytes grow with
 * the window (about in proportion), so a bracketing search finds it: from a guess, step to where the budget
 * would be crossed if they were proportional (a little beyond) until the budget is bracketed, then
 * interpolate until the bracket is within one batch step or 1% of the window. Every window measured is
 * remembered, so a second budget on the same trace starts from what the first one learned.
 */
public final class FdbWindowSearch {
    /** Relative precision of the window found. */
    static final double RELATIVE_PRECISION = 0.01;

    /** Measures the skip list's peak bytes over the trace at one window. */
    public interface Meter {
        long peakBytes(long windowVersions) throws IOException;

        /** How the bytes are measured, for the report. */
        String description();
    }

    /**
     * What the search found.
     *
     * @param windowVersions the longest window that fits (0 when not even the shortest window tried fits)
     * @param peakBytes      the skip list's peak bytes at that window
     * @param wholeTrace     whether the window covers the whole trace: the skip list never filled the budget
     * @param fits           whether any window fits at all
     */
    public record Result(long windowVersions, long peakBytes, boolean wholeTrace, boolean fits) {
        public double windowSeconds() {
            return windowVersions / RetentionSample.VERSIONS_PER_SECOND;
        }
    }

    private final Meter meter;
    private final long spanVersions;
    private final long stepVersions;
    private final TreeMap<Long, Long> measured = new TreeMap<>();

    /**
     * @param spanVersions the trace's span, last version minus first: no window longer than it is tried
     * @param stepVersions the trace's step between batches: no finer window is tried
     */
    public FdbWindowSearch(Meter meter, long spanVersions, long stepVersions) {
        this.meter = meter;
        this.spanVersions = Math.max(1, spanVersions);
        this.stepVersions = Math.max(1, stepVersions);
    }

    /** How the meter measures, for the report. */
    public String meterDescription() {
        return meter.description();
    }

    /** Windows measured so far and their peak bytes. */
    public Map<Long, Long> measured() {
        return java.util.Collections.unmodifiableMap(measured);
    }

    /**
     * @param guessVersions where to start looking (for example a third of the engine's retained age under the
     *                      same budget)
     */
    public Result longestWindow(long budgetBytes, long guessVersions) throws IOException {
        long lo = -1; // the longest window known to fit
        long hi = -1; // the shortest window known not to fit, above lo
        for (Map.Entry<Long, Long> e : measured.entrySet()) { // what earlier searches learned
            if (e.getValue() <= budgetBytes) {
                lo = e.getKey();
            } else if (hi < 0 || hi < lo) {
                hi = e.getKey();
            }
        }
        if (hi >= 0 && hi < lo) {
            hi = -1; // not monotone where measured: look above the longest window that fits
        }
        if (lo < 0 && hi < 0) {
            long w = clamp(guessVersions);
            if (fits(w, budgetBytes)) {
                lo = w;
            } else {
                hi = w;
            }
        }
        // Bracket the answer. Peak bytes grow about in proportion to the window, so each step aims where a
        // straight line through the origin and the last point crosses the budget, a little beyond it.
        while (lo < 0 || hi < 0) {
            if (hi < 0) {
                if (lo >= spanVersions) {
                    return new Result(lo, measured.get(lo), true, true);
                }
                long w = clamp(Math.max(lo + stepVersions, (long) (proportional(lo, budgetBytes) * 1.15)));
                if (fits(w, budgetBytes)) {
                    lo = w;
                } else {
                    hi = w;
                }
            } else {
                if (hi <= stepVersions) {
                    return new Result(0, measured.get(hi), false, false);
                }
                long w = clamp(Math.min(hi - stepVersions, (long) (proportional(hi, budgetBytes) * 0.85)));
                if (fits(w, budgetBytes)) {
                    lo = w;
                } else {
                    hi = w;
                }
            }
        }
        // Narrow the bracket: interpolate between its ends, kept off them so that it shrinks by a tenth at least.
        while (hi - lo > Math.max(stepVersions, (long) (lo * RELATIVE_PRECISION))) {
            long peakLo = measured.get(lo);
            long peakHi = measured.get(hi);
            double f = peakHi > peakLo ? (double) (budgetBytes - peakLo) / (peakHi - peakLo) : 0.5;
            f = Math.max(0.1, Math.min(0.9, f));
            long w = Math.max(lo + 1, Math.min(hi - 1, lo + Math.round(f * (hi - lo))));
            if (fits(w, budgetBytes)) {
                lo = w;
            } else {
                hi = w;
            }
        }
        return new Result(lo, measured.get(lo), false, true);
    }

    /** The window at which the budget would be reached if peak bytes were proportional to the window. */
    private double proportional(long window, long budgetBytes) {
        return (double) window * budgetBytes / Math.max(1, measured.get(window));
    }

    private long clamp(long w) {
        return Math.max(stepVersions, Math.min(spanVersions, w));
    }

    private boolean fits(long window, long budgetBytes) throws IOException {
        Long peak = measured.get(window);
        if (peak == null) {
            peak = meter.peakBytes(window);
            measured.put(window, peak);
        }
        return peak <= budgetBytes;
    }
}
