package org.fdbresolver.bridge;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.InvalidBatchException;

/**
 * Flyweight over the native memory of one batch crossing the bridge: reads the host's transaction and
 * range tables into a {@link ConflictBatch} (copying each key once, straight from host memory into the
 * batch's key region) and writes the decisions into the library's output buffer. The same layout is
 * described in {@code docs/bridge-layout.md}; C declares it as {@code fdbr_transaction}/{@code fdbr_range}
 * in {@code fdbresolver.h}. All integers are native-endian (little-endian on the supported platforms).
 *
 * <p><b>Transaction table</b> ({@code transactionCount} records of {@value #TXN_BYTES} bytes, host memory):
 * <pre>
 *   +0  int64  read_snapshot
 *   +8  uint32 read_count
 *   +12 uint32 write_count
 *   +16 uint32 flags        bit 0: report_conflicting_keys
 *   +20 uint32 reserved
 * </pre>
 *
 * <p><b>Range table</b> ({@code rangeCount} records of {@value #RANGE_BYTES} bytes, host memory): for each
 * transaction in order, its read ranges then its write ranges.
 * <pre>
 *   +0  uint64 begin address   key bytes in host memory, valid during the call
 *   +8  uint64 end address
 *   +16 uint32 begin length
 *   +20 uint32 end length
 * </pre>
 * When {@code begin address == end address} and {@code begin length <= end length}, the begin key is a
 * prefix of the end key (a point range {@code [k, k\0)}): the bytes are copied once and both ends point
 * into them.
 *
 * <p><b>Output</b> (library memory, written here; the library sizes it for the worst case of the batch):
 * <pre>
 *   +0  int32  C, conflicting-reads entries
 *   +4  int32  K, conflicting read indices in all
 *   +8  int64  nanoseconds spent inside the engine for this batch
 *   +16 uint8  decisions[transactionCount]     0 COMMIT, 1 CONFLICT, 2 TOO_OLD
 *   at R = align4(16 + transactionCount):
 *       int32  transactions[C]                  ascending
 *       int32  readStarts[C + 1]                entry i's reads are reads[readStarts[i] .. readStarts[i+1])
 *       int32  reads[K]                         read-range indices within the transaction, ascending
 * </pre>
 *
 * <p>Segments over the tables are wrapped with {@code MemorySegment.ofAddress(a).reinterpret(n)} and kept
 * while the host passes the same buffers, so a steady stream of batches allocates nothing here.
 */
final class NativeBatch {
    static final int TXN_BYTES = 24;
    static final int TXN_READ_SNAPSHOT = 0;
    static final int TXN_READ_COUNT = 8;
    static final int TXN_WRITE_COUNT = 12;
    static final int TXN_FLAGS = 16;
    static final int FLAG_REPORT_CONFLICTING_KEYS = 1;

    static final int RANGE_BYTES = 24;
    static final int RANGE_BEGIN_ADDRESS = 0;
    static final int RANGE_END_ADDRESS = 8;
    static final int RANGE_BEGIN_LENGTH = 16;
    static final int RANGE_END_LENGTH = 20;

    static final int OUT_CONFLICTING_COUNT = 0;
    static final int OUT_CONFLICTING_READ_COUNT = 4;
    static final int OUT_ENGINE_NANOS = 8;
    static final int OUT_DECISIONS = 16;

    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;

    /** All of the address space: key bytes live wherever the host keeps them. */
    private static final MemorySegment HOST_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private MemorySegment transactions = MemorySegment.NULL;
    private MemorySegment ranges = MemorySegment.NULL;
    private MemorySegment output = MemorySegment.NULL;
    /** The batch's key region and a segment over it, rewrapped only when the batch grows it. */
    private byte[] keyArray;
    private MemorySegment keyRegion;

    /**
     * Fills {@code batch} (cleared first) from the host's tables. Keys longer than {@code maxKeyBytes}
     * reject the batch here, before they are copied.
     *
     * <p>The work per transaction and per range sits in small methods of its own: this method runs once
     * per batch, too rarely for the JIT to compile it fully for many batches, while they run thousands
     * of times per batch and are compiled after the first few batches.
     */
    void read(ConflictBatch batch, long txnAddress, int transactionCount, long rangeAddress, int rangeCount,
              int maxKeyBytes, long batchIndex, long now) {
        batch.clear();
        MemorySegment txns = transactions = wrap(transactions, txnAddress, (long) transactionCount * TXN_BYTES);
        MemorySegment rs = ranges = wrap(ranges, rangeAddress, (long) rangeCount * RANGE_BYTES);
        int r = 0;
        for (int t = 0; t < transactionCount; t++) {
            r = readTransaction(batch, txns, rs, t, r, rangeCount, maxKeyBytes, batchIndex, now);
        }
        if (r != rangeCount) {
            throw new IllegalArgumentException(where(batchIndex, now) + ": the transactions own " + r + " ranges but "
                    + rangeCount + " were given");
        }
    }

    /** Adds transaction {@code t}, whose ranges start at range {@code r}; returns its last range + 1. */
    private int readTransaction(ConflictBatch batch, MemorySegment txns, MemorySegment rs, int t, int r,
                                int rangeCount, int maxKeyBytes, long batchIndex, long now) {
        long tx = (long) t * TXN_BYTES;
        int reads = txns.get(I32, tx + TXN_READ_COUNT);
        int writes = txns.get(I32, tx + TXN_WRITE_COUNT);
        boolean report = (txns.get(I32, tx + TXN_FLAGS) & FLAG_REPORT_CONFLICTING_KEYS) != 0;
        if (reads < 0 || writes < 0 || (long) r + reads + writes > rangeCount) {
            throw new IllegalArgumentException(where(batchIndex, now) + " transaction " + t + ": its "
                    + Integer.toUnsignedString(reads) + " reads and " + Integer.toUnsignedString(writes)
                    + " writes overrun the " + rangeCount + " ranges given");
        }
        batch.addTransaction(txns.get(I64, tx + TXN_READ_SNAPSHOT), report);
        for (int i = 0; i < reads; i++) {
            readRange(batch, rs, r++, false, maxKeyBytes, batchIndex, now, t, i);
        }
        for (int i = 0; i < writes; i++) {
            readRange(batch, rs, r++, true, maxKeyBytes, batchIndex, now, t, i);
        }
        return r;
    }

    /** Copies range {@code r} (the transaction's read or write {@code i}) into the batch. */
    private void readRange(ConflictBatch batch, MemorySegment rs, int r, boolean write, int maxKeyBytes,
                           long batchIndex, long now, int t, int i) {
        long at = (long) r * RANGE_BYTES;
        int bLen = rs.get(I32, at + RANGE_BEGIN_LENGTH);
        int eLen = rs.get(I32, at + RANGE_END_LENGTH);
        if (bLen < 0 || bLen > maxKeyBytes || eLen < 0 || eLen > maxKeyBytes) {
            throw keyTooLong(Math.max(Integer.toUnsignedLong(bLen), Integer.toUnsignedLong(eLen)), maxKeyBytes,
                    batchIndex, now, t, write ? "write" : "read", i);
        }
        long bAddr = rs.get(I64, at + RANGE_BEGIN_ADDRESS);
        long eAddr = rs.get(I64, at + RANGE_END_ADDRESS);
        int b;
        int e;
        if (bAddr == eAddr && bLen <= eLen) {
            b = e = copyKey(batch, eAddr, eLen);
        } else {
            b = copyKey(batch, bAddr, bLen);
            e = copyKey(batch, eAddr, eLen);
        }
        if (write) {
            batch.addWriteAt(b, bLen, e, eLen);
        } else {
            batch.addReadAt(b, bLen, e, eLen);
        }
    }

    /** Writes the decisions and conflicting reads of {@code result} into the output buffer. */
    void write(BatchResult result, long outAddress, long outCapacity, long engineNanos) {
        int n = result.transactionCount();
        int c = result.conflictingTransactionCount();
        int k = 0;
        for (int i = 0; i < c; i++) {
            k += result.conflictingReadCount(i);
        }
        long reportAt = align4(OUT_DECISIONS + n);
        long needed = reportAt + 4L * (c + (c + 1) + k);
        if (needed > outCapacity) {
            throw new IllegalStateException("output buffer of " + outCapacity + " bytes is too small for "
                    + needed + " (bridge bug)");
        }
        MemorySegment out = output = wrap(output, outAddress, outCapacity);
        out.set(I32, OUT_CONFLICTING_COUNT, c);
        out.set(I32, OUT_CONFLICTING_READ_COUNT, k);
        out.set(I64, OUT_ENGINE_NANOS, engineNanos);
        MemorySegment.copy(result.decisionBytes(), 0, out, I8, OUT_DECISIONS, n);
        long txAt = reportAt;
        long startAt = txAt + 4L * c;
        long readAt = startAt + 4L * (c + 1);
        int written = 0;
        for (int i = 0; i < c; i++) {
            out.set(I32, txAt + 4L * i, result.conflictingTransaction(i));
            out.set(I32, startAt + 4L * i, written);
            for (int j = 0, m = result.conflictingReadCount(i); j < m; j++) {
                out.set(I32, readAt + 4L * written++, result.conflictingRead(i, j));
            }
        }
        out.set(I32, startAt + 4L * c, written);
    }

    /** Names a batch the way ConflictSet's validation messages do. */
    private static String where(long batchIndex, long now) {
        return "batch " + batchIndex + " (version " + now + ")";
    }

    static long align4(long offset) {
        return (offset + 3) & ~3L;
    }

    /** Copies a host key into the batch's key region; returns its offset there. */
    private int copyKey(ConflictBatch batch, long address, int length) {
        int at = batch.reserveKeyBytes(length);
        byte[] keys = batch.keys();
        if (keys != keyArray) {
            keyArray = keys; // the region grew: wrap the new array (rare)
            keyRegion = MemorySegment.ofArray(keys);
        }
        MemorySegment.copy(HOST_MEMORY, address, keyRegion, at, length);
        return at;
    }

    private static InvalidBatchException keyTooLong(long length, int maxKeyBytes, long batchIndex, long now, int t,
                                                    String kind, int index) {
        return new InvalidBatchException(where(batchIndex, now) + " transaction " + t + ": " + kind + " range " + index
                + " has a key of " + length + " bytes, over the limit of " + maxKeyBytes + " bytes");
    }

    /** The segment at {@code address} of at least {@code size} bytes, reusing {@code current} when it fits. */
    private static MemorySegment wrap(MemorySegment current, long address, long size) {
        if (current.address() == address && current.byteSize() >= size) {
            return current;
        }
        if (size == 0) {
            return MemorySegment.NULL;
        }
        return MemorySegment.ofAddress(address).reinterpret(size);
    }
}
