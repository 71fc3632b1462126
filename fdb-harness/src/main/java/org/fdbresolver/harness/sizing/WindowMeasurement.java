package org.fdbresolver.harness.sizing;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.harness.retention.FdbSkipListModel;
import org.fdbresolver.harness.retention.NativeMeter;
import org.fdbresolver.harness.retention.RetentionSample;
import org.fdbresolver.harness.retention.RetentionSummary;
import org.fdbresolver.harness.retention.TraceReplay;

/**
 * Measures a {@link ScaledTrace} written to a file: the bytes per write in the window of the engine's history and
 * of FoundationDB's skip list, in steady state, and the share of a binding budget that holds history. Replays:
 * <ol>
 *   <li>the engine with a budget that never binds, at the trace's window: its peak history bytes, the writes in
 *       the window batch by batch (averaged over the trace's last window, when both engines' incremental removal
 *       has caught up), and — without FoundationDB's comparator — the skip list's node bytes from
 *       {@link FdbSkipListModel} on the same decisions (FoundationDB's: the budget never binds);</li>
 *   <li>with the comparator, FoundationDB's own skip list at the same window ({@link NativeMeter});</li>
 *   <li>the engine at the trace's window under a budget a little below that peak ({@link #SHARE_PROBE} of it), so
 *       that the budget binds at the steady state's peaks: the smallest share of the budget holding history after
 *       any batch from then on — what the engine leaves when it makes room for a batch (it drops the oldest
 *       history to a thirty-second of the budget below what the batch needs). A budget of the peak over that
 *       share does not bind in steady state, and when a longer window makes it bind it still keeps the window
 *       (both checked on the worked example of docs/long-transactions.md);</li>
 *   <li>the check at this scale: the engine at the trace's window under the budget those give
 *       ({@code peak / share}) and under 80 % of it.</li>
 * </ol>
 */
public final class WindowMeasurement {
    /** A budget no trace here comes near: the engine keeps every write of the window, as FoundationDB does. */
    static final long UNBOUNDED_BUDGET = 1L << 40;
    /** The longest window measured: the tree keeps its versions within 2^30 of its base (docs/tree.md). */
    public static final double MAX_WINDOW_SECONDS = 1000;
    /** The budget that measures the history share, as a share of the peak history: one that binds a little. */
    public static final double SHARE_PROBE = 0.98;
    /** The lower budget checked, as a share of the budget found. */
    public static final double LOW_CHECK = 0.8;

    /** Progress of one replay, closed when the replay ends. */
    public interface Phase extends TraceReplay.Progress, AutoCloseable {
        @Override
        void close();
    }

    /** Starts the progress display of each replay. */
    public interface Phases {
        Phase start(String label);
    }

    /** How one budget fared at the trace's window. */
    public record Check(long budgetBytes, boolean bound, double retainedAgeMinSeconds, long tooOldBudget) {
        static Check of(RetentionSummary s, double windowSeconds) {
            return new Check(s.budgetBytes(), s.budgetBound(), s.budgetBound() ? s.retainedAgeMin() : windowSeconds,
                    s.tooOldBudget());
        }
    }

    /**
     * What the replays found.
     *
     * @param batches                  batches in the trace
     * @param transactions             transactions in the trace
     * @param offeredWrites            write ranges of every transaction
     * @param committedWrites          write ranges of the committed ones
     * @param traceSeconds             trace time of the last batch
     * @param windowWrites             offered writes inside the window (versions above {@code version - window}),
     *                                 averaged over the last window's batches
     * @param treePeakBytes            the engine's most history bytes over the trace, its budget never binding
     * @param treePeakByWindow         the same over each of the trace's windows (the last ones equal in steady state)
     * @param fdbPeakBytes             the skip list's most node bytes over the trace
     * @param fdbPeakByWindow          the same per window (null from the comparator, which reports only the most)
     * @param fdbMeasuredBy            the comparator's or the model's description
     * @param historyShare             the smallest share of a budget of {@link #SHARE_PROBE} {@code treePeakBytes}
     *                                 holding history once it binds (NaN when it never bound)
     * @param check                    the budget {@code treePeakBytes / historyShare} at the trace's window
     * @param lowCheck                 {@link #LOW_CHECK} of it
     */
    public record Result(long batches, long transactions, long offeredWrites, long committedWrites, double traceSeconds,
                         double windowWrites, long treePeakBytes, long[] treePeakByWindow, long fdbPeakBytes,
                         long[] fdbPeakByWindow, String fdbMeasuredBy, double historyShare, Check check, Check lowCheck) {
        public double treeBytesPerWrite() {
            return treePeakBytes / windowWrites;
        }

        public double fdbBytesPerWrite() {
            return fdbPeakBytes / windowWrites;
        }

        /** The budget the measurement gives at this scale: the engine's peak over the share, rounded up. */
        public long budgetAtScale() {
            return budgetFor(treePeakBytes, historyShare);
        }
    }

    /** The budget that holds {@code historyBytes} when a binding budget holds history in {@code share} of it. */
    public static long budgetFor(double historyBytes, double share) {
        return (long) Math.ceil(historyBytes / (Double.isNaN(share) ? 1.0 : share));
    }

    private WindowMeasurement() {
    }

    /**
     * @param trace      the trace {@code scaled} describes, as a file (it is read several times)
     * @param engine     the engine measured (its budget is replaced by each replay's)
     * @param comparator FoundationDB's comparator, or null for the model
     */
    public static Result measure(Path trace, ScaledTrace scaled, ConflictSetConfig engine, Path comparator, Phases phases)
            throws IOException {
        long window = scaled.shape().windowVersions();
        double windowSeconds = scaled.shape().windowSeconds();
        Unbounded u = new Unbounded(window, comparator == null ? new FdbSkipListModel() : null);
        try (Phase p = phases.start(engine.engine() + " and " + (comparator == null ? "the skip-list model" : "the engine")
                + ", no budget")) {
            replay(trace, engine, UNBOUNDED_BUDGET, TraceReplay.TRACE_WINDOW, u, p);
        }
        if (u.batches == 0) {
            throw new IllegalArgumentException(trace + ": the trace has no batches");
        }
        long fdbPeak;
        String fdbBy;
        long[] fdbByWindow;
        if (comparator == null) {
            fdbPeak = u.modelPeak;
            fdbByWindow = u.modelPeakByWindow;
            fdbBy = "model: FoundationDB's skip list replayed node for node in Java (no comparator built)";
        } else {
            NativeMeter meter = new NativeMeter(comparator, trace, (int) Math.max(1, u.batches / 500));
            try (Phase _ = phases.start("FoundationDB's skip list")) {
                fdbPeak = meter.peakBytes(window);
            }
            fdbByWindow = null;
            fdbBy = meter.description();
        }

        long probe = (long) Math.floor(u.peak * SHARE_PROBE);
        RetentionSummary share = new RetentionSummary(probe);
        try (Phase p = phases.start(engine.engine() + " under " + probe + " bytes")) {
            replay(trace, engine, probe, TraceReplay.TRACE_WINDOW, summarizing(share), p);
        }
        double historyShare = share.budgetBound() ? Math.min(1.0, share.usedMin()) : Double.NaN;
        long budget = budgetFor(u.peak, historyShare);
        Check[] checks = new Check[2];
        long[] budgets = {budget, (long) Math.floor(budget * LOW_CHECK)};
        for (int i = 0; i < 2; i++) {
            RetentionSummary s = new RetentionSummary(budgets[i]);
            try (Phase p = phases.start(engine.engine() + " under " + budgets[i] + " bytes")) {
                replay(trace, engine, budgets[i], TraceReplay.TRACE_WINDOW, summarizing(s), p);
            }
            checks[i] = Check.of(s, windowSeconds);
        }
        return new Result(u.batches, u.transactions, u.offered, u.committed, (u.lastVersion - u.firstVersion) / WindowShape.VERSIONS_PER_SECOND,
                u.windowWritesMean(), u.peak, u.peakByWindow, fdbPeak, fdbByWindow, fdbBy, historyShare, checks[0], checks[1]);
    }

    private interface Replayed {
        void batch(long index, ConflictBatch batch, long version, long newOldest, BatchResult result, ConflictEngine engine);
    }

    private static void replay(Path trace, ConflictSetConfig engine, long budget, long window, Replayed observer,
            TraceReplay.Progress progress) throws IOException {
        try (ConflictSet cs = ConflictSet.open(engine.toBuilder().memoryBudgetBytes(budget).build())) {
            ConflictEngine e = cs.engine();
            TraceReplay.run(trace, cs, window, (index, batch, version, newOldest, result) ->
                    observer.batch(index, batch, version, newOldest, result, e), progress);
        }
    }

    private static Replayed summarizing(RetentionSummary summary) {
        int[] tooOld = new int[2];
        return (index, batch, version, newOldest, result, engine) -> {
            TraceReplay.countTooOld(batch, result, newOldest, tooOld);
            summary.add(new RetentionSample(summary.budgetBytes(), index, version, newOldest, engine.retainedVersion(),
                    engine.historyBytes(), batch.transactionCount(), tooOld[0], tooOld[1]));
        };
    }

    /** The unbounded replay's figures, batch by batch. */
    private static final class Unbounded implements Replayed {
        private final long window;
        private final FdbSkipListModel model;
        long batches;
        long transactions;
        long offered;
        long committed;
        long firstVersion;
        long lastVersion;
        long peak;
        final long[] peakByWindow = new long[ScaledTrace.WINDOWS];
        long modelPeak;
        final long[] modelPeakByWindow = new long[ScaledTrace.WINDOWS];
        /** Offered writes per batch of the current window, oldest first: a ring of (version, writes). */
        private long[] ringVersion = new long[64];
        private long[] ringWrites = new long[64];
        private int ringStart;
        private int ringSize;
        private long inWindow;
        private double steadySum;
        private long steadyBatches;

        Unbounded(long window, FdbSkipListModel model) {
            this.window = window;
            this.model = model;
        }

        @Override
        public void batch(long index, ConflictBatch batch, long version, long newOldest, BatchResult result, ConflictEngine engine) {
            if (batches == 0) {
                firstVersion = version;
            }
            batches++;
            lastVersion = version;
            int offeredHere = 0;
            for (int t = 0, n = batch.transactionCount(); t < n; t++) {
                int w = batch.writeEnd(t) - batch.writeStart(t);
                offeredHere += w;
                if (result.decisionCode(t) == Decision.COMMIT_CODE) {
                    committed += w;
                }
            }
            transactions += batch.transactionCount();
            offered += offeredHere;
            push(version, offeredHere);
            // Writes at or below version - window can conflict with no read left to check: out of the window.
            while (ringSize > 0 && ringVersion[ringStart] <= version - window) {
                inWindow -= ringWrites[ringStart];
                ringStart = (ringStart + 1) % ringVersion.length;
                ringSize--;
            }
            int w = (int) Math.min(ScaledTrace.WINDOWS - 1, (version - firstVersion) / Math.max(1, window));
            if (w == ScaledTrace.WINDOWS - 1) {
                steadySum += inWindow;
                steadyBatches++;
            }
            long bytes = engine.historyBytes();
            peak = Math.max(peak, bytes);
            peakByWindow[w] = Math.max(peakByWindow[w], bytes);
            if (model != null) {
                model.batch(batch, result, version, newOldest);
                modelPeak = Math.max(modelPeak, model.bytes());
                modelPeakByWindow[w] = Math.max(modelPeakByWindow[w], model.bytes());
            }
        }

        private void push(long version, long writes) {
            if (ringSize == ringVersion.length) {
                long[] v = new long[ringSize * 2];
                long[] n = new long[ringSize * 2];
                for (int i = 0; i < ringSize; i++) {
                    v[i] = ringVersion[(ringStart + i) % ringSize];
                    n[i] = ringWrites[(ringStart + i) % ringSize];
                }
                ringVersion = v;
                ringWrites = n;
                ringStart = 0;
            }
            int at = (ringStart + ringSize) % ringVersion.length;
            ringVersion[at] = version;
            ringWrites[at] = writes;
            ringSize++;
            inWindow += writes;
        }

        double windowWritesMean() {
            return steadyBatches == 0 ? inWindow : steadySum / steadyBatches;
        }
    }
}
