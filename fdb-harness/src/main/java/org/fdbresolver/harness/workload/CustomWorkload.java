package org.fdbresolver.harness.workload;

import java.util.Arrays;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * The macBenchmark workload: per batch, {@code reads-per-batch} read-only transactions of one read
 * each, then one read-free transaction writing up to {@code write-draws} sorted, disjoint ranges
 * (the draws sorted by begin; overlapping or touching draws merged, duplicate points dropped).
 * Keys are integers in {@code [0, keyspace)} written as 12 ASCII decimal digits. The range variant
 * draws spans uniform in {@code [1, span-max]}, or with probability {@code long-fraction} in
 * {@code [1, long-span-max]}; the point variant uses single keys {@code [k, k + 0x00)}.
 *
 * <p>Versions: batch {@code i} has version {@code base-version + i * version-step}; a read snapshot
 * is {@code max(0, version - lag)}, lag uniform in {@code [0, max-lag]}; the write transaction's
 * snapshot is the previous batch's version; new oldest is {@code max(0, version - window)}.
 */
final class CustomWorkload extends BatchStream {
    static final int KEY_WIDTH = 12;
    private static final int SPAN_BITS = 22;

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final boolean ranges;
    private final long keyspace;
    private final int readsPerBatch;
    private final long spanMax;
    private final long longSpanMax;
    private final double longFraction;
    private final long maxLag;
    private final long baseVersion;
    private final long versionStep;
    private final long window;
    private final double reportFraction;
    /** This batch's write draws, packed as {@code begin << SPAN_BITS | span} so one sort orders them. */
    private final long[] draws;

    private CustomWorkload(Factory f, long seed, long batches, OptionReader o, long keyspace, int readsPerBatch,
            int writeDraws, long spanMax, long longSpanMax, double longFraction, long maxLag, long baseVersion,
            long versionStep, long window, double reportFraction) {
        super(f.name(), seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.ranges = f.ranges;
        this.keyspace = keyspace;
        this.readsPerBatch = readsPerBatch;
        this.spanMax = spanMax;
        this.longSpanMax = longSpanMax;
        this.longFraction = longFraction;
        this.maxLag = maxLag;
        this.baseVersion = baseVersion;
        this.versionStep = versionStep;
        this.window = window;
        this.reportFraction = reportFraction;
        this.draws = new long[writeDraws];
    }

    @Override
    Batch generate(long index) {
        long version = baseVersion + index * versionStep;
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(Math.max(0, version - window));
        for (int t = 0; t < readsPerBatch; t++) {
            Transaction.Builder tx = Transaction.newBuilder()
                    .setReadSnapshot(Math.max(0, version - rng.between(0, maxLag)));
            long k = rng.nextLong(keyspace);
            tx.addReads(range(k, span()));
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        Transaction.Builder writer = Transaction.newBuilder().setReadSnapshot(Math.max(0, version - versionStep));
        for (int d = 0; d < draws.length; d++) {
            long k = rng.nextLong(keyspace);
            draws[d] = k << SPAN_BITS | span();
        }
        Arrays.sort(draws);
        long curBegin = -1;
        long curEnd = -1;
        for (long draw : draws) {
            long begin = draw >>> SPAN_BITS;
            long end = begin + (draw & ((1L << SPAN_BITS) - 1));
            if (curBegin >= 0 && begin <= curEnd) {
                if (ranges) {
                    curEnd = Math.max(curEnd, end);
                }
                continue; // points: a repeat of the same key (begin == curEnd only when equal begins)
            }
            if (curBegin >= 0) {
                writer.addWrites(range(curBegin, curEnd - curBegin));
            }
            curBegin = begin;
            curEnd = ranges ? end : begin;
        }
        if (curBegin >= 0) {
            writer.addWrites(range(curBegin, curEnd - curBegin));
        }
        if (reports.chance(reportFraction)) {
            writer.setReportConflictingKeys(true);
        }
        b.addTransactions(writer);
        return b.build();
    }

    private long span() {
        if (!ranges) {
            return 1;
        }
        return rng.chance(longFraction) ? rng.between(1, longSpanMax) : rng.between(1, spanMax);
    }

    private KeyRange range(long begin, long span) {
        if (!ranges) {
            return KeyRange.newBuilder().setBegin(KeyCodec.decimal(begin, KEY_WIDTH))
                    .setEnd(KeyCodec.decimalSuccessor(begin, KEY_WIDTH)).build();
        }
        return KeyCodec.range(KeyCodec.decimal(begin, KEY_WIDTH), KeyCodec.decimal(begin + span, KEY_WIDTH));
    }

    /** {@code custom-point} ({@code ranges == false}) and {@code custom-range}. */
    static final class Factory implements WorkloadFactory {
        private final boolean ranges;

        Factory(boolean ranges) {
            this.ranges = ranges;
        }

        @Override
        public String name() {
            return ranges ? "custom-range" : "custom-point";
        }

        @Override
        public String description() {
            return "macBenchmark: 4,000 one-read transactions then one transaction writing up to 1,000 sorted disjoint "
                    + (ranges ? "ranges (1-20 keys, one in ten 1-2,000)" : "keys") + " per batch, 12-byte decimal keys";
        }

        @Override
        public List<WorkloadOption> options() {
            List<WorkloadOption> list = new java.util.ArrayList<>(List.of(
                    new WorkloadOption("keyspace", "10000000", "keys are integers in [0, keyspace), 12 decimal digits"),
                    new WorkloadOption("reads-per-batch", "4000", "read-only transactions (one read each) per batch"),
                    new WorkloadOption("write-draws", "1000", "ranges drawn for the batch's write transaction before merging")));
            if (ranges) {
                list.add(new WorkloadOption("span-max", "20", "range spans are uniform in [1, span-max] keys"));
                list.add(new WorkloadOption("long-span-max", "2000", "a long range's span is uniform in [1, long-span-max]"));
                list.add(new WorkloadOption("long-fraction", "0.1", "fraction of ranges drawn long"));
            }
            list.add(new WorkloadOption("max-lag", "500", "read snapshot = version - uniform [0, max-lag] (at least 0)"));
            list.add(new WorkloadOption("base-version", "1000", "version of the first batch"));
            list.add(new WorkloadOption("version-step", "250", "version advance per batch"));
            list.add(CommonOptions.window("5000000"));
            list.add(CommonOptions.reportFraction("0"));
            return List.copyOf(list);
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1234);
            long batches = o.batches(params, 3000);
            long keyspace = o.longValue("keyspace", 1, 100_000_000_000L);
            int reads = o.intValue("reads-per-batch", 0, 10_000_000);
            int draws = o.intValue("write-draws", 0, 10_000_000);
            long spanMax = ranges ? o.longValue("span-max", 1, 1_000_000) : 1;
            long longSpanMax = ranges ? o.longValue("long-span-max", 1, 1_000_000) : 1;
            double longFraction = ranges ? o.fraction("long-fraction") : 0;
            long maxLag = o.longValue("max-lag", 0, 1L << 60);
            long base = o.longValue("base-version", 0, 1L << 60);
            long step = o.longValue("version-step", 1, 1L << 40);
            long window = o.longValue(CommonOptions.WINDOW, 0, Long.MAX_VALUE / 2);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            if (batches > 0 && batches > ((1L << 61) / step)) {
                throw o.invalid("version-step", "batches * version-step overflows the version range");
            }
            o.constant("key-encoding", "decimal-12");
            return new CustomWorkload(this, seed, batches, o, keyspace, reads, draws, spanMax, longSpanMax,
                    longFraction, maxLag, base, step, window, report);
        }
    }
}
