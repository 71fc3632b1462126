package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.Decision;
import org.fdbresolver.harness.trace.TraceReader;

/**
 * Streams a trace through a conflict set and shows each decided batch to an {@link Observer}. Optionally
 * replaces the trace's {@code new_oldest_version} by a fixed window, {@code max(0, version - window)}, kept
 * non-decreasing: how FoundationDB's history is measured at a given window.
 */
public final class TraceReplay {
    /** The trace's own {@code new_oldest_version}, not a fixed window. */
    public static final long TRACE_WINDOW = -1;

    /** Sees every batch after it was decided. */
    public interface Observer {
        /**
         * @param index            the batch's index in the trace, from 0
         * @param newOldestVersion the {@code new_oldest_version} the batch was decided with
         */
        void batch(long index, ConflictBatch batch, long version, long newOldestVersion, BatchResult result) throws IOException;
    }

    /** Reports how far the replay got, for a progress display. */
    public interface Progress {
        void update(long storedBytesRead, long batches, long transactions);
    }

    private TraceReplay() {
    }

    /**
     * Replays {@code trace} through {@code conflictSet} (which must be fresh).
     *
     * @param window {@link #TRACE_WINDOW}, or a window in versions replacing each batch's {@code new_oldest_version}
     * @return the batches replayed
     */
    public static long run(Path trace, ConflictSet conflictSet, long window, Observer observer, Progress progress)
            throws IOException {
        try (TraceReader reader = TraceReader.open(trace)) {
            ConflictBatch batch = conflictSet.newBatch();
            BatchResult result = new BatchResult();
            long batches = 0;
            long transactions = 0;
            long oldest = 0;
            while (reader.nextInto(batch)) {
                long version = reader.version();
                long newOldest = window == TRACE_WINDOW ? reader.newOldestVersion()
                        : Math.max(oldest, Math.max(0, version - window));
                oldest = newOldest;
                conflictSet.detectConflicts(batch, version, newOldest, result);
                observer.batch(batches, batch, version, newOldest, result);
                batches++;
                transactions += batch.transactionCount();
                progress.update(reader.storedBytesRead(), batches, transactions);
            }
            return batches;
        }
    }

    /**
     * Counts the batch's TOO_OLD answers into {@code fdbAndBudget}: [0] those FoundationDB gives too (the
     * transaction has reads and its snapshot is below {@code newOldestVersion}), [1] the rest, which only a
     * memory budget causes. From the batch and its decisions alone, whatever the engine.
     */
    public static void countTooOld(ConflictBatch batch, BatchResult result, long newOldestVersion, int[] fdbAndBudget) {
        int fdb = 0;
        int budget = 0;
        for (int t = 0, n = batch.transactionCount(); t < n; t++) {
            if (result.decisionCode(t) == Decision.TOO_OLD_CODE) {
                if (batch.readStart(t) < batch.readEnd(t) && batch.readSnapshot(t) < newOldestVersion) {
                    fdb++;
                } else {
                    budget++;
                }
            }
        }
        fdbAndBudget[0] = fdb;
        fdbAndBudget[1] = budget;
    }
}
