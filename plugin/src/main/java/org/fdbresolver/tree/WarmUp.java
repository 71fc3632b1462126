package org.fdbresolver.tree;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;

/**
 * Runs synthetic batches through throwaway engines of a configuration so that the JIT has compiled the engine
 * before the first real batch (issue 31: the first batches after a JVM starts ran 5–12 times slower than warm
 * ones, and a Resolver holds every commit while it decides). The batches cover what a Resolver's first minutes
 * bring: one to five transactions a batch and now and then hundreds, point and range reads and writes, keys
 * of 8 to 40 bytes under a few shared prefixes, reporting transactions, snapshots behind the window; both read
 * paths, since the batched one only starts once the history is large; and now and then a bulk writer's transaction
 * ({@link #bulkWrites}: dozens of new keys with a counter and a long tail, the directory layer's and a loader's
 * shape). Decisions are thrown away. Deterministic: a fixed seed.
 *
 * <p>The window and the budget are passed too: versions advance so that FoundationDB's 5-second window moves past
 * history within a few hundred batches, and the budgets ({@link #WARM_UP_BUDGETS}) are small enough that the synthetic
 * writes fill it, so the sweeper, the budget's raise of the retained boundary and reads answered TOO_OLD by it are
 * compiled as well. In a Resolver a real budget may first bind hours after the start; measured before (longtrace,
 * 128 MiB, {@code bench --engine-option warmUpBatches=2000}, JFR): the first raise deoptimised about 25 of the
 * engine's compiled methods (branches never taken until then) and the next 40 batches ran 2 to 5 times slower
 * while they were compiled again.
 */
final class WarmUp {
    /**
     * The two engines' budgets, one per read path: the warm-up's writes (about 300 KB over 1,000 batches) make the
     * smaller sweep the whole history and answer reads TOO_OLD (31 full sweeps, a third of the transactions too old
     * by the budget, measured), the larger raise its boundary ahead of need (6 raises, one full sweep), the paths a
     * real budget takes.
     */
    static final long[] WARM_UP_BUDGETS = {128L << 10, 512L << 10};

    private WarmUp() {
    }

    /**
     * {@code batches} synthetic batches through an engine of {@code config}, half on each read path; returns how
     * many transactions were committed, conflicted and too old (index 0, 1, 2: every kind is warmed), and how many
     * of the too old the budget made so (index 3: the budget bound).
     */
    static long[] run(ConflictSetConfig config, int batches) {
        long[] decided = new long[4];
        String[] batchedFrom = {"1000000000000", "0"};
        for (int path = 0; path < 2; path++) {
            TreeEngine engine = throwaway(config, WARM_UP_BUDGETS[path], batchedFrom[path], "0");
            try {
                Driver driver = new Driver(engine, config.maxKeyBytes(), decided, false);
                driver.batches(batches / 4, FEW_LARGE);
                // A write without the keys' shared first byte: the tree's prefix shrinks and its leaves are lowered in
                // steps (here as slowly as the engine allows), so the reads and writes of leaves still at the longer
                // prefix are compiled too; without it a Resolver's first such batch deoptimised them (docs/latency.md).
                driver.breakPrefix();
                driver.batches(batches / 2 - batches / 4, FEW_LARGE);
            } finally {
                engine.close();
            }
        }
        return decided;
    }

    /** The settling phase's engine budget: large batches fit its headroom, as under a Resolver's budget. */
    static final long SETTLE_BUDGET = 32L << 20;
    /** Batches of one settling round. */
    static final int SETTLE_ROUND_BATCHES = 30;
    /** Wall time without a finished compilation after which the JIT counts as settled. */
    static final long SETTLE_QUIET_NANOS = 400_000_000L;

    /**
     * After {@link #run}: rounds of synthetic batches, a third of them large (200 to 2,000 transactions: the
     * partitioned writes, the radix sort and the batched reads of a loaded Resolver), through two more throwaway
     * engines, until the JIT has finished no compilation for {@link #SETTLE_QUIET_NANOS}, or {@code maxMillis} have
     * passed. Why: measured from a fresh JVM (longtrace through the bridge, JFR's compilation events), the fixed
     * batches of {@link #run} left the large-batch code to C2 after the open, which then compiled on one of the
     * machine's two cores for about 3 s while the first real batches ran in C1's code beside it. Returns the rounds
     * run, negative when it stopped at {@code maxMillis} (or the JVM cannot tell, where it runs no round).
     */
    static int settle(ConflictSetConfig config, long maxMillis) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported() || maxMillis <= 0) {
            return -1;
        }
        // Two engines, rounds alternating: one reads batched from its first byte of history, one as configured (the
        // batched path starts at 4 MiB, which the settling traffic may not reach).
        String[] batchedFrom = {"0", null};
        TreeEngine[] engines = new TreeEngine[2];
        try {
            Driver[] drivers = new Driver[2];
            for (int e = 0; e < 2; e++) {
                engines[e] = throwaway(config, SETTLE_BUDGET, batchedFrom[e], null);
                drivers[e] = new Driver(engines[e], config.maxKeyBytes(), new long[4], true);
            }
            long start = System.nanoTime();
            long deadline = start + maxMillis * 1_000_000L;
            long compiled = jit.getTotalCompilationTime();
            long quietSince = start;
            int rounds = 0;
            while (true) {
                drivers[rounds & 1].batches(SETTLE_ROUND_BATCHES, MANY_LARGE);
                rounds++;
                long now = System.nanoTime();
                long c = jit.getTotalCompilationTime();
                if (c != compiled) {
                    compiled = c;
                    quietSince = now;
                } else if (now - quietSince >= SETTLE_QUIET_NANOS) {
                    return rounds;
                }
                if (now >= deadline) {
                    return -rounds;
                }
            }
        } finally {
            for (TreeEngine e : engines) {
                if (e != null) {
                    e.close();
                }
            }
        }
    }

    /**
     * An engine of {@code config} for synthetic batches: its budget at most {@code budget}, no warm-up of its own, the
     * batched read path from {@code batchedFrom} bytes of history and {@code loweringLeaves} leaves lowered per batch
     * after the shared prefix shrinks (each null: as configured).
     */
    private static TreeEngine throwaway(ConflictSetConfig config, long budget, String batchedFrom, String loweringLeaves) {
        ConflictSetConfig.Builder b = config.toBuilder()
                .memoryBudgetBytes(Math.min(config.memoryBudgetBytes(), budget))
                .option(TreeEngine.WARM_UP_BATCHES, "0")
                .option(TreeEngine.WARM_UP_SETTLE_MILLIS, "0");
        if (batchedFrom != null) {
            b.option(TreeEngine.READ_BATCHED_FROM_BYTES, batchedFrom);
        }
        if (loweringLeaves != null) {
            b.option(TreeEngine.PREFIX_LOWERING_LEAVES, loweringLeaves);
        }
        return new TreeEngine(b.build(), false);
    }

    /** How often a batch is large, and how large: {@link #run}'s few (one in 50, 100 to 500 transactions). */
    private static final int[] FEW_LARGE = {50, 100, 400};
    /** {@link #settle}'s many: one in three, 200 to 2,000. */
    static final int[] MANY_LARGE = {3, 200, 1_800};

    /** One engine's synthetic traffic: its random stream, versions and bulk writers' counters go on across calls. */
    static final class Driver {
        private final TreeEngine engine;
        private final int maxKeyBytes;
        private final long[] decided;
        private final SplittableRandom rnd = new SplittableRandom(0x5EED);
        private final ConflictBatch batch = ConflictBatch.detached();
        private final BatchResult out = new BatchResult();
        private final byte[][] prefixes = {new byte[0],
                "\u0015users\u0000\u0002id".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                "\u0002index\u0000\u0002by_name\u0000".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                {(byte) 0xFF, '/'}};
        private final byte[] begin = new byte[BULK_KEY_BYTES + 16];
        private final byte[] end = new byte[BULK_KEY_BYTES + 16];
        private final long[] bulkCounters = new long[BULK_WRITERS];
        private long[] snapshots = new long[500];
        private long now = 10_000_000; // past the window from the first batch: some snapshots are too old from the start
        /**
         * Whether written keys start with one of several bytes, not {@link #LEAD} alone: the tree and the batches then
         * have no shared prefix, as a Resolver's keys (system keys beside the application's) usually do not.
         */
        private final boolean varyLead;

        Driver(TreeEngine engine, int maxKeyBytes, long[] decided, boolean varyLead) {
            this.engine = engine;
            this.maxKeyBytes = maxKeyBytes;
            this.decided = decided;
            this.varyLead = varyLead;
        }

        /** One batch of one transaction writing a key that orders below every written key ({@link #LEAD} − 1). */
        void breakPrefix() {
            now += 1;
            batch.clear();
            batch.addTransaction(now - 1, false);
            begin[0] = LEAD - 1;
            end[0] = LEAD - 1;
            end[1] = 0;
            batch.addWrite(begin, 0, 1, end, 0, 2);
            engine.detectConflicts(batch, now, Math.max(0, now - 5_000_000), out);
            decided[out.decisionCode(0)]++;
        }

        /** {@code count} batches; {@code large}: one in {@code large[0]} has {@code large[1]} + up to {@code large[2]} transactions. */
        void batches(int count, int[] large) {
            for (int i = 0; i < count; i++) {
                now += 1 + rnd.nextInt(20_000); // the 5,000,000-version window passes in about 500 batches
                long oldest = Math.max(0, now - 5_000_000);
                batch.clear();
                int txns = rnd.nextInt(large[0]) == 0 ? large[1] + rnd.nextInt(large[2]) : 1 + rnd.nextInt(5);
                if (snapshots.length < txns) {
                    snapshots = new long[txns];
                }
                for (int t = 0; t < txns; t++) {
                    long snapshot = Math.max(0, now - (rnd.nextInt(20) == 0 ? 8_000_000 : rnd.nextInt(2_000_000)));
                    snapshots[t] = snapshot;
                    batch.addTransaction(snapshot, rnd.nextInt(8) == 0);
                    if (t == 0 && rnd.nextInt(4) == 0 && maxKeyBytes > BULK_KEY_BYTES) {
                        bulkWrites(rnd, batch, bulkCounters, begin, end);
                        continue;
                    }
                    for (int r = rnd.nextInt(5); r > 0; r--) {
                        // now and then a read outside the written keys' shared first byte, below or above them all
                        byte lead = rnd.nextInt(30) != 0 ? LEAD : rnd.nextBoolean() ? (byte) (LEAD - 1) : (byte) (LEAD + 1);
                        int n = key(rnd, prefixes, lead, begin, maxKeyBytes);
                        int m = rnd.nextBoolean() ? pointEnd(begin, n, end, maxKeyBytes) : rangeEnd(rnd, begin, n, end);
                        batch.addRead(begin, 0, n, end, 0, m);
                    }
                    for (int w = rnd.nextInt(4); w > 0; w--) {
                        int n = key(rnd, prefixes, varyLead ? LEADS[rnd.nextInt(LEADS.length)] : LEAD, begin, maxKeyBytes);
                        int m = rnd.nextInt(4) != 0 ? pointEnd(begin, n, end, maxKeyBytes) : rangeEnd(rnd, begin, n, end);
                        batch.addWrite(begin, 0, n, end, 0, m);
                    }
                }
                engine.detectConflicts(batch, now, oldest, out);
                for (int t = 0; t < txns; t++) {
                    int code = out.decisionCode(t);
                    decided[code]++;
                    if (code == 2 && snapshots[t] >= oldest) {
                        decided[3]++; // inside FoundationDB's window: too old by the budget
                    }
                }
            }
        }
    }

    /**
     * A key: {@code lead}, one of the prefixes, then 8 bytes of a small keyspace; returns its length. Every written key
     * begins with {@link #LEAD}, so the tree has a shared prefix and a read without it (searched as below or above
     * every key) is compiled too.
     */
    private static int key(SplittableRandom rnd, byte[][] prefixes, byte lead, byte[] into, int maxKeyBytes) {
        byte[] p = prefixes[rnd.nextInt(prefixes.length)];
        into[0] = lead;
        int n = 1 + Math.min(p.length, Math.max(0, maxKeyBytes - 10));
        System.arraycopy(p, 0, into, 1, n - 1);
        long v = rnd.nextLong(200_000);
        for (int i = 7; i >= 0; i--) {
            into[n + i] = (byte) v;
            v >>>= 8;
        }
        return Math.min(n + 8, maxKeyBytes - 1);
    }

    /** Bulk writers ({@link #bulkWrites}), each with a counter of its own. */
    private static final int BULK_WRITERS = 4;
    /** The longest bulk writer's key: its prefix, the counter's digits, a slash and the tail. */
    private static final int BULK_KEY_BYTES = 64;
    private static final byte[] BULK_PREFIX = "\u0002load\u0000\u0015".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    private static final int BULK_TAIL = 40;

    /**
     * A bulk writer's transaction: 20 to 219 point writes of new keys {@code LEAD, prefix, writer, counter in decimal,
     * '/', 40 bytes of 'x'} (the writer's counter counting on), and a read of one. Keys far longer than a leaf's prefix
     * plus 8 bytes, ascending under a few writers, that share everything after the bytes that differ: what a
     * loader or a directory-layer application writes (the container cluster's write flood, docs/cluster.md). Measured
     * from a fresh JVM before these were in the warm-up: that flood's first 1,000 batches ran 2 to 3.5 times slower
     * than the same batches warm, the next 4,000 1.6 times (docs/latency.md).
     */
    private static void bulkWrites(SplittableRandom rnd, ConflictBatch batch, long[] counters, byte[] begin, byte[] end) {
        int writer = rnd.nextInt(BULK_WRITERS);
        int n = 0;
        int m = 0;
        for (int w = 20 + rnd.nextInt(200); w > 0; w--) {
            n = bulkKey(writer, counters[writer]++, begin);
            m = pointEnd(begin, n, end, Integer.MAX_VALUE);
            batch.addWrite(begin, 0, n, end, 0, m);
        }
        batch.addRead(begin, 0, n, end, 0, m);
    }

    private static int bulkKey(int writer, long counter, byte[] into) {
        into[0] = LEAD;
        System.arraycopy(BULK_PREFIX, 0, into, 1, BULK_PREFIX.length);
        int n = 1 + BULK_PREFIX.length;
        into[n++] = (byte) ('0' + writer);
        into[n++] = '/';
        byte[] digits = Long.toString(counter).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        System.arraycopy(digits, 0, into, n, digits.length);
        n += digits.length;
        into[n++] = '/';
        java.util.Arrays.fill(into, n, n + BULK_TAIL, (byte) 'x');
        return n + BULK_TAIL;
    }

    /** The first byte of every written key. */
    private static final byte LEAD = 0x10;
    /** The first bytes of written keys in {@link #settle}. */
    private static final byte[] LEADS = {LEAD, 0x15, (byte) 0xFF};

    /** The end of the point range of {@code key}: the key and a 0x00. */
    private static int pointEnd(byte[] key, int n, byte[] into, int maxKeyBytes) {
        System.arraycopy(key, 0, into, 0, n);
        into[n] = 0;
        return Math.min(n + 1, maxKeyBytes);
    }

    /** An end a little past {@code key}: its last byte raised (a short range), or the key and 0xFF. */
    private static int rangeEnd(SplittableRandom rnd, byte[] key, int n, byte[] into) {
        System.arraycopy(key, 0, into, 0, n);
        if (n > 0 && (key[n - 1] & 0xFF) < 0xF0) {
            into[n - 1] = (byte) (key[n - 1] + 1 + rnd.nextInt(15));
            return n;
        }
        into[n] = (byte) 0xFF;
        return n + 1;
    }
}
