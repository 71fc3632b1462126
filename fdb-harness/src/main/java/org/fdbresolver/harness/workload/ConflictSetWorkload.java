package org.fdbresolver.harness.workload;

import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * The ConflictSet micro-benchmark shape: every batch has {@code txns} transactions of {@code reads}
 * read ranges and {@code writes} write ranges over integer keys {@code [0, keyspace)} encoded as
 * 8-byte big-endian. The point variant uses single keys {@code [k, k + 0x00)}; the range variant uses
 * {@code [k, k + span)} with read spans uniform in {@code [1, read-span-max]} and write spans in
 * {@code [1, write-span-max]}.
 *
 * <p>Versions: batch {@code i} (0-based) has version {@code (i + 1) * version-step}; each transaction
 * reads at the version of a batch {@code lag} batches back, {@code lag} uniform in
 * {@code [1, max-lag-batches]} (clamped at 0), so most reads overlap the writes of the last few
 * batches; new oldest version is {@code max(0, version - window)}.
 */
final class ConflictSetWorkload extends BatchStream {
    private static final int KEY_WIDTH = 8;

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final boolean ranges;
    private final long keyspace;
    private final int txns;
    private final int reads;
    private final int writes;
    private final long readSpanMax;
    private final long writeSpanMax;
    private final LaggedVersions versions;
    private final double reportFraction;

    private ConflictSetWorkload(Factory f, long seed, long batches, OptionReader o, long keyspace, int txns, int reads,
            int writes, long readSpanMax, long writeSpanMax, LaggedVersions versions, double reportFraction) {
        super(f.name(), seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.ranges = f.ranges;
        this.keyspace = keyspace;
        this.txns = txns;
        this.reads = reads;
        this.writes = writes;
        this.readSpanMax = readSpanMax;
        this.writeSpanMax = writeSpanMax;
        this.versions = versions;
        this.reportFraction = reportFraction;
    }

    @Override
    Batch generate(long index) {
        long version = versions.version(index);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(versions.newOldestVersion(version));
        for (int t = 0; t < txns; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(versions.readSnapshot(version, rng));
            for (int r = 0; r < reads; r++) {
                tx.addReads(range(readSpanMax));
            }
            for (int w = 0; w < writes; w++) {
                tx.addWrites(range(writeSpanMax));
            }
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    private KeyRange range(long spanMax) {
        long k = rng.nextLong(keyspace);
        if (!ranges) {
            return KeyRange.newBuilder().setBegin(KeyCodec.bigEndian(k, KEY_WIDTH))
                    .setEnd(KeyCodec.bigEndianSuccessor(k, KEY_WIDTH)).build();
        }
        long span = rng.between(1, spanMax);
        return KeyCodec.range(KeyCodec.bigEndian(k, KEY_WIDTH), KeyCodec.bigEndian(k + span, KEY_WIDTH));
    }

    /** {@code conflictset-point} ({@code ranges == false}) and {@code conflictset-range}. */
    static final class Factory implements WorkloadFactory {
        private final boolean ranges;

        Factory(boolean ranges) {
            this.ranges = ranges;
        }

        @Override
        public String name() {
            return ranges ? "conflictset-range" : "conflictset-point";
        }

        @Override
        public String description() {
            return ranges
                    ? "ConflictSet benchmark: 500 txs/batch, 4 read ranges (1-1000 keys) and 2 write ranges (1-10 keys) each"
                    : "ConflictSet benchmark: 500 txs/batch, 4 point reads and 2 point writes each";
        }

        @Override
        public List<WorkloadOption> options() {
            List<WorkloadOption> list = new ArrayList<>(List.of(
                    new WorkloadOption("keyspace", "10000000", "keys are integers in [0, keyspace), 8-byte big-endian"),
                    new WorkloadOption("txns", "500", "transactions per batch"),
                    new WorkloadOption("reads", "4", "read ranges per transaction"),
                    new WorkloadOption("writes", "2", "write ranges per transaction")));
            if (ranges) {
                list.add(new WorkloadOption("read-span-max", "1000", "read range spans are uniform in [1, read-span-max] keys"));
                list.add(new WorkloadOption("write-span-max", "10", "write range spans are uniform in [1, write-span-max] keys"));
            }
            list.addAll(LaggedVersions.options());
            list.add(CommonOptions.reportFraction("0"));
            return List.copyOf(list);
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 3000);
            long keyspace = o.longValue("keyspace", 1, 1L << 56);
            int txns = o.intValue("txns", 0, 10_000_000);
            int reads = o.intValue("reads", 0, 100_000);
            int writes = o.intValue("writes", 0, 100_000);
            long readSpanMax = ranges ? o.longValue("read-span-max", 1, 1L << 40) : 0;
            long writeSpanMax = ranges ? o.longValue("write-span-max", 1, 1L << 40) : 0;
            LaggedVersions versions = LaggedVersions.read(o, batches);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            o.constant("key-encoding", "big-endian-8");
            return new ConflictSetWorkload(this, seed, batches, o, keyspace, txns, reads, writes, readSpanMax,
                    writeSpanMax, versions, report);
        }
    }
}
