package org.fdbresolver.api;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Bad batches are rejected whole, with a message naming where, and change nothing. */
class ConflictSetValidationTest {
    private final ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").maxKeyBytes(100).build());
    private final ConflictBatch batch = cs.newBatch();

    private static byte[] k(String s) {
        return s.getBytes(US_ASCII);
    }

    private String reject(long now, long oldest) {
        return assertThrows(InvalidBatchException.class, () -> batch.detectConflicts(now, oldest)).getMessage();
    }

    private void commitWrite(long now, String b, String e) {
        batch.addTransaction(now - 1, false);
        batch.addWrite(k(b), k(e));
        batch.detectConflicts(now, 0);
    }

    @Test
    void versionRules() {
        commitWrite(1000, "a", "b");
        batch.clear();
        assertEquals("batch 1 (version 1000): version does not increase (previous batch has version 1000)", reject(1000, 0));
        assertEquals("batch 1 (version 999): version does not increase (previous batch has version 1000)", reject(999, 0));
        assertEquals("batch 1 (version 2000): new_oldest_version 2001 is greater than version 2000", reject(2000, 2001));
        assertEquals("batch 1 (version -5): version is negative", reject(-5, -5));
        assertEquals("batch 1 (version 2000): new_oldest_version -1 is negative", reject(2000, -1));
        batch.detectConflicts(2000, 500);
        batch.clear();
        assertEquals("batch 2 (version 3000): new_oldest_version 499 is smaller than the previous batch's 500", reject(3000, 499));
    }

    @Test
    void invertedRangeNamesTransactionAndRange() {
        batch.addTransaction(0, false);
        batch.addTransaction(0, false);
        batch.addRead(k("a"), k("b"));
        batch.addRead(k("k015"), k("k005"));
        assertEquals("batch 0 (version 4000) transaction 1: read range 1 [\"k015\", \"k005\") is inverted (begin > end)",
                reject(4000, 0));
    }

    @Test
    void oversizeKeyIsRejected() {
        batch.addTransaction(0, false);
        batch.addWrite(new byte[101], new byte[102]);
        assertEquals("batch 0 (version 10) transaction 0: write range 0 has a key of 102 bytes, over the limit of 100 bytes",
                reject(10, 0));
    }

    @Test
    void rejectedBatchChangesNoState() {
        commitWrite(1000, "a", "b");
        batch.addTransaction(1500, false);
        batch.addWrite(k("c"), k("d"));
        batch.addTransaction(1500, false);
        batch.addWrite(k("z"), k("a"));
        reject(2000, 0);
        batch.clear();
        batch.addTransaction(1500, false);
        batch.addRead(k("c"), k("d"));
        batch.addTransaction(999, false);
        batch.addRead(k("a"), k("b"));
        BatchResult r = batch.detectConflicts(2000, 0);
        assertEquals(Decision.COMMIT, r.decision(0));
        assertEquals(Decision.CONFLICT, r.decision(1));
        assertEquals(2, cs.stats().batches());
    }

    @Test
    void pointRangeStoresItsKeyOnce() {
        batch.addTransaction(0, false);
        batch.addRead(k("key"), k("key\0"));
        assertEquals(4, batch.keyBytes());
        assertEquals(3, batch.readBeginLength(0));
        assertEquals(4, batch.readEndLength(0));
    }
}
