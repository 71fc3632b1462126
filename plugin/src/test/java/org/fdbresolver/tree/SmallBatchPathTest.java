package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * Small batches (issue 30) go by their own path — a comparison sort of the endpoints in place of radix passes —
 * and must end exactly where the large-batch path ends. The same traces, mostly batches of one to six
 * transactions as a real Resolver sees them with a larger one now and then, through engines that differ only in
 * {@code directSortEndpoints}: 0 (radix passes always), the default, and every batch by comparison. Decisions,
 * conflicting reads and the trees (bytes, leaves, inner nodes, key bytes, height, retained boundary, every entry)
 * must be identical after every batch, with a budget that never binds and one that does.
 */
class SmallBatchPathTest {
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12) / 4 + 1;
    private static final String[] DIRECT_SORT = {"0", "40", Integer.toString(Integer.MAX_VALUE)};

    @Test
    void sameDecisionsAndHistoryOnEitherSortPath() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            for (ThreadCountTest.Keys keys : ThreadCountTest.Keys.values()) {
                run(seed, keys, 1L << 30, 600, 2_000);
            }
        }
    }

    @Test
    void sameBudgetEvictionsOnEitherSortPath() {
        long evictions = 0;
        for (int seed = 70; seed < 70 + SEEDS; seed++) {
            for (ThreadCountTest.Keys keys : ThreadCountTest.Keys.values()) {
                evictions += run(seed, keys, 96 << 10, 800, 1_000_000);
            }
        }
        assertTrue(evictions > 0, "the budget never bit");
    }

    /** Runs one trace through one engine per sort path, comparing after every batch; returns the evictions. */
    private static long run(long seed, ThreadCountTest.Keys keys, long budget, int batches, long window) {
        List<ConflictSet> sets = new ArrayList<>();
        try {
            for (String directSort : DIRECT_SORT) {
                ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                        .option("nodeBytes", "256").option("keyBlockBytes", "4096").option("directSortEndpoints", directSort);
                if (keys != ThreadCountTest.Keys.LARGE) {
                    config.maxKeyBytes(64);
                }
                sets.add(ConflictSet.open(config.build()));
            }
            List<ConflictBatch> inputs = sets.stream().map(ConflictSet::newBatch).toList();
            ThreadCountTest.Trace trace = new ThreadCountTest.Trace(seed, keys);
            long now = 0;
            for (int b = 0; b < batches; b++) {
                now += 1 + trace.rnd.nextInt(3);
                long oldest = Math.max(0, now - window);
                // One to six transactions, and one batch in 20 of up to 60 (over the default's 40 endpoints).
                int count = trace.rnd.nextInt(20) == 0 ? 1 + trace.rnd.nextInt(60) : 1 + trace.rnd.nextInt(6);
                List<ThreadCountTest.Tx> txs = trace.batch(now, count);
                String where = "seed " + seed + " " + keys + ", budget " + budget + ", batch " + b;
                byte[] decisions = null;
                List<int[]> reads = null;
                for (int e = 0; e < sets.size(); e++) {
                    ThreadCountTest.fill(inputs.get(e), txs);
                    BatchResult r = inputs.get(e).detectConflicts(now, oldest);
                    byte[] d = Arrays.copyOf(r.decisionBytes(), r.transactionCount());
                    List<int[]> rr = RandomTraces.reports(r);
                    if (e == 0) {
                        decisions = d;
                        reads = rr;
                    } else {
                        String who = where + ", directSortEndpoints " + DIRECT_SORT[e];
                        assertArrayEquals(decisions, d, who + ": decisions");
                        TreeEngineDifferentialTest.assertReports(reads, rr, who + ": conflicting reads");
                    }
                }
                HistoryTree first = tree(sets.getFirst());
                for (int e = 1; e < sets.size(); e++) {
                    HistoryTree t = tree(sets.get(e));
                    String who = where + ", directSortEndpoints " + DIRECT_SORT[e];
                    ThreadCountTest.assertSameFigures(first, t, who);
                    if (b % 50 == 0 || b == batches - 1) {
                        ThreadCountTest.assertSameEntries(first, t, who);
                    }
                }
            }
            return tree(sets.getFirst()).evictions();
        } finally {
            sets.forEach(ConflictSet::close);
        }
    }

    private static HistoryTree tree(ConflictSet cs) {
        return ((TreeEngine) cs.engine()).tree();
    }
}
