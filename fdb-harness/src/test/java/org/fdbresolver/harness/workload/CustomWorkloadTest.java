package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class CustomWorkloadTest {

    @Test
    void defaultsAreTheMacBenchmarkShape() {
        Workload w = Workloads.get("custom-range").create(WorkloadParams.defaults());
        assertEquals(3000, w.batchCount());
        assertEquals(1234, w.header().getSeed());
        Batch b = w.nextBatch();
        assertEquals(4001, b.getTransactionsCount());
        Transaction writer = b.getTransactions(4000);
        assertEquals(0, writer.getReadsCount());
        assertTrue(writer.getWritesCount() > 900 && writer.getWritesCount() <= 1000, "" + writer.getWritesCount());
    }

    @Test
    void rangeVariantReadsThenOneSortedDisjointWriter() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("custom-range", 3, 8,
                Map.of("reads-per-batch", "500", "write-draws", "400", "keyspace", "20000")));
        int longReads = 0;
        int reads = 0;
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            assertEquals(1000 + 250L * i, b.getVersion());
            assertEquals(501, b.getTransactionsCount());
            for (int t = 0; t < 500; t++) {
                Transaction tx = b.getTransactions(t);
                assertEquals(1, tx.getReadsCount());
                assertEquals(0, tx.getWritesCount());
                long lag = b.getVersion() - tx.getReadSnapshot();
                assertTrue(lag >= 0 && lag <= 500, "lag " + lag);
                long span = span(tx.getReads(0));
                assertTrue(span >= 1 && span <= 2000, "span " + span);
                longReads += span > 20 ? 1 : 0;
                reads++;
            }
            Transaction writer = b.getTransactions(500);
            assertEquals(0, writer.getReadsCount());
            assertTrue(writer.getWritesCount() >= 1 && writer.getWritesCount() <= 400);
            ByteString prevEnd = null;
            for (KeyRange r : writer.getWritesList()) {
                assertDecimalKey(r.getBegin());
                assertDecimalKey(r.getEnd());
                assertTrue(span(r) >= 1);
                if (prevEnd != null) {
                    assertTrue(TraceChecks.compare(prevEnd, r.getBegin()) < 0, "sorted, disjoint, not touching");
                }
                prevEnd = r.getEnd();
            }
            assertTrue(writer.getWritesCount() < 400, "overlapping draws merge in a small key space");
        }
        // About one draw in ten is long, and a long span exceeds 20 keys 99% of the time.
        assertTrue(longReads > reads / 20 && longReads < reads / 5, longReads + " of " + reads);
    }

    @Test
    void pointVariantUsesSingleDistinctKeys() {
        Batch b = TraceChecks.create("custom-point", 1, 1, Map.of("reads-per-batch", "100", "write-draws", "300",
                "keyspace", "200")).nextBatch();
        for (Transaction tx : b.getTransactionsList()) {
            for (KeyRange r : java.util.stream.Stream.concat(tx.getReadsList().stream(), tx.getWritesList().stream()).toList()) {
                assertTrue(TraceChecks.isPoint(r));
                assertDecimalKey(r.getBegin());
            }
        }
        Transaction writer = b.getTransactions(100);
        assertTrue(writer.getWritesCount() < 200, "300 draws over 200 keys dedupe to fewer than 200");
        for (int i = 1; i < writer.getWritesCount(); i++) {
            assertTrue(TraceChecks.compare(writer.getWrites(i - 1).getBegin(), writer.getWrites(i).getBegin()) < 0);
        }
    }

    private static void assertDecimalKey(ByteString k) {
        assertEquals(12, k.size());
        for (int i = 0; i < 12; i++) {
            assertTrue(k.byteAt(i) >= '0' && k.byteAt(i) <= '9');
        }
    }

    private static long span(KeyRange r) {
        return Long.parseLong(r.getEnd().toStringUtf8()) - Long.parseLong(r.getBegin().toStringUtf8());
    }
}
