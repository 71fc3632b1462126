package org.fdbresolver.api;

import java.util.Arrays;

/**
 * One resolver batch being assembled, shaped like FoundationDB's {@code ConflictBatch}: call
 * {@link #addTransaction} for each transaction, add its read and write conflict ranges, then
 * {@link #detectConflicts(long, long)}. The next {@code addTransaction} after a detection starts a new
 * batch, so one instance serves a whole run without allocating.
 *
 * <p>Layout (read by engines through the accessors): every key is copied once into one byte region,
 * {@link #keys()}; a range is four ints (begin offset and length, end offset and length) into it.
 * A point range {@code [k, k\0)} stores {@code k\0} once and both ends point into it. A range's four ints lie
 * side by side, and so do a transaction's first read and first write. Transaction
 * {@code t} owns reads {@code [readStart(t), readEnd(t))} and writes {@code [writeStart(t), writeEnd(t))},
 * numbered across the batch; its read at index {@code i} within the transaction is batch read
 * {@code readStart(t) + i}.
 */
public final class ConflictBatch {
    private static final int INITIAL_TRANSACTIONS = 64;
    private static final int INITIAL_RANGES = 256;
    private static final int INITIAL_KEY_BYTES = 1 << 14;

    private final ConflictSet owner;
    /** The result {@link #detectConflicts(long, long)} fills (made then: a detached batch never needs one). */
    private BatchResult result;
    private boolean detected;

    private int transactionCount;
    private long[] readSnapshots = new long[INITIAL_TRANSACTIONS];
    private boolean[] reportConflictingKeys = new boolean[INITIAL_TRANSACTIONS];
    /**
     * Transaction t's first read at {@code starts[2t]} and first write at {@code starts[2t + 1]}, side by side (an
     * engine reads both); {@code starts[2 * transactionCount]} is readCount, the next the writeCount.
     */
    private int[] starts = new int[2 * INITIAL_TRANSACTIONS + 2];

    private final RangeList reads = new RangeList();
    private final RangeList writes = new RangeList();

    private byte[] keys = new byte[INITIAL_KEY_BYTES];
    private int keyBytes;

    ConflictBatch(ConflictSet owner) {
        this.owner = owner;
    }

    /** A batch not attached to a conflict set, for engines driven directly (tests, benchmarks). */
    public static ConflictBatch detached() {
        return new ConflictBatch(null);
    }

    /** Starts transaction {@link #transactionCount()}; its ranges follow through addRead/addWrite. */
    public int addTransaction(long readSnapshot, boolean reportConflictingKeys) {
        if (detected) {
            clear();
        }
        int t = transactionCount;
        if (t == readSnapshots.length) {
            int n = t * 2;
            readSnapshots = Arrays.copyOf(readSnapshots, n);
            this.reportConflictingKeys = Arrays.copyOf(this.reportConflictingKeys, n);
            starts = Arrays.copyOf(starts, 2 * n + 2);
        }
        readSnapshots[t] = readSnapshot;
        this.reportConflictingKeys[t] = reportConflictingKeys;
        starts[2 * t] = reads.count;
        starts[2 * t + 1] = writes.count;
        transactionCount = t + 1;
        starts[2 * t + 2] = reads.count;
        starts[2 * t + 3] = writes.count;
        return t;
    }

    /** Adds a read conflict range {@code [begin, end)} to the last transaction added. */
    public void addRead(byte[] begin, int beginOff, int beginLen, byte[] end, int endOff, int endLen) {
        addRange(reads, begin, beginOff, beginLen, end, endOff, endLen);
        starts[2 * transactionCount] = reads.count;
    }

    /** Adds a write conflict range {@code [begin, end)} to the last transaction added. */
    public void addWrite(byte[] begin, int beginOff, int beginLen, byte[] end, int endOff, int endLen) {
        addRange(writes, begin, beginOff, beginLen, end, endOff, endLen);
        starts[2 * transactionCount + 1] = writes.count;
    }

    public void addRead(byte[] begin, byte[] end) {
        addRead(begin, 0, begin.length, end, 0, end.length);
    }

    public void addWrite(byte[] begin, byte[] end) {
        addWrite(begin, 0, begin.length, end, 0, end.length);
    }

    /**
     * Adds a read conflict range whose key bytes the caller already wrote into the key region (space
     * from {@link #reserveKeyBytes}, bytes into {@link #keys()}): for callers that copy keys straight from
     * their own memory, such as the native bridge, so that each key is copied once. The two ends may
     * share bytes (a begin that is a prefix of the end can point into it).
     */
    public void addReadAt(int beginOffset, int beginLength, int endOffset, int endLength) {
        addRangeAt(reads, beginOffset, beginLength, endOffset, endLength);
        starts[2 * transactionCount] = reads.count;
    }

    /** Adds a write conflict range whose key bytes are already in the key region; see {@link #addReadAt}. */
    public void addWriteAt(int beginOffset, int beginLength, int endOffset, int endLength) {
        addRangeAt(writes, beginOffset, beginLength, endOffset, endLength);
        starts[2 * transactionCount + 1] = writes.count;
    }

    /** Resolves the batch through the owning conflict set; the result is reused by the next batch. */
    public BatchResult detectConflicts(long now, long newOldestVersion) {
        if (owner == null) {
            throw new IllegalStateException("a detached batch is resolved by passing it to an engine");
        }
        if (result == null) {
            result = new BatchResult();
        }
        owner.detectConflicts(this, now, newOldestVersion, result);
        detected = true;
        return result;
    }

    /**
     * Shrinks the buffers to what the batch holds (they grow again as needed). For callers that keep many batches
     * in memory at once, such as a benchmark that loads a whole trace: a batch of two transactions then holds a few
     * hundred bytes, laid out together, instead of the 26 KB of buffers a new batch starts with, as FoundationDB's
     * own batches are held in one small arena each.
     */
    public void trimToSize() {
        int t = Math.max(1, transactionCount);
        readSnapshots = Arrays.copyOf(readSnapshots, t);
        reportConflictingKeys = Arrays.copyOf(reportConflictingKeys, t);
        starts = Arrays.copyOf(starts, 2 * t + 2);
        reads.trimToSize();
        writes.trimToSize();
        keys = Arrays.copyOf(keys, Math.max(1, keyBytes));
    }

    /** Forgets every transaction; keeps the buffers. */
    public void clear() {
        transactionCount = 0;
        starts[0] = 0;
        starts[1] = 0;
        reads.count = 0;
        writes.count = 0;
        keyBytes = 0;
        detected = false;
    }

    private void addRange(RangeList list, byte[] begin, int beginOff, int beginLen, byte[] end, int endOff, int endLen) {
        if (transactionCount == 0 || detected) {
            throw new IllegalStateException("addTransaction must come before its ranges");
        }
        int r = list.grow();
        if (endLen == beginLen + 1 && end[endOff + beginLen] == 0
                && Arrays.equals(begin, beginOff, beginOff + beginLen, end, endOff, endOff + beginLen)) {
            // A point range [k, k\0): store k\0 once, both ends point into it.
            int at = reserveKeyBytes(endLen);
            System.arraycopy(end, endOff, keys, at, endLen);
            list.set(r, at, beginLen, at, endLen);
        } else {
            int b = reserveKeyBytes(beginLen);
            System.arraycopy(begin, beginOff, keys, b, beginLen);
            int e = reserveKeyBytes(endLen);
            System.arraycopy(end, endOff, keys, e, endLen);
            list.set(r, b, beginLen, e, endLen);
        }
    }

    private void addRangeAt(RangeList list, int bOff, int bLen, int eOff, int eLen) {
        if (transactionCount == 0 || detected) {
            throw new IllegalStateException("addTransaction must come before its ranges");
        }
        if ((bOff | bLen | eOff | eLen) < 0 || (long) bOff + bLen > keyBytes || (long) eOff + eLen > keyBytes) {
            throw new IllegalArgumentException("range [" + bOff + "+" + bLen + ", " + eOff + "+" + eLen
                    + ") lies outside the " + keyBytes + " key bytes reserved");
        }
        list.set(list.grow(), bOff, bLen, eOff, eLen);
    }

    /** Reserves {@code len} bytes at the end of the key region and returns their offset. */
    public int reserveKeyBytes(int len) {
        int at = keyBytes;
        long needed = (long) at + len;
        if (needed > keys.length) {
            if (needed > Integer.MAX_VALUE - 8) {
                throw new InvalidBatchException("batch keys exceed 2 GiB");
            }
            keys = Arrays.copyOf(keys, (int) Math.max(needed, Math.min(Integer.MAX_VALUE - 8L, keys.length * 2L)));
        }
        keyBytes = at + len;
        return at;
    }

    // ---- read accessors for engines ----

    public int transactionCount() {
        return transactionCount;
    }

    public long readSnapshot(int t) {
        return readSnapshots[t];
    }

    public boolean reportConflictingKeys(int t) {
        return reportConflictingKeys[t];
    }

    public int readStart(int t) {
        return starts[2 * t];
    }

    public int readEnd(int t) {
        return starts[2 * t + 2];
    }

    public int writeStart(int t) {
        return starts[2 * t + 1];
    }

    public int writeEnd(int t) {
        return starts[2 * t + 3];
    }

    public int readCount() {
        return reads.count;
    }

    public int writeCount() {
        return writes.count;
    }

    /** The key region; valid until the next range is added. */
    public byte[] keys() {
        return keys;
    }

    public int keyBytes() {
        return keyBytes;
    }

    public int readBeginOffset(int r) {
        return reads.ends[4 * r];
    }

    public int readBeginLength(int r) {
        return reads.ends[4 * r + 1];
    }

    public int readEndOffset(int r) {
        return reads.ends[4 * r + 2];
    }

    public int readEndLength(int r) {
        return reads.ends[4 * r + 3];
    }

    public int writeBeginOffset(int w) {
        return writes.ends[4 * w];
    }

    public int writeBeginLength(int w) {
        return writes.ends[4 * w + 1];
    }

    public int writeEndOffset(int w) {
        return writes.ends[4 * w + 2];
    }

    public int writeEndLength(int w) {
        return writes.ends[4 * w + 3];
    }

    /** Whether read r is empty ({@code begin == end}). */
    public boolean readIsEmpty(int r) {
        return compareReadEnds(r) == 0;
    }

    /** Whether write w is empty ({@code begin == end}). */
    public boolean writeIsEmpty(int w) {
        return Keys.compare(keys, writeBeginOffset(w), writeBeginLength(w), keys, writeEndOffset(w), writeEndLength(w)) == 0;
    }

    private int compareReadEnds(int r) {
        return Keys.compare(keys, readBeginOffset(r), readBeginLength(r), keys, readEndOffset(r), readEndLength(r));
    }

    /** Copies read r's begin key (for tests and error messages, not the hot path). */
    public byte[] readBegin(int r) {
        return Arrays.copyOfRange(keys, readBeginOffset(r), readBeginOffset(r) + readBeginLength(r));
    }

    public byte[] readEndKey(int r) {
        return Arrays.copyOfRange(keys, readEndOffset(r), readEndOffset(r) + readEndLength(r));
    }

    public byte[] writeBegin(int w) {
        return Arrays.copyOfRange(keys, writeBeginOffset(w), writeBeginOffset(w) + writeBeginLength(w));
    }

    public byte[] writeEndKey(int w) {
        return Arrays.copyOfRange(keys, writeEndOffset(w), writeEndOffset(w) + writeEndLength(w));
    }

    /**
     * Growable ranges: range r's begin offset and length, end offset and length at {@code ends[4r .. 4r + 4)}, side by
     * side, as every engine reads them (one cache line holds four ranges; a small batch's in one or two).
     */
    private static final class RangeList {
        int count;
        int[] ends = new int[4 * INITIAL_RANGES];

        int grow() {
            if (4 * count == ends.length) {
                ends = Arrays.copyOf(ends, ends.length * 2);
            }
            return count++;
        }

        void trimToSize() {
            ends = Arrays.copyOf(ends, 4 * Math.max(1, count));
        }

        void set(int r, int bOff, int bLen, int eOff, int eLen) {
            int at = 4 * r;
            ends[at] = bOff;
            ends[at + 1] = bLen;
            ends[at + 2] = eOff;
            ends[at + 3] = eLen;
        }
    }
}
