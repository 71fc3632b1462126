package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.DecisionHeader;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every broken trace gives exactly one clear error; format errors from the reader, semantic ones from ConflictSet. */
class InvalidTracesTest {

    static Stream<Arguments> rows() throws IOException {
        return GoldenFiles.invalidManifest().stream().map(r -> Arguments.of(r.get("name"), r));
    }

    /** The error line a run over the trace ends with: the reader's or ConflictSet's message. */
    static String errorOf(Path trace) {
        CommitAllEngine engine = new CommitAllEngine();
        try (TraceReader reader = TraceReader.open(trace);
             ConflictSet cs = ConflictSet.wrap(ConflictSetConfig.builder().engine("commit-all").build(), engine)) {
            ConflictBatch batch = cs.newBatch();
            TraceBatches converter = new TraceBatches();
            for (Batch b; (b = reader.next()) != null; ) {
                converter.load(b, batch);
                batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
            }
            return null;
        } catch (TraceFormatException | InvalidBatchException e) {
            return "error: " + e.getMessage();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachInvalidTraceGivesTheOraclesError(String name, Map<String, String> row) {
        Path trace = GoldenFiles.dir().resolve("invalid").resolve(name);
        assertEquals(GoldenFiles.expectedError(row), errorOf(trace));
    }

    @Test
    void emptyFile(@TempDir Path dir) throws IOException {
        Path f = Files.write(dir.resolve("empty.trace"), new byte[0]);
        assertEquals("error: empty file: not a trace (no trace header)", errorOf(f));
    }

    @Test
    void emptyGzipFile(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new GZIPOutputStream(bytes).close();
        Path f = Files.write(dir.resolve("empty.trace.gz"), bytes.toByteArray());
        assertEquals("error: empty file: not a trace (no trace header)", errorOf(f));
    }

    @Test
    void textFileIsNotATrace(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("notes.txt"), "hello, world\n");
        String error = errorOf(f);
        assertTrue(error.startsWith("error: trace header: truncated message: wanted 104 bytes, got 12"), error);
        assertTrue(error.endsWith("(not a trace file?)"), error);
    }

    @Test
    void decisionFileIsNotATrace(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DecisionHeader.newBuilder().setFormat(TraceFormats.DECISIONS).setEngine("x").build().writeDelimitedTo(bytes);
        Path f = Files.write(dir.resolve("d.decisions"), bytes.toByteArray());
        assertEquals("error: trace header: format is 'fdb-resolver-decisions/1', expected 'fdb-resolver-trace/1'"
                + " (this is a decision file, not a trace)", errorOf(f));
    }

    @Test
    void truncatedLengthVarint(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(bytes);
        Batch.newBuilder().setVersion(1).build().writeDelimitedTo(bytes);
        bytes.write(0x80); // a length varint whose continuation byte never comes
        Path f = Files.write(dir.resolve("t.trace"), bytes.toByteArray());
        assertEquals("error: batch 1: truncated length varint (the file ends after 1 of its bytes)", errorOf(f));
    }

    @Test
    void truncatedGzipNamesTheBatchTheCutIsIn(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        List<Integer> messageEnds = new ArrayList<>();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(plain);
        messageEnds.add(plain.size());
        java.util.Random random = new java.util.Random(1);
        for (int i = 1; i <= 300; i++) {
            byte[] key = new byte[200];
            random.nextBytes(key); // incompressible, so the compressed cut lands well inside the trace
            Batch.newBuilder().setVersion(i * 10L).setNewOldestVersion(i)
                    .addTransactions(org.fdbresolver.trace.v1.Transaction.newBuilder().setReadSnapshot(i)
                            .addReads(org.fdbresolver.trace.v1.KeyRange.newBuilder()
                                    .setBegin(com.google.protobuf.ByteString.copyFrom(key))
                                    .setEnd(com.google.protobuf.ByteString.copyFrom(key))))
                    .build().writeDelimitedTo(plain);
            messageEnds.add(plain.size());
        }
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(raw)) {
            gz.write(plain.toByteArray());
        }
        byte[] whole = raw.toByteArray();
        byte[] cut = Arrays.copyOf(whole, whole.length / 2);
        // How many uncompressed bytes survive the cut: the first message not wholly among them is where it fails.
        long available = 0;
        try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(cut))) {
            byte[] buf = new byte[1];
            while (in.read(buf) > 0) {
                available++;
            }
        } catch (java.io.EOFException expected) {
            // the cut
        }
        int message = 0;
        while (messageEnds.get(message) <= available) {
            message++;
        }
        assertTrue(message > 10, "the cut is well inside the trace: message " + message);
        Path f = Files.write(dir.resolve("t.trace.gz"), cut);
        assertEquals("error: batch " + (message - 1) + ": truncated gzip data (the compressed file is cut short)", errorOf(f));
    }

    @Test
    void lengthOverProtobufsLimit(@TempDir Path dir) throws IOException {
        Path f = Files.write(dir.resolve("t.trace"), headerThen(0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3));
        assertEquals("error: batch 0: message length 4294967295 exceeds the 2 GiB protobuf limit", errorOf(f));
    }

    @Test
    void bogusLargeLengthIsReportedWithoutAllocatingIt(@TempDir Path dir) throws IOException {
        // 1 GiB wanted, 3 bytes there: the buffer grows only as bytes arrive.
        Path f = Files.write(dir.resolve("t.trace"), headerThen(0x80, 0x80, 0x80, 0x80, 0x04, 1, 2, 3));
        assertEquals("error: batch 0: truncated message: wanted 1073741824 bytes, got 3", errorOf(f));
    }

    @Test
    void malformedBatchWithBadWireType(@TempDir Path dir) throws IOException {
        // length 2, then tag 0x0e: field 1, wire type 6 (no such wire type)
        Path f = Files.write(dir.resolve("t.trace"), headerThen(0x02, 0x0e, 0x00));
        assertEquals("error: batch 0: malformed Batch message: field 1: invalid wire type 6 at byte 0", errorOf(f));
    }

    private static byte[] headerThen(int... tail) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(bytes);
        for (int b : tail) {
            bytes.write(b);
        }
        return bytes.toByteArray();
    }

    @Test
    void missingFile(@TempDir Path dir) {
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReader.open(dir.resolve("nope.trace")));
        assertTrue(e.getMessage().endsWith("nope.trace does not exist"), e.getMessage());
    }
}
