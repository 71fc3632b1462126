package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class RandomWorkloadTest {

    @Test
    void alphabetSpreadsOverTheByteRange() {
        assertArrayEquals(new byte[] {'a'}, RandomWorkload.alphabet(1));
        assertArrayEquals(new byte[] {0, (byte) 0xff}, RandomWorkload.alphabet(2));
        assertArrayEquals(new byte[] {0, 127, (byte) 0xff}, RandomWorkload.alphabet(3));
        assertEquals(256, RandomWorkload.alphabet(256).length);
    }

    @Test
    void shapeStaysWithinTheOptions() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("random", 11, 300, Map.of(
                "txns", "5", "reads", "2", "writes", "4", "key-length", "2", "version-step", "7",
                "max-lag", "20", "window", "15")));
        long prev = 0;
        int emptyBatches = 0;
        int tooOldSnapshots = 0;
        int negativeSnapshots = 0;
        int emptyRanges = 0;
        int emptyKeys = 0;
        for (Batch b : batches) {
            long step = b.getVersion() - prev;
            assertTrue(step >= 1 && step <= 7, "step " + step);
            prev = b.getVersion();
            assertEquals(Math.max(0, b.getVersion() - 15), b.getNewOldestVersion());
            assertTrue(b.getTransactionsCount() <= 5);
            emptyBatches += b.getTransactionsCount() == 0 ? 1 : 0;
            for (Transaction tx : b.getTransactionsList()) {
                long lag = b.getVersion() - tx.getReadSnapshot();
                assertTrue(lag >= 0 && lag <= 20);
                tooOldSnapshots += tx.getReadSnapshot() < b.getNewOldestVersion() ? 1 : 0;
                negativeSnapshots += tx.getReadSnapshot() < 0 ? 1 : 0;
                assertTrue(tx.getReadsCount() <= 2 && tx.getWritesCount() <= 4);
                for (KeyRange r : java.util.stream.Stream.concat(tx.getReadsList().stream(),
                        tx.getWritesList().stream()).toList()) {
                    assertTrue(r.getBegin().size() <= 2 && r.getEnd().size() <= 3);
                    emptyRanges += r.getBegin().equals(r.getEnd()) ? 1 : 0;
                    emptyKeys += r.getBegin().isEmpty() ? 1 : 0;
                    for (ByteString k : List.of(r.getBegin(), r.getEnd())) {
                        for (int i = 0; i < k.size(); i++) {
                            int v = k.byteAt(i) & 0xff;
                            assertTrue(v == 0 || v == 127 || v == 255, "alphabet byte " + v);
                        }
                    }
                }
            }
        }
        assertTrue(emptyBatches > 0, "some batches are empty");
        assertTrue(tooOldSnapshots > 0, "some snapshots are below oldest");
        assertTrue(negativeSnapshots > 0, "some snapshots are negative");
        assertTrue(emptyRanges > 0, "some ranges are empty");
        assertTrue(emptyKeys > 0, "the empty key appears");
    }
}
