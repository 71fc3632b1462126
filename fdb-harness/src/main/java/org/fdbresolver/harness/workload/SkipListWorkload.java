package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.Transaction;

/**
 * FoundationDB's own conflict-set benchmark ({@code skipListTest} in fdbserver's SkipList.cpp) and
 * its key-layout variants. Each batch holds {@code ranges / 2} transactions of one read range and one
 * write range; a range is {@code [n, n + span)} over 4-byte big-endian integers {@code n} drawn from
 * {@code [0, keyspace)}, span uniform in {@code [1, maxSpan]}, embedded in a key of fixed length
 * padded with {@code '.'} either before the integer ({@code prefix}) or after it ({@code suffix}).
 * Batch {@code i} has read snapshot {@code i}, version {@code i + 50} and new oldest version {@code i}.
 */
final class SkipListWorkload extends BatchStream {
    static final int VERSION_LAG = 50;
    static final byte PAD = '.';
    /** Range ends {@code begin + span} must still fit the 4-byte integer. */
    private static final long MAX_KEYSPACE = (1L << 32) - 1024;

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final int transactions;
    private final long keyspace;
    private final int maxSpan;
    private final double reportFraction;
    private final byte[] template;
    private final int intOffset;

    private SkipListWorkload(String name, long seed, long batches, OptionReader o, String layout, int keyLength,
            int ranges, long keyspace, int maxSpan, double reportFraction) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.transactions = ranges / 2;
        this.keyspace = keyspace;
        this.maxSpan = maxSpan;
        this.reportFraction = reportFraction;
        this.template = new byte[keyLength];
        Arrays.fill(template, PAD);
        this.intOffset = layout.equals("prefix") ? keyLength - 4 : 0;
    }

    @Override
    Batch generate(long index) {
        Batch.Builder b = Batch.newBuilder().setVersion(index + VERSION_LAG).setNewOldestVersion(index);
        for (int t = 0; t < transactions; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(index);
            long rb = rng.nextLong(keyspace);
            long rs = rng.between(1, maxSpan);
            long wb = rng.nextLong(keyspace);
            long ws = rng.between(1, maxSpan);
            tx.addReads(KeyCodec.range(key(rb), key(rb + rs)));
            tx.addWrites(KeyCodec.range(key(wb), key(wb + ws)));
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    private ByteString key(long n) {
        byte[] k = template.clone();
        k[intOffset] = (byte) (n >>> 24);
        k[intOffset + 1] = (byte) (n >>> 16);
        k[intOffset + 2] = (byte) (n >>> 8);
        k[intOffset + 3] = (byte) n;
        return KeyCodec.wrap(k);
    }

    /** {@code skiplisttest}: the benchmark exactly as FoundationDB runs it. */
    static final class Benchmark implements WorkloadFactory {
        @Override
        public String name() {
            return "skiplisttest";
        }

        @Override
        public String description() {
            return "FoundationDB's skipListTest: 2,500 txs/batch of one read and one write range, 16-byte keys";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(CommonOptions.reportFraction("0"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 500);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            o.constant("layout", "prefix");
            o.constant("key-length", 16);
            o.constant("ranges-per-batch", 5000);
            o.constant("keyspace", 20_000_000);
            o.constant("span", 10);
            o.constant("version-lag", VERSION_LAG);
            return new SkipListWorkload(name(), seed, batches, o, "prefix", 16, 5000, 20_000_000, 10, report);
        }
    }

    /** {@code skiplist-layouts}: the same shape with longer keys and the integer at either end. */
    static final class Layouts implements WorkloadFactory {
        @Override
        public String name() {
            return "skiplist-layouts";
        }

        @Override
        public String description() {
            return "skipListTest shape with key length 4..4096 and the distinguishing bytes after a common prefix or before a common suffix";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(
                    new WorkloadOption("layout", "prefix", "prefix: '.' padding then the 4-byte integer; suffix: the integer then padding"),
                    new WorkloadOption("key-length", "16", "bytes per key, 4..4096"),
                    new WorkloadOption("ranges-per-batch", "40000", "ranges per batch (even); each transaction has one read and one write range"),
                    new WorkloadOption("span", "10", "largest range span in integers; spans are uniform in [1, span]"),
                    new WorkloadOption("keyspace", "20000000", "range begins are uniform integers in [0, keyspace)"),
                    CommonOptions.reportFraction("0"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 500);
            String layout = o.choice("layout", "prefix", "suffix");
            int keyLength = o.intValue("key-length", 4, 4096);
            int ranges = o.intValue("ranges-per-batch", 0, 10_000_000);
            if (ranges % 2 != 0) {
                throw o.invalid("ranges-per-batch", "must be even (one read and one write range per transaction), got " + ranges);
            }
            int span = o.intValue("span", 1, 1024);
            long keyspace = o.longValue("keyspace", 1, MAX_KEYSPACE);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            o.constant("version-lag", VERSION_LAG);
            return new SkipListWorkload(name(), seed, batches, o, layout, keyLength, ranges, keyspace, span, report);
        }
    }
}
