package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.ConflictSetStats;
import org.fdbresolver.api.Decision;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Issue 11's acceptance test: the budget is used. On longtrace as the golden manifest generates it
 * ({@code longtrace --batches 100 --report-fraction 0.1}; its whole history is about 9 MB), engine
 * {@code tree} under a 16 MiB budget keeps the whole history and decides exactly as the unbounded
 * reference; under 8 MiB and 6 MiB it keeps at least 85 % of the budget in history after every batch in
 * which the unbounded history is larger than the budget, never more than the budget, and answers TOO_OLD
 * beyond the reference only for snapshots below its retained boundary — or for readers of an uncertain
 * write: a write of a transaction that only the budget made TOO_OLD, which FoundationDB might have
 * committed, so that a reader of it can be neither committed nor rejected with certainty (see
 * {@code BatchPipeline}). The test keeps those writes itself and checks every such reader against them.
 */
class RetentionUnderBudgetTest {
    private static final DifferentialCases.Spec LONGTRACE =
            new DifferentialCases.Spec("longtrace", 1, 100, Map.of("report-fraction", "0.1"));
    private static final long MIB = 1 << 20;
    private static final double MIN_USE = 0.85;

    @TestFactory
    Stream<DynamicTest> budgetHoldsHistory() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String readPath : List.of("batched", "single")) {
            for (long budget : new long[] {16 * MIB, 8 * MIB, 6 * MIB}) {
                tests.add(DynamicTest.dynamicTest("tree (" + readPath + " reads) under " + budget / MIB + " MiB on " + LONGTRACE,
                        () -> check(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                                .option("readPath", readPath).option("readBatchedFromBytes", "0").build())));
            }
        }
        return tests.stream();
    }

    private static void check(ConflictSetConfig config) {
        List<Batch> trace = Cache.trace();
        long[] unboundedBytes = Cache.unboundedBytes();
        long budget = config.memoryBudgetBytes();
        long extraTooOld = 0;
        long readersOfUncertain = 0;
        List<UncertainWrite> uncertain = new ArrayList<>();
        long minUse = Long.MAX_VALUE;
        int fullBatches = 0;
        try (ConflictSet budgeted = ConflictSet.open(config);
             ConflictSet reference = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            ConflictBatch mine = budgeted.newBatch();
            ConflictBatch theirs = reference.newBatch();
            TraceBatches converter = new TraceBatches();
            for (int b = 0; b < trace.size(); b++) {
                Batch batch = trace.get(b);
                converter.load(batch, mine);
                converter.load(batch, theirs);
                long boundary = Math.max(batch.getNewOldestVersion(), budgeted.stats().retainedVersion());
                BatchResult got = mine.detectConflicts(batch.getVersion(), batch.getNewOldestVersion());
                BatchResult want = theirs.detectConflicts(batch.getVersion(), batch.getNewOldestVersion());
                String where = config.memoryBudgetBytes() / MIB + " MiB, batch " + b;
                List<UncertainWrite> batchUncertain = new ArrayList<>();
                for (int t = 0; t < got.transactionCount(); t++) {
                    Transaction tx = batch.getTransactions(t);
                    if (got.decision(t) != want.decision(t)) {
                        assertEquals(Decision.TOO_OLD, got.decision(t), where + " transaction " + t + ": only TOO_OLD may differ");
                        extraTooOld++;
                        if (tx.getReadSnapshot() >= boundary) {
                            assertTrue(readsUncertainWrite(tx, uncertain, batchUncertain), where + " transaction " + t
                                    + ": TOO_OLD at snapshot " + tx.getReadSnapshot() + ", not below the retained boundary "
                                    + boundary + ", and it reads no write of a transaction the budget made TOO_OLD");
                            readersOfUncertain++;
                        }
                    } else {
                        assertArrayEquals(conflictingReads(want, t), conflictingReads(got, t), where + " transaction " + t);
                    }
                    if (got.decision(t) == Decision.TOO_OLD && tx.getReadSnapshot() >= batch.getNewOldestVersion()) {
                        for (KeyRange w : tx.getWritesList()) {
                            batchUncertain.add(new UncertainWrite(w.getBegin().toByteArray(), w.getEnd().toByteArray(),
                                    batch.getVersion()));
                        }
                    }
                }
                uncertain.addAll(batchUncertain);
                ConflictSetStats stats = budgeted.stats();
                assertTrue(stats.historyBytes() <= budget, where + ": " + stats.historyBytes() + " bytes over the budget");
                if (unboundedBytes[b] > budget) {
                    fullBatches++;
                    minUse = Math.min(minUse, stats.historyBytes());
                    assertTrue(stats.historyBytes() >= MIN_USE * budget, where + ": history holds " + stats.historyBytes()
                            + " bytes, below " + MIN_USE + " of the budget (unbounded: " + unboundedBytes[b] + ")");
                }
                assertEquals(extraTooOld, stats.tooOldBudget(), where + ": stats count the budget's TOO_OLD answers");
                assertEquals(0, stats.forgottenBatches(), where + ": a batch was forgotten");
            }
            if (budget >= unboundedBytes[trace.size() - 1] * 3 / 2) {
                assertEquals(0, extraTooOld, "a budget larger than the whole history keeps it all");
                assertEquals(trace.getLast().getNewOldestVersion(), budgeted.stats().retainedVersion());
            } else {
                assertTrue(fullBatches > 0 && extraTooOld > 0, "the budget never bit: " + fullBatches + " batches over it");
            }
            System.out.println("tree " + config.options() + " under " + budget / MIB + " MiB on " + LONGTRACE + ": " + extraTooOld
                    + " TOO_OLD beyond the reference (" + readersOfUncertain + " of them readers of uncertain writes); " + fullBatches + " batches with more history than the budget, "
                    + "least history after one of them " + (minUse == Long.MAX_VALUE ? "-" : minUse + " bytes ("
                    + Math.round(1000.0 * minUse / budget) / 10.0 + " % of the budget)"));
        }
    }

    /** Transaction {@code t}'s conflicting read indices (empty when it reported none). */
    private static int[] conflictingReads(BatchResult r, int t) {
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            if (r.conflictingTransaction(i) == t) {
                int[] reads = new int[r.conflictingReadCount(i)];
                for (int j = 0; j < reads.length; j++) {
                    reads[j] = r.conflictingRead(i, j);
                }
                return reads;
            }
        }
        return new int[0];
    }

    /** A write of a transaction the budget made TOO_OLD, at its batch's version. */
    private record UncertainWrite(byte[] begin, byte[] end, long version) {
    }

    /**
     * Whether a read of {@code tx} overlaps an uncertain write of an earlier batch newer than its snapshot
     * (TRACE.md's history rule) or a non-empty read overlaps one of an earlier transaction of this batch.
     */
    private static boolean readsUncertainWrite(Transaction tx, List<UncertainWrite> earlier, List<UncertainWrite> thisBatch) {
        for (KeyRange r : tx.getReadsList()) {
            byte[] b = r.getBegin().toByteArray();
            byte[] e = r.getEnd().toByteArray();
            boolean empty = Arrays.equals(b, e);
            for (UncertainWrite w : earlier) {
                boolean overlaps = empty ? Arrays.compareUnsigned(w.begin(), b) < 0 && Arrays.compareUnsigned(b, w.end()) <= 0
                        : Arrays.compareUnsigned(w.begin(), e) < 0 && Arrays.compareUnsigned(b, w.end()) < 0;
                if (overlaps && w.version() > tx.getReadSnapshot()) {
                    return true;
                }
            }
            for (UncertainWrite w : thisBatch) {
                if (!empty && Arrays.compareUnsigned(w.begin(), e) < 0 && Arrays.compareUnsigned(b, w.end()) < 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The trace and its unbounded history bytes per batch, computed once for every budget. */
    private static final class Cache {
        private static List<Batch> trace;
        private static long[] unbounded;

        static synchronized List<Batch> trace() {
            if (trace == null) {
                trace = LONGTRACE.generate().batches();
            }
            return trace;
        }

        static synchronized long[] unboundedBytes() {
            if (unbounded == null) {
                List<Batch> batches = trace();
                unbounded = new long[batches.size()];
                try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
                    ConflictBatch batch = cs.newBatch();
                    TraceBatches converter = new TraceBatches();
                    for (int b = 0; b < batches.size(); b++) {
                        converter.load(batches.get(b), batch);
                        batch.detectConflicts(batches.get(b).getVersion(), batches.get(b).getNewOldestVersion());
                        unbounded[b] = cs.stats().historyBytes();
                    }
                }
            }
            return unbounded;
        }
    }
}
