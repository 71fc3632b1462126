package org.fdbresolver.harness.trace;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.engine.ConflictEngine;

/** A test engine that commits everything: enough to drive ConflictSet's validation, which runs before it. */
final class CommitAllEngine implements ConflictEngine {
    int batches;

    @Override
    public String name() {
        return "commit-all";
    }

    @Override
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        out.reset(batch.transactionCount());
        batches++;
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
}
