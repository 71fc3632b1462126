package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.apple.foundationdb.tuple.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class FloodWorkloadTest {

    @Test
    void keysAreTheClustersKeys() {
        assertEquals("flood/3/1234/" + "x".repeat(40), new String(FloodWorkload.floodKey(3, 1234), StandardCharsets.UTF_8));
        assertArrayEquals(Tuple.from("fdbresolver-bank", "account", 7L).pack(), FloodWorkload.accountKey(7));
        // ("fdbresolver-bank", "transfer", run 1, client 2, seq 300): fdb-java's packing, spelled out
        Tuple t = Tuple.fromBytes(FloodWorkload.transferKey(2, 300));
        assertEquals(List.of("fdbresolver-bank", "transfer", 1L, 2L, 300L), t.getItems());
    }

    @Test
    void floodWritersWriteRunsOfNewKeysAndTheBankItsTransfers() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("flood", 1, 400, Map.of()));
        long[] next = new long[4];
        Set<String> floodKeys = new HashSet<>();
        int floodTxns = 0;
        int bankTxns = 0;
        for (Batch b : batches) {
            assertEquals(b.getVersion() - 5_000_000 > 0 ? b.getVersion() - 5_000_000 : 0, b.getNewOldestVersion());
            for (Transaction tx : b.getTransactionsList()) {
                if (tx.getReadsCount() == 0) {
                    floodTxns++;
                    assertEquals(200, tx.getWritesCount());
                    String first = key(tx.getWrites(0));
                    int writer = Integer.parseInt(first.split("/")[1]);
                    for (int k = 0; k < 200; k++) {
                        KeyRange w = tx.getWrites(k);
                        assertEquals(key(w) + "\0", new String(w.getEnd().toByteArray(), StandardCharsets.UTF_8), "a point write");
                        assertEquals(new String(FloodWorkload.floodKey(writer, next[writer]++), StandardCharsets.UTF_8), key(w),
                                "a writer's keys count up from 0 without a gap");
                        assertTrue(floodKeys.add(key(w)), "every flood key is new");
                    }
                } else {
                    bankTxns++;
                    assertEquals(3, tx.getReadsCount());
                    assertEquals(3, tx.getWritesCount());
                    List<Object> from = Tuple.fromBytes(tx.getWrites(0).getBegin().toByteArray()).getItems();
                    List<Object> to = Tuple.fromBytes(tx.getWrites(1).getBegin().toByteArray()).getItems();
                    assertEquals("account", from.get(1));
                    assertNotEquals(from.get(2), to.get(2), "a transfer moves between two accounts");
                    assertEquals(tx.getReads(0), tx.getWrites(2), "its record is read and written");
                    assertTrue(tx.getReadSnapshot() < b.getVersion());
                }
            }
        }
        // 400 batches x 4 writers x 0.25, and 400 x 3 transfers on average
        assertTrue(floodTxns > 330 && floodTxns < 470, "flood transactions: " + floodTxns);
        assertTrue(bankTxns > 1050 && bankTxns < 1350, "bank transfers: " + bankTxns);
    }

    @Test
    void optionsShapeIt() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("flood", 2, 50,
                Map.of("writers", "1", "flood-keys", "7", "flood-chance", "1", "transfers", "0", "version-step", "10")));
        List<String> keys = new ArrayList<>();
        for (Batch b : batches) {
            assertEquals(1, b.getTransactionsCount());
            for (KeyRange w : b.getTransactions(0).getWritesList()) {
                keys.add(key(w));
            }
        }
        assertEquals(350, keys.size());
        assertEquals("flood/0/349/" + "x".repeat(40), keys.get(349));
        assertEquals(500, batches.get(49).getVersion());
    }

    private static String key(KeyRange r) {
        return new String(r.getBegin().toByteArray(), StandardCharsets.UTF_8);
    }
}
