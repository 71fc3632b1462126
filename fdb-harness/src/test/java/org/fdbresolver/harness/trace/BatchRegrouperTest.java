package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class BatchRegrouperTest {

    /** Original batch {@code i} of {@code n} transactions at version 100 (i + 1), each writing its own key. */
    private static Batch original(int i, int n) {
        Batch.Builder b = Batch.newBuilder().setVersion(100L * (i + 1)).setNewOldestVersion(10L * i);
        for (int t = 0; t < n; t++) {
            ByteString key = ByteString.copyFromUtf8("k" + i + "." + t);
            b.addTransactions(Transaction.newBuilder().setReadSnapshot(100L * i)
                    .addWrites(KeyRange.newBuilder().setBegin(key).setEnd(key.concat(ByteString.copyFrom(new byte[1]))))
                    .setReportConflictingKeys(t % 2 == 0));
        }
        return b.build();
    }

    private static List<Batch> regroup(int size, int... originalSizes) {
        BatchRegrouper r = new BatchRegrouper(size);
        List<Batch> out = new ArrayList<>();
        for (int i = 0; i < originalSizes.length; i++) {
            out.addAll(r.add(original(i, originalSizes[i])));
        }
        Batch last = r.finish();
        if (last != null) {
            out.add(last);
        }
        assertNull(r.finish(), "nothing left after the last batch");
        return out;
    }

    private static List<Transaction> transactions(List<Batch> batches) {
        List<Transaction> all = new ArrayList<>();
        batches.forEach(b -> all.addAll(b.getTransactionsList()));
        return all;
    }

    @Test
    void smallBatchesBecomeFullOnesInOrderWithTheLastTransactionsVersions() {
        int[] sizes = {2, 1, 0, 3, 2, 1, 4};
        List<Batch> out = regroup(5, sizes);
        List<Batch> in = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            in.add(original(i, sizes[i]));
        }
        assertEquals(transactions(in), transactions(out), "every transaction, unchanged and in order");
        assertEquals(List.of(5, 5, 3), out.stream().map(Batch::getTransactionsCount).toList());
        // 2 + 1 + 0 + 2 of batch 3 -> ends in batch 3; the last of 3, 2 of 4, 1 of 5, 1 of 6 -> ends in batch 6
        assertEquals(400, out.get(0).getVersion());
        assertEquals(30, out.get(0).getNewOldestVersion());
        assertEquals(700, out.get(1).getVersion());
        assertEquals(60, out.get(1).getNewOldestVersion());
        assertEquals(701, out.get(2).getVersion(), "the rest of batch 6 splits off: one version up");
        assertEquals(60, out.get(2).getNewOldestVersion());
    }

    @Test
    void aLargeBatchSplitsIntoStrictlyIncreasingVersions() {
        List<Batch> out = regroup(2, 5, 1);
        assertEquals(List.of(2, 2, 2), out.stream().map(Batch::getTransactionsCount).toList());
        assertEquals(List.of(100L, 101L, 200L), out.stream().map(Batch::getVersion).toList());
        for (Batch b : out) {
            for (Transaction t : b.getTransactionsList()) {
                assertTrue(t.getReadSnapshot() < b.getVersion(), "a snapshot stays below its batch's version");
            }
        }
    }

    @Test
    void nothingInNothingOut() {
        assertEquals(List.of(), regroup(3, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new BatchRegrouper(0));
    }
}
