package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.Decision;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;
import org.fdbresolver.trace.v1.DecisionHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DecisionFilesTest {
    private static final byte[] TRACE_SHA = Hashes.sha256().digest("a trace".getBytes());

    /** Batch 0: COMMIT, CONFLICT (reads 0 and 2 reported), TOO_OLD. Batch 1 (version 0): one CONFLICT, txn 0, read 5. */
    static List<BatchResult> results() {
        BatchResult a = new BatchResult();
        a.reset(3);
        a.setDecision(1, Decision.CONFLICT_CODE);
        a.setDecision(2, Decision.TOO_OLD_CODE);
        a.beginConflictingReads(1);
        a.addConflictingRead(0);
        a.addConflictingRead(2);
        BatchResult b = new BatchResult();
        b.reset(1);
        b.setDecision(0, Decision.CONFLICT_CODE);
        b.beginConflictingReads(0);
        b.addConflictingRead(5);
        return List.of(a, b);
    }

    static final long[] VERSIONS = {1000, 0};

    static List<BatchDecisions> asProtobuf() {
        return List.of(
                BatchDecisions.newBuilder().setVersion(1000).setDecisions(ByteString.copyFrom(new byte[] {0, 1, 2}))
                        .addConflictingReads(ConflictingReads.newBuilder().setTransaction(1).addReadRanges(0).addReadRanges(2))
                        .build(),
                BatchDecisions.newBuilder().setDecisions(ByteString.copyFrom(new byte[] {1}))
                        .addConflictingReads(ConflictingReads.newBuilder().setTransaction(0).addReadRanges(5))
                        .build());
    }

    @Test
    void emptyRunHasTheEmptyHashes() {
        DecisionHasher h = new DecisionHasher();
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", h.decisionHash());
        assertEquals(Hashes.EMPTY_SHA256, h.conflictingKeysHash());
        BatchResult allCommit = new BatchResult();
        allCommit.reset(4);
        h.add(allCommit);
        assertEquals(Hashes.EMPTY_SHA256, h.conflictingKeysHash(), "no reporting transaction: still the empty hash");
        assertEquals(Hashes.hex(Hashes.sha256().digest(new byte[4])), h.decisionHash());
    }

    @Test
    void handComputedHashes() {
        // decisions 00 01 02 | 01; conflicting: (txn 1: reads 0, 2) | (txn 0: read 5), each 4-byte little-endian
        String decisions = Hashes.hex(Hashes.sha256().digest(new byte[] {0, 1, 2, 1}));
        String conflicting = Hashes.hex(Hashes.sha256().digest(new byte[] {
            1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
            0, 0, 0, 0, 5, 0, 0, 0}));
        DecisionHasher fromResults = new DecisionHasher();
        results().forEach(fromResults::add);
        DecisionHasher fromFile = new DecisionHasher();
        asProtobuf().forEach(fromFile::add);
        for (DecisionHasher h : List.of(fromResults, fromFile)) {
            assertEquals(decisions, h.decisionHash());
            assertEquals(conflicting, h.conflictingKeysHash());
            assertEquals(2, h.batches());
            assertEquals(4, h.transactions());
            assertEquals(1, h.commits());
            assertEquals(2, h.conflicts());
            assertEquals(1, h.tooOld());
        }
    }

    @Test
    void littleEndianOfLargeIndices() {
        BatchResult r = new BatchResult();
        r.reset(70000);
        r.setDecision(69999, Decision.CONFLICT_CODE);
        r.beginConflictingReads(69999); // 0x0001116f
        r.addConflictingRead(0x01020304);
        DecisionHasher h = new DecisionHasher();
        h.add(r);
        assertEquals(Hashes.hex(Hashes.sha256().digest(new byte[] {0x6f, 0x11, 0x01, 0x00, 0x04, 0x03, 0x02, 0x01})),
                h.conflictingKeysHash());
    }

    @Test
    void manyEntriesCrossTheStagingBuffer() {
        BatchResult r = new BatchResult();
        r.reset(3000);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int t = 0; t < 3000; t++) {
            r.setDecision(t, Decision.CONFLICT_CODE);
            r.beginConflictingReads(t);
            le(expected, t);
            for (int j = 0; j < t % 3; j++) {
                r.addConflictingRead(j);
                le(expected, j);
            }
        }
        DecisionHasher h = new DecisionHasher();
        h.add(r);
        assertEquals(Hashes.hex(Hashes.sha256().digest(expected.toByteArray())), h.conflictingKeysHash());
    }

    private static void le(ByteArrayOutputStream out, int v) {
        out.write(v);
        out.write(v >>> 8);
        out.write(v >>> 16);
        out.write(v >>> 24);
    }

    @Test
    void writerEncodesExactlyAsProtobufDoes(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("d.decisions");
        List<BatchResult> results = results();
        try (DecisionWriter w = DecisionWriter.create(file, "test-engine", TRACE_SHA)) {
            for (int i = 0; i < results.size(); i++) {
                w.write(VERSIONS[i], results.get(i));
            }
            w.commit();
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DecisionHeader.newBuilder().setFormat(TraceFormats.DECISIONS).setEngine("test-engine")
                .setTraceSha256(ByteString.copyFrom(TRACE_SHA)).build().writeDelimitedTo(expected);
        for (BatchDecisions d : asProtobuf()) {
            d.writeDelimitedTo(expected);
        }
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file));
    }

    @ParameterizedTest
    @ValueSource(strings = {"d.decisions", "d.decisions.gz"})
    void roundTrip(String name, @TempDir Path dir) throws IOException {
        Path file = dir.resolve(name);
        try (DecisionWriter w = DecisionWriter.create(file, "e", TRACE_SHA)) {
            w.write(VERSIONS[0], results().get(0));
            w.write(asProtobuf().get(1));
            assertFalse(Files.exists(file));
            w.commit();
        }
        List<BatchDecisions> read = new ArrayList<>();
        try (DecisionReader r = DecisionReader.open(file)) {
            assertEquals("e", r.header().getEngine());
            assertArrayEquals(TRACE_SHA, r.header().getTraceSha256().toByteArray());
            for (BatchDecisions d; (d = r.next()) != null; ) {
                read.add(d);
            }
            assertNull(r.next());
        }
        assertEquals(asProtobuf(), read);
    }

    @Test
    void uncommittedDecisionFileIsDeleted(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("d.decisions.gz");
        try (DecisionWriter w = DecisionWriter.create(file, "e", TRACE_SHA)) {
            w.write(VERSIONS[0], results().get(0));
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void readerRejectsBadDecisionBytesAndUnorderedEntries(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.decisions");
        try (DecisionWriter w = DecisionWriter.create(bad, "e", TRACE_SHA)) {
            w.write(BatchDecisions.newBuilder().setDecisions(ByteString.copyFrom(new byte[] {0, 7})).build());
            w.commit();
        }
        try (DecisionReader r = DecisionReader.open(bad)) {
            TraceFormatException e = assertThrows(TraceFormatException.class, r::next);
            assertEquals("batch 0: transaction 1 has decision byte 7, not 0 (COMMIT), 1 (CONFLICT) or 2 (TOO_OLD)", e.getMessage());
        }
        Path unordered = dir.resolve("unordered.decisions");
        try (DecisionWriter w = DecisionWriter.create(unordered, "e", TRACE_SHA)) {
            w.write(BatchDecisions.newBuilder().setDecisions(ByteString.copyFrom(new byte[] {1, 1}))
                    .addConflictingReads(ConflictingReads.newBuilder().setTransaction(1))
                    .addConflictingReads(ConflictingReads.newBuilder().setTransaction(0)).build());
            w.commit();
        }
        try (DecisionReader r = DecisionReader.open(unordered)) {
            TraceFormatException e = assertThrows(TraceFormatException.class, r::next);
            assertTrue(e.getMessage().contains("out of order"), e.getMessage());
        }
    }

    @Test
    void traceIsNotADecisionFile(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("t.trace");
        try (TraceWriter w = TraceWriter.create(trace, TraceRoundTripTest.header())) {
            w.commit();
        }
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> DecisionReader.open(trace));
        assertEquals("decision header: format is 'fdb-resolver-trace/1', expected 'fdb-resolver-decisions/1'"
                + " (this is a trace, not a decision file)", e.getMessage());
    }
}
