package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class ConflictSetWorkloadTest {

    @Test
    void defaultsAreTheBenchmarkShape() {
        Workload w = Workloads.get("conflictset-point").create(WorkloadParams.defaults());
        assertEquals(3000, w.batchCount());
        Batch b = w.nextBatch();
        assertEquals(500, b.getTransactionsCount());
        assertEquals(1000, b.getVersion());
        assertEquals(0, b.getNewOldestVersion());
        assertEquals("5000000", w.header().getParamsMap().get("window"));
    }

    @Test
    void pointVariantReadsAndWritesSingleKeys() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("conflictset-point", 2, 6,
                Map.of("txns", "100", "keyspace", "1000")));
        for (Batch b : batches) {
            for (Transaction tx : b.getTransactionsList()) {
                assertEquals(4, tx.getReadsCount());
                assertEquals(2, tx.getWritesCount());
                for (KeyRange r : concat(tx)) {
                    assertEquals(8, r.getBegin().size());
                    assertTrue(TraceChecks.isPoint(r));
                    assertTrue(TraceChecks.bigEndian(r.getBegin()) < 1000);
                }
            }
        }
    }

    @Test
    void rangeVariantSpansAreWithinBounds() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("conflictset-range", 2, 6, Map.of("txns", "100")));
        long maxRead = 0;
        long maxWrite = 0;
        for (Batch b : batches) {
            for (Transaction tx : b.getTransactionsList()) {
                for (KeyRange r : tx.getReadsList()) {
                    long span = TraceChecks.bigEndian(r.getEnd()) - TraceChecks.bigEndian(r.getBegin());
                    assertTrue(span >= 1 && span <= 1000, "read span " + span);
                    assertTrue(TraceChecks.bigEndian(r.getBegin()) < 10_000_000);
                    maxRead = Math.max(maxRead, span);
                }
                for (KeyRange r : tx.getWritesList()) {
                    long span = TraceChecks.bigEndian(r.getEnd()) - TraceChecks.bigEndian(r.getBegin());
                    assertTrue(span >= 1 && span <= 10, "write span " + span);
                    maxWrite = Math.max(maxWrite, span);
                }
            }
        }
        assertTrue(maxRead > 900, "read spans reach near 1000: " + maxRead);
        assertEquals(10, maxWrite);
    }

    @Test
    void snapshotsLagWholeBatchesAndTheWindowSetsOldest() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("conflictset-point", 4, 12,
                Map.of("txns", "60", "max-lag-batches", "5", "window", "3000", "version-step", "100")));
        boolean sawLag5 = false;
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            assertEquals((i + 1) * 100L, b.getVersion());
            assertEquals(Math.max(0, b.getVersion() - 3000), b.getNewOldestVersion());
            for (Transaction tx : b.getTransactionsList()) {
                long lag = b.getVersion() - tx.getReadSnapshot();
                assertEquals(0, lag % 100);
                assertTrue(tx.getReadSnapshot() >= 0);
                assertTrue(lag >= 100 || tx.getReadSnapshot() == 0, "lag at least one batch");
                assertTrue(lag <= 500, "lag at most 5 batches: " + lag);
                sawLag5 |= lag == 500;
            }
        }
        assertTrue(sawLag5);
    }

    private static List<KeyRange> concat(Transaction tx) {
        return java.util.stream.Stream.concat(tx.getReadsList().stream(), tx.getWritesList().stream()).toList();
    }
}
