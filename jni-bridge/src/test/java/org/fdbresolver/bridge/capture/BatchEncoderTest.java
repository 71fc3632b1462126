package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The capture's encoder writes, from an engine's batch and result, exactly the bytes protobuf writes for the same
 * {@code Batch} and {@code BatchDecisions} — and so, on the golden traces, exactly the bytes of the trace's own batches
 * and of FoundationDB's decision files.
 */
class BatchEncoderTest {

    static Stream<String> goldens() throws IOException {
        return Golden.manifest().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void goldenBatchesAndDecisionsEncodeToTheFilesOwnBytes(String name) throws IOException {
        Path trace = Golden.trace(name);
        List<byte[]> batches = Frames.batches(trace);
        List<byte[]> decisions = Frames.decisions(Golden.decisions(name));
        BatchEncoder encoder = new BatchEncoder();
        try (TraceReader reader = TraceReader.open(trace);
             ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            ConflictBatch batch = cs.newBatch();
            int i = 0;
            while (reader.nextInto(batch)) {
                BatchResult result = batch.detectConflicts(reader.version(), reader.newOldestVersion());
                assertArrayEquals(batches.get(i), encodeBatch(encoder, batch, reader.version(), reader.newOldestVersion()),
                        name + " batch " + i);
                assertArrayEquals(decisions.get(i), encodeDecisions(result, reader.version()), name + " decisions " + i);
                i++;
            }
            assertEquals(batches.size(), i);
        }
    }

    /** What the golden traces lack: negative snapshots, empty keys and transactions, every flag, an empty batch. */
    @Test
    void unusualBatchesEncodeAsProtobufDoes() throws IOException {
        ConflictBatch batch = ConflictBatch.detached();
        Batch.Builder expected = Batch.newBuilder().setVersion(-5).setNewOldestVersion(0);
        batch.addTransaction(-1, true);
        expected.addTransactions(Transaction.newBuilder().setReadSnapshot(-1).setReportConflictingKeys(true));
        batch.addTransaction(0, false); // no ranges at all
        expected.addTransactions(Transaction.newBuilder());
        batch.addTransaction(Long.MAX_VALUE, true);
        Transaction.Builder t = Transaction.newBuilder().setReadSnapshot(Long.MAX_VALUE).setReportConflictingKeys(true);
        byte[][][] reads = {{{}, {}}, {{}, {1}}, {{0}, {0, 0}}, {bytes(300), bytes(301)}};
        for (byte[][] r : reads) {
            batch.addRead(r[0], r[1]);
            t.addReads(KeyRange.newBuilder().setBegin(ByteString.copyFrom(r[0])).setEnd(ByteString.copyFrom(r[1])));
        }
        batch.addWrite(new byte[] {7}, new byte[] {7, 0});
        t.addWrites(KeyRange.newBuilder().setBegin(ByteString.copyFrom(new byte[] {7})).setEnd(ByteString.copyFrom(new byte[] {7, 0})));
        expected.addTransactions(t);
        BatchEncoder encoder = new BatchEncoder();
        assertArrayEquals(delimited(expected.build().toByteArray()), encodeBatch(encoder, batch, -5, 0));

        ConflictBatch empty = ConflictBatch.detached();
        assertArrayEquals(delimited(Batch.newBuilder().setVersion(1L << 40).setNewOldestVersion(3).build().toByteArray()),
                encodeBatch(encoder, empty, 1L << 40, 3));

        BatchResult result = new BatchResult();
        result.reset(3);
        result.setDecision(0, Decision.CONFLICT_CODE);
        result.beginConflictingReads(0);
        result.addConflictingRead(0);
        result.addConflictingRead(200);
        result.setDecision(1, Decision.TOO_OLD_CODE);
        result.setDecision(2, Decision.CONFLICT_CODE);
        result.beginConflictingReads(2);
        BatchDecisions decisions = BatchDecisions.newBuilder().setVersion(-5)
                .setDecisions(ByteString.copyFrom(new byte[] {Decision.CONFLICT_CODE, Decision.TOO_OLD_CODE, Decision.CONFLICT_CODE}))
                .addConflictingReads(ConflictingReads.newBuilder().setTransaction(0).addReadRanges(0).addReadRanges(200))
                .addConflictingReads(ConflictingReads.newBuilder().setTransaction(2))
                .build();
        assertArrayEquals(delimited(decisions.toByteArray()), encodeDecisions(result, -5));
        result.reset(0);
        assertArrayEquals(delimited(BatchDecisions.newBuilder().setVersion(9).build().toByteArray()), encodeDecisions(result, 9));
    }

    @Test
    void fieldNumbersAreTraceProtos() {
        assertEquals(Batch.VERSION_FIELD_NUMBER, BatchEncoder.BATCH_VERSION);
        assertEquals(Batch.NEW_OLDEST_VERSION_FIELD_NUMBER, BatchEncoder.BATCH_NEW_OLDEST_VERSION);
        assertEquals(Batch.TRANSACTIONS_FIELD_NUMBER, BatchEncoder.BATCH_TRANSACTIONS);
        assertEquals(Transaction.READ_SNAPSHOT_FIELD_NUMBER, BatchEncoder.TX_READ_SNAPSHOT);
        assertEquals(Transaction.READS_FIELD_NUMBER, BatchEncoder.TX_READS);
        assertEquals(Transaction.WRITES_FIELD_NUMBER, BatchEncoder.TX_WRITES);
        assertEquals(Transaction.REPORT_CONFLICTING_KEYS_FIELD_NUMBER, BatchEncoder.TX_REPORT_CONFLICTING_KEYS);
        assertEquals(KeyRange.BEGIN_FIELD_NUMBER, BatchEncoder.RANGE_BEGIN);
        assertEquals(KeyRange.END_FIELD_NUMBER, BatchEncoder.RANGE_END);
        assertEquals(BatchDecisions.VERSION_FIELD_NUMBER, BatchEncoder.DECISIONS_VERSION);
        assertEquals(BatchDecisions.DECISIONS_FIELD_NUMBER, BatchEncoder.DECISIONS_DECISIONS);
        assertEquals(BatchDecisions.CONFLICTING_READS_FIELD_NUMBER, BatchEncoder.DECISIONS_CONFLICTING_READS);
        assertEquals(ConflictingReads.TRANSACTION_FIELD_NUMBER, BatchEncoder.CONFLICTING_TRANSACTION);
        assertEquals(ConflictingReads.READ_RANGES_FIELD_NUMBER, BatchEncoder.CONFLICTING_READ_RANGES);
    }

    static byte[] encodeBatch(BatchEncoder encoder, ConflictBatch batch, long version, long oldest) throws IOException {
        int size = encoder.batchSize(batch, version, oldest);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        encoder.writeBatch(out, batch, version, oldest, size);
        out.flush();
        assertEquals(size, bytes.size(), "measured size");
        return bytes.toByteArray();
    }

    static byte[] encodeDecisions(BatchResult result, long version) throws IOException {
        int size = BatchEncoder.decisionsSize(result, version);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        BatchEncoder.writeDecisions(out, result, version, size);
        out.flush();
        assertEquals(size, bytes.size(), "measured size");
        return bytes.toByteArray();
    }

    private static byte[] delimited(byte[] body) throws IOException {
        return Frames.framed(body);
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31);
        }
        return b;
    }
}
