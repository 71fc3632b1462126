package org.fdbresolver.harness.trace;

import com.google.protobuf.ByteString;
import java.security.MessageDigest;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.Decision;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;

/**
 * The decision hash and conflicting-keys hash of a run (docs/formats.md), fed one batch at a time, with the
 * decision counts beside them.
 *
 * <ul>
 *   <li>Decision hash: SHA-256 of every batch's decision bytes, concatenated in batch order.</li>
 *   <li>Conflicting-keys hash: SHA-256 over, for each batch in order and each conflicting-reads entry in
 *       ascending transaction order, the transaction index then each read-range index, each a 4-byte
 *       little-endian unsigned integer. With no entries at all it is {@link Hashes#EMPTY_SHA256}.</li>
 * </ul>
 *
 * Feeding a batch allocates nothing. The hashes can be read at any point (they cover the batches so far).
 */
public final class DecisionHasher {
    private final MessageDigest decisionDigest = Hashes.sha256();
    private final MessageDigest conflictingDigest = Hashes.sha256();
    /** Little-endian integers are staged here and handed to the digest in blocks. */
    private final byte[] staged = new byte[4096];
    private int stagedBytes;
    private byte[] decisionScratch = new byte[4096];

    private long batches;
    private long transactions;
    private final long[] counts = new long[3];

    /** Adds a batch as an engine decided it. */
    public void add(BatchResult result) {
        int n = result.transactionCount();
        decisionDigest.update(result.decisionBytes(), 0, n);
        result.countDecisions(counts);
        for (int i = 0, entries = result.conflictingTransactionCount(); i < entries; i++) {
            stage(result.conflictingTransaction(i));
            for (int j = 0, reads = result.conflictingReadCount(i); j < reads; j++) {
                stage(result.conflictingRead(i, j));
            }
        }
        flushStaged();
        batches++;
        transactions += n;
    }

    /** Adds a batch as read from a decision file. */
    public void add(BatchDecisions decisions) {
        ByteString bytes = decisions.getDecisions();
        int n = bytes.size();
        if (decisionScratch.length < n) {
            decisionScratch = new byte[Math.max(n, decisionScratch.length * 2)];
        }
        bytes.copyTo(decisionScratch, 0);
        decisionDigest.update(decisionScratch, 0, n);
        for (int t = 0; t < n; t++) {
            int code = decisionScratch[t];
            if (code < 0 || code > 2) {
                throw new IllegalArgumentException("transaction " + t + " has decision byte " + (code & 0xFF));
            }
            counts[code]++;
        }
        for (int i = 0, entries = decisions.getConflictingReadsCount(); i < entries; i++) {
            ConflictingReads c = decisions.getConflictingReads(i);
            stage(c.getTransaction());
            for (int j = 0, reads = c.getReadRangesCount(); j < reads; j++) {
                stage(c.getReadRanges(j));
            }
        }
        flushStaged();
        batches++;
        transactions += n;
    }

    private void stage(int value) {
        if (stagedBytes + 4 > staged.length) {
            flushStaged();
        }
        byte[] s = staged;
        int p = stagedBytes;
        s[p] = (byte) value;
        s[p + 1] = (byte) (value >>> 8);
        s[p + 2] = (byte) (value >>> 16);
        s[p + 3] = (byte) (value >>> 24);
        stagedBytes = p + 4;
    }

    private void flushStaged() {
        if (stagedBytes > 0) {
            conflictingDigest.update(staged, 0, stagedBytes);
            stagedBytes = 0;
        }
    }

    /** The decision hash of the batches so far, lowercase hex. */
    public String decisionHash() {
        return Hashes.hex(snapshot(decisionDigest));
    }

    /** The conflicting-keys hash of the batches so far, lowercase hex. */
    public String conflictingKeysHash() {
        return Hashes.hex(snapshot(conflictingDigest));
    }

    private static byte[] snapshot(MessageDigest digest) {
        try {
            return ((MessageDigest) digest.clone()).digest();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA-256 can be cloned", e);
        }
    }

    public long batches() {
        return batches;
    }

    public long transactions() {
        return transactions;
    }

    public long count(Decision decision) {
        return counts[decision.code()];
    }

    public long commits() {
        return counts[Decision.COMMIT_CODE];
    }

    public long conflicts() {
        return counts[Decision.CONFLICT_CODE];
    }

    public long tooOld() {
        return counts[Decision.TOO_OLD_CODE];
    }
}
