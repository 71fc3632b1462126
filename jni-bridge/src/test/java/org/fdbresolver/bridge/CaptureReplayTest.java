package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.bridge.capture.Frames;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A capture made through the bridge as FoundationDB's Resolver drives it ({@code fdbresolver-replay --setting
 * capture=DIR}, the configuration text's {@code capture=}) holds the replayed trace's batches byte for byte and the
 * resolver's decisions, FoundationDB's; and the capture folder replays, through the native reader, to those decisions
 * under the tree and the reference engine.
 */
class CaptureReplayTest {

    static Stream<String> goldens() throws IOException {
        return ReplayGoldenTest.manifest(ReplayGoldenTest.goldenDir().resolve("MANIFEST.tsv")).keySet().stream().sorted();
    }

    static NativeProgram.Run replay(List<String> args) throws Exception {
        return NativeProgram.run("fdbresolver-replay", args, "-Xcheck:jni");
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void aCaptureThroughTheBridgeReplaysToTheRecordedDecisions(String name, @TempDir Path dir) throws Exception {
        Path golden = ReplayGoldenTest.goldenDir();
        Path trace = golden.resolve(name + ".trace.gz");
        Map<String, String> expected = ReplayGoldenTest.manifest(golden.resolve("MANIFEST.tsv")).get(name);
        // Small segments, so that every trace but the smallest is a chain of several.
        NativeProgram.Run captured = replay(List.of(trace.toString(), "--engine", "tree", "--setting", "capture=" + dir,
                "--setting", "capture_segment_bytes=64k"));
        assertEquals(0, captured.exitCode(), captured.all());
        assertEquals("", captured.stderr(), "no warning, -Xcheck:jni's or the library's");
        assertEquals(expected.get("decision hash"), captured.values().get("decision-hash"));
        Path chain = Frames.chain(dir);

        // The batches offered are the trace's, byte for byte (only the segments' headers differ from its header).
        List<byte[]> input = Frames.batches(trace);
        List<byte[]> capture = Frames.batches(chain);
        assertEquals(input.size(), capture.size(), "batches");
        for (int i = 0; i < input.size(); i++) {
            assertArrayEquals(input.get(i), capture.get(i), "batch " + i);
        }
        // The recorded decisions are the resolver's, FoundationDB's; each segment's decision header names its trace.
        DecisionHasher recorded = new DecisionHasher();
        try (DecisionReader reader = DecisionReader.open(chain)) {
            assertArrayEquals(CaptureChain.offeredSha256(chain), reader.header().getTraceSha256().toByteArray());
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                recorded.add(d);
            }
        }
        assertEquals(expected.get("decision hash"), recorded.decisionHash());
        assertEquals(expected.get("conflicting-keys hash"), recorded.conflictingKeysHash());
        for (Path segment : CaptureChain.decisionSegments(chain)) {
            Path segmentTrace = chain.resolve(segment.getFileName().toString().replace(".decisions.", ".trace."));
            try (DecisionReader reader = DecisionReader.open(segment)) {
                assertArrayEquals(Hashes.sha256(segmentTrace), reader.header().getTraceSha256().toByteArray(), segment.toString());
            }
        }

        // The folder, read by the native reader as one trace, replays to the recorded decisions under both engines.
        for (String engine : List.of("tree", "reference")) {
            NativeProgram.Run replayed = replay(List.of(chain.toString(), "--engine", engine));
            assertEquals(0, replayed.exitCode(), replayed.all());
            assertEquals(recorded.decisionHash(), replayed.values().get("decision-hash"), engine);
            assertEquals(recorded.conflictingKeysHash(), replayed.values().get("conflicting-keys-hash"), engine);
            assertEquals(Long.toString(recorded.batches()), replayed.values().get("batches"), engine);
        }
    }

    @Test
    void theNativeReaderRefusesABrokenChainNamingTheSegment(@TempDir Path dir) throws Exception {
        Path trace = ReplayGoldenTest.goldenDir().resolve("longtrace.trace.gz");
        NativeProgram.Run captured = replay(List.of(trace.toString(), "--setting", "capture=" + dir,
                "--setting", "capture_segment_bytes=64k"));
        assertEquals(0, captured.exitCode(), captured.all());
        Path chain = Frames.chain(dir);
        List<Path> segments = CaptureChain.traceSegments(chain);
        assertTrue(segments.size() >= 4, segments.toString());

        // Rotation's result (the oldest gone) still reads, from the first segment left.
        Files.delete(segments.getFirst());
        NativeProgram.Run later = replay(List.of(chain.toString(), "--engine", "reference"));
        assertEquals(0, later.exitCode(), later.all());
        assertEquals(List.of("fdbresolver-replay: note: " + chain + " starts at segment 1 (the capture deleted the ones "
                + "before): replayed without their history, its decisions may differ from those it recorded"),
                later.stderrLines());

        // A hole does not.
        Files.delete(segments.get(2));
        NativeProgram.Run holed = replay(List.of(chain.toString()));
        assertEquals(List.of("error: capture " + chain + ": trace segments 2 are missing (between segment-000001.trace.gz"
                + " and segment-000003.trace.gz)"), holed.stderrLines(), holed.all());
        assertEquals(2, holed.exitCode());

        // A segment of another chain does not either.
        Files.copy(segments.get(1), chain.resolve("segment-000002.trace.gz"));
        NativeProgram.Run foreign = replay(List.of(chain.toString()));
        assertEquals("error: " + chain.resolve("segment-000002.trace.gz") + ": trace header: segment is '1', not 2 "
                + "as the file is named", foreign.stderrLines().getLast(), foreign.all());
        assertEquals(2, foreign.stderrLines().size(), "the note that the chain starts at segment 1, then the error");
        assertEquals(2, foreign.exitCode());
    }

    @Test
    void captureSettingsAreCheckedAtOpen(@TempDir Path dir) throws Exception {
        Path trace = ReplayGoldenTest.goldenDir().resolve("adversarial.trace.gz");
        NativeProgram.Run alone = replay(List.of(trace.toString(), "--setting", "capture_max_bytes=1g"));
        assertEquals(List.of("error: capture_max_bytes is set but capture= is not (it names where captures go)"),
                alone.stderrLines(), alone.all());
        assertEquals(2, alone.exitCode());

        NativeProgram.Run size = replay(List.of(trace.toString(), "--setting", "capture=" + dir, "--setting",
                "capture_segment_bytes=lots"));
        assertEquals(List.of("error: capture_segment_bytes=lots is not a size (bytes, or with k/m/g/t)"), size.stderrLines());

        NativeProgram.Run bound = replay(List.of(trace.toString(), "--setting", "capture=" + dir, "--setting",
                "capture_segment_bytes=64m", "--setting", "capture_max_bytes=32m"));
        assertEquals(List.of("error: capture_max_bytes=33554432 is below capture_segment_bytes=67108864: a capture keeps "
                + "at least the segment being written"), bound.stderrLines());

        Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
        NativeProgram.Run notFolder = replay(List.of(trace.toString(), "--setting", "capture=" + file));
        assertEquals(2, notFolder.exitCode(), notFolder.all());
        assertTrue(notFolder.stderr().startsWith("error: capture=" + file + ": cannot create the capture's folder: "),
                notFolder.all());
        assertFalse(notFolder.stdout().contains("decision-hash"));
    }
}
