package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Small, varied traces for randomized differential testing: a tiny key space (keys of 0..key-length
 * bytes over an alphabet of a few byte values, so prefixes, the empty key and equal keys are common),
 * a random number of transactions per batch (zero included), each with random numbers of point and
 * range reads and writes (a range between two random keys may be empty), read snapshots that may
 * fall below the oldest version or below zero, and random version steps.
 */
final class RandomWorkload extends BatchStream {
    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final int maxTxns;
    private final int maxReads;
    private final int maxWrites;
    private final byte[] alphabet;
    private final int maxKeyLength;
    private final double rangeFraction;
    private final long maxStep;
    private final long maxLag;
    private final long window;
    private final double reportFraction;
    private long version;

    private RandomWorkload(String name, long seed, long batches, OptionReader o, int maxTxns, int maxReads,
            int maxWrites, int alphabetSize, int maxKeyLength, double rangeFraction, long maxStep, long maxLag,
            long window, double reportFraction) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.maxTxns = maxTxns;
        this.maxReads = maxReads;
        this.maxWrites = maxWrites;
        this.alphabet = alphabet(alphabetSize);
        this.maxKeyLength = maxKeyLength;
        this.rangeFraction = rangeFraction;
        this.maxStep = maxStep;
        this.maxLag = maxLag;
        this.window = window;
        this.reportFraction = reportFraction;
    }

    /** {@code n} byte values spread evenly over 0x00..0xFF, both ends included; one symbol is 'a'. */
    static byte[] alphabet(int n) {
        if (n == 1) {
            return new byte[] {'a'};
        }
        byte[] a = new byte[n];
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (i * 255 / (n - 1));
        }
        return a;
    }

    @Override
    Batch generate(long index) {
        version += rng.between(1, maxStep);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(Math.max(0, version - window));
        int txns = rng.nextInt(maxTxns + 1);
        for (int t = 0; t < txns; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(version - rng.between(0, maxLag));
            int reads = rng.nextInt(maxReads + 1);
            for (int r = 0; r < reads; r++) {
                tx.addReads(range());
            }
            int writes = rng.nextInt(maxWrites + 1);
            for (int w = 0; w < writes; w++) {
                tx.addWrites(range());
            }
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    private KeyRange range() {
        ByteString a = key();
        if (!rng.chance(rangeFraction)) {
            return KeyCodec.point(a);
        }
        ByteString c = key();
        return ByteString.unsignedLexicographicalComparator().compare(a, c) <= 0 ? KeyCodec.range(a, c) : KeyCodec.range(c, a);
    }

    private ByteString key() {
        byte[] k = new byte[rng.nextInt(maxKeyLength + 1)];
        for (int i = 0; i < k.length; i++) {
            k[i] = alphabet[rng.nextInt(alphabet.length)];
        }
        return KeyCodec.wrap(k);
    }

    static final class Factory implements WorkloadFactory {
        @Override
        public String name() {
            return "random";
        }

        @Override
        public String description() {
            return "small randomized traces for differential testing: tiny key alphabet, mixed everything";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(
                    new WorkloadOption("txns", "8", "transactions per batch are uniform in [0, txns]"),
                    new WorkloadOption("reads", "3", "read ranges per transaction are uniform in [0, reads]"),
                    new WorkloadOption("writes", "3", "write ranges per transaction are uniform in [0, writes]"),
                    new WorkloadOption("alphabet", "3", "distinct key bytes, 1..256, spread evenly over 0x00..0xFF (1: just 'a')"),
                    new WorkloadOption("key-length", "3", "key lengths are uniform in [0, key-length]"),
                    new WorkloadOption("range-fraction", "0.5", "fraction of ranges between two random keys (may be empty); the rest are point ranges"),
                    new WorkloadOption("version-step", "10", "version advance per batch is uniform in [1, version-step]"),
                    new WorkloadOption("max-lag", "40", "read snapshot = version - uniform [0, max-lag] (may be below oldest or negative)"),
                    CommonOptions.window("30"),
                    CommonOptions.reportFraction("0.3"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 50);
            int txns = o.intValue("txns", 0, 100_000);
            int reads = o.intValue("reads", 0, 10_000);
            int writes = o.intValue("writes", 0, 10_000);
            int alphabet = o.intValue("alphabet", 1, 256);
            int keyLength = o.intValue("key-length", 0, 1 << 16);
            double rangeFraction = o.fraction("range-fraction");
            long step = o.longValue("version-step", 1, 1L << 40);
            long maxLag = o.longValue("max-lag", 0, 1L << 60);
            long window = o.longValue(CommonOptions.WINDOW, 0, Long.MAX_VALUE / 2);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            if (batches > 0 && batches > (Long.MAX_VALUE / 4) / step) {
                throw o.invalid("version-step", "batches * version-step overflows the version range");
            }
            return new RandomWorkload(name(), seed, batches, o, txns, reads, writes, alphabet, keyLength,
                    rangeFraction, step, maxLag, window, report);
        }
    }
}
