package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.DecisionHeader;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture in process: a resolver's batches and decisions land in segments byte for byte, segments chain and
 * rotate within their bound, a writer that falls behind or cannot write stops the capture with a warning and leaves
 * a whole chain, and a segment never closed is still a trace that ends at a batch.
 */
class CaptureTest {
    static final String WINDOW = "conflictset-range-window"; // conflicting reads reported, 40 batches
    final List<String> warnings = new CopyOnWriteArrayList<>();

    static CaptureSettings settings(Path folder, long segmentBytes, long maxBytes, int queueBytes) {
        return new CaptureSettings(folder, segmentBytes, maxBytes, queueBytes, "engine=tree;capture=" + folder);
    }

    /** Resolves a trace with the tree engine, recording each batch; versions shifted by {@code shift}. Returns batches. */
    static int resolve(Path trace, Capture capture, ConflictSet cs, long shift) throws IOException {
        int n = 0;
        try (TraceReader reader = TraceReader.open(trace)) {
            ConflictBatch batch = cs.newBatch();
            while (reader.nextInto(batch)) {
                long version = reader.version() + shift;
                long oldest = reader.newOldestVersion() + (reader.newOldestVersion() > 0 || shift > 0 ? shift : 0);
                BatchResult result = batch.detectConflicts(version, oldest);
                capture.record(batch, result, version, oldest);
                n++;
            }
        }
        return n;
    }

    static ConflictSet tree() {
        return ConflictSet.open(ConflictSetConfig.builder().engine("tree").build());
    }

    @Test
    void aGoldenTraceIsCapturedByteForByteInChainedSegments(@TempDir Path dir) throws IOException {
        Capture capture = Capture.open(settings(dir, 64 << 10, 1L << 30, 32 << 20), "tree", warnings::add);
        try (ConflictSet cs = tree()) {
            resolve(Golden.trace(WINDOW), capture, cs, 0);
        }
        capture.close();
        Path chain = Frames.chain(dir);
        assertEquals(chain, capture.folder());
        List<Path> segments = CaptureChain.traceSegments(chain);
        assertTrue(segments.size() > 3, "segments: " + segments);
        assertEquals(segments.size(), CaptureChain.decisionSegments(chain).size());
        assertEqualFrames(Frames.batches(Golden.trace(WINDOW)), Frames.batches(chain), "batches");
        // The tree decides as FoundationDB: the capture's decisions are FoundationDB's decision file's, byte for byte.
        assertEqualFrames(Frames.decisions(Golden.decisions(WINDOW)), Frames.decisions(chain), "decisions");

        List<Long> firstVersions = new ArrayList<>();
        for (int i = 0; i < segments.size(); i++) {
            Path segment = segments.get(i);
            TraceHeader h;
            try (TraceReader reader = TraceReader.open(segment)) {
                h = reader.header();
                firstVersions.add(reader.next().getVersion());
            }
            assertEquals("capture", h.getWorkload());
            assertEquals(Integer.toString(i), h.getParamsOrThrow("segment"));
            assertEquals(i == 0 ? "" : CaptureChain.traceName(i - 1), h.getParamsOrThrow("previous_segment"));
            assertEquals(Long.toString(firstVersions.get(i)), h.getParamsOrThrow("first_version"));
            assertEquals(chain.getFileName().toString(), h.getParamsOrThrow("capture_chain"));
            assertEquals("tree", h.getParamsOrThrow("engine"));
            assertEquals("engine=tree;capture=" + dir, h.getParamsOrThrow("config"));
            try (DecisionReader d = DecisionReader.open(chain.resolve(CaptureChain.traceName(i).replace(".trace.", ".decisions.")))) {
                assertEquals("tree", d.header().getEngine());
                assertArrayEquals(Hashes.sha256(segment), d.header().getTraceSha256().toByteArray(), "decision header of " + i);
            }
        }
        // The folder reads as one trace and one decision file, named by the chain's offered hash.
        byte[] offered;
        try (TraceReader reader = TraceReader.open(chain)) {
            while (reader.next() != null) {
                // the whole chain
            }
            offered = reader.offeredSha256();
            assertEquals(40, reader.batchesRead());
        }
        assertArrayEquals(CaptureChain.offeredSha256(chain), offered);
        DecisionHasher recorded = new DecisionHasher();
        try (DecisionReader reader = DecisionReader.open(chain)) {
            assertArrayEquals(offered, reader.header().getTraceSha256().toByteArray());
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                recorded.add(d);
            }
        }
        assertEquals(Golden.manifest().get(WINDOW).get("decision hash"), recorded.decisionHash());
        assertEquals(Golden.manifest().get(WINDOW).get("conflicting-keys hash"), recorded.conflictingKeysHash());
        assertEquals(List.of(), warnings);
    }

    @Test
    void rotationKeepsTheChainWithinItsBoundAndSaysSoOnce(@TempDir Path dir) throws IOException {
        long segment = 64 << 10;
        long max = 4 * segment;
        // A queue that holds all four rounds: this checks rotation, not a writer keeping pace on a busy machine.
        Capture capture = Capture.open(settings(dir, segment, max, 64 << 20), "tree", warnings::add);
        int batches = 0;
        try (ConflictSet cs = tree()) {
            for (int round = 0; round < 4; round++) {
                batches += resolve(Golden.trace("longtrace"), capture, cs, round * 1_000_000_000L);
            }
        }
        capture.close();
        Path chain = capture.folder();
        List<Path> traces = CaptureChain.traceSegments(chain);
        assertTrue(CaptureChain.number(traces.getFirst()) > 0, "the oldest segments are gone: " + traces);
        long bytes = 0;
        try (Stream<Path> files = Files.list(chain)) {
            for (Path p : files.toList()) {
                bytes += Files.size(p);
            }
        }
        // One segment may pass its size by the batch that filled it (and its gzip member).
        assertTrue(bytes <= max + segment, bytes + " bytes on disk, bound " + max);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("deleted its oldest segment, segment-000000.trace.gz"), warnings.toString());
        long read = 0;
        try (TraceReader reader = TraceReader.open(chain)) {
            assertEquals(CaptureChain.number(traces.getFirst()), reader.firstSegment());
            while (reader.next() != null) {
                read++;
            }
        }
        assertTrue(read > 0 && read < batches, read + " of " + batches + " batches kept");
        List<byte[]> kept = Frames.decisions(chain);
        assertEquals(read, kept.size());
    }

    @Test
    void aWriterThatFallsBehindStopsTheCaptureWithAWarningAndLeavesAWholeChain(@TempDir Path dir) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 1 << 20), "tree", warnings::add, () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        int offered = 0;
        try (ConflictSet cs = tree()) {
            for (int round = 0; round < 3 && capture.isCapturing(); round++) {
                offered += resolve(Golden.trace("custom-point"), capture, cs, round * 1_000_000_000L);
            }
        }
        assertFalse(capture.isCapturing(), "a 1 MiB queue cannot hold " + offered + " batches of custom-point");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().startsWith("capture stopped: the capture's writer fell "), warnings.getFirst());
        release.countDown();
        capture.close();
        // What was queued before the stop is written: a chain of the first batches, nothing after a hole.
        List<byte[]> captured = Frames.batches(capture.folder());
        List<byte[]> input = Frames.batches(Golden.trace("custom-point"));
        assertTrue(!captured.isEmpty() && captured.size() < input.size(), captured.size() + " batches captured");
        assertEqualFrames(input.subList(0, captured.size()), captured, "the batches before the stop");
        assertEquals(captured.size(), Frames.decisions(capture.folder()).size());
        assertTrue(warnings.getFirst().contains("holds the " + captured.size() + " batches before"), warnings.getFirst());
    }

    @Test
    void aBatchOverHalfTheQueueStopsTheCapture(@TempDir Path dir) throws IOException {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 1 << 20), "tree", warnings::add);
        try (ConflictSet cs = tree()) {
            ConflictBatch batch = cs.newBatch();
            batch.addTransaction(0, false);
            batch.addWrite(new byte[600 << 10], new byte[(600 << 10) + 1]); // one key of 600 KiB
            capture.record(batch, batch.detectConflicts(1, 0), 1, 0);
        }
        capture.close();
        assertFalse(capture.isCapturing());
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("over half of capture_queue_bytes=1048576"), warnings.getFirst());
        assertFalse(Files.exists(capture.folder()), "no batch was captured: no chain is left");
    }

    @Test
    void aSegmentNeverClosedIsATraceEndingAtABatch(@TempDir Path dir) throws Exception {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 8 << 20), "tree", warnings::add);
        Path chain = capture.folder();
        Path trace = chain.resolve("segment-000000.trace.gz");
        Path decisions = chain.resolve("segment-000000.decisions.gz");
        try (ConflictSet cs = tree()) {
            resolve(Golden.trace("adversarial"), capture, cs, 0); // small: all of it within one gzip member
            // The writer ends a member within a second of its first batch, while the segment stays open: as a
            // resolver's process that dies now would leave it.
            long deadline = System.nanoTime() + 30_000_000_000L;
            while ((!Files.exists(trace) || Files.size(trace) == 0) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            List<byte[]> written = Frames.batches(trace);
            List<byte[]> input = Frames.batches(Golden.trace("adversarial"));
            assertEqualFrames(input.subList(0, written.size()), written, "the batches of the open segment");
            assertEquals(written.size(), Frames.decisions(decisions).size());
            try (DecisionReader reader = DecisionReader.open(decisions)) {
                assertArrayEquals(new byte[32], reader.header().getTraceSha256().toByteArray(), "not closed: no hash yet");
            }
            try (DecisionReader reader = DecisionReader.open(chain)) { // the folder takes an unfinished last segment
                DecisionHeader header = reader.header();
                assertEquals("tree", header.getEngine());
            }
        }
        capture.close();
        try (DecisionReader reader = DecisionReader.open(decisions)) {
            assertArrayEquals(Hashes.sha256(trace), reader.header().getTraceSha256().toByteArray(), "closed: the trace's hash");
        }
    }

    @Test
    void aFolderThatCannotBeWrittenStopsTheCaptureWithAWarning(@TempDir Path dir) throws Exception {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 8 << 20), "tree", warnings::add);
        Files.delete(capture.folder().resolve(CaptureFolder.LOCK_NAME));
        Files.delete(capture.folder()); // gone before the first segment
        try (ConflictSet cs = tree()) {
            resolve(Golden.trace("adversarial"), capture, cs, 0);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (capture.isCapturing() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertFalse(capture.isCapturing());
        capture.close();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().startsWith("capture stopped: the capture's writer failed writing "), warnings.getFirst());
        assertTrue(warnings.getFirst().contains("NoSuchFileException"), warnings.getFirst());
    }

    /**
     * The folder's bound: a new chain's open deletes the oldest finished chains until the folder, with room for its
     * first segment, is within capture_folder_max_bytes — skipping an older chain still being written and what is not a
     * chain.
     */
    @Test
    void theFolderBoundDeletesTheOldestFinishedChainsNeverOneBeingWritten(@TempDir Path dir) throws IOException {
        long segment = 64 << 10;
        CaptureSettings unbounded = new CaptureSettings(dir, segment, 1L << 30, 8 << 20, "engine=tree", Long.MAX_VALUE);
        Capture writing = Capture.open(unbounded, "tree", warnings::add); // the oldest chain, still being written
        List<Path> finished = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Capture c = Capture.open(unbounded, "tree", warnings::add);
            try (ConflictSet cs = tree()) {
                resolve(Golden.trace("adversarial"), c, cs, 0);
            }
            c.close();
            finished.add(c.folder());
            assertFalse(Files.exists(c.folder().resolve(CaptureFolder.LOCK_NAME)), "a finished chain has no lock file");
        }
        Path notAChain = Files.createDirectory(dir.resolve("operator-notes"));
        Files.write(notAChain.resolve("big"), new byte[1 << 20]);
        long[] sizes = finished.stream().mapToLong(CaptureFolder::size).toArray();
        // Room for the newest finished chain and the new chain's first segment (and the folder that is no chain), not more.
        long bound = sizes[2] + segment + CaptureFolder.size(writing.folder()) + 1;
        Capture next = Capture.open(new CaptureSettings(dir, segment, segment, 8 << 20, "engine=tree", bound), "tree",
                warnings::add);
        try {
            assertFalse(Files.exists(finished.get(0)), "the oldest finished chain is deleted");
            assertFalse(Files.exists(finished.get(1)), "and the next");
            assertTrue(Files.exists(finished.get(2)), "the newest finished chain fits and stays");
            assertTrue(Files.isDirectory(writing.folder()), "a chain being written is never deleted, however old");
            assertTrue(Files.exists(notAChain.resolve("big")), "what is not a chain is never deleted");
            assertEquals(2, warnings.size(), warnings.toString());
            assertTrue(warnings.getFirst().contains("deleted its oldest finished chain, " + finished.get(0).getFileName()
                    + " (" + sizes[0] + " bytes)"), warnings.toString());
        } finally {
            next.close();
            writing.close();
        }
    }

    /**
     * A segment's decision header gets the trace's hash by a whole new file renamed over the old: just before the
     * rename the visible file is still the old one, whole, and the new one is whole beside it.
     */
    @Test
    void theDecisionHeaderIsReplacedByRenameNeverRewrittenInPlace(@TempDir Path dir) throws Exception {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 8 << 20), "tree", warnings::add);
        Path trace = capture.folder().resolve("segment-000000.trace.gz");
        Path decisions = capture.folder().resolve("segment-000000.decisions.gz");
        Path renamed = capture.folder().resolve("segment-000000.decisions.gz.tmp");
        int batches = Frames.batches(Golden.trace("adversarial")).size();
        List<String> seen = new CopyOnWriteArrayList<>();
        capture.beforeHeaderRename(() -> {
            try {
                try (DecisionReader visible = DecisionReader.open(decisions)) {
                    assertArrayEquals(new byte[32], visible.header().getTraceSha256().toByteArray(), "the old header");
                }
                assertEquals(batches, Frames.decisions(decisions).size(), "the old file, whole");
                try (DecisionReader next = DecisionReader.open(renamed)) {
                    assertArrayEquals(Hashes.sha256(trace), next.header().getTraceSha256().toByteArray(), "the new header");
                }
                assertEquals(batches, Frames.decisions(renamed).size(), "the new file, whole");
                seen.add("checked");
            } catch (Throwable e) {
                seen.add(e.toString());
            }
        });
        try (ConflictSet cs = tree()) {
            resolve(Golden.trace("adversarial"), capture, cs, 0);
        }
        capture.close();
        assertEquals(List.of("checked"), seen);
        assertFalse(Files.exists(renamed));
        try (DecisionReader reader = DecisionReader.open(decisions)) {
            assertArrayEquals(Hashes.sha256(trace), reader.header().getTraceSha256().toByteArray());
        }
        assertEquals(batches, Frames.decisions(decisions).size());
        assertEquals(List.of(), warnings);
    }

    @Test
    void aResolverThatDecidesNothingLeavesNoChain(@TempDir Path dir) throws IOException {
        Capture capture = Capture.open(settings(dir.resolve("made/on/open"), 64 << 20, 1L << 30, 1 << 20), "tree", warnings::add);
        assertTrue(Files.isDirectory(capture.folder()));
        capture.close();
        assertFalse(Files.exists(capture.folder()));
        assertTrue(Files.isDirectory(dir.resolve("made/on/open")));
        assertEquals(List.of(), warnings);
    }

    @Test
    void stoppingEndsTheChainBeforeTheNextBatch(@TempDir Path dir) throws IOException {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 8 << 20), "tree", warnings::add);
        try (ConflictSet cs = tree()) {
            resolve(Golden.trace("adversarial"), capture, cs, 0);
            capture.stop("fdbr_clear(5) forgot the history, which a trace cannot say");
            resolve(Golden.trace("adversarial"), capture, cs, 2 * lastVersion(Golden.trace("adversarial")));
        }
        capture.close();
        assertEqualFrames(Frames.batches(Golden.trace("adversarial")), Frames.batches(capture.folder()), "before the stop");
        assertEquals(List.of("capture stopped: fdbr_clear(5) forgot the history, which a trace cannot say; " + capture.folder()
                + " holds the 316 batches before (up to version " + lastVersion(Golden.trace("adversarial")) + ")"), warnings);
    }

    /** The writer never preempts the resolver when it wakes: Linux's SCHED_BATCH (policy 3 in /proc's stat). */
    @Test
    void theWriterRunsUnderBatchScheduling(@TempDir Path dir) throws Exception {
        Capture capture = Capture.open(settings(dir, 64 << 20, 1L << 30, 1 << 20), "tree", warnings::add);
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            String policy = null;
            while (!"3".equals(policy) && System.nanoTime() < deadline) {
                policy = writerPolicy();
                Thread.sleep(10);
            }
            assertEquals("3", policy, "the writer's scheduling policy");
        } finally {
            capture.close();
        }
    }

    /** The scheduling policy (field 41 of /proc/self/task/TID/stat) of the thread named like the writer, or null. */
    private static String writerPolicy() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String name;
                String stat;
                try {
                    name = Files.readString(task.resolve("comm")).trim();
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended
                }
                if (name.startsWith("fdbresolver-cap")) {
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    return fields[41 - 3];
                }
            }
        }
        return null;
    }

    static long lastVersion(Path trace) throws IOException {
        long last = 0;
        try (TraceReader reader = TraceReader.open(trace)) {
            for (var b = reader.next(); b != null; b = reader.next()) {
                last = b.getVersion();
            }
        }
        return last;
    }

    static void assertEqualFrames(List<byte[]> expected, List<byte[]> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": count");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), what + " " + i);
        }
    }
}
