package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.tree.BruteForceOracle.Range;
import org.fdbresolver.tree.BruteForceOracle.Tx;
import org.junit.jupiter.api.Test;

/**
 * A long trace that never lets history expire, under a budget far smaller than its window: the
 * engine keeps {@code historyBytes <= budget} after every batch, raises its retained boundary
 * monotonically, and decides every transaction exactly as the unbounded oracle (FoundationDB's rules
 * with all history) — or answers TOO_OLD, and that only once the budget has bitten. Every COMMIT and
 * CONFLICT, and every list of conflicting reads, is the oracle's.
 */
class TreeBudgetTest {

    @Test
    void longTraceUnderTinyBudget() {
        for (long seed = 1; seed <= 4; seed++) {
            run(seed, 128, 3 * 1024, 700);
        }
        // 256-byte nodes: at 512 the least budget (16 nodes) holds this trace's whole history since every batch's writes
        // take the partitions' bound, which is tighter than the single writes' per-step one (2026-12-07).
        run(9, 256, 4 * 1024, 500);
    }

    /** The same with keys that share a 12-byte prefix, rare outliers shortening it, and clears resetting it. */
    @Test
    void longTraceUnderTinyBudgetWithSharedPrefixes() {
        for (long seed = 20; seed <= 22; seed++) {
            run(seed, 128, 4 * 1024, 500, 12);
        }
    }

    /**
     * Keys under 6–30 subspace prefixes with long tails and rare outliers: leaves with prefixes of their own
     * ({@link LeafPrefixes}) lowered, merged and freed as the budget drops the oldest history.
     */
    @Test
    void longTraceUnderTinyBudgetWithLeavesOfTheirOwnPrefix() {
        int[] maxLocal = {0};
        for (long seed = 30; seed <= 33; seed++) {
            run(seed, seed % 2 == 0 ? 128 : 256, seed % 2 == 0 ? 6 * 1024 : 12 * 1024, 600, -1, 6 + (int) (seed % 4) * 8,
                    tree -> maxLocal[0] = Math.max(maxLocal[0], tree.localLeaves()));
        }
        assertTrue(maxLocal[0] > 0, "no leaf ever had a prefix of its own");
    }

    private static void run(long seed, int nodeBytes, long budget, int batches) {
        run(seed, nodeBytes, budget, batches, -1);
    }

    private static void run(long seed, int nodeBytes, long budget, int batches, int familyLength) {
        run(seed, nodeBytes, budget, batches, familyLength, 0, tree -> { });
    }

    private static void run(long seed, int nodeBytes, long budget, int batches, int familyLength, int subspaces,
                            java.util.function.Consumer<HistoryTree> afterBatch) {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                .maxKeyBytes(64).option("nodeBytes", Integer.toString(nodeBytes)).option("keyBlockBytes", "128").build();
        try (ConflictSet cs = ConflictSet.open(config)) {
            HistoryTree tree = ((TreeEngine) cs.engine()).tree();
            BruteForceOracle oracle = new BruteForceOracle();
            RandomTraces gen = new RandomTraces(seed, 5, 0.25);
            gen.wideFraction = 0.03;
            if (familyLength >= 0) {
                gen.family = gen.familyOf(familyLength);
                gen.outlierFraction = 0.002;
            }
            if (subspaces > 0) {
                gen.subspaces = gen.subspacesOf(subspaces);
                gen.longTails = true;
                gen.outlierFraction = 0.003;
            }
            ConflictBatch batch = cs.newBatch();
            long now = 0;
            long lastRetained = 0;
            long extraTooOld = 0;
            long extraAboveBoundary = 0;
            long commits = 0;
            for (int b = 0; b < batches; b++) {
                now += 1 + gen.nextInt(3);
                List<Tx> txs = gen.batch(now, Math.max(0, now - 40), 16);
                String where = "seed " + seed + " batch " + b + " (version " + now + ")";
                long retained = cs.engine().retainedVersion();
                RandomTraces.fill(batch, txs);
                BatchResult r = batch.detectConflicts(now, 0);
                BruteForceOracle.Result expected = oracle.detect(txs, now, 0, 0);
                List<int[]> reports = RandomTraces.reports(r);
                for (int t = 0; t < txs.size(); t++) {
                    byte want = expected.decisions()[t];
                    Decision got = r.decision(t);
                    if (got.code() != want) {
                        assertEquals(Decision.TOO_OLD, got, where + " transaction " + t + ": only TOO_OLD may differ");
                        assertTrue(retained > 0, where + ": TOO_OLD beyond FoundationDB before the budget bit");
                        extraTooOld++;
                        if (txs.get(t).snapshot() >= retained) {
                            extraAboveBoundary++; // it read what a transaction made TOO_OLD by the budget wrote
                        }
                    } else {
                        assertArrayEquals(expected.conflictingReads().get(t), reports.get(t), where + " transaction " + t);
                    }
                    if (got == Decision.COMMIT) {
                        commits++;
                    }
                }
                assertTrue(cs.engine().historyBytes() <= budget, where + ": " + cs.engine().historyBytes() + " bytes over the budget");
                assertTrue(cs.engine().retainedVersion() >= lastRetained, where + ": retained went down");
                lastRetained = cs.engine().retainedVersion();
                tree.checkInvariants();
                ((TreeEngine) cs.engine()).uncertainTree().checkInvariants();
                afterBatch.accept(tree);
            }
            assertTrue(lastRetained > now / 4, "seed " + seed + ": the budget never bit (retained " + lastRetained + ")");
            assertTrue(extraTooOld > 0 && commits > batches, "seed " + seed + ": too old " + extraTooOld + ", commits " + commits);
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println("seed " + seed + ": " + extraTooOld + " extra TOO_OLD, " + extraAboveBoundary
                        + " of them above the boundary (readers of uncertain writes), " + commits + " commits");
            }
        }
    }

    @Test
    void batchLargerThanTheBudgetIsDroppedSafely() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(32 * 128)
                .option("nodeBytes", "128").build();
        try (ConflictSet cs = ConflictSet.open(config)) {
            ConflictBatch batch = cs.newBatch();
            batch.addTransaction(0, false);
            for (int i = 0; i < 300; i++) {
                byte[] k = {(byte) (i >> 8), (byte) i};
                batch.addWrite(k, new byte[] {(byte) (i >> 8), (byte) i, 0});
            }
            assertEquals(Decision.COMMIT, batch.detectConflicts(10, 0).decision(0));
            assertTrue(cs.engine().historyBytes() <= 32 * 128);
            assertTrue(cs.engine().retainedVersion() > 10, "the dropped writes' version is no longer checkable");
            // A reader at snapshot 9 would have conflicted with the dropped writes: it must be TOO_OLD.
            batch.addTransaction(9, false);
            batch.addRead(new byte[] {0, 5}, new byte[] {0, 6});
            batch.addTransaction(11, false);
            batch.addRead(new byte[] {0, 5}, new byte[] {0, 6});
            BatchResult r = batch.detectConflicts(12, 0);
            assertEquals(Decision.TOO_OLD, r.decision(0));
            assertEquals(Decision.COMMIT, r.decision(1));
        }
    }

    @Test
    void hugeVersionJumpsRebaseWithoutChangingDecisions() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").option("nodeBytes", "128").build();
        try (ConflictSet tree = ConflictSet.open(config);
             ConflictSet reference = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            RandomTraces gen = new RandomTraces(5, 3, 0.1);
            ConflictBatch tb = tree.newBatch();
            ConflictBatch rb = reference.newBatch();
            long now = 0;
            long oldest = 0;
            List<Long> steps = new ArrayList<>(List.of(1L, 3L, 1L << 29, 1L << 30, 7L, (1L << 31) + 5, 1L << 40, 2L));
            for (int b = 0; b < 200; b++) {
                now += steps.get(b % steps.size());
                if (b % 5 == 4) {
                    oldest = now - (b % 3 == 0 ? (1L << 30) : 3);
                    oldest = Math.max(oldest, 0);
                }
                List<Tx> txs = gen.batch(now, Math.max(oldest, now - 3), 8);
                RandomTraces.fill(tb, txs);
                RandomTraces.fill(rb, txs);
                BatchResult tr = tb.detectConflicts(now, oldest);
                BatchResult rr = rb.detectConflicts(now, oldest);
                long retained = tree.engine().retainedVersion();
                for (int t = 0; t < txs.size(); t++) {
                    if (tr.decision(t) != rr.decision(t)) {
                        // Only allowed where the engine's own boundary made the snapshot too old.
                        assertEquals(Decision.TOO_OLD, tr.decision(t), "batch " + b + " tx " + t);
                        assertTrue(txs.get(t).snapshot() < retained);
                    }
                }
                ((TreeEngine) tree.engine()).tree().checkInvariants();
            }
        }
    }

    /**
     * Key lengths switch from 9–12 to 40–60 bytes halfway, so key blocks freed by the first half are of
     * the wrong size classes for the second: the budget check must still never overrun nor throw.
     */
    @Test
    void keyLengthsThatSwitchSizeClassesStayWithinBudget() {
        long budget = 32 * 1024;
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                .maxKeyBytes(64).option("nodeBytes", "256").option("keyBlockBytes", "128").build();
        try (ConflictSet cs = ConflictSet.open(config)) {
            HistoryTree tree = ((TreeEngine) cs.engine()).tree();
            BruteForceOracle oracle = new BruteForceOracle();
            java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
            ConflictBatch batch = cs.newBatch();
            long now = 0;
            long commits = 0;
            for (int b = 0; b < 600; b++) {
                now += 1;
                int len = b < 300 ? 9 + rnd.nextInt(4) : 40 + rnd.nextInt(21);
                List<Tx> txs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    List<Range> reads = new ArrayList<>();
                    List<Range> writes = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        byte[] k = new byte[len];
                        Arrays.fill(k, (byte) 'q');
                        k[len - 1] = (byte) rnd.nextInt(256);
                        k[len - 2] = (byte) rnd.nextInt(4);
                        reads.add(point(k));
                        byte[] w = k.clone();
                        w[len - 1] ^= 1;
                        writes.add(point(w));
                    }
                    txs.add(new Tx(now - 1 - rnd.nextInt(3), reads, writes, false));
                }
                RandomTraces.fill(batch, txs);
                BatchResult r = batch.detectConflicts(now, 0);
                BruteForceOracle.Result expected = oracle.detect(txs, now, 0, 0);
                for (int t = 0; t < txs.size(); t++) {
                    if (r.decision(t) == Decision.COMMIT) {
                        commits++;
                    }
                    if (r.decisionCode(t) != expected.decisions()[t]) {
                        assertEquals(Decision.TOO_OLD, r.decision(t), "batch " + b + " transaction " + t + ": only TOO_OLD may differ");
                    }
                }
                assertTrue(cs.engine().historyBytes() <= budget, "batch " + b + ": over the budget");
                tree.checkInvariants();
            }
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println("key-length switch: key bytes " + tree.keyBytesInUse() + ", retained " + cs.engine().retainedVersion()
                        + ", main retained " + tree.retainedVersion() + ", uncertain bytes " + ((TreeEngine) cs.engine()).uncertainTree().historyBytes()
                        + ", commits " + commits);
            }
            assertTrue(tree.keyBytesInUse() > 0 && tree.retainedVersion() > 300);
        }
    }

    static Range point(byte[] k) {
        return new Range(k, Arrays.copyOf(k, k.length + 1));
    }
}
