package org.fdbresolver.harness.trace;

import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;

/**
 * A trace's transactions again, in batches of a fixed size: a Resolver's small batches (a capture's 1–5
 * transactions) as the benchmark workloads' large ones, with the same keys, ranges, read snapshots and reporting
 * flags, in the same order (issue 29: "its keys in batches of 500 transactions").
 *
 * <p>A batch takes the version and the oldest version of the original batch its last transaction came from, so the
 * read snapshots keep their meaning; when that would not be above the previous batch's version (an original batch
 * larger than the size, split in two), it takes the previous version plus one. Original batches without
 * transactions leave nothing. The decisions are not the original trace's: transactions once in consecutive batches
 * now meet inside one, where an earlier write conflicts with a later read whatever its snapshot, and a transaction
 * read at a snapshot older than its new batch's oldest version is too old. Both engines decide the regrouped trace
 * alike; it is a benchmark of the keys, not a replay of the run.
 */
public final class BatchRegrouper {
    private final int size;
    private Batch.Builder pending = Batch.newBuilder();
    private long previousVersion = Long.MIN_VALUE;

    /** @param size transactions per regrouped batch, at least 1 */
    public BatchRegrouper(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("transactions per batch must be at least 1, got " + size);
        }
        this.size = size;
    }

    /** Takes one original batch, in trace order; returns the regrouped batches it completes (often none). */
    public List<Batch> add(Batch original) {
        List<Batch> done = new ArrayList<>(0);
        for (int t = 0; t < original.getTransactionsCount(); t++) {
            pending.addTransactions(original.getTransactions(t));
            pending.setVersion(original.getVersion()).setNewOldestVersion(original.getNewOldestVersion());
            if (pending.getTransactionsCount() == size) {
                done.add(take());
            }
        }
        return done;
    }

    /** The last batch, holding fewer than the size; {@code null} when nothing is left. */
    public Batch finish() {
        return pending.getTransactionsCount() == 0 ? null : take();
    }

    private Batch take() {
        if (pending.getVersion() <= previousVersion) {
            pending.setVersion(previousVersion + 1);
        }
        previousVersion = pending.getVersion();
        Batch b = pending.build();
        pending = Batch.newBuilder();
        return b;
    }
}
