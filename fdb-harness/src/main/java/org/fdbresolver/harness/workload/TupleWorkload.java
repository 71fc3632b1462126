package org.fdbresolver.harness.workload;

import com.apple.foundationdb.Range;
import com.apple.foundationdb.tuple.Tuple;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Keys as applications write them through FoundationDB's tuple and directory layers: many subspaces, each with
 * its own packed-tuple prefix of 12 to 48 bytes, mixed in every batch.
 *
 * <p><b>Subspaces.</b> {@code subspaces} prefixes, each the tuple {@code (application, name, ..., type code)}: a
 * path of 2 to 4 strings (an application from {@link #APPLICATIONS}, then names from {@link #NAMES}) and an
 * integer in {@code [0, 1000)}, like a directory path and a Record Layer type code; paths share leading elements
 * (several tables under one application) as directory paths do. A path whose packed prefix is shorter than 12 or
 * longer than 48 bytes, or equal to an earlier one, is drawn again. Half the subspaces (drawn) hold records, keyed
 * {@code prefix + (record id)}; the others hold index entries, {@code prefix + (value, record id)}, with string or
 * integer values (drawn per index). The subspaces come from their own stream of the seed, so a run with more
 * subspaces starts with the same ones.
 *
 * <p><b>Transactions.</b> Each has {@code reads} point reads, {@code scans} short scans and {@code writes} point
 * writes, each in a subspace chosen by a Zipf law of exponent {@code subspace-skew} over the subspaces in the order
 * drawn (0: uniform). Record ids are ranks in {@code [0, keyspace)} by a Zipf law of exponent {@code id-skew} (0:
 * uniform), scattered over the ids by a stride coprime to the key space; index values are uniform in
 * {@code [0, index-values)}, a string value written {@code "value-N"}. A point is {@code [k, k + 0x00)}. A scan of
 * an index is every entry of one value, {@code [prefix + (value) + 0x00, prefix + (value) + 0xFF)} as
 * {@code Subspace.range} gives it; a scan of records is 1 to {@link #SCAN_RECORDS_MAX} consecutive ids.
 *
 * <p><b>Versions</b> as {@code conflictset-point}: batch {@code i} has version {@code (i + 1) * version-step}; a
 * transaction reads at the version of the batch {@code lag} batches back, {@code lag} uniform in
 * {@code [1, max-lag-batches]} (clamped at 0); new oldest version {@code max(0, version - window)}.
 *
 * <p><b>Encoding.</b> Keys are packed by fdb-java's {@link Tuple} (the harness's only use of fdb-java: its tuple
 * layer is pure Java and needs no {@code libfdb_c}) rather than by an encoder of our own, so that the bytes are
 * FoundationDB's by construction: strings {@code 0x02}, UTF-8 with {@code 0x00} escaped as {@code 0x00 0xFF},
 * {@code 0x00}; integers {@code 0x14} for 0, {@code 0x14 + n} and {@code n} big-endian bytes above, {@code 0x14 -
 * n} and the ones' complement below. TupleWorkloadTest pins a hand-computed example.
 */
final class TupleWorkload extends BatchStream {
    /** First path element: few, so that subspaces share it. */
    static final List<String> APPLICATIONS = List.of("shop", "crm", "billing", "search", "auth", "ledger");
    /** Later path elements: tables, indexes, versions, tenants. */
    static final List<String> NAMES = List.of("users", "orders", "items", "accounts", "sessions", "events",
            "invoices", "payments", "by_email", "by_date", "by_status", "by_owner", "by_sku", "v2", "archive",
            "tenant_42");
    static final int MIN_PATH = 2;
    static final int MAX_PATH = 4;
    static final long TYPE_CODES = 1000;
    static final int MIN_PREFIX_BYTES = 12;
    static final int MAX_PREFIX_BYTES = 48;
    static final long SCAN_RECORDS_MAX = 10;
    static final String STRING_VALUE = "value-";
    /** The stream the subspaces are drawn from, apart from the batches' draws. */
    static final long SUBSPACE_STREAM = 0x5355425350414345L; // "SUBSPACE"

    /** One subspace: its packed prefix, and whether it holds index entries (of string or integer values). */
    record Subspace(byte[] prefix, boolean index, boolean stringValues) {
    }

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final List<Subspace> subspaces;
    private final ZipfSampler subspaceRanks;
    private final ZipfSampler idRanks;
    private final long keyspace;
    private final long idStride;
    private final long indexValues;
    private final int txns;
    private final int reads;
    private final int scans;
    private final int writes;
    private final LaggedVersions versions;
    private final double reportFraction;

    private TupleWorkload(String name, long seed, long batches, OptionReader o, int subspaceCount, double subspaceSkew,
            long keyspace, double idSkew, long indexValues, int txns, int reads, int scans, int writes,
            LaggedVersions versions, double reportFraction) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.subspaces = subspaces(seed, subspaceCount);
        this.subspaceRanks = new ZipfSampler(subspaceCount, subspaceSkew);
        this.idRanks = new ZipfSampler(keyspace, idSkew);
        this.keyspace = keyspace;
        this.idStride = LongTraceWorkload.coprimeStride(keyspace);
        this.indexValues = indexValues;
        this.txns = txns;
        this.reads = reads;
        this.scans = scans;
        this.writes = writes;
        this.versions = versions;
        this.reportFraction = reportFraction;
    }

    /** The first {@code count} subspaces of a seed, distinct, each prefix 12 to 48 bytes packed. */
    static List<Subspace> subspaces(long seed, int count) {
        SplitMix64 draw = SplitMix64.stream(seed, SUBSPACE_STREAM);
        List<Subspace> out = new ArrayList<>(count);
        Set<ByteString> seen = new HashSet<>();
        while (out.size() < count) {
            Tuple path = Tuple.from(APPLICATIONS.get(draw.nextInt(APPLICATIONS.size())));
            int depth = (int) draw.between(MIN_PATH, MAX_PATH);
            for (int i = 1; i < depth; i++) {
                path = path.add(NAMES.get(draw.nextInt(NAMES.size())));
            }
            Tuple prefix = path.add(draw.nextLong(TYPE_CODES));
            boolean index = draw.chance(0.5);
            boolean stringValues = draw.chance(0.5);
            byte[] packed = prefix.pack();
            if (packed.length >= MIN_PREFIX_BYTES && packed.length <= MAX_PREFIX_BYTES && seen.add(ByteString.copyFrom(packed))) {
                out.add(new Subspace(packed, index, stringValues));
            }
        }
        return List.copyOf(out);
    }

    @Override
    Batch generate(long index) {
        long version = versions.version(index);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(versions.newOldestVersion(version));
        for (int t = 0; t < txns; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(versions.readSnapshot(version, rng));
            for (int r = 0; r < reads; r++) {
                tx.addReads(point());
            }
            for (int s = 0; s < scans; s++) {
                tx.addReads(scan());
            }
            for (int w = 0; w < writes; w++) {
                tx.addWrites(point());
            }
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    /** A record or an index entry of a subspace drawn: draws the subspace, then (index) the value, then the id. */
    private KeyRange point() {
        Subspace s = subspaces.get((int) subspaceRanks.next(rng));
        Tuple key = s.index ? value(s) : new Tuple();
        return KeyCodec.point(KeyCodec.wrap(key.add(recordId()).pack(s.prefix)));
    }

    private KeyRange scan() {
        Subspace s = subspaces.get((int) subspaceRanks.next(rng));
        if (s.index) {
            Range r = value(s).range(s.prefix);
            return KeyCodec.range(KeyCodec.wrap(r.begin), KeyCodec.wrap(r.end));
        }
        long first = recordId();
        long count = rng.between(1, SCAN_RECORDS_MAX);
        return KeyCodec.range(KeyCodec.wrap(Tuple.from(first).pack(s.prefix)),
                KeyCodec.wrap(Tuple.from(first + count).pack(s.prefix)));
    }

    private Tuple value(Subspace s) {
        long v = rng.nextLong(indexValues);
        return s.stringValues ? Tuple.from(STRING_VALUE + v) : Tuple.from(v);
    }

    /** Zipf rank, scattered: hot records are not neighbours. keyspace, stride < 2^31 keep the product exact. */
    private long recordId() {
        return idRanks.next(rng) * idStride % keyspace;
    }

    static final class Factory implements WorkloadFactory {
        @Override
        public String name() {
            return "tuple";
        }

        @Override
        public String description() {
            return "tuple-layer keys: 500 txs/batch over 12 subspaces (12-48-byte packed prefixes), 3 point reads, "
                    + "1 scan, 2 point writes each";
        }

        @Override
        public List<WorkloadOption> options() {
            List<WorkloadOption> list = new ArrayList<>(List.of(
                    new WorkloadOption("subspaces", "12", "subspaces (distinct packed-tuple prefixes of 12-48 bytes), 1..4096"),
                    new WorkloadOption("subspace-skew", "0.8", "Zipf exponent over subspaces for each operation (0: uniform)"),
                    new WorkloadOption("keyspace", "1000000", "record ids per subspace are integers in [0, keyspace)"),
                    new WorkloadOption("id-skew", "0", "Zipf exponent over record ids (0: uniform)"),
                    new WorkloadOption("index-values", "1000", "index values per index subspace, uniform in [0, index-values)"),
                    new WorkloadOption("txns", "500", "transactions per batch"),
                    new WorkloadOption("reads", "3", "point reads per transaction"),
                    new WorkloadOption("scans", "1", "short scans per transaction: one index value, or 1-10 record ids"),
                    new WorkloadOption("writes", "2", "point writes per transaction")));
            list.addAll(LaggedVersions.options());
            list.add(CommonOptions.reportFraction("0"));
            return List.copyOf(list);
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 3000);
            int subspaces = o.intValue("subspaces", 1, 4096);
            double subspaceSkew = o.doubleValue("subspace-skew", 0.0, 10.0);
            long keyspace = o.longValue("keyspace", 1, 1L << 31);
            double idSkew = o.doubleValue("id-skew", 0.0, 10.0);
            long indexValues = o.longValue("index-values", 1, 1L << 31);
            int txns = o.intValue("txns", 0, 10_000_000);
            int reads = o.intValue("reads", 0, 100_000);
            int scans = o.intValue("scans", 0, 100_000);
            int writes = o.intValue("writes", 0, 100_000);
            LaggedVersions versions = LaggedVersions.read(o, batches);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            o.constant("key-encoding", "fdb-tuple");
            o.constant("subspace-path", MIN_PATH + "-" + MAX_PATH + " strings + type code in [0, " + TYPE_CODES + ")");
            o.constant("subspace-prefix-bytes", MIN_PREFIX_BYTES + "-" + MAX_PREFIX_BYTES);
            o.constant("scan-records-max", SCAN_RECORDS_MAX);
            return new TupleWorkload(name(), seed, batches, o, subspaces, subspaceSkew, keyspace, idSkew, indexValues,
                    txns, reads, scans, writes, versions, report);
        }
    }
}
