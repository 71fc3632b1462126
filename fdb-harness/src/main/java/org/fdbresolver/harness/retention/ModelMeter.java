package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;

/**
 * Peak skip-list bytes at a window, from {@link FdbSkipListModel}: the trace is decided with the window by an
 * engine under a budget that never binds (its decisions are then FoundationDB's), and the model follows the
 * skip list's node set batch by batch.
 */
public final class ModelMeter implements FdbWindowSearch.Meter {
    /** A budget no trace here comes near: the engine keeps every batch's writes, as FoundationDB does. */
    static final long UNBOUNDED_BUDGET = 1L << 40;

    private final Path trace;
    private final ConflictSetConfig engine;
    private final TraceReplay.Progress progress;

    /** @param engine the engine that decides the trace (its budget is replaced by an unbounded one) */
    public ModelMeter(Path trace, ConflictSetConfig engine, TraceReplay.Progress progress) {
        this.trace = trace;
        this.engine = engine.toBuilder().memoryBudgetBytes(UNBOUNDED_BUDGET).build();
        this.progress = progress;
    }

    @Override
    public long peakBytes(long windowVersions) throws IOException {
        FdbSkipListModel model = new FdbSkipListModel();
        long[] peak = {model.bytes()};
        try (ConflictSet cs = ConflictSet.open(engine)) {
            TraceReplay.run(trace, cs, windowVersions, (index, batch, version, newOldest, result) -> {
                model.batch(batch, result, version, newOldest);
                peak[0] = Math.max(peak[0], model.bytes());
            }, progress);
        }
        return peak[0];
    }

    @Override
    public String description() {
        return "model: FoundationDB's skip list replayed node for node in Java (no comparator built)";
    }
}
