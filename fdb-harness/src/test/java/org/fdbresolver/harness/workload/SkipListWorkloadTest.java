package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class SkipListWorkloadTest {

    @Test
    void benchmarkHasFoundationDbsShape() {
        Workload w = Workloads.get("skiplisttest").create(WorkloadParams.defaults());
        assertEquals(500, w.batchCount());
        assertEquals(1, w.header().getSeed());
        for (int i = 0; i < 3; i++) {
            Batch b = w.nextBatch();
            assertEquals(i + 50, b.getVersion());
            assertEquals(i, b.getNewOldestVersion());
            assertEquals(2500, b.getTransactionsCount());
            for (Transaction tx : b.getTransactionsList()) {
                assertEquals(i, tx.getReadSnapshot());
                assertEquals(1, tx.getReadsCount());
                assertEquals(1, tx.getWritesCount());
                assertRange(tx.getReads(0), 16, 12, 20_000_000, 10);
                assertRange(tx.getWrites(0), 16, 12, 20_000_000, 10);
            }
        }
    }

    @Test
    void layoutsPlaceTheIntegerAfterThePrefixOrBeforeTheSuffix() {
        for (String layout : List.of("prefix", "suffix")) {
            for (int length : List.of(16, 32, 64, 128)) {
                Workload w = TraceChecks.create("skiplist-layouts", 1, 2,
                        Map.of("layout", layout, "key-length", Integer.toString(length), "ranges-per-batch", "300"));
                for (Batch b : TraceChecks.drain(w)) {
                    assertEquals(150, b.getTransactionsCount());
                    for (Transaction tx : b.getTransactionsList()) {
                        int at = layout.equals("prefix") ? length - 4 : 0;
                        assertRange(tx.getReads(0), length, at, 20_000_000, 10);
                        assertRange(tx.getWrites(0), length, at, 20_000_000, 10);
                    }
                }
            }
        }
    }

    @Test
    void layoutsOfOneSeedDrawTheSameIntegers() {
        // Same seed, different layout: the same integers, so decisions are identical across layouts.
        Batch p = TraceChecks.create("skiplist-layouts", 9, 1, Map.of("ranges-per-batch", "20")).nextBatch();
        Batch s = TraceChecks.create("skiplist-layouts", 9, 1,
                Map.of("ranges-per-batch", "20", "layout", "suffix", "key-length", "64")).nextBatch();
        for (int t = 0; t < 10; t++) {
            assertEquals(TraceChecks.bigEndian(p.getTransactions(t).getReads(0).getBegin().substring(12, 16)),
                    TraceChecks.bigEndian(s.getTransactions(t).getReads(0).getBegin().substring(0, 4)));
        }
    }

    @Test
    void defaultLayoutBatchIs20000Transactions() {
        Workload w = Workloads.get("skiplist-layouts").create(WorkloadParams.defaults());
        assertEquals(500, w.batchCount());
        assertEquals(20_000, w.nextBatch().getTransactionsCount());
    }

    @Test
    void rejectsOddRangeCountsAndBadLayouts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("skiplist-layouts", 1, 1, Map.of("ranges-per-batch", "7")));
        assertTrue(e.getMessage().contains("--ranges-per-batch"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("skiplist-layouts", 1, 1, Map.of("layout", "middle")));
        assertTrue(e.getMessage().contains("--layout") && e.getMessage().contains("middle"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create("skiplist-layouts", 1, 1, Map.of("key-length", "3")));
        assertTrue(e.getMessage().contains("--key-length"), e.getMessage());
    }

    /** A range over the 4-byte integer at {@code at}, '.' elsewhere, span in [1, maxSpan]. */
    static void assertRange(KeyRange r, int length, int at, long keyspace, int maxSpan) {
        assertEquals(length, r.getBegin().size());
        assertEquals(length, r.getEnd().size());
        for (ByteString k : List.of(r.getBegin(), r.getEnd())) {
            for (int i = 0; i < length; i++) {
                if (i < at || i >= at + 4) {
                    assertEquals('.', k.byteAt(i));
                }
            }
        }
        long b = TraceChecks.bigEndian(r.getBegin().substring(at, at + 4));
        long e = TraceChecks.bigEndian(r.getEnd().substring(at, at + 4));
        assertTrue(b >= 0 && b < keyspace, "begin in keyspace: " + b);
        assertTrue(e - b >= 1 && e - b <= maxSpan, "span in [1, " + maxSpan + "]: " + (e - b));
    }
}
