package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.pipeline.CombinedWrites;
import org.fdbresolver.tree.BruteForceOracle.Range;
import org.fdbresolver.tree.BruteForceOracle.Write;
import org.junit.jupiter.api.Test;

/**
 * The tree on its own, on tiny nodes: many point and narrow writes build a deep tree, the sweeper
 * shrinks it again; after every batch the invariants hold (order, separators, max versions, links,
 * exact byte accounting) and every read check agrees with a list of writes.
 */
class HistoryTreeTest {
    private static final int SEEDS = Integer.getInteger("tree.seeds", 6);

    @Test
    void invariantsAndReadsHoldThroughGrowthAndShrinking() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            run(seed, 128, 3, false);
        }
        run(77, 256, 2, false);
    }

    /** The same with keys of 0–10 bytes around the inline limit ({@link RandomTraces#zeroTails}). */
    @Test
    void invariantsAndReadsHoldWithKeysAroundTheInlineLimit() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            run(seed, 128, 2, true); // few distinct keys: a shallower tree
        }
    }

    private static void run(long seed, int nodeBytes, int minHeight, boolean zeroTails) {
        HistoryTree tree = new HistoryTree(nodeBytes, 256, 1L << 30);
        RandomTraces gen = new RandomTraces(seed, 5, 0.2);
        gen.wideFraction = 0.01;
        gen.zeroTails = zeroTails;
        SplittableRandom rnd = new SplittableRandom(seed * 31);
        List<Write> writes = new ArrayList<>();
        long now = 100;
        long oldest = 0;
        int maxHeight = 0;
        int maxLeaves = 0;
        for (int b = 0; b < 400; b++) {
            now += 1 + rnd.nextInt(3);
            // Grow for a while, then let the window shrink the history.
            long window = b < 250 ? 10_000 : 6;
            oldest = Math.max(oldest, now - window);
            // Dense batches now and then: many writes into the same leaves, runs that overflow them.
            List<Range> batch = disjoint(gen, 1 + rnd.nextInt(b % 10 == 0 ? 60 : 12));
            String where = "seed " + seed + " batch " + b;
            merge(tree, batch, now);
            for (Range r : batch) {
                writes.add(new Write(r.begin(), r.end(), now));
            }
            tree.removeBefore(oldest, batch.size());
            long keepFrom = oldest;
            writes.removeIf(w -> w.version() < keepFrom);
            try {
                tree.checkInvariants();
            } catch (AssertionError e) {
                throw new AssertionError(where + ": " + e.getMessage(), e);
            }
            maxHeight = Math.max(maxHeight, tree.height());
            maxLeaves = Math.max(maxLeaves, tree.leavesInUse());
            BruteForceOracle oracle = new BruteForceOracle();
            oracle.history.addAll(writes);
            for (int q = 0; q < 30; q++) {
                Range r = gen.range();
                long snapshot = oldest + rnd.nextLong(now - oldest + 2);
                byte[] keys = concat(r.begin(), r.end());
                boolean expected = oracle.conflictsWithHistory(r, snapshot);
                boolean actual = tree.conflicts(keys, 0, r.begin().length, r.begin().length, r.end().length, snapshot);
                assertEquals(expected, actual, where + ": read " + r + " at " + snapshot);
            }
        }
        assertTrue(maxHeight >= minHeight, "seed " + seed + ": the tree never got deep (height " + maxHeight + ")");
        // Once every write has expired, batches without writes let the sweeper empty the tree: each visits a
        // quarter leaf, so four batches per leaf and some to spare.
        for (int b = 0; b < 4 * maxLeaves + 20; b++) {
            now += 10;
            tree.removeBefore(now - 1, 0);
            tree.checkInvariants();
        }
        assertTrue(maxLeaves >= 8 && tree.leavesInUse() == 1 && tree.height() == 0 && tree.keyBytesInUse() == 0,
                "seed " + seed + ": the sweeper left " + tree.leavesInUse() + " of " + maxLeaves + " leaves, height "
                        + tree.height() + ", key bytes " + tree.keyBytesInUse());
        assertEquals(tree.historyBytes(), nodeBytes, "an empty history is one leaf block");
    }

    /**
     * skiplisttest's keys (a run of dots, then a 4-byte integer; here all below 2^24, so every key shares the dots and a
     * 0 byte) with leaves' prefixes from one byte of gain: every key of a leaf is a suffix key, so each leaf split from
     * it keeps its anchor, and thousands of leaves are anchored on one chunk, more than a chunk's header counts. The
     * longer golden set found this: the count wrapped, the chunk was freed under its leaves and taken for a new key.
     * Now the invariants (references recounted) hold as the tree grows and as the sweeper empties it. Single writes
     * make that many (a partition's splits anchor fewer than 40 leaves on one chunk here), so they write this tree.
     */
    @Test
    void thousandsOfLeavesAnchoredOnOneChunk() {
        HistoryTree tree = new HistoryTree(128, 256, 1L << 30);
        tree.leafPrefixMinGain(1);
        tree.useWorkersForWrites(null, 256);
        tree.writeSingly();
        SplittableRandom rnd = new SplittableRandom(16);
        long now = 100;
        int mostOnOne = 0;
        for (int b = 0; b < 8; b++) {
            List<Range> batch = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                int x = rnd.nextInt(20_000_000);
                batch.add(new Range(dotsThen(x), dotsThen(x + 1 + rnd.nextInt(10))));
            }
            batch = disjoint(batch);
            now += 1 + rnd.nextInt(3);
            merge(tree, batch, now);
            tree.removeBefore(0, batch.size());
            try {
                tree.checkInvariants();
            } catch (AssertionError e) {
                throw new AssertionError("batch " + b + ": " + e.getMessage(), e);
            }
            mostOnOne = Math.max(mostOnOne, tree.mostLeavesOnOneAnchor());
        }
        assertTrue(mostOnOne > KeyArena.HEADER_REFS_MAX, "the most leaves on one anchor were " + mostOnOne
                + ", within a header's count: the case is not reached");
        int leaves = tree.leavesInUse();
        for (int b = 0; b < 4 * leaves + 20 && tree.keyBytesInUse() > 0; b++) {
            now += 10;
            tree.removeBefore(now - 1, 0);
            if (b % 500 == 0) {
                tree.checkInvariants();
            }
        }
        tree.checkInvariants();
        assertEquals(0, tree.keyBytesInUse(), "every chunk freed once the history expired");
    }

    /**
     * The golden bank capture's account leaves: a leaf split off while it held account and transfer keys takes the
     * prefix the two subspaces share, and its longs then hold {@code account\0} for every account, so every search in
     * it ties and reads the keys' bytes. Once the transfer keys have expired and been swept, the next write into the
     * leaf gives it the longer prefix the accounts share ({@link LeafPrefixes#tightenIfTied}); the tree stays exact.
     */
    @Test
    void aLeafWhoseOtherSubspaceExpiredTakesTheLongerPrefixAtItsNextWrite() {
        HistoryTree tree = new HistoryTree(256, 256, 1L << 30);
        tree.leafPrefixMinGain(1);
        byte[] system = {(byte) 0xFF, '/', 'x'};
        List<Range> first = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            first.add(point(bankKey("account", i)));
        }
        for (int i = 0; i < 8; i++) {
            first.add(point(bankKey("transfer", i)));
        }
        first.add(point(system));
        // Keys between the bank's and the system key, so that the tree has a parent and the bank's batches take the
        // partitions' runs (a tree of one leaf takes single writes, which split a full leaf elsewhere and do not tighten).
        List<Range> between = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            between.add(point(new byte[] {0x10, (byte) i}));
        }
        merge(tree, between, 5);
        merge(tree, first, 10);
        byte[] account = bankKey("account", 0);
        int shared = account.length - 1; // what the accounts share: all but the id byte
        int before = tree.leafPrefixAt(account);
        assertTrue(before > 0 && before < shared, "the accounts' leaf should have the prefix both subspaces share, has "
                + before);
        List<Range> accounts = new ArrayList<>(first.subList(0, 5));
        merge(tree, accounts, 30);
        merge(tree, between, 30); // they stay: the tree keeps its parent
        for (int b = 0; b < 20; b++) {
            tree.removeBefore(20, 0); // the transfers and the system key expire
        }
        tree.checkInvariants();
        assertEquals(before, tree.leafPrefixAt(account), "the sweep alone keeps the leaf's prefix");
        merge(tree, List.of(accounts.getFirst()), 40);
        tree.checkInvariants();
        assertTrue(tree.leafPrefixAt(account) >= shared, "after a write the accounts' leaf should skip at least "
                + shared + " bytes, skips " + tree.leafPrefixAt(account));
    }

    /** A key as fdb-java's tuple layer packs {@code ("fdbresolver-bank", kind, id)}, the id a byte. */
    private static byte[] bankKey(String kind, int id) {
        String packed = "\u0002fdbresolver-bank\u0000\u0002" + kind + "\u0000\u0015";
        byte[] k = packed.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] out = java.util.Arrays.copyOf(k, k.length + 1);
        out[k.length] = (byte) (0x20 + id);
        return out;
    }

    private static Range point(byte[] k) {
        return new Range(k, java.util.Arrays.copyOf(k, k.length + 1));
    }

    private static byte[] dotsThen(int x) {
        byte[] k = new byte[16];
        java.util.Arrays.fill(k, 0, 12, (byte) '.');
        java.nio.ByteBuffer.wrap(k, 12, 4).putInt(x);
        return k;
    }

    /** Merges {@code ranges} (sorted, disjoint) into the tree as one batch at {@code now}. */
    static void merge(HistoryTree tree, List<Range> ranges, long now) {
        int bytes = 0;
        for (Range r : ranges) {
            bytes += r.begin().length + r.end().length;
        }
        byte[] keys = new byte[bytes];
        CombinedWrites writes = new CombinedWrites();
        writes.reset(keys);
        int at = 0;
        for (Range r : ranges) {
            System.arraycopy(r.begin(), 0, keys, at, r.begin().length);
            System.arraycopy(r.end(), 0, keys, at + r.begin().length, r.end().length);
            writes.add(at, r.begin().length, at + r.begin().length, r.end().length);
            at += r.begin().length + r.end().length;
        }
        tree.prepareMerge(now, writes, 0);
        tree.merge(writes, now);
    }

    /** Random ranges made disjoint and sorted, like a batch's combined writes. */
    private static List<Range> disjoint(RandomTraces gen, int n) {
        List<Range> rs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Range r = gen.range();
            if (!r.empty()) {
                rs.add(r);
            }
        }
        return disjoint(rs);
    }

    /** Ranges made disjoint and sorted. */
    private static List<Range> disjoint(List<Range> rs) {
        rs.sort(Comparator.comparing(Range::begin, BruteForceOracle::cmp));
        List<Range> out = new ArrayList<>();
        for (Range r : rs) {
            if (!out.isEmpty() && BruteForceOracle.cmp(r.begin(), out.getLast().end()) <= 0) {
                Range last = out.removeLast();
                byte[] end = BruteForceOracle.cmp(r.end(), last.end()) > 0 ? r.end() : last.end();
                out.add(new Range(last.begin(), end));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] k = new byte[a.length + b.length];
        System.arraycopy(a, 0, k, 0, a.length);
        System.arraycopy(b, 0, k, a.length, b.length);
        return k;
    }

    @Test
    void unknownOptionIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConflictSet.open(
                ConflictSetConfig.builder().engine("tree").option("nodeBites", "512").build()));
        // the engine is named once (callers such as the CLI print the message as it is)
        assertEquals("engine tree: unknown option 'nodeBites' (known: directBatchPairs, directBatchRanges, directSortEndpoints, endpointsPerSlice, keyBlockBytes, leafPrefixMinGain, nodeBytes, prefixLoweringLeaves, readBatchedFromBytes, readBatchedFromReads, readPath, readTouch, readWays, readsPerSlice, threads, warmUpBatches, warmUpSettleMillis, writeWays, writesPerPartition)", e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> ConflictSet.open(
                ConflictSetConfig.builder().engine("tree").option("nodeBytes", "x").build()));
        assertEquals("engine tree: option nodeBytes must be a positive integer, not 'x'", bad.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> ConflictSet.open(
                ConflictSetConfig.builder().engine("tree").option("nodeBytes", "64").build()));
        assertTrue(range.getMessage().startsWith("engine tree: nodeBytes must be within"), range.getMessage());
    }

    /**
     * A batch with a write below the tree's keys and one above them shortens the shared prefix in one pass over the
     * tree, not one per write (each pass is in proportion to the history: docs/latency.md).
     */
    @Test
    void writesBelowAndAboveTheSharedPrefixShortenItInOnePass() {
        HistoryTree tree = new HistoryTree(256, 256, 1L << 24);
        List<Range> under = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            byte[] k = String.format("abcd%06d", i * 2_500).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            under.add(new Range(k, java.util.Arrays.copyOf(k, k.length + 1)));
        }
        merge(tree, under, 10);
        assertEquals(4, tree.sharedPrefixLength(), "the keys share abcd");
        int passes = tree.prefixEpoch();
        byte[] below = "abX".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] above = "z".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        merge(tree, List.of(new Range(below, java.util.Arrays.copyOf(below, 4)), new Range(above, java.util.Arrays.copyOf(above, 2))), 20);
        assertEquals(0, tree.sharedPrefixLength());
        assertEquals(passes + 1, tree.prefixEpoch(), "abX would shorten it to ab, z then to nothing: two passes");
        tree.checkInvariants();
        assertTrue(pointConflicts(tree, below, 15) && pointConflicts(tree, above, 15));
        assertTrue(!pointConflicts(tree, below, 20) && !pointConflicts(tree, above, 20));
        byte[] old = "abcd017500".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertTrue(pointConflicts(tree, old, 5) && !pointConflicts(tree, old, 10), "the old keys read as before");
    }

    /**
     * A written key without the tree's shared prefix lowers the separators at once and the leaves in steps: the batch
     * that shortens it lowers the leaves its write lands in and a bounded share more, not the whole tree (issue 31: that
     * pass held one batch in proportion to the history), and later batches lower the rest a bounded number each while
     * reads and writes find every leaf, lowered or not, with its keys where they were.
     */
    @Test
    void aShorterSharedPrefixLowersTheLeavesInSteps() {
        HistoryTree tree = new HistoryTree(256, 256, 1L << 26);
        java.util.function.IntFunction<byte[]> key = i ->
                String.format("abcd%07d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int batch = 0; batch < 40; batch++) {
            List<Range> writes = new ArrayList<>();
            for (int i = batch; i < 40_000; i += 40) {
                byte[] k = key.apply(i);
                writes.add(new Range(k, java.util.Arrays.copyOf(k, k.length + 1)));
            }
            merge(tree, writes, 10 + batch);
        }
        assertEquals(6, tree.sharedPrefixLength(), "the keys share abcd00");
        int leaves = tree.leavesInUse();
        int global = leaves - tree.localLeaves(); // leaves with a prefix of their own keep their longs
        assertTrue(global > 1_000, "a tree of many leaves that follow the shared prefix: " + global + " of " + leaves);
        long before = tree.prefixLoweredLeaves();
        byte[] z = "z".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        merge(tree, List.of(new Range(z, java.util.Arrays.copyOf(z, 2))), 100);
        assertEquals(0, tree.sharedPrefixLength());
        long firstBatch = tree.prefixLoweredLeaves() - before;
        assertTrue(firstBatch <= HistoryTree.DEFAULT_PREFIX_LOWERING_LEAVES + 1 + 2,
                "the shortening batch lowered " + firstBatch + " of " + leaves + " leaves");
        assertTrue(tree.prefixLowering(), "leaves are left at the old prefix");
        tree.checkInvariants(); // every leaf's longs as its encoding says, lowered or not
        int batches = 1;
        for (int i = 0; tree.prefixLowering(); i++, batches++) {
            long was = tree.prefixLoweredLeaves();
            byte[] k = key.apply(i * 7919 % 40_000);
            merge(tree, List.of(new Range(k, java.util.Arrays.copyOf(k, k.length + 1))), 101 + i);
            long lowered = tree.prefixLoweredLeaves() - was;
            assertTrue(lowered <= HistoryTree.DEFAULT_PREFIX_LOWERING_LEAVES + 1 + 2, "batch lowered " + lowered);
            if (i % 25 == 0) {
                tree.checkInvariants();
                byte[] old = key.apply(39_999 - i);
                assertTrue(pointConflicts(tree, old, 10) && !pointConflicts(tree, old, 50), "key " + (39_999 - i));
                assertTrue(pointConflicts(tree, z, 99) && !pointConflicts(tree, z, 100));
            }
        }
        assertTrue(batches > leaves / (HistoryTree.DEFAULT_PREFIX_LOWERING_LEAVES + 3), "done in " + batches + " batches");
        tree.checkInvariants();
        assertTrue(tree.prefixLoweredLeaves() - before >= global, "lowered " + (tree.prefixLoweredLeaves() - before)
                + " leaves of " + global);
    }

    /** Whether a point read of {@code k} at {@code snapshot} conflicts with the tree's history. */
    private static boolean pointConflicts(HistoryTree tree, byte[] k, long snapshot) {
        byte[] keys = new byte[2 * k.length + 1];
        System.arraycopy(k, 0, keys, 0, k.length);
        System.arraycopy(k, 0, keys, k.length, k.length);
        return tree.conflicts(keys, 0, k.length, k.length, k.length + 1, snapshot);
    }

    @Test
    void pointWriteSharesOneKeyChunk() {
        HistoryTree tree = new HistoryTree(512, 256, 1L << 20);
        byte[] k = "a-key-longer-than-8".getBytes();
        merge(tree, List.of(new Range(k, java.util.Arrays.copyOf(k, k.length + 1))), 10);
        tree.checkInvariants();
        assertEquals(KeyArena.chunkBytes(k.length + 1), tree.keyBytesInUse(), "k and k\\0 share one chunk");
        assertEquals(2, tree.entries().size());
    }

    @Test
    void pointWriteOnAnEightByteKeyNeedsNoKeyBlock() {
        HistoryTree tree = new HistoryTree(512, 256, 1L << 20);
        byte[] keys = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0};
        merge(tree, List.of(new Range(java.util.Arrays.copyOf(keys, 8), java.util.Arrays.copyOfRange(keys, 8, 17))), 10);
        tree.checkInvariants();
        assertEquals(0, tree.keyBytesInUse(), "k and k\\0 are both inline");
        // A 9-byte key ending in another byte is not.
        byte[] other = {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0};
        merge(tree, List.of(new Range(java.util.Arrays.copyOf(other, 9), java.util.Arrays.copyOfRange(other, 9, 19))), 11);
        tree.checkInvariants();
        assertEquals(KeyArena.chunkBytes(10), tree.keyBytesInUse(), "[k\\1, k\\1\\0) takes one chunk");
        assertEquals(4, tree.entries().size());
        assertTrue(tree.conflicts(keys, 0, 8, 8, 9, 9) && !tree.conflicts(keys, 0, 8, 8, 9, 10));
        assertTrue(tree.conflicts(other, 0, 9, 9, 10, 10) && !tree.conflicts(other, 0, 9, 9, 10, 11));
        // [k\0, k\1) holds no write; [k\0, k\1\0) holds k\1's.
        byte[] between = {1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0};
        assertTrue(!tree.conflicts(between, 0, 9, 9, 9, 0) && tree.conflicts(between, 0, 9, 9, 10, 10));
    }
}
