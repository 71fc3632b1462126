package org.fdbresolver.bridge.testengine;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;

/**
 * Engine {@code test-commit-all}, on the test class path only: commits everything and keeps no history.
 * Wrong on purpose; it costs nothing, so a run with it measures what surrounds an engine (the bridge's
 * crossing, layout and key copies, or the in-process loop's batch filling) and nothing else. It is also
 * the wrong resolver FoundationDB's checks must catch: {@code scripts/fdb-sim}'s cycle-broken and the
 * cluster tests' bank audit load it from these test classes.
 */
public final class CommitAllEngineFactory implements EngineFactory {
    @Override
    public String name() {
        return "test-commit-all";
    }

    @Override
    public String description() {
        return "commits every transaction, keeps no history (overhead measurements only)";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        return new ConflictEngine() {
            @Override
            public String name() {
                return "test-commit-all";
            }

            @Override
            public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
                out.reset(batch.transactionCount());
            }

            @Override
            public void clear(long version) {
            }

            @Override
            public long historyBytes() {
                return 0;
            }

            @Override
            public long retainedVersion() {
                return 0;
            }
        };
    }
}
