package org.fdbresolver.harness.fuzz;

import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Streams one trace through a fresh engine and the oracle, comparing every batch's decisions and conflicting reads.
 * The engine decides batch N first; N goes to the oracle; then, while the oracle decides N, the engine takes batch
 * N + 1; only then is N's answer taken and compared. So the two sides work at once and at most two batches are held.
 *
 * <p>An engine under a memory budget may answer TOO_OLD where FoundationDB decides, once its budget has raised its
 * retained version above the trace's oldest version (docs/formats.md, "Memory budget"): for a reader below the retained
 * version, and for a reader of writes that such a transaction may have made (FoundationDB may have committed them,
 * so the engine cannot know what FoundationDB decides; the tree keeps them apart as uncertain writes). Every other
 * difference is one: a COMMIT or CONFLICT must be FoundationDB's, with the same conflicting reads, however much
 * history the budget forced out. The run stops at the first batch that differs: what follows would differ by
 * consequence.
 */
final class DifferentialRun {
    /** Told after each batch compared; answers false to stop the run there. */
    interface Listener {
        boolean compared(long batches, long transactions);
    }

    /** Given every batch as compared: the batch, both answers, whether the engine's budget had bound by then. */
    interface Recorder {
        void record(long index, Batch batch, BatchAnswer engine, boolean budgetBound, BatchAnswer oracle);
    }

    /**
     * @param budgetTooOld TOO_OLD answers of the engine where the oracle decided, allowed by its budget
     * @param differing    differing transactions in the batch of the first difference
     * @param first        the first difference, or null
     */
    record Outcome(long batches, long transactions, long budgetTooOld, long differing, Difference first) {
    }

    private final EngineSource engines;
    private final Oracle oracle;
    private final TraceBatches converter = new TraceBatches();
    private final Pending[] pending = {new Pending(), new Pending()};

    /** A batch decided by the engine and sent to the oracle, waiting for the oracle's answer. */
    private static final class Pending {
        Batch batch;
        long index;
        /** Whether the engine's budget had raised its retained version above the oldest version by this batch. */
        boolean budgetBound;
        final BatchAnswer engine = new BatchAnswer();
    }

    DifferentialRun(EngineSource engines, Oracle oracle) {
        this.engines = engines;
        this.oracle = oracle;
    }

    /**
     * @param batches         the trace's batches, null at the end
     * @param maxTransactions stop after the batch that reaches this many
     * @param budget          the engine's budget for this trace, or null for the configured one
     * @param listener        may stop the run; null for none
     * @param recorder        sees every batch compared; null for none
     */
    Outcome run(TraceHeader header, Supplier<Batch> batches, long maxTransactions, Long budget,
            Map<String, String> engineOptions, Listener listener, Recorder recorder) throws IOException {
        oracle.beginTrace(header);
        Counts counts = new Counts();
        try (ConflictSet cs = engines.open(budget, engineOptions)) {
            ConflictBatch batch = cs.newBatch();
            Pending waiting = null;
            long index = 0;
            boolean budgetBound = false;
            long offeredTransactions = 0;
            for (Batch b; offeredTransactions < maxTransactions && (b = batches.get()) != null; index++) {
                Pending p = pending[(int) (index & 1)];
                p.batch = b;
                p.index = index;
                converter.load(b, batch);
                BatchResult r;
                try {
                    r = batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
                } catch (InvalidBatchException e) {
                    drain(waiting, counts, recorder);
                    throw e; // the generator's fault, not the engine's
                } catch (RuntimeException | StackOverflowError e) {
                    drain(waiting, counts, recorder);
                    if (counts.first == null) {
                        difference(counts, new Difference(Difference.Kind.ENGINE_ERROR, index, b.getVersion(), -1,
                                engines.name() + " failed: " + e));
                    }
                    waiting = null;
                    break;
                }
                p.engine.copy(b.getVersion(), r);
                budgetBound |= cs.engine().retainedVersion() > b.getNewOldestVersion();
                p.budgetBound = budgetBound;
                oracle.submit(b);
                offeredTransactions += b.getTransactionsCount();
                if (waiting != null) {
                    compare(waiting, counts, recorder);
                    if (counts.first != null) {
                        oracle.release(oracle.take()); // the answer to p, which no longer matters
                        waiting = null;
                        break;
                    }
                    if (listener != null && !listener.compared(counts.batches, counts.transactions)) {
                        drain(p, counts, recorder);
                        waiting = null;
                        break;
                    }
                }
                waiting = p;
            }
            drain(waiting, counts, recorder);
        }
        return new Outcome(counts.batches, counts.transactions, counts.budgetTooOld, counts.differing, counts.first);
    }

    private static final class Counts {
        long batches;
        long transactions;
        long budgetTooOld;
        long differing;
        Difference first;
    }

    private void drain(Pending p, Counts counts, Recorder recorder) throws IOException {
        if (p != null) {
            compare(p, counts, recorder);
        }
    }

    private void compare(Pending p, Counts counts, Recorder recorder) throws IOException {
        BatchAnswer o = oracle.take();
        try {
            if (recorder != null) {
                recorder.record(p.index, p.batch, p.engine, p.budgetBound, o);
            }
            compare(p, o, counts);
            counts.batches++;
            counts.transactions += p.engine.transactions;
        } finally {
            oracle.release(o);
        }
    }

    private void compare(Pending p, BatchAnswer o, Counts counts) {
        BatchAnswer e = p.engine;
        Batch b = p.batch;
        if (o.transactions != e.transactions || o.version != b.getVersion()) {
            difference(counts, new Difference(Difference.Kind.ANSWER_SHAPE, p.index, b.getVersion(), -1, oracle.name()
                    + " answered " + o.transactions + " decisions for version " + o.version + ", " + engines.name() + " "
                    + e.transactions));
            return;
        }
        int i = 0;
        int j = 0;
        for (int t = 0; t < e.transactions; t++) {
            int ei = i < e.conflictingLength && e.conflicting[i] == t ? i : -1;
            if (ei >= 0) {
                i += 2 + e.conflicting[i + 1];
            }
            int oj = j < o.conflictingLength && o.conflicting[j] == t ? j : -1;
            if (oj >= 0) {
                j += 2 + o.conflicting[j + 1];
            }
            byte ed = e.decisions[t];
            byte od = o.decisions[t];
            if (ed == od) {
                if (!sameEntry(e, ei, o, oj)) {
                    difference(counts, new Difference(Difference.Kind.CONFLICTING_READS, p.index, b.getVersion(), t,
                            engines.name() + " " + e.describe(t) + ", " + oracle.name() + " " + o.describe(t)));
                }
            } else if (ed == Decision.TOO_OLD_CODE && allowedByBudget(b.getTransactions(t), p.budgetBound)) {
                counts.budgetTooOld++;
            } else {
                difference(counts, new Difference(Difference.Kind.DECISION, p.index, b.getVersion(), t,
                        engines.name() + " " + e.describe(t) + ", " + oracle.name() + " " + o.describe(t)));
            }
        }
        if (i != e.conflictingLength || j != o.conflictingLength) {
            difference(counts, new Difference(Difference.Kind.ANSWER_SHAPE, p.index, b.getVersion(), -1,
                    "conflicting reads out of transaction order (" + (i != e.conflictingLength ? engines.name() : oracle.name())
                            + ")"));
        }
    }

    /** An extra TOO_OLD is the budget's once it has bound, for a transaction that reads (one that only writes never is). */
    static boolean allowedByBudget(Transaction tx, boolean budgetBound) {
        return budgetBound && tx.getReadsCount() > 0;
    }

    private static boolean sameEntry(BatchAnswer e, int ei, BatchAnswer o, int oj) {
        if (ei < 0 || oj < 0) {
            return ei == oj;
        }
        int n = e.conflicting[ei + 1];
        if (n != o.conflicting[oj + 1]) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (e.conflicting[ei + 2 + k] != o.conflicting[oj + 2 + k]) {
                return false;
            }
        }
        return true;
    }

    private static void difference(Counts counts, Difference d) {
        counts.differing++;
        if (counts.first == null) {
            counts.first = d;
        }
    }
}
