package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * One batch on more than one thread (issue 18): the same traces through engines that differ only in
 * {@code threads}, batch by batch. Decisions and conflicting reads must be identical, and so must the trees —
 * every entry's key and version, the node and key-block bytes, the height, the retained boundary — with and
 * without a memory budget, since how a batch's work is cut between threads must never change what the
 * history holds. Every batch's writes go by partitions and its reads by slices, on tiny nodes, so that many
 * splits are published at once and partition boundaries fall everywhere. The stress test runs more threads
 * than the machine has cores and checks every invariant after every batch.
 */
class ThreadCountTest {
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12) / 4 + 1;

    /**
     * Key shapes: 8-byte integers (inline), 12 decimal digits (key blocks), 7–15 bytes of mixed shapes, those
     * with one key in 64 long (300 to 6,000 bytes: in a key block, or in an array of its own from a quarter block),
     * and keys as the tuple layer writes them under 24 subspaces (leaves with prefixes of their own, {@link LeafPrefixes};
     * one key in 500 cut short inside its subspace's prefix).
     */
    enum Keys { INT8, DECIMAL12, MIXED, LARGE, TUPLE }

    /** The long keys' lengths in {@link Keys#LARGE}: a 4 KiB key block takes chunks below 1,024 bytes. */
    private static final int[] LARGE_LENGTHS = {300, 1_500, 6_000};

    @Test
    void sameHistoryForEveryThreadCount() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            for (Keys keys : Keys.values()) {
                run(seed, keys, seed % 2 == 0 ? 128 : 256, 1L << 30, 160, 2_000, new int[] {1, 2, 4}, 10);
            }
        }
    }

    @Test
    void sameDecisionsAndBudgetEvictionsForEveryThreadCount() {
        for (int seed = 50; seed < 50 + SEEDS; seed++) {
            for (Keys keys : Keys.values()) {
                // Tuple keys hold fewer entries in as many bytes: a smaller budget bites as soon.
                Outcome o = run(seed, keys, 128, keys == Keys.TUPLE ? 64 << 10 : 160 << 10, 200, 1_000_000, new int[] {1, 2, 4}, 10);
                assertTrue(o.evictions + o.raises > 0, "seed " + seed + " " + keys + ": the budget never bit");
            }
        }
    }

    /** More threads than cores, many batches, every invariant after every batch. */
    @Test
    void stressWithMoreThreadsThanCores() {
        int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors() + 1);
        for (Keys keys : Keys.values()) {
            run(900 + keys.ordinal(), keys, 128, 1L << 30, 400, 600, new int[] {1, threads}, 1);
        }
    }

    record Outcome(long evictions, long raises) {
    }

    /**
     * Runs one trace through one engine per thread count; every batch compares decisions, conflicting reads and
     * the trees' figures, every {@code checkEvery} batches the invariants and every entry.
     */
    private static Outcome run(long seed, Keys keys, int nodeBytes, long budget, int batches, long window, int[] threadCounts,
                               int checkEvery) {
        List<ConflictSet> sets = new ArrayList<>();
        try {
            for (int threads : threadCounts) {
                ConflictSetConfig.Builder config = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget);
                if (keys != Keys.LARGE) {
                    config.maxKeyBytes(64);
                }
                Map.of("nodeBytes", Integer.toString(nodeBytes), "keyBlockBytes", "4096", "threads", Integer.toString(threads),
                        "writesPerPartition", "4", "readsPerSlice", "8", "endpointsPerSlice", "16",
                        "readBatchedFromBytes", seed % 2 == 0 ? "0" : "1000000000").forEach(config::option);
                // Leaves of a few entries with prefixes from one byte of gain lower so often that the partitions refuse
                // most batches (a lowered suffix key needs a chunk, which a part cannot take): these tests are about
                // the partitions, so their leaves take prefixes of 8 bytes of gain whatever the default.
                config.option("leafPrefixMinGain", "8");
                sets.add(ConflictSet.open(config.build()));
            }
            List<ConflictBatch> inputs = sets.stream().map(ConflictSet::newBatch).toList();
            Trace trace = new Trace(seed, keys);
            long now = 0;
            int maxLocalLeaves = 0;
            for (int b = 0; b < batches; b++) {
                now += 1 + trace.rnd.nextInt(3);
                long oldest = Math.max(0, now - window);
                List<Tx> txs = trace.batch(now, 20 + trace.rnd.nextInt(300));
                String where = "seed " + seed + " " + keys + " " + nodeBytes + "-byte nodes, budget " + budget + ", batch " + b;
                byte[] decisions = null;
                List<int[]> reads = null;
                for (int e = 0; e < sets.size(); e++) {
                    ConflictBatch in = inputs.get(e);
                    fill(in, txs);
                    BatchResult r = in.detectConflicts(now, oldest);
                    byte[] d = Arrays.copyOf(r.decisionBytes(), r.transactionCount());
                    List<int[]> rr = RandomTraces.reports(r);
                    if (e == 0) {
                        decisions = d;
                        reads = rr;
                    } else {
                        String who = where + ", threads " + threadCounts[e] + " vs " + threadCounts[0];
                        assertArrayEquals(decisions, d, who + ": decisions");
                        TreeEngineDifferentialTest.assertReports(reads, rr, who + ": conflicting reads");
                    }
                }
                HistoryTree first = tree(sets.getFirst());
                if (keys == Keys.TUPLE && b % 10 == 0) {
                    maxLocalLeaves = Math.max(maxLocalLeaves, first.localLeaves());
                }
                boolean full = b % checkEvery == 0 || b == batches - 1;
                for (int e = 0; e < sets.size(); e++) {
                    HistoryTree t = tree(sets.get(e));
                    String who = where + ", threads " + threadCounts[e];
                    if (full) {
                        try {
                            t.checkInvariants();
                        } catch (AssertionError x) {
                            throw new AssertionError(who + ": " + x.getMessage(), x);
                        }
                    }
                    assertTrue(t.historyBytes() <= budget, who + ": over the budget");
                    if (e > 0) {
                        assertSameFigures(first, t, who);
                        assertEquals(first.boundaryRaises(), t.boundaryRaises(), who + ": raises ahead of need");
                        if (full) {
                            assertSameEntries(first, t, who);
                        }
                    }
                }
            }
            HistoryTree one = tree(sets.getFirst());
            if (keys == Keys.TUPLE) {
                assertTrue(maxLocalLeaves > 0, "seed " + seed + ": no leaf had a prefix of its own");
            }
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println("seed " + seed + " " + keys + ": height " + one.height() + ", leaves " + one.leavesInUse()
                        + ", partitioned " + one.partitionedBatches() + ", evictions " + one.evictions() + ", history bytes "
                        + one.historyBytes() + ", leaves with a prefix of their own (most) " + maxLocalLeaves);
            }
            // Under a budget a batch goes by partitions only when the budget has room for the most they can add.
            long wanted = budget < 1L << 30 ? batches / 10 : batches / 2;
            assertTrue(one.partitionedBatches() > wanted, "seed " + seed + ": only " + one.partitionedBatches()
                    + " batches went by partitions");
            for (int e = 1; e < sets.size(); e++) {
                long[] c = tree(sets.get(e)).partitionCounters();
                String who = "seed " + seed + " " + keys + ", threads " + threadCounts[e];
                assertTrue(c[0] > wanted / 2, who + ": only " + c[0] + " batches were cut into several partitions");
                assertTrue(c[1] > 0, who + ": no split was installed after a phase");
                assertTrue(c[3] > 0, who + ": no sweep went by leaf parents");
                if (Boolean.getBoolean("tree.verbose")) {
                    System.out.println(who + ": " + c[0] + " batches in several partitions, " + c[1] + " splits installed, "
                            + c[2] + " siblings took entries, " + c[3] + " sweeps by parents; " + one.partitionedBatches() + " of " + batches
                            + " batches by partitions; height " + one.height() + ", leaves " + one.leavesInUse()
                            + ", evictions " + one.evictions());
                }
            }
            return new Outcome(one.evictions(), one.boundaryRaises());
        } finally {
            sets.forEach(ConflictSet::close);
        }
    }

    private static HistoryTree tree(ConflictSet cs) {
        return ((TreeEngine) cs.engine()).tree();
    }

    /** The figures two trees that must be the same agree on: bytes, nodes, key bytes, height, boundary, evictions. */
    static void assertSameFigures(HistoryTree first, HistoryTree t, String who) {
        assertEquals(first.historyBytes(), t.historyBytes(), who + ": history bytes");
        assertEquals(first.leavesInUse(), t.leavesInUse(), who + ": leaves");
        assertEquals(first.innersInUse(), t.innersInUse(), who + ": inner nodes");
        assertEquals(first.keyBytesInUse(), t.keyBytesInUse(), who + ": key bytes");
        assertEquals(first.height(), t.height(), who + ": height");
        assertEquals(first.retainedVersion(), t.retainedVersion(), who + ": retained version");
        assertEquals(first.evictions(), t.evictions(), who + ": evictions");
    }

    static void assertSameEntries(HistoryTree expected, HistoryTree actual, String where) {
        var a = expected.entries();
        var b = actual.entries();
        assertEquals(a.size(), b.size(), where + ": entry count");
        for (int i = 0; i < a.size(); i++) {
            assertArrayEquals(a.get(i).getKey(), b.get(i).getKey(), where + ": key of entry " + i);
            assertEquals(a.get(i).getValue(), b.get(i).getValue(), where + ": version of entry " + i);
        }
    }

    record Range(byte[] begin, byte[] end) {
    }

    record Tx(long snapshot, boolean report, List<Range> reads, List<Range> writes) {
    }

    static void fill(ConflictBatch batch, List<Tx> txs) {
        batch.clear();
        for (Tx tx : txs) {
            batch.addTransaction(tx.snapshot(), tx.report());
            for (Range r : tx.reads()) {
                batch.addRead(r.begin(), r.end());
            }
            for (Range w : tx.writes()) {
                batch.addWrite(w.begin(), w.end());
            }
        }
    }

    /** Batches over a key space large enough for trees of many levels: point, narrow, wide and empty ranges. */
    static final class Trace {
        final SplittableRandom rnd;
        final Keys keys;
        final int keyspace;
        final byte[] prefix;

        Trace(long seed, Keys keys) {
            this.rnd = new SplittableRandom(seed * 31 + keys.ordinal());
            this.keys = keys;
            this.keyspace = 20_000 + rnd.nextInt(200_000);
            this.prefix = "tenant/".getBytes(StandardCharsets.US_ASCII);
        }

        List<Tx> batch(long now, int count) {
            List<Tx> txs = new ArrayList<>();
            for (int t = 0; t < count; t++) {
                long lag = rnd.nextInt(10) == 0 ? rnd.nextInt(5_000) : rnd.nextInt(8);
                List<Range> reads = new ArrayList<>();
                List<Range> writes = new ArrayList<>();
                for (int i = 0, n = rnd.nextInt(5); i < n; i++) {
                    reads.add(range(5));
                }
                for (int i = 0, n = rnd.nextInt(4); i < n; i++) {
                    writes.add(range(1));
                }
                txs.add(new Tx(now - 1 - lag, rnd.nextInt(4) == 0, reads, writes));
            }
            return txs;
        }

        /** A point range (half), a narrow one, a wide one ({@code widePercent} %) or an empty one (2 %). */
        private Range range(int widePercent) {
            int k = rnd.nextInt(keyspace);
            int kind = rnd.nextInt(100);
            if (kind < 50) {
                byte[] b = key(k);
                return new Range(b, Arrays.copyOf(b, b.length + 1));
            }
            if (kind < 98 - widePercent) {
                return ordered(key(k), key(k + 1 + rnd.nextInt(20)));
            }
            if (kind < 98) {
                return ordered(key(k), key(k + rnd.nextInt(keyspace / 20 + 1)));
            }
            byte[] b = key(k);
            return new Range(b, b);
        }

        private static Range ordered(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b) <= 0 ? new Range(a, b) : new Range(b, a);
        }

        private byte[] key(int k) {
            return switch (keys) {
                case INT8 -> ByteBuffer.allocate(8).putLong(k).array();
                case DECIMAL12 -> String.format("%012d", k).getBytes(StandardCharsets.US_ASCII);
                case MIXED -> mixed(k);
                case TUPLE -> tuple(k);
                case LARGE -> {
                    // MIXED's key, one in 64 padded to a long length (always the same for the same k, so that a long
                    // key written again is found in the tree and its new chunk given back).
                    byte[] m = mixed(k);
                    int h = (k * 0x9E3779B1) >>> 26;
                    if (h != 0) {
                        yield m;
                    }
                    byte[] b = Arrays.copyOf(m, LARGE_LENGTHS[Integer.remainderUnsigned(k, LARGE_LENGTHS.length)]);
                    Arrays.fill(b, m.length, b.length, (byte) '~');
                    yield b;
                }
            };
        }

        /** The subspaces of {@link Keys#TUPLE}: 12–40 bytes, some sharing their first element. */
        private static final byte[][] SUBSPACES = subspaces();

        private static byte[][] subspaces() {
            SplittableRandom r = new SplittableRandom(29);
            String[] apps = {"shop", "crm", "ledger"};
            byte[][] out = new byte[24][];
            for (int i = 0; i < out.length; i++) {
                String path = "\u0002" + apps[r.nextInt(apps.length)] + "\u0000\u0002" + "table" + i + "x".repeat(r.nextInt(20))
                        + "\u0000\u0015" + (char) (1 + i);
                out[i] = path.getBytes(StandardCharsets.ISO_8859_1);
            }
            return out;
        }

        /**
         * Keys in the integers' order under {@link #SUBSPACES} (contiguous runs of integers per subspace): records
         * ({@code 0x18} and a 4-byte id) in even subspaces, index entries (a {@code "value-"} string of 6 digits, then
         * a 2-byte id) in odd ones, so that neighbouring keys agree past 8 bytes after a leaf's prefix.
         */
        private byte[] tuple(int k) {
            int sub = (int) ((long) k * SUBSPACES.length / keyspace);
            byte[] prefix = SUBSPACES[Math.min(sub, SUBSPACES.length - 1)];
            if (rnd.nextInt(500) == 0) {
                return Arrays.copyOf(prefix, rnd.nextInt(prefix.length)); // a key between subspaces
            }
            ByteBuffer b = ByteBuffer.allocate(prefix.length + 20).put(prefix);
            if (sub % 2 == 0) {
                b.put((byte) 0x18).putInt(k);
            } else {
                b.put((byte) 0x02).put(String.format("value-%06d", k / 3).getBytes(StandardCharsets.US_ASCII)).put((byte) 0)
                        .put((byte) 0x16).putShort((short) k);
            }
            return Arrays.copyOf(b.array(), b.position());
        }

        /**
         * 7..15 bytes, in the integers' order: six base-36 digits after a byte, then 0..8 bytes, so that inline keys
         * and key-block keys, and keys that are prefixes of their neighbours, mix.
         */
        private static byte[] mixed(int k) {
            String digits = Integer.toString(k, 36);
            String body = "t" + "0".repeat(6 - digits.length()) + digits + "~".repeat((k * 7) % 9);
            return body.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
