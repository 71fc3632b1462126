package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The longest fixed window (in versions) whose history FoundationDB's skip list holds within a number of
 * bytes: the window {@code W} replaces each batch's {@code new_oldest_version} by {@code max(0, version - W)},
 * and the skip list's peak node bytes over the whole trace must not exceed the budget. Peak bytes grow with
 * the window, so a bracketing search finds it: double (or halve) from a guess until the budget is crossed,
 * then bisect until the bracket is within one batch step or 1% of the window. Every window measured is
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

    /** Windows measured so far and their peak bytes. */
    public Map<Long, Long> measured() {
        return java.util.Collections.unmodifiableMap(measured);
    }

    /**
     * @param guessVersions where to start looking (for example the engine's retained age under the same budget)
     */
    public Result longestWindow(long budgetBytes, long guessVersions) throws IOException {
        long lo = -1;
        long hi = -1;
        for (Map.Entry<Long, Long> e : measured.entrySet()) { // what earlier searches learned
            if (e.getValue() <= budgetBytes) {
                lo = Math.max(lo, e.getKey());
            } else if (hi < 0) {
                hi = e.getKey();
            }
        }
        if (hi >= 0 && lo > hi) {
            lo = -1; // not monotone where measured: search the bracket below hi afresh
        }
        if (lo < 0 && hi < 0) {
            long g = clamp(guessVersions);
            if (fits(g, budgetBytes)) {
                lo = g;
            } else {
                hi = g;
            }
        }
        while (hi < 0 && lo < spanVersions) { // grow until the budget is crossed or the trace is covered
            long next = Math.min(spanVersions, Math.max(lo * 2, stepVersions));
            if (fits(next, budgetBytes)) {
                lo = next;
            } else {
                hi = next;
            }
        }
        if (hi < 0) {
            return new Result(lo, measured.get(lo), true, true);
        }
        while (lo < 0) { // shrink until something fits
            long next = hi / 2;
            if (next < stepVersions) {
                if (fits(stepVersions, budgetBytes)) {
                    lo = stepVersions;
                    break;
                }
                return new Result(0, measured.get(hi), false, false);
            }
            if (fits(next, budgetBytes)) {
                lo = next;
            } else {
                hi = next;
            }
        }
        while (hi - lo > Math.max(stepVersions, (long) (lo * RELATIVE_PRECISION))) {
            long mid = lo + (hi - lo) / 2;
            if (fits(mid, budgetBytes)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return new Result(lo, measured.get(lo), false, true);
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
