package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture's folder reads as one trace and one decision file: segments in order, each header checked to continue
 * the chain, the offered hash that of the segments one after the other; a broken chain is one error naming the segment.
 */
class CaptureChainTest {
    static final List<Batch> BATCHES = Captures.batches(11, 90);

    @Test
    void aFolderReadsAsOneTraceWithTheChainsOfferedHash(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("c1"), BATCHES, 3);
        List<Batch> read = new ArrayList<>();
        ByteArrayOutputStream concatenated = new ByteArrayOutputStream();
        for (Path segment : CaptureChain.traceSegments(chain)) {
            concatenated.write(Files.readAllBytes(segment));
        }
        try (TraceReader reader = TraceReader.open(chain)) {
            assertEquals("capture", reader.header().getWorkload());
            assertEquals("0", reader.header().getParamsOrThrow("segment"));
            assertEquals(0, reader.firstSegment());
            for (Batch b; (b = reader.next()) != null; ) {
                read.add(b);
            }
            assertEquals(CaptureChain.storedBytes(chain), reader.storedBytesRead());
            assertArrayEquals(Hashes.sha256().digest(concatenated.toByteArray()), reader.offeredSha256());
        }
        assertEquals(BATCHES, read);
        assertArrayEquals(Hashes.sha256().digest(concatenated.toByteArray()), CaptureChain.offeredSha256(chain));
        assertTrue(CaptureChain.isCapture(chain));
        assertFalse(CaptureChain.isCapture(dir));

        // nextInto, the engines' path, reads the same
        int n = 0;
        try (TraceReader reader = TraceReader.open(chain)) {
            ConflictBatch batch = ConflictBatch.detached();
            while (reader.nextInto(batch)) {
                assertEquals(BATCHES.get(n).getVersion(), reader.version());
                assertEquals(BATCHES.get(n).getTransactionsCount(), batch.transactionCount());
                n++;
            }
        }
        assertEquals(BATCHES.size(), n);

        try (DecisionReader reader = DecisionReader.open(chain)) {
            assertEquals("reference", reader.header().getEngine());
            assertArrayEquals(CaptureChain.offeredSha256(chain), reader.header().getTraceSha256().toByteArray());
            int batches = 0;
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                assertEquals(BATCHES.get(batches).getVersion(), d.getVersion());
                batches++;
            }
            assertEquals(BATCHES.size(), batches);
        }
    }

    @Test
    void aChainWhoseOldestSegmentsAreGoneReadsFromTheFirstLeft(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("c1"), BATCHES, 3);
        Files.delete(chain.resolve("segment-000000.trace.gz"));
        Files.delete(chain.resolve("segment-000000.decisions.gz"));
        try (TraceReader reader = TraceReader.open(chain)) {
            assertEquals(1, reader.firstSegment());
            assertEquals(BATCHES.get(30), reader.next());
        }
    }

    @Test
    void aBrokenChainIsOneErrorNamingTheSegment(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("c1"), BATCHES, 4);
        Path other = Captures.write(dir.resolve("c2"), BATCHES, 4);
        Files.copy(other.resolve("segment-000002.trace.gz"), chain.resolve("segment-000002.trace.gz"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals("segment-000002.trace.gz: trace header: capture_chain is 'c2', not the folder's first segment's 'c1'",
                readAll(chain));

        Files.copy(chain.resolve("segment-000001.trace.gz"), chain.resolve("segment-000002.trace.gz"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals("segment-000002.trace.gz: trace header: segment is '1', not 2 as the file is named", readAll(chain));

        Files.delete(chain.resolve("segment-000002.trace.gz"));
        assertEquals("capture " + chain + ": trace segments 2 are missing (between segment-000001.trace.gz and "
                + "segment-000003.trace.gz)", readAll(chain));

        Path renumbered = Captures.write(dir.resolve("c3"), BATCHES, 3);
        try (TraceWriter w = TraceWriter.create(renumbered.resolve("segment-000001.trace.gz"),
                Captures.header("c3", 1, 1).toBuilder().putParams(CaptureChain.PREVIOUS_SEGMENT, "segment-000007.trace.gz").build())) {
            w.commit();
        }
        assertEquals("segment-000001.trace.gz: trace header: previous_segment is 'segment-000007.trace.gz', not "
                + "segment-000000.trace.gz", readAll(renumbered));

        Path plain = Captures.write(dir.resolve("c4"), BATCHES, 2);
        try (TraceWriter w = TraceWriter.create(plain.resolve("segment-000000.trace.gz"), TraceRoundTripTest.header())) {
            w.commit();
        }
        assertEquals("segment-000000.trace.gz: trace header: workload is 'test', not a capture's ('capture')", readAll(plain));
    }

    @Test
    void aDamagedSegmentIsNamedWithTheBatchCountedAcrossTheChain(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("c1"), BATCHES, 3);
        Path second = chain.resolve("segment-000001.trace.gz");
        byte[] bytes = Files.readAllBytes(second);
        Files.write(second, java.util.Arrays.copyOf(bytes, bytes.length - 30)); // cut inside its gzip stream
        String error = readAll(chain);
        assertTrue(error.startsWith("segment-000001.trace.gz: batch "), error);
        int batch = Integer.parseInt(error.substring("segment-000001.trace.gz: batch ".length(), error.indexOf(':', 30)));
        assertTrue(batch >= 30 && batch < 60, error); // segment 1 holds batches 30 to 59
    }

    @Test
    void decisionSegmentsMustNameTheirTraces(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("c1"), BATCHES, 3);
        Path decisions = chain.resolve("segment-000001.decisions.gz");
        try (DecisionWriter d = DecisionWriter.create(decisions, "reference", new byte[32])) {
            d.commit(); // all zero: allowed only for the last, never closed, segment
        }
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> DecisionReader.open(chain).close());
        assertEquals("segment-000001.decisions.gz: decision header names trace " + "0".repeat(64)
                + ", not segment-000001.trace.gz beside it", e.getMessage());

        Path open = Captures.write(dir.resolve("c2"), BATCHES, 3);
        try (DecisionWriter d = DecisionWriter.create(open.resolve("segment-000002.decisions.gz"), "reference", new byte[32])) {
            d.commit();
        }
        try (DecisionReader reader = DecisionReader.open(open)) {
            assertEquals("reference", reader.header().getEngine());
        }

        Files.delete(open.resolve("segment-000002.decisions.gz"));
        e = assertThrows(TraceFormatException.class, () -> DecisionReader.open(open).close());
        assertEquals("capture " + open + ": its decision segments (segment-000000.decisions.gz to segment-000001.decisions.gz)"
                + " are not its trace segments (segment-000000.trace.gz to segment-000002.trace.gz)", e.getMessage());
    }

    @Test
    void aFolderWithoutSegmentsIsStillADirectory(@TempDir Path dir) {
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReader.open(dir).close());
        assertEquals("trace " + dir + " is a directory", e.getMessage());
    }

    private static String readAll(Path chain) throws IOException {
        try (TraceReader reader = TraceReader.open(chain)) {
            while (reader.next() != null) {
                // to the end or the error
            }
        } catch (TraceFormatException e) {
            return e.getMessage();
        }
        return "no error";
    }
}
