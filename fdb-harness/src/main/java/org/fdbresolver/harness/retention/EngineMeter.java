package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;

/**
 * The engine's own peak history bytes when it keeps a fixed window, with a budget that never binds: what the
 * engine needs to hold the history FoundationDB holds at that window (memory at equal history, the dual of
 * history at equal memory, and independent of how the engine sizes its reservations).
 */
public final class EngineMeter implements FdbWindowSearch.Meter {
    private final Path trace;
    private final ConflictSetConfig engine;
    private final TraceReplay.Progress progress;

    public EngineMeter(Path trace, ConflictSetConfig engine, TraceReplay.Progress progress) {
        this.trace = trace;
        this.engine = engine.toBuilder().memoryBudgetBytes(ModelMeter.UNBOUNDED_BUDGET).build();
        this.progress = progress;
    }

    @Override
    public long peakBytes(long windowVersions) throws IOException {
        long[] peak = {0};
        try (ConflictSet cs = ConflictSet.open(engine)) {
            ConflictEngine e = cs.engine();
            TraceReplay.run(trace, cs, windowVersions,
                    (index, batch, version, newOldest, result) -> peak[0] = Math.max(peak[0], e.historyBytes()), progress);
        }
        return peak[0];
    }

    @Override
    public String description() {
        return "engine " + engine.engine() + ", unbounded budget";
    }
}
