package org.fdbresolver.bridge.capture;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;

/**
 * Encodes one resolved batch as the trace format's {@code Batch} message and the decision format's
 * {@code BatchDecisions} message (docs/formats.md, {@code fdb-harness/src/main/proto/trace.proto}), each with its
 * varint length in front, straight from the engine's {@link ConflictBatch} (whose key region already holds every
 * key) and its {@link BatchResult}: no protobuf objects, nothing allocated once the size table has grown.
 *
 * <p>The bytes are exactly those protobuf-java writes for the same messages (fields in number order, proto3
 * defaults left out), so a captured batch is byte-for-byte the batch of the trace that was replayed into the
 * resolver ({@code BatchEncoderTest} checks both against the generated classes). The bridge does not depend on
 * those generated classes (they live in the harness, with its CLI), hence the field numbers below.
 */
final class BatchEncoder {
    // trace.proto: Batch
    static final int BATCH_VERSION = 1;
    static final int BATCH_NEW_OLDEST_VERSION = 2;
    static final int BATCH_TRANSACTIONS = 3;
    // Transaction
    static final int TX_READ_SNAPSHOT = 1;
    static final int TX_READS = 2;
    static final int TX_WRITES = 3;
    static final int TX_REPORT_CONFLICTING_KEYS = 4;
    // KeyRange
    static final int RANGE_BEGIN = 1;
    static final int RANGE_END = 2;
    // BatchDecisions
    static final int DECISIONS_VERSION = 1;
    static final int DECISIONS_DECISIONS = 2;
    static final int DECISIONS_CONFLICTING_READS = 3;
    // ConflictingReads
    static final int CONFLICTING_TRANSACTION = 1;
    static final int CONFLICTING_READ_RANGES = 2;

    /** Each transaction's message size, from the size pass to the write pass. */
    private int[] transactionSizes = new int[256];

    /** The {@code Batch} message's size, length prefix included; remembers each transaction's size for the write. */
    int batchSize(ConflictBatch batch, long version, long newOldestVersion) {
        int n = batch.transactionCount();
        if (transactionSizes.length < n) {
            transactionSizes = Arrays.copyOf(transactionSizes, Math.max(n, 2 * transactionSizes.length));
        }
        long body = int64Size(BATCH_VERSION, version) + int64Size(BATCH_NEW_OLDEST_VERSION, newOldestVersion);
        for (int t = 0; t < n; t++) {
            int size = transactionSize(batch, t);
            transactionSizes[t] = size;
            body += delimitedSize(BATCH_TRANSACTIONS, size);
        }
        return prefixed(body);
    }

    /** Writes the {@code Batch} message measured by the last {@link #batchSize} call, length first. */
    void writeBatch(CodedOutputStream out, ConflictBatch batch, long version, long newOldestVersion, int size)
            throws IOException {
        out.writeUInt32NoTag(size - CodedOutputStream.computeUInt32SizeNoTag(size));
        writeInt64(out, BATCH_VERSION, version);
        writeInt64(out, BATCH_NEW_OLDEST_VERSION, newOldestVersion);
        byte[] keys = batch.keys();
        for (int t = 0, n = batch.transactionCount(); t < n; t++) {
            out.writeTag(BATCH_TRANSACTIONS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(transactionSizes[t]);
            writeInt64(out, TX_READ_SNAPSHOT, batch.readSnapshot(t));
            for (int r = batch.readStart(t), end = batch.readEnd(t); r < end; r++) {
                writeRange(out, TX_READS, keys, batch.readBeginOffset(r), batch.readBeginLength(r),
                        batch.readEndOffset(r), batch.readEndLength(r));
            }
            for (int w = batch.writeStart(t), end = batch.writeEnd(t); w < end; w++) {
                writeRange(out, TX_WRITES, keys, batch.writeBeginOffset(w), batch.writeBeginLength(w),
                        batch.writeEndOffset(w), batch.writeEndLength(w));
            }
            if (batch.reportConflictingKeys(t)) {
                out.writeBool(TX_REPORT_CONFLICTING_KEYS, true);
            }
        }
    }

    /** The {@code BatchDecisions} message's size, length prefix included. */
    static int decisionsSize(BatchResult result, long version) {
        int n = result.transactionCount();
        long body = int64Size(DECISIONS_VERSION, version);
        if (n > 0) {
            body += delimitedSize(DECISIONS_DECISIONS, n);
        }
        for (int i = 0, c = result.conflictingTransactionCount(); i < c; i++) {
            body += delimitedSize(DECISIONS_CONFLICTING_READS, conflictingReadsSize(result, i));
        }
        return prefixed(body);
    }

    /** Writes the {@code BatchDecisions} message of {@link #decisionsSize}, length first. */
    static void writeDecisions(CodedOutputStream out, BatchResult result, long version, int size) throws IOException {
        out.writeUInt32NoTag(size - CodedOutputStream.computeUInt32SizeNoTag(size));
        writeInt64(out, DECISIONS_VERSION, version);
        int n = result.transactionCount();
        if (n > 0) {
            out.writeTag(DECISIONS_DECISIONS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(n);
            out.write(result.decisionBytes(), 0, n);
        }
        for (int i = 0, c = result.conflictingTransactionCount(); i < c; i++) {
            out.writeTag(DECISIONS_CONFLICTING_READS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(conflictingReadsSize(result, i));
            int t = result.conflictingTransaction(i);
            if (t != 0) {
                out.writeUInt32(CONFLICTING_TRANSACTION, t);
            }
            int reads = result.conflictingReadCount(i);
            if (reads > 0) {
                out.writeTag(CONFLICTING_READ_RANGES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                out.writeUInt32NoTag(packedReadsSize(result, i));
                for (int j = 0; j < reads; j++) {
                    out.writeUInt32NoTag(result.conflictingRead(i, j));
                }
            }
        }
    }

    private static int transactionSize(ConflictBatch batch, int t) {
        long size = int64Size(TX_READ_SNAPSHOT, batch.readSnapshot(t));
        for (int r = batch.readStart(t), end = batch.readEnd(t); r < end; r++) {
            size += delimitedSize(TX_READS, rangeSize(batch.readBeginLength(r), batch.readEndLength(r)));
        }
        for (int w = batch.writeStart(t), end = batch.writeEnd(t); w < end; w++) {
            size += delimitedSize(TX_WRITES, rangeSize(batch.writeBeginLength(w), batch.writeEndLength(w)));
        }
        if (batch.reportConflictingKeys(t)) {
            size += CodedOutputStream.computeBoolSize(TX_REPORT_CONFLICTING_KEYS, true);
        }
        return checked(size);
    }

    private static void writeRange(CodedOutputStream out, int field, byte[] keys, int bOff, int bLen, int eOff, int eLen)
            throws IOException {
        out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(rangeSize(bLen, eLen));
        writeBytes(out, RANGE_BEGIN, keys, bOff, bLen);
        writeBytes(out, RANGE_END, keys, eOff, eLen);
    }

    /** A {@code KeyRange}: each key a bytes field, left out when empty (proto3). */
    private static int rangeSize(int beginLength, int endLength) {
        return (beginLength > 0 ? delimitedSize(RANGE_BEGIN, beginLength) : 0)
                + (endLength > 0 ? delimitedSize(RANGE_END, endLength) : 0);
    }

    private static void writeBytes(CodedOutputStream out, int field, byte[] keys, int offset, int length) throws IOException {
        if (length > 0) {
            out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(length);
            out.write(keys, offset, length);
        }
    }

    private static int conflictingReadsSize(BatchResult result, int i) {
        int t = result.conflictingTransaction(i);
        int size = t != 0 ? CodedOutputStream.computeUInt32Size(CONFLICTING_TRANSACTION, t) : 0;
        if (result.conflictingReadCount(i) > 0) {
            size += delimitedSize(CONFLICTING_READ_RANGES, packedReadsSize(result, i));
        }
        return size;
    }

    private static int packedReadsSize(BatchResult result, int i) {
        int size = 0;
        for (int j = 0, n = result.conflictingReadCount(i); j < n; j++) {
            size += CodedOutputStream.computeUInt32SizeNoTag(result.conflictingRead(i, j));
        }
        return size;
    }

    /** An int64 field, left out when 0 (proto3). */
    private static int int64Size(int field, long value) {
        return value != 0 ? CodedOutputStream.computeInt64Size(field, value) : 0;
    }

    private static void writeInt64(CodedOutputStream out, int field, long value) throws IOException {
        if (value != 0) {
            out.writeInt64(field, value);
        }
    }

    private static int delimitedSize(int field, int length) {
        return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(length) + length;
    }

    /** A message's size with its varint length in front; over protobuf's 2 GiB limit is refused. */
    private static int prefixed(long body) {
        int size = checked(body);
        return checked((long) size + CodedOutputStream.computeUInt32SizeNoTag(size));
    }

    private static int checked(long size) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a captured message of " + size + " bytes exceeds protobuf's 2 GiB limit");
        }
        return (int) size;
    }
}
