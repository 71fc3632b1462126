package org.fdbresolver.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link ConflictBatch#trimToSize()}: the same batch after trimming, and a trimmed batch grows again. */
class ConflictBatchTest {
    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void trimmedBatchKeepsItsContentAndGrowsAgain() {
        ConflictBatch batch = ConflictBatch.detached();
        batch.addTransaction(7, true);
        batch.addRead(key("a"), key("b"));
        batch.addWrite(key("c"), key("d"));
        batch.addTransaction(9, false);
        batch.addWrite(key("e"), key("ff"));
        batch.trimToSize();
        assertEquals(2, batch.transactionCount());
        assertEquals(1, batch.readCount());
        assertEquals(2, batch.writeCount());
        assertEquals(9, batch.readSnapshot(1));
        assertArrayEquals(key("a"), batch.readBegin(0));
        assertArrayEquals(key("ff"), batch.writeEndKey(1));

        // Past every trimmed capacity: transactions, ranges and key bytes.
        for (int t = 0; t < 100; t++) {
            batch.addTransaction(100 + t, t % 2 == 0);
            batch.addRead(key("r" + t), key("r" + t + "z"));
            batch.addWrite(key("w" + t), key("w" + t + "z"));
        }
        assertEquals(102, batch.transactionCount());
        assertArrayEquals(key("w99z"), batch.writeEndKey(batch.writeCount() - 1));
        assertEquals(199, batch.readSnapshot(101));

        ConflictBatch empty = ConflictBatch.detached();
        empty.trimToSize();
        empty.addTransaction(1, false);
        empty.addRead(key("x"), key("y"));
        assertEquals(1, empty.readCount());
        assertArrayEquals(key("y"), empty.readEndKey(0));
    }

    /** A budget with no practical bound (up to Long.MAX_VALUE) opens and decides: its heap reservation saturates. */
    @Test
    void budgetNearLongMaxOpensAndDecides() {
        for (long budget : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 1, 1L << 62}) {
            try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget).build())) {
                ConflictBatch batch = cs.newBatch();
                batch.addTransaction(0, false);
                batch.addRead(key("a"), key("b"));
                batch.addWrite(key("a"), key("b"));
                assertEquals(Decision.COMMIT, batch.detectConflicts(1, 0).decision(0), "budget " + budget);
            }
        }
    }
}
