package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.apple.foundationdb.tuple.Tuple;
import com.google.protobuf.ByteString;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class TupleWorkloadTest {
    private static final Map<String, String> SMALL = Map.of("txns", "200");

    @Test
    void defaultsAreTheIssueShape() {
        Workload w = Workloads.get("tuple").create(WorkloadParams.defaults());
        assertEquals(3000, w.batchCount());
        Batch b = w.nextBatch();
        assertEquals(500, b.getTransactionsCount());
        assertEquals(1000, b.getVersion());
        for (Transaction tx : b.getTransactionsList()) {
            assertEquals(3 + 1, tx.getReadsCount(), "3 point reads and a scan");
            assertEquals(2, tx.getWritesCount());
            assertEquals(0, tx.getReadSnapshot(), "the first batch's snapshots clamp at 0");
        }
        Map<String, String> p = w.header().getParamsMap();
        assertEquals("fdb-tuple", p.get("key-encoding"));
        assertEquals("12", p.get("subspaces"));
        assertEquals("0.8", p.get("subspace-skew"));
        assertEquals("1000000", p.get("keyspace"));
        assertEquals("12-48", p.get("subspace-prefix-bytes"));
    }

    /** FDB's tuple encoding, worked out by hand from its spec (design/tuple.md), against the packer the keys use. */
    @Test
    void tupleBytesAreFoundationDbs() {
        // ("crm", "users", 7) + record id 300: strings 02 .. 00, small int 15 07, two-byte int 16 01 2c
        byte[] prefix = Tuple.from("crm", "users", 7L).pack();
        assertEquals("0263726d00027573657273001507", HexFormat.of().formatHex(prefix));
        assertEquals("0263726d00027573657273001507" + "16012c", HexFormat.of().formatHex(Tuple.from(300L).pack(prefix)));
        // a 0x00 in a string is escaped 00 ff; 0 is 14; negatives are 14 - n then the ones' complement
        assertEquals("026100ff6200" + "14" + "13fe" + "12feff" + "15ff",
                HexFormat.of().formatHex(Tuple.from("a\0b", 0L, -1L, -256L, 255L).pack()));
        // an index entry ("value-3", 42) after a prefix, and the scan of its value as Subspace.range gives it
        assertEquals("0276616c75652d3300152a", HexFormat.of().formatHex(Tuple.from("value-3", 42L).pack()));
        var r = Tuple.from("value-3").range(prefix);
        assertEquals("0263726d00027573657273001507" + "0276616c75652d3300" + "00", HexFormat.of().formatHex(r.begin));
        assertEquals("0263726d00027573657273001507" + "0276616c75652d3300" + "ff", HexFormat.of().formatHex(r.end));
    }

    @Test
    void subspacesAreDistinctTuplePathsOfTwelveToFortyEightBytes() {
        List<TupleWorkload.Subspace> all = TupleWorkload.subspaces(1, 4096);
        assertEquals(4096, all.stream().map(s -> ByteString.copyFrom(s.prefix())).distinct().count());
        int indexes = 0;
        for (TupleWorkload.Subspace s : all) {
            assertTrue(s.prefix().length >= 12 && s.prefix().length <= 48, "prefix of " + s.prefix().length + " bytes");
            Tuple t = Tuple.fromBytes(s.prefix());
            assertTrue(t.size() >= 3 && t.size() <= 5, t.toString());
            assertTrue(TupleWorkload.APPLICATIONS.contains(t.getString(0)), t.toString());
            for (int i = 1; i < t.size() - 1; i++) {
                assertTrue(TupleWorkload.NAMES.contains(t.getString(i)), t.toString());
            }
            long typeCode = t.getLong(t.size() - 1);
            assertTrue(typeCode >= 0 && typeCode < 1000);
            indexes += s.index() ? 1 : 0;
        }
        assertTrue(indexes > 1900 && indexes < 2200, "about half are indexes: " + indexes);
        // More subspaces start with the same ones.
        List<TupleWorkload.Subspace> twelve = TupleWorkload.subspaces(1, 12);
        for (int i = 0; i < 12; i++) {
            assertArrayEquals(twelve.get(i).prefix(), all.get(i).prefix());
        }
        // Paths share their leading elements, as directories under one application do.
        long applications = twelve.stream().map(s -> Tuple.fromBytes(s.prefix()).getString(0)).distinct().count();
        assertTrue(applications > 1 && applications < 12, applications + " applications over 12 subspaces");
    }

    @Test
    void everyKeyIsARecordOrIndexEntryOfOneSubspace() {
        List<TupleWorkload.Subspace> subspaces = TupleWorkload.subspaces(3, 12);
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("tuple", 3, 6, SMALL));
        int[] used = new int[subspaces.size()];
        int indexScans = 0;
        int recordScans = 0;
        for (Batch b : batches) {
            for (Transaction tx : b.getTransactionsList()) {
                for (int i = 0; i < tx.getReadsCount() + tx.getWritesCount(); i++) {
                    boolean read = i < tx.getReadsCount();
                    KeyRange r = read ? tx.getReads(i) : tx.getWrites(i - tx.getReadsCount());
                    int s = subspaceOf(subspaces, r.getBegin());
                    used[s]++;
                    TupleWorkload.Subspace sub = subspaces.get(s);
                    Tuple rest = Tuple.fromBytes(r.getBegin().substring(sub.prefix().length).toByteArray());
                    boolean scan = read && i == tx.getReadsCount() - 1;
                    if (!scan) {
                        assertTrue(TraceChecks.isPoint(r));
                        assertEquals(sub.index() ? 2 : 1, rest.size(), rest.toString());
                        long id = rest.getLong(rest.size() - 1);
                        assertTrue(id >= 0 && id < 1_000_000, "record id " + id);
                        if (sub.index()) {
                            assertValue(sub, rest.get(0));
                        }
                    } else if (sub.index()) {
                        indexScans++;
                        byte[] end = r.getEnd().toByteArray();
                        byte[] begin = r.getBegin().toByteArray();
                        assertEquals(0x00, begin[begin.length - 1]);
                        assertEquals((byte) 0xFF, end[end.length - 1]);
                        assertEquals(r.getBegin().substring(0, begin.length - 1), r.getEnd().substring(0, end.length - 1));
                        assertValue(sub, Tuple.fromBytes(begin, sub.prefix().length, begin.length - 1 - sub.prefix().length).get(0));
                    } else {
                        recordScans++;
                        long last = Tuple.fromBytes(r.getEnd().substring(sub.prefix().length).toByteArray()).getLong(0);
                        long span = last - rest.getLong(0);
                        assertTrue(span >= 1 && span <= 10, "record scan of " + span + " ids");
                    }
                }
            }
        }
        for (int s = 0; s < used.length; s++) {
            assertTrue(used[s] > 0, "subspace " + s + " is used");
        }
        assertTrue(indexScans > 100 && recordScans > 100, indexScans + " index scans, " + recordScans + " record scans");
        // subspace-skew 0.8: the first subspace takes 1/H(12, 0.8) of operations
        int total = java.util.Arrays.stream(used).sum();
        double expected = LongTraceWorkload.zipfCdf(12, 0.8)[0];
        assertEquals(expected, used[0] / (double) total, 0.02);
        assertTrue(used[0] > 3 * used[11], "skewed: " + java.util.Arrays.toString(used));
    }

    @Test
    void keysShareTheirSubspacePrefixAndLittleElse() {
        List<TupleWorkload.Subspace> subspaces = TupleWorkload.subspaces(1, 12);
        for (Batch b : TraceChecks.drain(TraceChecks.create("tuple", 1, 3, Map.of()))) {
            List<ByteString> keys = b.getTransactionsList().stream()
                    .flatMap(tx -> Stream.concat(tx.getReadsList().stream(), tx.getWritesList().stream()))
                    .map(KeyRange::getBegin).toList();
            assertTrue(commonPrefix(keys) <= 2, "batch-wide common prefix " + commonPrefix(keys));
            for (TupleWorkload.Subspace s : subspaces) {
                List<ByteString> within = keys.stream().filter(k -> k.startsWith(ByteString.copyFrom(s.prefix()))).toList();
                assertTrue(within.size() > 1, "each subspace has keys in a batch of 500 transactions");
                assertTrue(commonPrefix(within) >= 12, "keys within a subspace share " + commonPrefix(within) + " bytes");
            }
        }
    }

    @Test
    void uniformSubspacesAndSkewedIds() {
        List<TupleWorkload.Subspace> subspaces = TupleWorkload.subspaces(4, 4);
        int[] used = new int[4];
        Map<Long, Integer> ids = new java.util.HashMap<>();
        int points = 0;
        for (Batch b : TraceChecks.drain(TraceChecks.create("tuple", 4, 4, Map.of("subspaces", "4",
                "subspace-skew", "0", "id-skew", "1.2", "keyspace", "100000", "scans", "0")))) {
            for (Transaction tx : b.getTransactionsList()) {
                for (KeyRange r : Stream.concat(tx.getReadsList().stream(), tx.getWritesList().stream()).toList()) {
                    int s = subspaceOf(subspaces, r.getBegin());
                    used[s]++;
                    Tuple rest = Tuple.fromBytes(r.getBegin().substring(subspaces.get(s).prefix().length).toByteArray());
                    ids.merge(rest.getLong(rest.size() - 1), 1, Integer::sum);
                    points++;
                }
            }
        }
        for (int u : used) {
            assertEquals(0.25, u / (double) points, 0.03, java.util.Arrays.toString(used));
        }
        // Zipf 1.2 over 100,000 ranks: rank 0 (id 0 whatever the stride) takes about 20 % of draws
        double expected = LongTraceWorkload.zipfCdf(100_000, 1.2)[0];
        assertEquals(expected, ids.getOrDefault(0L, 0) / (double) points, 0.03);
    }

    @Test
    void snapshotsLagWholeBatchesLikeConflictSet() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("tuple", 4, 12,
                Map.of("txns", "60", "max-lag-batches", "5", "window", "3000", "version-step", "100")));
        boolean sawLag5 = false;
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            assertEquals((i + 1) * 100L, b.getVersion());
            assertEquals(Math.max(0, b.getVersion() - 3000), b.getNewOldestVersion());
            for (Transaction tx : b.getTransactionsList()) {
                long lag = b.getVersion() - tx.getReadSnapshot();
                assertEquals(0, lag % 100);
                assertTrue(lag >= 100 || tx.getReadSnapshot() == 0, "lag at least one batch");
                assertTrue(lag <= 500, "lag at most 5 batches: " + lag);
                sawLag5 |= lag == 500;
            }
        }
        assertTrue(sawLag5);
    }

    @Test
    void sameSeedSameBytesOtherSeedOtherBytesAndValid() {
        byte[] a = TraceChecks.bytes(TraceChecks.create("tuple", 9, 4, SMALL));
        assertArrayEquals(a, TraceChecks.bytes(TraceChecks.create("tuple", 9, 4, SMALL)));
        assertFalse(java.util.Arrays.equals(a, TraceChecks.bytes(TraceChecks.create("tuple", 10, 4, SMALL))));
        TraceChecks.assertValid(TraceChecks.drain(TraceChecks.create("tuple", 9, 4, Map.of("txns", "200", "subspaces", "4096"))));
    }

    @Test
    void reportFractionOnlyChangesTheFlags() {
        List<Batch> none = TraceChecks.drain(TraceChecks.create("tuple", 3, 4, SMALL));
        List<Batch> some = TraceChecks.drain(TraceChecks.create("tuple", 3, 4, Map.of("txns", "200", "report-fraction", "0.5")));
        int flagged = 0;
        for (int i = 0; i < none.size(); i++) {
            Batch.Builder cleared = some.get(i).toBuilder();
            for (var tx : cleared.getTransactionsBuilderList()) {
                flagged += tx.getReportConflictingKeys() ? 1 : 0;
                tx.clearReportConflictingKeys();
            }
            assertEquals(none.get(i), cleared.build());
        }
        assertTrue(flagged > 300 && flagged < 500, "about half of 800 flagged, got " + flagged);
    }

    @Test
    void badOptionsNameTheOptionAndTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("tuple", 1, 1, Map.of("subspaces", "4097")));
        assertEquals("workload tuple: option --subspaces: expected an integer in [1, 4096], got '4097'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TraceChecks.create("tuple", 1, 1, Map.of("subspaces", "0")));
        assertTrue(e.getMessage().contains("--subspaces"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("tuple", 1, 1, Map.of("subspace-skew", "NaN")));
        assertEquals("workload tuple: option --subspace-skew: expected a number in [0.0, 10.0], got 'NaN'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("tuple", 1, 1, Map.of("keyspace", "0")));
        assertTrue(e.getMessage().contains("--keyspace"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("tuple", 1, 1, Map.of("key-length", "32")));
        assertTrue(e.getMessage().contains("unknown option --key-length"), e.getMessage());
    }

    private static void assertValue(TupleWorkload.Subspace sub, Object value) {
        assertNotNull(value);
        if (sub.stringValues()) {
            String v = assertInstanceOf(String.class, value);
            assertTrue(v.startsWith("value-"), v);
            assertTrue(Long.parseLong(v.substring("value-".length())) < 1000, v);
        } else {
            long v = assertInstanceOf(Long.class, value);
            assertTrue(v >= 0 && v < 1000, "index value " + v);
        }
    }

    private static int subspaceOf(List<TupleWorkload.Subspace> subspaces, ByteString key) {
        int found = -1;
        for (int s = 0; s < subspaces.size(); s++) {
            if (key.startsWith(ByteString.copyFrom(subspaces.get(s).prefix()))) {
                assertEquals(-1, found, "a key starts with exactly one subspace prefix");
                found = s;
            }
        }
        assertTrue(found >= 0, "key " + HexFormat.of().formatHex(key.toByteArray()) + " starts with a subspace prefix");
        return found;
    }

    private static int commonPrefix(List<ByteString> keys) {
        ByteString first = keys.get(0);
        int n = first.size();
        for (ByteString k : keys) {
            int i = 0;
            while (i < n && i < k.size() && k.byteAt(i) == first.byteAt(i)) {
                i++;
            }
            n = i;
        }
        return n;
    }
}
