package org.fdbresolver.harness.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

/** Delta debugging on its own: each phase removes what the failure does not need, and only that. */
class ShrinkerTest {
    private static final ByteString NEEDLE = ByteString.copyFromUtf8("xy");

    /** 40 batches of 10 transactions, each with ranges over 10 KiB keys; one key somewhere holds "xy". */
    private static List<Batch> haystack() {
        List<Batch> trace = new ArrayList<>();
        for (int b = 0; b < 40; b++) {
            Batch.Builder batch = Batch.newBuilder().setVersion(100L * (b + 1)).setNewOldestVersion(10L * b);
            for (int t = 0; t < 10; t++) {
                Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(100L * b);
                for (int r = 0; r < 3; r++) {
                    byte[] key = new byte[10240];
                    Arrays.fill(key, (byte) ('a' + r));
                    if (b == 27 && t == 6 && r == 1) {
                        key[5000] = 'x';
                        key[5001] = 'y';
                    }
                    ByteString k = ByteString.copyFrom(key);
                    tx.addReads(KeyRange.newBuilder().setBegin(k).setEnd(k.concat(ByteString.copyFrom(new byte[1]))));
                    tx.addWrites(KeyRange.newBuilder().setBegin(k).setEnd(k));
                }
                batch.addTransactions(tx);
            }
            trace.add(batch.build());
        }
        return trace;
    }

    private static boolean hasNeedle(List<Batch> trace) {
        for (Batch b : trace) {
            for (Transaction tx : b.getTransactionsList()) {
                for (KeyRange r : tx.getReadsList()) {
                    if (contains(r.getBegin()) || contains(r.getEnd())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean contains(ByteString key) {
        for (int i = 0; i + NEEDLE.size() <= key.size(); i++) {
            if (key.substring(i, i + NEEDLE.size()).equals(NEEDLE)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aNeedleInAHaystackComesOutAlone() throws Exception {
        int[] calls = {0};
        Shrinker shrinker = new Shrinker(candidate -> {
            calls[0]++;
            for (int i = 1; i < candidate.size(); i++) {
                assertTrue(candidate.get(i).getVersion() > candidate.get(i - 1).getVersion(), "versions must keep increasing");
            }
            return hasNeedle(candidate);
        }, System.nanoTime() + 60_000_000_000L);
        List<Batch> shrunk = shrinker.shrink(haystack());
        assertEquals(1, shrunk.size(), shrunk::toString);
        assertEquals(1, shrunk.getFirst().getTransactionsCount(), shrunk::toString);
        Transaction tx = shrunk.getFirst().getTransactions(0);
        assertEquals(0, tx.getWritesCount(), "writes are not needed");
        assertEquals(1, tx.getReadsCount(), "one read holds the needle");
        KeyRange r = tx.getReads(0);
        assertTrue(r.getBegin().equals(NEEDLE) || r.getEnd().equals(NEEDLE), "the key shrank to its two needed bytes: " + r);
        assertTrue(ByteString.unsignedLexicographicalComparator().compare(r.getBegin(), r.getEnd()) <= 0, "a valid range");
        assertEquals(calls[0], shrinker.tests());
        assertTrue(!shrinker.timedOut());
        System.out.println("haystack of 400 transactions with 10 KiB keys shrunk to " + r + " in " + shrinker.tests() + " tests");
    }

    @Test
    void versionsBecomeSmallWhenTheFailureAllowsIt() throws Exception {
        List<Batch> trace = List.of(
                Batch.newBuilder().setVersion(Long.MAX_VALUE - 10).setNewOldestVersion(Long.MAX_VALUE - 20)
                        .addTransactions(Transaction.newBuilder().setReadSnapshot(Long.MIN_VALUE)).build());
        List<Batch> same = new Shrinker(candidate -> candidate.size() == 1 && candidate.getFirst().getTransactionsCount() == 1,
                System.nanoTime() + 10_000_000_000L).shrink(trace);
        assertEquals(20, same.getFirst().getVersion(), "ranks by ten: snapshot 0, oldest 10, version 20");
        assertEquals(10, same.getFirst().getNewOldestVersion());
        assertEquals(0, same.getFirst().getTransactions(0).getReadSnapshot());
        List<Batch> kept = new Shrinker(candidate -> candidate.size() == 1 && candidate.getFirst().getVersion() > 1L << 62,
                System.nanoTime() + 10_000_000_000L).shrink(trace);
        assertEquals(Long.MAX_VALUE - 10, kept.getFirst().getVersion(), "versions a failure needs are kept");
    }
}
