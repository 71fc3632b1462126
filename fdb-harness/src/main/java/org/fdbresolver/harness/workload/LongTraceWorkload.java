package org.fdbresolver.harness.workload;

import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * A scaled model of a production resolver trace, for retention (history window) work.
 *
 * <p>Each batch has {@code txns} transactions; versions start at {@code base-version} and advance
 * {@code version-step} per batch (31,250 = 31.25 ms at FoundationDB's 1,000,000 versions per second);
 * new oldest version is {@code max(0, version - window)}. Keys are integers in {@code [0, keyspace)}
 * ({@link KeyShape}: 8-byte big-endian by default, or {@code key-length} bytes with a shared prefix of
 * {@code key-prefix} bytes): with probability {@code hot-fraction} one of {@code hot-keys} hot keys chosen
 * by a Zipf law of exponent {@code zipf-s} (rank {@code r} has weight {@code 1/(r+1)^s}), hot ranks
 * scattered over the key space by a fixed stride; otherwise a uniform key. Read lags are Lomax
 * (Pareto type II): {@code floor(lag-scale * (U^(-1/lag-alpha) - 1))}, capped at {@code window} (a capped
 * read sits exactly at the oldest version); a {@code too-old-fraction} of transactions instead read
 * 1..version-step versions below the oldest version.
 */
final class LongTraceWorkload extends BatchStream {
    /** Reads per transaction: weights for 0, 1, 2, 3, 4 reads (percent). */
    static final int[] READ_COUNT_WEIGHTS = {12, 36, 26, 13, 13};
    /** Writes per transaction: weights for 0, 1, 2, 3 writes (percent); a transaction with neither gets one write. */
    static final int[] WRITE_COUNT_WEIGHTS = {25, 37, 25, 13};
    static final long READ_SPAN_MAX = 100;
    static final long WRITE_SPAN_MAX = 10;

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final int txns;
    private final long baseVersion;
    private final long versionStep;
    private final long window;
    private final long keyspace;
    private final double hotFraction;
    private final double[] hotCdf;
    private final long hotStride;
    private final long hotOffset;
    private final double rangeFraction;
    private final double lagScale;
    private final double lagAlpha;
    private final double tooOldFraction;
    private final double reportFraction;
    private final KeyShape keys;

    private LongTraceWorkload(String name, long seed, long batches, OptionReader o, KeyShape keys, int txns, long baseVersion,
            long versionStep, long window, long keyspace, int hotKeys, double hotFraction, double zipfS,
            double rangeFraction, double lagScale, double lagAlpha, double tooOldFraction, double reportFraction) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.txns = txns;
        this.baseVersion = baseVersion;
        this.versionStep = versionStep;
        this.window = window;
        this.keyspace = keyspace;
        this.hotFraction = hotFraction;
        this.hotCdf = zipfCdf(hotKeys, zipfS);
        this.hotStride = coprimeStride(keyspace);
        this.hotOffset = SplitMix64.stream(seed, 0x484f54L).nextLong(keyspace); // "HOT"
        this.rangeFraction = rangeFraction;
        this.lagScale = lagScale;
        this.lagAlpha = lagAlpha;
        this.tooOldFraction = tooOldFraction;
        this.reportFraction = reportFraction;
        this.keys = keys;
    }

    /** Cumulative Zipf weights, normalized to end at 1. StrictMath keeps it identical on every JVM. */
    static double[] zipfCdf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int r = 0; r < n; r++) {
            sum += 1.0 / StrictMath.pow(r + 1, s);
            cdf[r] = sum;
        }
        for (int r = 0; r < n; r++) {
            cdf[r] /= sum;
        }
        return cdf;
    }

    /** A stride near 0.618 of the key space, coprime to it, so that rank -> key is a bijection. */
    static long coprimeStride(long keyspace) {
        long stride = Math.max(1, (long) (keyspace * 0.6180339887498949));
        while (gcd(stride, keyspace) != 1) {
            stride++;
        }
        return stride % keyspace == 0 ? 1 : stride;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    @Override
    Batch generate(long index) {
        long version = baseVersion + index * versionStep;
        long oldest = Math.max(0, version - window);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(oldest);
        for (int t = 0; t < txns; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(snapshot(version, oldest));
            int reads = weighted(READ_COUNT_WEIGHTS);
            int writes = weighted(WRITE_COUNT_WEIGHTS);
            if (reads == 0 && writes == 0) {
                writes = 1;
            }
            for (int r = 0; r < reads; r++) {
                tx.addReads(range(READ_SPAN_MAX));
            }
            for (int w = 0; w < writes; w++) {
                tx.addWrites(range(WRITE_SPAN_MAX));
            }
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    private long snapshot(long version, long oldest) {
        if (rng.chance(tooOldFraction)) {
            return oldest - rng.between(1, versionStep);
        }
        double u = 1.0 - rng.nextDouble(); // (0, 1]
        double lag = lagScale * (StrictMath.pow(u, -1.0 / lagAlpha) - 1.0);
        long capped = lag >= window ? window : (long) lag;
        return version - capped;
    }

    private int weighted(int[] weights) {
        int x = rng.nextInt(100);
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return i;
            }
        }
        return weights.length - 1;
    }

    private KeyRange range(long spanMax) {
        long k = key();
        if (rng.chance(rangeFraction)) {
            long span = rng.between(1, spanMax);
            return KeyCodec.range(keys.key(k), keys.key(k + span));
        }
        return KeyRange.newBuilder().setBegin(keys.key(k)).setEnd(keys.successor(k)).build();
    }

    private long key() {
        if (rng.chance(hotFraction)) {
            int rank = java.util.Arrays.binarySearch(hotCdf, rng.nextDouble());
            rank = rank >= 0 ? rank : Math.min(hotCdf.length - 1, -rank - 1);
            // keyspace < 2^38 and rank < 2^24 keep rank * stride below 2^62
            return (hotOffset + rank * hotStride) % keyspace;
        }
        return rng.nextLong(keyspace);
    }

    static final class Factory implements WorkloadFactory {
        @Override
        public String name() {
            return "longtrace";
        }

        @Override
        public String description() {
            return "scaled production model: 2,048 txs/batch, 31.25 ms/batch, Zipf hot set, heavy-tailed read lag up to --window";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(
                    new WorkloadOption("txns", "2048", "transactions per batch"),
                    new WorkloadOption("base-version", "1000000000000", "version of the first batch"),
                    new WorkloadOption("version-step", "31250", "version advance per batch (31.25 ms)"),
                    CommonOptions.window("5000000"),
                    new WorkloadOption("keyspace", "10000000", "keys are integers in [0, keyspace), big-endian after the prefix"),
                    new WorkloadOption(KeyShape.KEY_LENGTH, "8", "bytes per key (point-write ends one more)"),
                    new WorkloadOption(KeyShape.KEY_PREFIX, "0", "leading bytes every key shares ('.'); the integer follows in up to 8 bytes, then '.' to key-length"),
                    new WorkloadOption("hot-keys", "100000", "size of the hot set"),
                    new WorkloadOption("hot-fraction", "0.4", "fraction of keys drawn from the hot set"),
                    new WorkloadOption("zipf-s", "0.6", "Zipf exponent over hot-set ranks"),
                    new WorkloadOption("range-fraction", "0.1", "fraction of ranges that span keys (reads 1-100, writes 1-10); the rest are points"),
                    new WorkloadOption("lag-scale", "31250", "Lomax scale of the read lag, in versions"),
                    new WorkloadOption("lag-alpha", "1.0", "Lomax shape of the read lag (smaller: heavier tail)"),
                    new WorkloadOption("too-old-fraction", "0.0001", "fraction of transactions reading just below the oldest version"),
                    CommonOptions.reportFraction("0"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 3000);
            int txns = o.intValue("txns", 0, 10_000_000);
            long base = o.longValue("base-version", 0, 1L << 60);
            long step = o.longValue("version-step", 1, 1L << 40);
            long window = o.longValue(CommonOptions.WINDOW, 0, 1L << 60);
            long keyspace = o.longValue("keyspace", 1, 1L << 38);
            KeyShape keys = KeyShape.read(o, keyspace, Math.max(READ_SPAN_MAX, WRITE_SPAN_MAX));
            int hotKeys = o.intValue("hot-keys", 1, 10_000_000);
            double hotFraction = o.fraction("hot-fraction");
            double zipfS = o.doubleValue("zipf-s", 0.0, 10.0);
            double rangeFraction = o.fraction("range-fraction");
            double lagScale = o.doubleValue("lag-scale", 0.0, 1e15);
            double lagAlpha = o.doubleValue("lag-alpha", 0.01, 100.0);
            double tooOld = o.fraction("too-old-fraction");
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            if (batches > 0 && batches > ((1L << 61) / step)) {
                throw o.invalid("version-step", "batches * version-step overflows the version range");
            }
            o.constant("key-encoding", keys.encoding());
            o.constant("read-count-weights", java.util.Arrays.toString(READ_COUNT_WEIGHTS));
            o.constant("write-count-weights", java.util.Arrays.toString(WRITE_COUNT_WEIGHTS));
            o.constant("read-span-max", READ_SPAN_MAX);
            o.constant("write-span-max", WRITE_SPAN_MAX);
            return new LongTraceWorkload(name(), seed, batches, o, keys, txns, base, step, window, keyspace, hotKeys,
                    hotFraction, zipfS, rangeFraction, lagScale, lagAlpha, tooOld, report);
        }
    }
}
