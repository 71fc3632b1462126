package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.tree.BruteForceOracle.Tx;
import org.junit.jupiter.api.Test;

/**
 * Engine {@code tree} on tiny nodes (so that splits, merges and multi-level trees happen within a few
 * batches) against the brute-force oracle and the reference engine, batch by batch, with the tree's
 * invariants checked after every batch. Seeds: {@code -Dtree.seeds=N} runs more; the failing seed is
 * in the assertion message.
 */
class TreeEngineDifferentialTest {
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12);

    @Test
    void matchesOracleAndReferenceOnTinyNodes() {
        for (int seed = 1; seed <= SEEDS; seed++) {
            run(seed, 128, 250, 4, 0.15, seed % 2 == 0 ? 12 : 400);
        }
    }

    @Test
    void matchesOracleWithLongKeysAndWideNodes() {
        for (int seed = 100; seed < 100 + Math.max(2, SEEDS / 3); seed++) {
            run(seed, 512, 200, 4, 0.5, 300);
        }
    }

    /**
     * Keys that all share a prefix of 0–40 bytes (so the tree's inline longs start after it), with rare
     * outliers from batch 20 on: in writes (odd seeds) they shorten the shared prefix of a populated
     * tree (a re-encode); in reads only (even seeds) they are searched as below or above every key and
     * must leave the prefix alone. Nodes are small enough that splits, shifts and merges move entries
     * between nodes all the time.
     */
    @Test
    void matchesOracleWithLongSharedPrefixes() {
        int[] lengths = {0, 1, 7, 8, 9, 12, 16, 17, 24, 40};
        for (int seed = 200; seed < 200 + Math.max(lengths.length, SEEDS); seed++) {
            int familyLength = lengths[seed % lengths.length];
            int[] maxSkip = {0};
            int[] lastSkip = {0};
            boolean readsOnly = seed % 2 == 0;
            run(seed, seed % 3 == 0 ? 256 : 128, 200, 4, 0.3, seed % 4 < 2 ? 12 : 300, (gen, b) -> {
                if (b == 0) {
                    gen.family = gen.familyOf(familyLength);
                    gen.outliersInReadsOnly = readsOnly;
                }
                gen.outlierFraction = b < 20 ? 0 : readsOnly ? 0.02 : 0.003;
            }, history -> {
                maxSkip[0] = Math.max(maxSkip[0], history.sharedPrefixLength());
                lastSkip[0] = history.sharedPrefixLength();
            });
            assertTrue(maxSkip[0] >= familyLength, "seed " + seed + ": the shared prefix of " + familyLength
                    + " bytes was never used (at most " + maxSkip[0] + ")");
            if (readsOnly) {
                assertTrue(lastSkip[0] >= familyLength, "seed " + seed + ": a read shortened the shared prefix to "
                        + lastSkip[0]);
            }
        }
    }

    /**
     * The shared prefix shrinking under a populated tree, its leaves lowered in steps ({@link KeyLayout#reencode}) and
     * here as slowly as the engine allows ({@code prefixLoweringLeaves=0}: only the leaves writes reach, and one per
     * write): reads, writes, splits, shifts, merges and the sweeper meet leaves still at the longer prefix, several
     * shortenings arrive within one pass (outliers that share less and less of it), and the invariants after every
     * batch check every leaf's longs against the prefix its encoding says. Keys as in the long shared prefixes above,
     * and as under subspaces with leaves of their own prefix (local leaves meet stale ones in every move).
     */
    @Test
    void matchesOracleWhileTheSharedPrefixIsLoweredInSteps() {
        int[] lengths = {4, 9, 12, 17, 24, 40};
        int[] staleBatches = {0};
        for (int seed = 900; seed < 900 + Math.max(lengths.length, SEEDS); seed++) {
            int familyLength = lengths[seed % lengths.length];
            boolean subspaces = seed % 3 == 2;
            run(seed, seed % 2 == 0 ? 128 : 256, 250, 4, 0.3, seed % 4 < 2 ? 40 : 400,
                    java.util.Map.of("prefixLoweringLeaves", "0"), (gen, b) -> {
                if (b == 0) {
                    if (subspaces) {
                        gen.subspaces = gen.subspacesOf(1);
                        gen.longTails = true;
                    } else {
                        gen.family = gen.familyOf(familyLength);
                    }
                }
                // Quiet until the tree has leaves, then now and then an outlier write that shortens the prefix.
                gen.outlierFraction = b < 60 ? 0 : b % 40 < 2 ? 0.05 : 0;
            }, history -> {
                if (history.prefixLowering()) {
                    staleBatches[0]++;
                }
            });
        }
        assertTrue(staleBatches[0] > 50, "leaves were rarely left at an older prefix: " + staleBatches[0] + " batches");
    }

    /**
     * Keys under 2–12 subspace prefixes of 12–30 bytes (issue 29): inner nodes below the subspaces take a prefix of
     * their own ({@link InnerPrefixes}), lose it when a separator of another subspace or an outlier between them
     * arrives, and take it again on splits and merges; reads of keys cut short inside a prefix search such nodes as
     * below or above all of their separators. The partitions rewrite such a parent in its own encoding when every split
     * registered in it has its prefix (the invariants check its longs after every batch).
     */
    @Test
    void matchesOracleWithSubspacePrefixes() {
        int[] maxLocal = {0};
        long[] localRewrites = {0};
        for (int seed = 400; seed < 400 + Math.max(6, SEEDS / 2); seed++) {
            int subspaces = 2 + (int) (seed % 6) * 2;
            run(seed, seed % 2 == 0 ? 128 : 256, 300, 4, 0, seed % 3 == 0 ? 60 : 1000, (gen, b) -> {
                if (b == 0) {
                    gen.subspaces = gen.subspacesOf(subspaces);
                    gen.wideFraction = 0.01; // few wide writes: the history grows into a tree of several levels
                }
                gen.outlierFraction = b < 30 ? 0 : 0.01;
            }, history -> {
                maxLocal[0] = Math.max(maxLocal[0], history.localInnerNodes());
                long[] c = history.partitionCounters();
                if (c != null) {
                    localRewrites[0] = Math.max(localRewrites[0], c[4]);
                }
            });
        }
        assertTrue(maxLocal[0] > 0, "no inner node ever had a prefix of its own");
        assertTrue(localRewrites[0] > 0, "the partitions never rewrote a parent in its own encoding");
    }

    /**
     * Leaves with a prefix of their own ({@link LeafPrefixes}): keys under 8–40 subspace prefixes of 12–30 bytes with
     * tails that mostly agree on their first 9 bytes (so leaf searches compare past the 8 bytes after a leaf's prefix),
     * outliers between the subspaces in writes and reads (a write of one lowers its leaf's prefix or makes the leaf
     * global), wide writes that empty leaves and short windows that expire them (the sweeper merges leaves of different
     * prefixes), on 128-, 256- and 512-byte nodes (splits and shifts to siblings all the time): both read paths, and
     * every batch by partitions on 1, 2 or 4 threads by seed. The invariants after every batch check every local
     * leaf's encoding.
     */
    @Test
    void matchesOracleWithLeavesOfTheirOwnPrefix() {
        int[] maxLocal = {0};
        int[] maxApart = {0};
        long[] maxSuffix = {0};
        int[] nodes = {128, 256, 512};
        for (int seed = 500; seed < 500 + Math.max(6, SEEDS / 2); seed++) {
            int subspaces = 8 + (int) (seed * 7 % 33);
            run(seed, nodes[seed % 3], 400, 4, 0, seed % 2 == 0 ? 150 : 1000, (gen, b) -> {
                if (b == 0) {
                    gen.subspaces = gen.subspacesOf(subspaces);
                    gen.longTails = true;
                }
                gen.wideFraction = b % 50 < 45 ? 0.01 : 0.05; // now and then wide writes that empty leaves
                gen.outlierFraction = b < 40 ? 0 : 0.005;
            }, history -> {
                maxLocal[0] = Math.max(maxLocal[0], history.localLeaves());
                maxApart[0] = Math.max(maxApart[0], history.leavesAnchoredApart());
                maxSuffix[0] = Math.max(maxSuffix[0], history.suffixKeys());
            });
        }
        // Keys held by their leaf's prefix and their long, without a chunk (the invariants check their bytes).
        assertTrue(maxSuffix[0] > 0, "no key was ever stored after its leaf's prefix");
        assertTrue(maxLocal[0] > 0, "no leaf ever had a prefix of its own");
        // The invariants check those leaves too: their prefix read from an anchor whose key is no longer their first.
        assertTrue(maxApart[0] > 0, "no leaf's anchor ever outlived its first key");
    }

    /**
     * Leaves whose prefix is a byte or two past the tree's ({@code leafPrefixMinGain=1}, the default): one or two
     * subspaces, so the tree's shared prefix holds most of a key and the tails of 0–5 bytes after it differ within
     * their first byte or two; a leaf of them goes local on one byte of gain and its keys become suffix keys, and an
     * outlier between the subspaces lowers a leaf's prefix (a suffix key then takes a chunk) or the tree's. Tiny
     * nodes, both read paths and the partitions, as above; the invariants after every batch check every local leaf.
     */
    @Test
    void matchesOracleWithLeavesOfOneByteOfGain() {
        long[] maxSuffix = {0};
        int[] maxLocal = {0};
        int[] nodes = {128, 256, 512};
        for (int seed = 700; seed < 700 + Math.max(6, SEEDS / 2); seed++) {
            int subspaces = 1 + seed % 2;
            run(seed, nodes[seed % 3], 400, 4, 0, seed % 2 == 0 ? 150 : 1000, java.util.Map.of("leafPrefixMinGain", "1"), (gen, b) -> {
                if (b == 0) {
                    gen.subspaces = gen.subspacesOf(subspaces);
                }
                gen.wideFraction = b % 50 < 45 ? 0.01 : 0.05;
                gen.outlierFraction = b < 40 ? 0 : 0.003;
            }, history -> {
                maxLocal[0] = Math.max(maxLocal[0], history.localLeaves());
                maxSuffix[0] = Math.max(maxSuffix[0], history.suffixKeys());
            });
        }
        assertTrue(maxLocal[0] > 0, "no leaf ever had a prefix of its own");
        assertTrue(maxSuffix[0] > 0, "no key was ever stored after its leaf's prefix");
    }

    /**
     * The same trace under one subspace with leaves' prefixes from 1 and from 8 bytes of gain: the same decisions,
     * and with 1 keys stored after their leaf's prefix, so fewer key chunks and a smaller history.
     */
    @Test
    void oneByteOfGainSavesKeyChunks() {
        long[] bytes = new long[2];
        long[] suffix = new long[2];
        String[] gains = {"1", "8"};
        byte[][] decisions = new byte[2][];
        for (int g = 0; g < 2; g++) {
            ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").option("nodeBytes", "512")
                    .option("leafPrefixMinGain", gains[g]).build();
            try (ConflictSet tree = ConflictSet.open(config)) {
                HistoryTree history = ((TreeEngine) tree.engine()).tree();
                RandomTraces gen = new RandomTraces(77, 4, 0);
                gen.subspaces = gen.subspacesOf(1);
                ConflictBatch batch = tree.newBatch();
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                for (int b = 0; b < 300; b++) {
                    RandomTraces.fill(batch, gen.batch(b + 1L, 0, 40));
                    BatchResult r = batch.detectConflicts(b + 1L, 0);
                    all.write(r.decisionBytes(), 0, r.transactionCount());
                }
                history.checkInvariants();
                decisions[g] = all.toByteArray();
                bytes[g] = history.historyBytes();
                suffix[g] = history.suffixKeys();
            }
        }
        assertArrayEquals(decisions[1], decisions[0]);
        assertTrue(suffix[0] > 0 && suffix[1] == 0, "suffix keys: " + suffix[0] + " with 1 byte of gain, " + suffix[1] + " with 8");
        assertTrue(bytes[0] < bytes[1], "history bytes: " + bytes[0] + " with 1 byte of gain, " + bytes[1] + " with 8");
    }

    /**
     * Keys of 0–10 bytes around the inline limit: 8-byte keys and their point ends {@code k\0} (9 bytes,
     * stored inline), other 9-byte keys and 10-byte keys with trailing 0x00s (in key blocks), 0xFF
     * bytes, keys that are prefixes of each other; tiny nodes. The first written key sets the shared
     * prefix, later ones shorten it (re-encoding inline 9-byte keys).
     */
    @Test
    void matchesOracleWithKeysAroundTheInlineLimit() {
        for (int seed = 300; seed < 300 + Math.max(4, SEEDS / 2); seed++) {
            run(seed, seed % 2 == 0 ? 128 : 256, 250, 4, 0, seed % 3 == 0 ? 12 : 300,
                    (gen, b) -> gen.zeroTails = true, history -> { });
        }
    }

    /**
     * Point reads stop at the interval holding their key ({@code SingleReadPath.isPoint}): a write that begins exactly
     * at a point read's end {@code k\0}, newer than its snapshot, is not a conflict, while a read one byte longer,
     * {@code [k, k\0\0)}, conflicts with it. Long keys under a shared head (leaves of their own prefix, keys in blocks)
     * on tiny nodes, so that many keys are the last of their leaf or of their parent's last leaf; every read path: one
     * descent each (small batches and large), the batched path from the first byte, and the point ends stored apart
     * from their begins (a batch built from offsets, as the bridge does).
     */
    @Test
    void aPointReadEndsAtTheIntervalHoldingItsKey() {
        byte[][] keys = new byte[400][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ("\u0002app\u0000\u0002table\u0000\u0015" + String.format("%05d-tail", i * 7))
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        for (String[] options : List.of(new String[] {"readPath", "single"},
                new String[] {"readPath", "batched", "readBatchedFromBytes", "0", "readBatchedFromReads", "1"})) {
            for (boolean apart : new boolean[] {false, true}) {
                ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine("tree").option("nodeBytes", "128")
                        .option("keyBlockBytes", "256");
                for (int o = 0; o < options.length; o += 2) {
                    b.option(options[o], options[o + 1]);
                }
                try (ConflictSet set = ConflictSet.open(b.build())) {
                    ConflictBatch batch = set.newBatch();
                    // Version 10: every key written as a point; version 20: every key's successor k\0 as a point.
                    for (int v = 10; v <= 20; v += 10) {
                        for (byte[] k : keys) {
                            batch.addTransaction(v - 1, false);
                            byte[] begin = v == 10 ? k : Arrays.copyOf(k, k.length + 1);
                            batch.addWrite(begin, Arrays.copyOf(begin, begin.length + 1));
                        }
                        batch.detectConflicts(v, 0);
                        batch.clear();
                    }
                    String where = Arrays.toString(options) + (apart ? ", ends stored apart" : "");
                    // Large batches (the sorted paths) and batches of one transaction (the small-batch path).
                    long now = 30;
                    for (int per : new int[] {keys.length, 1}) {
                        for (int from = 0; from < keys.length; from += per) {
                            for (int i = from; i < from + per; i++) {
                                byte[] k = keys[i];
                                batch.addTransaction(15, false);
                                addRead(batch, k, Arrays.copyOf(k, k.length + 1), apart);
                                batch.addTransaction(15, false);
                                addRead(batch, k, Arrays.copyOf(k, k.length + 2), apart);
                            }
                            BatchResult r = batch.detectConflicts(now++, 0);
                            for (int t = 0; t < 2 * per; t++) {
                                assertEquals(t % 2 == 0 ? Decision.COMMIT : Decision.CONFLICT, r.decision(t),
                                        where + ", " + per + " a batch: read of key " + (from + t / 2)
                                                + (t % 2 == 0 ? " as a point" : " one byte past its point end"));
                            }
                            batch.clear();
                        }
                    }
                }
            }
        }
    }

    /** A read {@code [begin, end)}; {@code apart}: both ends copied into the batch's key bytes separately. */
    private static void addRead(ConflictBatch batch, byte[] begin, byte[] end, boolean apart) {
        if (!apart) {
            batch.addRead(begin, end);
            return;
        }
        int b = batch.reserveKeyBytes(begin.length);
        int e = batch.reserveKeyBytes(end.length);
        System.arraycopy(begin, 0, batch.keys(), b, begin.length);
        System.arraycopy(end, 0, batch.keys(), e, end.length);
        batch.addReadAt(b, begin.length, e, end.length);
    }

    static void run(long seed, int nodeBytes, int batches, int maxShortLen, double longKeys, int window) {
        run(seed, nodeBytes, batches, maxShortLen, longKeys, window, (gen, b) -> { }, history -> { });
    }

    /**
     * Runs the trace of {@code seed} against both read paths: one descent per read, and the batched path
     * with a number of groups in flight and touching chosen by the seed (1, 2, 5 or 16 ways); the writes
     * loaded ahead 0, 3 or 16 at a time. Then once more with every batch's writes applied by partitions and its
     * reads checked in slices of one read, on 1, 2 or 4 threads by seed (partitions of one write each, so that
     * chains, installs and siblings taking entries meet at every partition boundary).
     */
    static void run(long seed, int nodeBytes, int batches, int maxShortLen, double longKeys, int window,
                    java.util.function.ObjIntConsumer<RandomTraces> beforeBatch,
                    java.util.function.Consumer<HistoryTree> afterBatch) {
        run(seed, nodeBytes, batches, maxShortLen, longKeys, window, java.util.Map.of(), beforeBatch, afterBatch);
    }

    /** As above, with further engine {@code options}. */
    static void run(long seed, int nodeBytes, int batches, int maxShortLen, double longKeys, int window,
                    java.util.Map<String, String> options, java.util.function.ObjIntConsumer<RandomTraces> beforeBatch,
                    java.util.function.Consumer<HistoryTree> afterBatch) {
        int[] ways = {1, 2, 5, 16};
        for (String readPath : List.of("single", "batched", "partitioned")) {
            ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine("tree")
                    .option("nodeBytes", Integer.toString(nodeBytes)).option("keyBlockBytes", "256")
                    .option("readPath", readPath.equals("partitioned") ? (seed % 2 == 0 ? "single" : "batched") : readPath)
                    .option("readBatchedFromBytes", "0").option("readWays", Integer.toString(ways[(int) (seed % ways.length)]))
                    .option("readTouch", Boolean.toString(seed % 2 == 0))
                    .option("writeWays", Integer.toString(new int[] {0, 3, 16}[(int) (seed % 3)]));
            options.forEach(b::option);
            if (readPath.equals("partitioned")) {
                b.option("threads", Integer.toString(new int[] {1, 2, 4}[(int) (seed % 3)]))
                        .option("writesPerPartition", "1").option("readsPerSlice", "1")
                        .option("endpointsPerSlice", "2");
            }
            run(seed, b.build(), batches, maxShortLen, longKeys, window, beforeBatch, afterBatch);
        }
    }

    private static void run(long seed, ConflictSetConfig treeConfig, int batches, int maxShortLen, double longKeys,
                            int window, java.util.function.ObjIntConsumer<RandomTraces> beforeBatch,
                            java.util.function.Consumer<HistoryTree> afterBatch) {
        try (ConflictSet tree = ConflictSet.open(treeConfig);
             ConflictSet reference = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            HistoryTree history = ((TreeEngine) tree.engine()).tree();
            BruteForceOracle oracle = new BruteForceOracle();
            RandomTraces gen = new RandomTraces(seed, maxShortLen, longKeys);
            ConflictBatch tb = tree.newBatch();
            ConflictBatch rb = reference.newBatch();
            long now = 0;
            long oldest = 0;
            for (int b = 0; b < batches; b++) {
                now += 1 + gen.nextInt(3);
                if (gen.nextInt(4) == 0) {
                    oldest = Math.max(oldest, now - 1 - gen.nextInt(window));
                }
                beforeBatch.accept(gen, b);
                List<Tx> txs = gen.batch(now, oldest, 12);
                String where = "seed " + seed + " " + treeConfig.options() + " batch " + b + " (version " + now + ")";
                long retained = history.retainedVersion();
                RandomTraces.fill(tb, txs);
                RandomTraces.fill(rb, txs);
                BatchResult tr = tb.detectConflicts(now, oldest);
                BatchResult rr = rb.detectConflicts(now, oldest);
                BruteForceOracle.Result or = oracle.detect(txs, now, oldest, retained);
                byte[] td = Arrays.copyOf(tr.decisionBytes(), tr.transactionCount());
                byte[] rd = Arrays.copyOf(rr.decisionBytes(), rr.transactionCount());
                assertArrayEquals(or.decisions(), td, where + ": tree vs oracle");
                assertArrayEquals(rd, td, where + ": tree vs reference");
                assertReports(or.conflictingReads(), RandomTraces.reports(tr), where + ": tree vs oracle reports");
                assertReports(RandomTraces.reports(rr), RandomTraces.reports(tr), where + ": tree vs reference reports");
                try {
                    history.checkInvariants();
                } catch (AssertionError e) {
                    throw new AssertionError(where + ": " + e.getMessage(), e);
                }
                afterBatch.accept(history);
                assertTrue(history.historyBytes() <= treeConfig.memoryBudgetBytes());
                assertEquals(oldest, history.retainedVersion(), where + ": no budget pressure, retained = oldest");
            }
            if (treeConfig.options().containsKey("writesPerPartition") && history.height() > 0) {
                // (A tree of one leaf has no parent to cut at: its batches take the single-threaded way.)
                assertTrue(history.partitionedBatches() > 0, "seed " + seed + ": no batch went by partitions");
            }
            if (Boolean.getBoolean("tree.verbose")) {
                System.out.println("seed " + seed + " " + treeConfig.options() + ": height " + history.height()
                        + ", partitioned batches " + history.partitionedBatches() + ", leaves " + history.leavesInUse()
                        + ", inners " + history.innersInUse() + " (" + history.localInnerNodes() + " with a prefix of their own)"
                        + ", local leaves " + history.localLeaves()
                        + ", key bytes " + history.keyBytesInUse());
            }
        }
    }

    static void assertReports(List<int[]> expected, List<int[]> actual, String where) {
        assertEquals(expected.size(), actual.size(), where);
        for (int t = 0; t < expected.size(); t++) {
            assertArrayEquals(expected.get(t), actual.get(t), where + " transaction " + t);
        }
    }
}
