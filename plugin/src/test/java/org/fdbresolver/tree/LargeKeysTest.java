package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.tree.BruteForceOracle.Tx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys of any length, as FoundationDB's Resolver accepts them (it has no conflict-range key limit): keys
 * far past a key block (own arrays in the {@link KeyArena}), past the chunk header's length field (1 MiB),
 * sharing all but their last bytes, decide exactly as the oracle; under a budget they are accounted,
 * and the heap the history's arrays take never passes the engine's reservation, also when the key
 * lengths of the trace change under it; at one thread and when a batch's writes go by partitions on 2 and 4.
 */
class LargeKeysTest {
    private static final int[] LENGTHS = {100, 5_000, 70_000, (1 << 20) + 77};

    /**
     * One thread (the defaults); 2 and 4 threads with the reads in slices of one, the sort and the combining across
     * threads; and 1, 2 and 4 threads with the writes cut into partitions of one write (issue 18): the partitions' key
     * chunks, large keys' arrays included, are taken by one thread before the phase and written by the partitions
     * during it.
     */
    static List<Map<String, String>> threadOptions() {
        List<Map<String, String>> options = new ArrayList<>();
        options.add(Map.of());
        for (String threads : List.of("2", "4")) {
            options.add(Map.of("threads", threads, "readsPerSlice", "1", "endpointsPerSlice", "1"));
        }
        for (String threads : List.of("1", "2", "4")) {
            options.add(Map.of("threads", threads, "writesPerPartition", "1",
                    "readsPerSlice", "1", "endpointsPerSlice", "1"));
        }
        return options;
    }


    @ParameterizedTest
    @MethodSource("threadOptions")
    void keysOfAnyLengthDecideAsTheOracle(Map<String, String> threads) {
        for (String keyBlockBytes : List.of("256", "65536")) {
            for (long seed = 1; seed <= 3; seed++) {
                ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine("tree").option("nodeBytes", "256")
                        .option("keyBlockBytes", keyBlockBytes);
                threads.forEach(config::option);
                assertEquals(Integer.MAX_VALUE, config.build().maxKeyBytes(), "no key limit by default");
                run(config.build(), seed, 120, false);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("threadOptions")
    void largeKeysUnderABudgetStayWithinItsReservation(Map<String, String> threads) {
        for (long seed = 11; seed <= 12; seed++) {
            ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(1 << 20)
                    .option("nodeBytes", "512");
            threads.forEach(config::option);
            run(config.build(), seed, 500, true);
        }
    }

    private static void run(ConflictSetConfig config, long seed, int batches, boolean budgeted) {
        try (ConflictSet cs = ConflictSet.open(config)) {
            TreeEngine engine = (TreeEngine) cs.engine();
            HistoryTree tree = engine.tree();
            BruteForceOracle oracle = new BruteForceOracle();
            RandomTraces gen = new RandomTraces(seed, budgeted ? 10 : 5, 0.2);
            if (budgeted) {
                // Many distinct keys and few wide writes, so that the history grows past the budget.
                gen.wideFraction = 0;
                gen.hugeTailBytes = 5;
            }
            gen.hugeLengths = budgeted ? new int[] {2_000, 20_000, 100_000} : LENGTHS;
            gen.hugeFraction = budgeted ? 0.1 : 0.08;
            ConflictBatch batch = cs.newBatch();
            long now = 0;
            long lastRetained = 0;
            long extraTooOld = 0;
            long longestKey = 0;
            long peakLate = 0;
            for (int b = 0; b < batches; b++) {
                // Under a budget: huge keys first, then 40-to-52-byte point writes only (a history that grows until the
                // budget binds), which cannot reuse the chunks the long keys left in the key blocks: the pools'
                // shares of the reservation change under them.
                if (budgeted && b == batches / 3) {
                    gen.hugeOff = true;
                    gen.family = gen.familyOf(40);
                    gen.pointsOnly = true;
                }
                now += 1 + gen.nextInt(3);
                List<Tx> txs = gen.batch(now, Math.max(0, now - 60), budgeted ? 30 : 8);
                for (Tx tx : txs) {
                    for (var r : tx.writes()) {
                        longestKey = Math.max(longestKey, Math.max(r.begin().length, r.end().length));
                    }
                }
                String where = "seed " + seed + " " + config.options() + " batch " + b;
                long retained = cs.engine().retainedVersion();
                RandomTraces.fill(batch, txs);
                BatchResult r = batch.detectConflicts(now, 0);
                BruteForceOracle.Result expected = oracle.detect(txs, now, 0, 0);
                List<int[]> reports = RandomTraces.reports(r);
                for (int t = 0; t < txs.size(); t++) {
                    if (r.decision(t).code() != expected.decisions()[t]) {
                        assertTrue(budgeted, where + " transaction " + t + ": " + r.decision(t) + ", the oracle "
                                + Decision.ofCode(expected.decisions()[t]));
                        assertEquals(Decision.TOO_OLD, r.decision(t), where + " transaction " + t + ": only TOO_OLD may differ");
                        assertTrue(retained > 0, where + ": TOO_OLD beyond FoundationDB before the budget bit");
                        extraTooOld++;
                    } else {
                        assertArrayEquals(expected.conflictingReads().get(t), reports.get(t), where + " transaction " + t);
                    }
                }
                long reserved = tree.reservedBytes() + engine.uncertainTree().reservedBytes();
                assertTrue(reserved <= tree.reservationLimit(), where + ": " + reserved + " bytes of arrays, over the "
                        + tree.reservationLimit() + " reserved");
                assertTrue(cs.engine().historyBytes() <= config.memoryBudgetBytes(), where + ": over the budget");
                assertTrue(cs.engine().retainedVersion() >= lastRetained, where + ": retained went down");
                lastRetained = cs.engine().retainedVersion();
                if (System.getProperty("debugKeys") != null && b % 25 == 0) {
                    System.out.println("b " + b + " history " + cs.engine().historyBytes() + " keys " + tree.keyBytesInUse()
                            + " reserved " + (tree.reservedBytes() + engine.uncertainTree().reservedBytes()) + " evictions "
                            + tree.evictions() + " forgotten " + tree.forgottenBatches() + " retained " + lastRetained + " now " + now);
                }
                if (b >= 2 * batches / 3) {
                    peakLate = Math.max(peakLate, cs.engine().historyBytes());
                }
                tree.checkInvariants();
                engine.uncertainTree().checkInvariants();
            }
            assertTrue(longestKey > (budgeted ? 90_000 : 1 << 20), "the trace wrote no huge key: " + longestKey);
            boolean partitions = config.options().containsKey("writesPerPartition");
            if (partitions) {
                // The partitions' path really ran: batches by partitions, splits published after their phases.
                long[] c = tree.partitionCounters();
                assertTrue(tree.partitionedBatches() > batches / 4, "only " + tree.partitionedBatches() + " of " + batches
                        + " batches went by partitions");
                assertTrue(c[1] > 0, "no split was installed after a phase: " + Arrays.toString(c));
            }
            if (budgeted) {
                assertTrue(lastRetained > 0 && extraTooOld > 0, "seed " + seed + ": the budget never bit");
                // Short keys after long ones still fill the budget (the last huge keys held make the separator
                // estimate cautious until they go): the reservation did not starve them, nor did separators holding
                // huge keys' chunks (PartitionWriter#separatorBetween).
                assertTrue(peakLate >= config.memoryBudgetBytes() / 2,
                        "seed " + seed + ": at most " + peakLate + " history bytes in the last third");
            }
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println("seed " + seed + " " + config.options() + ": longest key " + longestKey + ", "
                        + extraTooOld + " extra TOO_OLD, history " + cs.engine().historyBytes() + ", reserved "
                        + (tree.reservedBytes() + engine.uncertainTree().reservedBytes()) + " of " + tree.reservationLimit()
                        + (budgeted ? ", peak history in the last third " + peakLate : ""));
            }
        }
    }

    @Test
    void arenaAccountsLargeKeysExactlyAndGivesTheirMemoryBack() {
        Reservation reservation = new Reservation(1L << 30);
        KeyArena arena = new KeyArena(4096, reservation);
        byte[] big = new byte[(1 << 20) + 3];
        Arrays.fill(big, (byte) 7);
        int small = arena.allocate(big, 0, 100);
        long afterSmall = reservation.reserved();
        int unit = arena.allocate(big, 0, big.length);
        assertEquals(big.length, arena.length(unit), "a length beyond the header's field");
        assertEquals(KeyArena.chunkBytes(100) + KeyArena.chunkBytes(big.length), arena.bytesInUse());
        assertEquals(afterSmall + KeyArena.HEADER + big.length + Reservation.ARRAY_HEADER_BYTES, reservation.reserved());
        assertEquals((1 << 21) - 1, arena.longestKeyBound());
        arena.retain(unit);
        arena.release(unit);
        assertEquals(1, arena.refs(unit), "one reference left");
        assertArrayEquals(big, Arrays.copyOfRange(arena.block(unit), arena.offset(unit), arena.offset(unit) + big.length));
        arena.release(unit);
        assertEquals(afterSmall, reservation.reserved(), "a freed large key's array goes back at once");
        assertEquals(KeyArena.chunkBytes(100), arena.bytesInUse());
        assertEquals(127, arena.longestKeyBound());
        int again = arena.allocate(big, 0, 5000);
        assertEquals(unit, again, "the freed slot is reused");
        arena.release(again);
        arena.release(small);
        arena.clear();
        assertEquals(0, reservation.reserved());
    }

    /**
     * The partitions' way of taking chunks: {@link KeyArena#reserve} by one thread (every shared step and count),
     * {@link KeyArena#fill} later by the threads, each its own chunks. Counts and reservation are exactly those of
     * {@link KeyArena#allocate}, for a large key too, and the chunks' bytes are what the threads wrote.
     */
    @Test
    void reservedChunksFilledByThreadsAreAccountedAsAllocated() throws Exception {
        int[] lengths = {20, 100, 900, 1021, 5000, (1 << 20) + 5, 60, 3000};
        Reservation viaAllocate = new Reservation(1L << 30);
        Reservation viaReserve = new Reservation(1L << 30);
        KeyArena allocated = new KeyArena(4096, viaAllocate);
        KeyArena reserved = new KeyArena(4096, viaReserve);
        byte[][] keys = new byte[lengths.length][];
        int[] units = new int[lengths.length];
        for (int i = 0; i < lengths.length; i++) {
            keys[i] = new byte[lengths[i]];
            Arrays.fill(keys[i], (byte) (i + 1));
            assertEquals(allocated.allocate(keys[i], 0, lengths[i]), units[i] = reserved.reserve(lengths[i]), "key " + i);
        }
        assertEquals(allocated.bytesInUse(), reserved.bytesInUse(), "bytes in use counted at reserve");
        assertEquals(viaAllocate.reserved(), viaReserve.reserved(), "arrays taken at reserve");
        assertEquals(allocated.longestKeyBound(), reserved.longestKeyBound(), "length classes counted at reserve");
        assertEquals(allocated.longestKeysBound(3), reserved.longestKeysBound(3));
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int first = t;
            threads[t] = new Thread(() -> {
                for (int i = first; i < lengths.length; i += threads.length) {
                    reserved.fill(units[i], keys[i], 0, lengths[i], 1 + i % 2);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        for (int i = 0; i < lengths.length; i++) {
            assertEquals(lengths[i], reserved.length(units[i]), "key " + i + "'s length");
            assertEquals(1 + i % 2, reserved.refs(units[i]), "key " + i + "'s references");
            assertArrayEquals(keys[i], Arrays.copyOfRange(reserved.block(units[i]), reserved.offset(units[i]),
                    reserved.offset(units[i]) + lengths[i]), "key " + i + "'s bytes");
        }
        for (int i = 0; i < lengths.length; i++) {
            for (int r = 0; r < 1 + i % 2; r++) {
                reserved.release(units[i]);
            }
            allocated.release(units[i]);
        }
        assertEquals(0, reserved.bytesInUse());
        assertEquals(0, reserved.longestKeyBound());
        assertEquals(viaAllocate.reserved(), viaReserve.reserved(), "large keys' arrays given back");
    }
}

