package org.fdbresolver.harness.trace;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.DecisionHeader;

/**
 * Writes a decision file: the {@link DecisionHeader} on creation, then one {@code BatchDecisions} per batch,
 * then {@link #commit()}. A file (or a symbolic link's target) is written as {@code FILE.tmp} and renamed on
 * commit; closing without a commit deletes it. A device or FIFO is written through ({@link AtomicOutput}).
 * Gzip when the file name ends in {@code .gz}.
 *
 * <p>{@link #write(long, BatchResult)} encodes straight from the engine's reusable result, without building
 * protobuf objects; the bytes are exactly those protobuf would write for the same {@code BatchDecisions}.
 */
public final class DecisionWriter implements AutoCloseable {
    private static final int FIELD_VERSION = BatchDecisions.VERSION_FIELD_NUMBER;
    private static final int FIELD_DECISIONS = BatchDecisions.DECISIONS_FIELD_NUMBER;
    private static final int FIELD_CONFLICTING = BatchDecisions.CONFLICTING_READS_FIELD_NUMBER;
    private static final int FIELD_TRANSACTION = org.fdbresolver.trace.v1.ConflictingReads.TRANSACTION_FIELD_NUMBER;
    private static final int FIELD_READ_RANGES = org.fdbresolver.trace.v1.ConflictingReads.READ_RANGES_FIELD_NUMBER;

    private final AtomicOutput output;
    private final CodedOutputStream coded;
    private long batches;

    private DecisionWriter(AtomicOutput output, DecisionHeader header) throws IOException {
        this.output = output;
        this.coded = CodedOutputStream.newInstance(output.stream(), 1 << 16);
        coded.writeUInt32NoTag(header.getSerializedSize());
        header.writeTo(coded);
    }

    /**
     * Starts a decision file for a trace whose stored bytes hash to {@code traceSha256}.
     *
     * @param engine free text naming the engine that decided
     */
    public static DecisionWriter create(Path path, String engine, byte[] traceSha256) throws IOException {
        DecisionHeader header = DecisionHeader.newBuilder()
                .setFormat(TraceFormats.DECISIONS)
                .setEngine(engine)
                .setTraceSha256(ByteString.copyFrom(traceSha256))
                .build();
        AtomicOutput output = new AtomicOutput(path);
        try {
            return new DecisionWriter(output, header);
        } catch (IOException | RuntimeException e) {
            output.close();
            throw e;
        }
    }

    /** Appends one batch's decisions, encoded from the engine's result. */
    public void write(long version, BatchResult result) throws IOException {
        int n = result.transactionCount();
        int size = 0;
        if (version != 0) {
            size += CodedOutputStream.computeInt64Size(FIELD_VERSION, version);
        }
        if (n > 0) {
            size += CodedOutputStream.computeTagSize(FIELD_DECISIONS) + CodedOutputStream.computeUInt32SizeNoTag(n) + n;
        }
        int entries = result.conflictingTransactionCount();
        for (int i = 0; i < entries; i++) {
            int entry = entrySize(result, i);
            size += CodedOutputStream.computeTagSize(FIELD_CONFLICTING) + CodedOutputStream.computeUInt32SizeNoTag(entry) + entry;
        }

        coded.writeUInt32NoTag(size);
        if (version != 0) {
            coded.writeInt64(FIELD_VERSION, version);
        }
        if (n > 0) {
            coded.writeTag(FIELD_DECISIONS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            coded.writeUInt32NoTag(n);
            coded.write(result.decisionBytes(), 0, n);
        }
        for (int i = 0; i < entries; i++) {
            coded.writeTag(FIELD_CONFLICTING, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            coded.writeUInt32NoTag(entrySize(result, i));
            int t = result.conflictingTransaction(i);
            if (t != 0) {
                coded.writeUInt32(FIELD_TRANSACTION, t);
            }
            int reads = result.conflictingReadCount(i);
            if (reads > 0) {
                coded.writeTag(FIELD_READ_RANGES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                coded.writeUInt32NoTag(packedSize(result, i));
                for (int j = 0; j < reads; j++) {
                    coded.writeUInt32NoTag(result.conflictingRead(i, j));
                }
            }
        }
        batches++;
    }

    /** Appends one batch's decisions as given. */
    public void write(BatchDecisions decisions) throws IOException {
        coded.writeUInt32NoTag(decisions.getSerializedSize());
        decisions.writeTo(coded);
        batches++;
    }

    public long batchesWritten() {
        return batches;
    }

    private static int entrySize(BatchResult result, int i) {
        int t = result.conflictingTransaction(i);
        int size = t != 0 ? CodedOutputStream.computeUInt32Size(FIELD_TRANSACTION, t) : 0;
        if (result.conflictingReadCount(i) > 0) {
            int packed = packedSize(result, i);
            size += CodedOutputStream.computeTagSize(FIELD_READ_RANGES) + CodedOutputStream.computeUInt32SizeNoTag(packed) + packed;
        }
        return size;
    }

    private static int packedSize(BatchResult result, int i) {
        int size = 0;
        for (int j = 0, n = result.conflictingReadCount(i); j < n; j++) {
            size += CodedOutputStream.computeUInt32SizeNoTag(result.conflictingRead(i, j));
        }
        return size;
    }

    /** Finishes the file and moves it into place. */
    public void commit() throws IOException {
        coded.flush();
        output.commit();
    }

    /** Deletes the file unless it was committed. */
    @Override
    public void close() throws IOException {
        output.close();
    }
}
