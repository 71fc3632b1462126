package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Engines under a memory budget far smaller than the traces' history: after every batch the history
 * holds at most the budget and the retained boundary never goes down; every transaction is decided
 * exactly as the unbounded reference engine decides it (FoundationDB's decision, conflicting reads
 * included) or TOO_OLD — never a COMMIT or CONFLICT of its own — and TOO_OLD beyond the reference's
 * only once the budget has raised the boundary. For {@code tree}, the same budget at 2 and 4 threads (every batch's
 * writes by partitions, reads and sort in slices) must decide every transaction, list every conflicting read and
 * hold every byte exactly as at one thread, batch by batch: what the budget forgets cannot depend on the threads.
 */
class BudgetConformanceTest {
    /** Engines that honour a budget (the reference engine keeps everything). */
    private static final List<String> BUDGETED = List.of("tree");

    /** A trace, a budget, and the node size (null: the engine's default). */
    private record Budgeted(DifferentialCases.Spec spec, long budget, String nodeBytes) {
        Budgeted(DifferentialCases.Spec spec, long budget) {
            this(spec, budget, null);
        }
    }

    private static final List<Budgeted> CASES = List.of(
            // Batches of 100 transactions need well under a MiB; their history grows past the budget.
            new Budgeted(new DifferentialCases.Spec("conflictset-point", 1, 600, Map.of("txns", "100", "keyspace", "200000",
                    "window", "100000000", "max-lag-batches", "20", "report-fraction", "0.3")), 2 << 20),
            new Budgeted(new DifferentialCases.Spec("conflictset-range", 2, 600, Map.of("txns", "100", "keyspace", "2000000",
                    "window", "100000000", "max-lag-batches", "20", "report-fraction", "0.3")), 3 << 19),
            new Budgeted(new DifferentialCases.Spec("longtrace", 3, 60,
                    Map.of("window", "100000000", "lag-scale", "200000", "report-fraction", "0.3")), 1 << 20),
            // Mostly point writes over many keys, so the history grows (tens of KiB); small nodes make a
            // budget that still holds a batch's largest step bite.
            new Budgeted(new DifferentialCases.Spec("random", 4, 1500,
                    Map.of("alphabet", "200", "key-length", "8", "txns", "30", "range-fraction", "0.01", "max-lag", "200",
                            "window", "100000", "report-fraction", "0.5")), 8 << 10, "256"));

    @TestFactory
    Stream<DynamicTest> budgetOnlyAddsTooOld() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String engine : BUDGETED) {
            if (!Engines.all().containsKey(engine)) {
                continue;
            }
            for (Budgeted c : CASES) {
                // Engine tree: both read paths (the batched one is the default), and every batch by partitions and
                // slices at 1, 2 and 4 threads.
                for (String readPath : engine.equals("tree") ? List.of("batched", "single", "partitioned") : List.of("default")) {
                    tests.add(DynamicTest.dynamicTest(engine + " (" + readPath + " reads) with a " + c.budget() + "-byte budget"
                            + (c.nodeBytes() == null ? "" : " and " + c.nodeBytes() + "-byte nodes") + " on " + c.spec(),
                            () -> check(engine, c, readPath)));
                }
            }
        }
        assertTrue(!tests.isEmpty(), "no budgeted engine registered");
        return tests.stream();
    }

    private static void check(String engine, Budgeted c, String readPath) throws Exception {
        DifferentialCases.Case trace = c.spec().generate();
        ConflictSetConfig.Builder builder = ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(c.budget());
        if (c.nodeBytes() != null) {
            builder.option("nodeBytes", c.nodeBytes());
        }
        boolean partitioned = readPath.equals("partitioned");
        if (partitioned) {
            builder.option("readBatchedFromBytes", "0").option("writesPerPartition", "2")
                    .option("readsPerSlice", "4").option("endpointsPerSlice", "8");
        } else if (!readPath.equals("default")) {
            builder.option("readPath", readPath).option("readBatchedFromBytes", "0");
        }
        ConflictSetConfig config = builder.build();
        ConflictSetConfig unbounded = ConflictSetConfig.builder().engine("reference").build();
        // The same configuration at more threads: only the threads differ.
        List<ConflictSet> threaded = new ArrayList<>();
        if (partitioned) {
            for (String threads : List.of("2", "4")) {
                threaded.add(ConflictSet.open(config.toBuilder().option("threads", threads).build()));
            }
        }
        long extraTooOld = 0;
        long commits = 0;
        try (ConflictSet budgeted = ConflictSet.open(config); ConflictSet reference = ConflictSet.open(unbounded);
             AutoCloseable _ = () -> threaded.forEach(ConflictSet::close)) { // closes the threaded ones too
            ConflictBatch mine = budgeted.newBatch();
            ConflictBatch theirs = reference.newBatch();
            List<ConflictBatch> threadedBatches = threaded.stream().map(ConflictSet::newBatch).toList();
            TraceBatches converter = new TraceBatches();
            long lastRetained = 0;
            int b = 0;
            for (Batch batch : trace.batches()) {
                converter.load(batch, mine);
                converter.load(batch, theirs);
                long oldest = batch.getNewOldestVersion();
                BatchResult got = mine.detectConflicts(batch.getVersion(), oldest);
                BatchResult want = theirs.detectConflicts(batch.getVersion(), oldest);
                String where = engine + " on " + c.spec() + " batch " + b;
                List<int[]> gotReads = reads(got);
                List<int[]> wantReads = reads(want);
                for (int t = 0; t < got.transactionCount(); t++) {
                    if (got.decision(t) == want.decision(t)) {
                        assertArrayEquals(wantReads.get(t), gotReads.get(t), where + " transaction " + t + ": conflicting reads");
                    } else {
                        assertEquals(Decision.TOO_OLD, got.decision(t), where + " transaction " + t + ": only TOO_OLD may differ");
                        assertTrue(lastRetained > oldest || budgeted.stats().retainedVersion() > oldest,
                                where + ": TOO_OLD beyond the reference before the budget raised the boundary");
                        extraTooOld++;
                    }
                    if (got.decision(t) == Decision.COMMIT) {
                        commits++;
                    }
                }
                long historyBytes = budgeted.stats().historyBytes();
                assertTrue(historyBytes <= c.budget(), where + ": " + historyBytes + " history bytes over the budget");
                for (int e = 0; e < threaded.size(); e++) {
                    ConflictBatch tb = threadedBatches.get(e);
                    converter.load(batch, tb);
                    BatchResult r = tb.detectConflicts(batch.getVersion(), oldest);
                    String who = where + " at " + threaded.get(e).stats().engine() + " threads=" + (2 << e);
                    assertArrayEquals(java.util.Arrays.copyOf(got.decisionBytes(), got.transactionCount()),
                            java.util.Arrays.copyOf(r.decisionBytes(), r.transactionCount()), who + ": decisions");
                    List<int[]> rr = reads(r);
                    for (int t = 0; t < got.transactionCount(); t++) {
                        assertArrayEquals(gotReads.get(t), rr.get(t), who + " transaction " + t + ": conflicting reads");
                    }
                    assertEquals(historyBytes, threaded.get(e).stats().historyBytes(), who + ": history bytes");
                    assertEquals(budgeted.stats().retainedVersion(), threaded.get(e).stats().retainedVersion(),
                            who + ": retained version");
                }
                long retained = budgeted.stats().retainedVersion();
                assertTrue(retained >= lastRetained, where + ": the retained boundary went down");
                lastRetained = retained;
                b++;
            }
            Batch last = trace.batches().getLast();
            assertTrue(lastRetained > last.getNewOldestVersion(), "the budget never bit: pick a smaller one");
            assertTrue(commits > 0, "nothing committed");
        }
        System.out.println(engine + " on " + c.spec() + " under " + c.budget() + " bytes: " + extraTooOld
                + " TOO_OLD beyond the reference, " + commits + " commits");
    }

    private static List<int[]> reads(BatchResult r) {
        List<int[]> out = new ArrayList<>();
        for (int t = 0; t < r.transactionCount(); t++) {
            out.add(null);
        }
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            int[] reads = new int[r.conflictingReadCount(i)];
            for (int j = 0; j < reads.length; j++) {
                reads[j] = r.conflictingRead(i, j);
            }
            out.set(r.conflictingTransaction(i), reads);
        }
        return out;
    }
}
