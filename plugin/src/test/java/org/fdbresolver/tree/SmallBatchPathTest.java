package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * Small batches (issue 30) go by their own paths — the direct path (no sort: one descent per read, reads compared
 * with the earlier writes directly, the writes combined by a short sort of their own) and a comparison sort of the
 * endpoints in place of radix passes — and must end exactly where the large-batch path ends. The same traces, mostly
 * batches of one to six transactions as a real Resolver sees them with a larger one now and then, through engines
 * that differ only in the paths they may take: radix passes and no direct path (the large-batch path), the defaults,
 * every batch sorted by comparison, every batch by the direct path, and every batch checked against the history
 * first and then sorted (a small batch whose reads meet too many earlier writes for the direct path). Decisions, conflicting reads and both trees
 * (bytes, leaves, inner nodes, key bytes, height, retained boundary, every entry) must be identical after every batch,
 * with a budget that never binds and one that does (the uncertain writes of budget TOO_OLD transactions included),
 * on keys drawn from a large keyspace and from a few hot keys (intra-batch conflicts, overlapping and touching writes).
 */
class SmallBatchPathTest {
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12) / 4 + 1;
    private static final String MAX = Integer.toString(Integer.MAX_VALUE);
    /** Engine options of each path; the first is the large-batch path the others are compared with. */
    private static final String[][] PATHS = {
        {"directSortEndpoints", "0", "directBatchRanges", "0"},
        {},
        {"directSortEndpoints", MAX, "directBatchRanges", "0"},
        {"directBatchRanges", MAX, "directBatchPairs", MAX},
        {"directBatchRanges", MAX, "directBatchPairs", "0"},
    };

    @Test
    void sameDecisionsAndHistoryOnEveryPath() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            for (ThreadCountTest.Keys keys : ThreadCountTest.Keys.values()) {
                run(seed, keys, false, 1L << 30, 600, 2_000);
                run(seed, keys, true, 1L << 30, 600, 2_000);
            }
        }
    }

    @Test
    void sameBudgetEvictionsOnEveryPath() {
        long evictions = 0;
        for (int seed = 70; seed < 70 + SEEDS; seed++) {
            for (ThreadCountTest.Keys keys : ThreadCountTest.Keys.values()) {
                evictions += run(seed, keys, false, 96 << 10, 800, 1_000_000);
                evictions += run(seed, keys, true, 96 << 10, 800, 1_000_000);
            }
        }
        assertTrue(evictions > 0, "the budget never bit");
    }

    /** Runs one trace through one engine per path, comparing after every batch; returns the evictions. */
    private static long run(long seed, ThreadCountTest.Keys keys, boolean hot, long budget, int batches, long window) {
        List<ConflictSet> sets = new ArrayList<>();
        try {
            for (String[] path : PATHS) {
                ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                        .option("nodeBytes", "256").option("keyBlockBytes", "4096");
                for (int i = 0; i < path.length; i += 2) {
                    config.option(path[i], path[i + 1]);
                }
                if (keys != ThreadCountTest.Keys.LARGE) {
                    config.maxKeyBytes(64);
                }
                sets.add(ConflictSet.open(config.build()));
            }
            List<ConflictBatch> inputs = sets.stream().map(ConflictSet::newBatch).toList();
            ThreadCountTest.Trace trace = new ThreadCountTest.Trace(seed, keys);
            HotKeys hotKeys = hot ? new HotKeys(seed, trace) : null;
            long now = 0;
            for (int b = 0; b < batches; b++) {
                now += 1 + trace.rnd.nextInt(3);
                long oldest = Math.max(0, now - window);
                // One to six transactions, and one batch in 20 of up to 60 (over the direct path's and the comparison
                // sort's thresholds).
                int count = trace.rnd.nextInt(20) == 0 ? 1 + trace.rnd.nextInt(60) : 1 + trace.rnd.nextInt(6);
                List<ThreadCountTest.Tx> txs = hot ? hotKeys.batch(now, count) : trace.batch(now, count);
                String where = "seed " + seed + " " + keys + (hot ? " hot" : "") + ", budget " + budget + ", batch " + b;
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
                        String who = where + ", path " + Arrays.toString(PATHS[e]);
                        assertArrayEquals(decisions, d, who + ": decisions");
                        TreeEngineDifferentialTest.assertReports(reads, rr, who + ": conflicting reads");
                    }
                }
                TreeEngine first = engine(sets.getFirst());
                for (int e = 1; e < sets.size(); e++) {
                    TreeEngine t = engine(sets.get(e));
                    String who = where + ", path " + Arrays.toString(PATHS[e]);
                    ThreadCountTest.assertSameFigures(first.tree(), t.tree(), who);
                    ThreadCountTest.assertSameFigures(first.uncertainTree(), t.uncertainTree(), who + ", uncertain writes");
                    if (b % 50 == 0 || b == batches - 1) {
                        ThreadCountTest.assertSameEntries(first.tree(), t.tree(), who);
                        ThreadCountTest.assertSameEntries(first.uncertainTree(), t.uncertainTree(), who + ", uncertain writes");
                    }
                }
            }
            return engine(sets.getFirst()).tree().evictions();
        } finally {
            sets.forEach(ConflictSet::close);
        }
    }

    private static TreeEngine engine(ConflictSet cs) {
        return (TreeEngine) cs.engine();
    }

    /**
     * Transactions over 48 keys of the trace's shape: most reads and writes meet others of the same batch, writes
     * overlap and touch ({@code [k, k+1)} next to {@code [k+1, k+3)}), and some ranges are empty.
     */
    private static final class HotKeys {
        private final SplittableRandom rnd;
        private final byte[][] key = new byte[48][];

        HotKeys(long seed, ThreadCountTest.Trace trace) {
            this.rnd = new SplittableRandom(seed ^ 0x5eed);
            // Keys of the trace's shape: the begins of its reads, sorted.
            List<byte[]> sorted = new ArrayList<>();
            while (sorted.size() < key.length) {
                for (ThreadCountTest.Tx tx : trace.batch(0, 1)) {
                    for (ThreadCountTest.Range r : tx.reads()) {
                        sorted.add(r.begin());
                    }
                }
            }
            sorted.subList(key.length, sorted.size()).clear();
            sorted.sort(Arrays::compareUnsigned);
            sorted.toArray(key);
        }

        List<ThreadCountTest.Tx> batch(long now, int count) {
            List<ThreadCountTest.Tx> txs = new ArrayList<>();
            for (int t = 0; t < count; t++) {
                long lag = rnd.nextInt(10) == 0 ? rnd.nextInt(5_000) : rnd.nextInt(8);
                List<ThreadCountTest.Range> reads = new ArrayList<>();
                List<ThreadCountTest.Range> writes = new ArrayList<>();
                for (int i = 0, n = rnd.nextInt(5); i < n; i++) {
                    reads.add(range());
                }
                for (int i = 0, n = rnd.nextInt(5); i < n; i++) {
                    writes.add(range());
                }
                txs.add(new ThreadCountTest.Tx(now - 1 - lag, rnd.nextInt(3) == 0, reads, writes));
            }
            return txs;
        }

        private ThreadCountTest.Range range() {
            int k = rnd.nextInt(key.length);
            int kind = rnd.nextInt(10);
            byte[] b = key[k];
            if (kind < 4) {
                return new ThreadCountTest.Range(b, Arrays.copyOf(b, b.length + 1));
            }
            if (kind < 9) {
                return new ThreadCountTest.Range(b, key[Math.min(key.length - 1, k + 1 + rnd.nextInt(3))]);
            }
            return new ThreadCountTest.Range(b, b);
        }
    }
}
