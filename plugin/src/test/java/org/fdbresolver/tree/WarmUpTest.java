package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * {@code warmUpBatches}: the warm-up runs on throwaway engines and leaves nothing behind — an engine opened with it
 * decides a trace exactly as one opened without, with the same history, under a budget that binds too.
 */
class WarmUpTest {
    @Test
    void aWarmedEngineDecidesAndHoldsExactlyWhatAColdOneDoes() {
        for (long budget : new long[] {1L << 30, 96 << 10}) {
            List<ConflictSet> sets = new ArrayList<>();
            try {
                for (String warm : new String[] {"0", "300"}) {
                    sets.add(ConflictSet.open(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget)
                            .option("nodeBytes", "256").option("warmUpBatches", warm).maxKeyBytes(64).build()));
                }
                List<ConflictBatch> inputs = sets.stream().map(ConflictSet::newBatch).toList();
                ThreadCountTest.Trace trace = new ThreadCountTest.Trace(7, ThreadCountTest.Keys.MIXED);
                long now = 0;
                for (int b = 0; b < 400; b++) {
                    now += 1 + trace.rnd.nextInt(3);
                    List<ThreadCountTest.Tx> txs = trace.batch(now, 1 + trace.rnd.nextInt(40));
                    byte[] first = null;
                    for (int e = 0; e < 2; e++) {
                        ThreadCountTest.fill(inputs.get(e), txs);
                        BatchResult r = inputs.get(e).detectConflicts(now, Math.max(0, now - 300));
                        byte[] d = Arrays.copyOf(r.decisionBytes(), r.transactionCount());
                        if (e == 0) {
                            first = d;
                        } else {
                            assertArrayEquals(first, d, "budget " + budget + ", batch " + b + ": decisions");
                        }
                    }
                    assertEquals(sets.get(0).engine().historyBytes(), sets.get(1).engine().historyBytes(),
                            "budget " + budget + ", batch " + b + ": history bytes");
                }
            } finally {
                sets.forEach(ConflictSet::close);
            }
        }
    }

    /**
     * The warm-up's throwaway engines log no warning: their budgets (128 and 512 KiB) are below the 1 MiB an engine warns
     * about and bind by design (forgetting all history now and then), and a host would show those warnings as the
     * opened engine's (`bench --settle-jit` printed five of them). An engine opened with such a budget still warns.
     */
    @Test
    void theWarmUpsThrowawayEnginesLogNoWarning() {
        Logger engines = Logger.getLogger("org.fdbresolver");
        List<String> warnings = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        engines.addHandler(capture);
        try {
            long[] decided = WarmUp.run(ConflictSetConfig.builder().engine("tree").build(), 2000);
            assertTrue(decided[3] > 0, "the warm-up's budget never bound: " + Arrays.toString(decided));
            WarmUp.settle(ConflictSetConfig.builder().engine("tree").build(), 1);
            assertEquals(List.of(), warnings, "warnings of the warm-up's engines");
            new TreeEngine(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(WarmUp.WARM_UP_BUDGETS[0]).build())
                    .close();
            assertEquals(1, warnings.size(), "an engine opened with a small budget warns: " + warnings);
        } finally {
            engines.removeHandler(capture);
        }
    }

    /** The warm-up's batches decide every way a Resolver's do, so each path (too-old included) is compiled. */
    @Test
    void theSyntheticBatchesCommitConflictAndComeTooOld() {
        long[] decided = WarmUp.run(ConflictSetConfig.builder().engine("tree").build(), 600);
        for (int kind = 0; kind < 3; kind++) {
            assertTrue(decided[kind] > 0, "decision code " + kind + " never came: " + Arrays.toString(decided));
        }
    }

    /**
     * The bridge's first open with small nodes (its replay test's {@code nodeBytes=256}): the warm-up's small budgets
     * forget everything now and then, and a root that splits in a batch planned at height 0 once made the one-thread
     * writer's loads ahead read an older batch's parents, past the inner pool (an ArrayIndexOutOfBoundsException at
     * open). Every kind of decision still comes, the budget's too.
     */
    @Test
    void smallNodesWarmUpThroughRootSplitsAndBudgetResets() {
        // Leaves' prefixes from one byte of gain: the tree shapes that reached the gap (at the default 8 this trace does not).
        long[] decided = WarmUp.run(ConflictSetConfig.builder().engine("tree").option("nodeBytes", "256")
                .option("leafPrefixMinGain", "1").build(), 2000);
        for (int kind = 0; kind < 4; kind++) {
            assertTrue(decided[kind] > 0, "kind " + kind + " never came: " + Arrays.toString(decided));
        }
    }

    /**
     * The budget binds during the warm-up (reads answered TOO_OLD by it), so that the budget's paths are compiled
     * before a real budget first binds: measured, that first binding deoptimised the engine's hot methods.
     */
    @Test
    void theBudgetBindsDuringTheWarmUp() {
        long[] decided = WarmUp.run(ConflictSetConfig.builder().engine("tree").build(), 2000);
        assertTrue(decided[3] > 0, "no read was too old by the budget: " + Arrays.toString(decided));
    }

    /**
     * The settling phase stops at its bound: with 1 ms it runs exactly one round (returned negative: stopped at the
     * bound, or positive if the JIT happened to be quiet through it), and 0 runs none.
     */
    @Test
    void settlingStopsAtItsBound() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").build();
        assertEquals(1, Math.abs(WarmUp.settle(config, 1)));
        assertEquals(-1, WarmUp.settle(config, 0));
    }

    /** The settling rounds' large batches take the partitioned writes, the path a loaded Resolver's batches take. */
    @Test
    void settlingBatchesReachThePartitionedWrites() {
        TreeEngine engine = new TreeEngine(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(WarmUp.SETTLE_BUDGET)
                .build());
        try {
            long[] decided = new long[4];
            WarmUp.Driver driver = new WarmUp.Driver(engine, Integer.MAX_VALUE, decided, true);
            driver.batches(WarmUp.SETTLE_ROUND_BATCHES, WarmUp.MANY_LARGE);
            assertTrue(engine.tree().partitionedBatches() > 0, "no batch was applied by partitions");
            assertTrue(decided[0] > 0 && decided[1] > 0, "commits and conflicts: " + Arrays.toString(decided));
        } finally {
            engine.close();
        }
    }
}
