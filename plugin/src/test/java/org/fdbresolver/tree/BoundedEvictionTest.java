package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: under a binding budget, the eviction work of every batch is bounded by that batch's size, never by the
 * history's. Batches of 1 to 400 writes, history growing far past the budget: the sweeps of every batch look at no
 * more than {@code 2 × leaf capacity + 64 × writes} entries plus one leaf (what {@link MemoryBudget#sweepWork}
 * allows), the boundary is raised ahead of need, no batch falls back on a sweep of the whole history, and the
 * history still holds most of the budget. Counted entries, not time: it holds on any machine.
 */
class BoundedEvictionTest {
    private static final long BUDGET = 4L << 20;

    /** Keys uniform over a large space: what the budget drops is spread over every leaf. */
    @Test
    void uniformKeys() {
        run(false);
    }

    /**
     * Keys that grow with the version: the oldest history is the leftmost leaves, whole leaves expire at once, and a
     * sweep that counted only what compaction keeps would walk through any number of them in one batch.
     */
    @Test
    void keysGrowingWithTheVersion() {
        run(true);
    }

    private static void run(boolean ascending) {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(BUDGET).build();
        try (ConflictSet cs = ConflictSet.open(config)) {
            HistoryTree tree = ((TreeEngine) cs.engine()).tree();
            SplittableRandom rnd = new SplittableRandom(ascending ? 7 : 3);
            ConflictBatch batch = cs.newBatch();
            // Versions far above newOldestVersion (0), as under FoundationDB's 5-second window when the budget keeps
            // far less: the census must count over the versions the history holds, not the window.
            long now = 100_000_000;
            long next = 0;
            long lastRetained = 0;
            long worst = 0;
            int fullBatches = 0;
            long leastHistory = Long.MAX_VALUE;
            for (int b = 0; b < 3_000; b++) {
                now += 10;
                int writes = 0;
                int transactions = 1 + rnd.nextInt(200);
                for (int t = 0; t < transactions; t++) {
                    batch.addTransaction(now - 1 - rnd.nextInt(50), false);
                    long r = ascending ? Math.max(0, next - rnd.nextLong(1, 100_000)) : rnd.nextLong(1L << 40);
                    batch.addRead(point(r), point(r + 1));
                    for (int w = 1 + rnd.nextInt(2); w > 0; w--) {
                        // Ascending keys two apart: adjacent writes of one batch would merge into one range.
                        long k = ascending ? (next += 2) : rnd.nextLong(1L << 40);
                        batch.addWrite(point(k), point(k + 1));
                        writes++;
                    }
                }
                batch.detectConflicts(now, 0);
                String where = (ascending ? "ascending" : "uniform") + " keys, batch " + b + " (" + writes + " writes)";
                long allowed = 2L * tree.leafCapacity() + MemoryBudget.CATCH_UP_WORK_PER_RANGE * writes;
                long swept = tree.lastBatchSweptEntries();
                assertTrue(swept <= allowed + tree.leafCapacity() + 1, where + ": the sweep looked at " + swept
                        + " entries, more than " + allowed + " and a leaf (history " + tree.historyBytes() + " bytes)");
                worst = Math.max(worst, swept / Math.max(1, writes));
                assertEquals(0, tree.evictions(), where + ": a sweep of the whole history");
                assertTrue(cs.engine().historyBytes() <= BUDGET, where + ": over the budget");
                long retained = cs.engine().retainedVersion();
                assertTrue(retained >= lastRetained, where + ": the retained boundary went down");
                lastRetained = retained;
                if (tree.boundaryRaises() > 0) {
                    fullBatches++;
                    leastHistory = Math.min(leastHistory, cs.engine().historyBytes());
                }
            }
            assertTrue(tree.boundaryRaises() > 2, "the budget was raised ahead of need only " + tree.boundaryRaises() + " times");
            assertTrue(leastHistory >= 0.85 * BUDGET, "once the budget bound, history fell to " + leastHistory + " bytes");
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println((ascending ? "ascending" : "uniform") + " keys: " + tree.boundaryRaises() + " raises ahead of need, "
                        + fullBatches + " batches after the first, least history " + leastHistory + " bytes ("
                        + Math.round(1000.0 * leastHistory / BUDGET) / 10.0 + " % of the budget), most entries swept per write "
                        + worst);
            }
            tree.checkInvariants();
        }
    }

    private static byte[] point(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }
}
