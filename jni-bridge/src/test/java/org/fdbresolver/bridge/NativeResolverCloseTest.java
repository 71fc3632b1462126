package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.bridge.capture.Capture;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.bridge.capture.Golden;
import org.fdbresolver.bridge.capture.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fdbr_close never waits for a disk: with a capture whose writer takes {@link #WRITER_DELAY_MILLIS} per record,
 * {@link NativeResolver#close} returns long before the writer is done, the resolver's heap stays admitted until the
 * writer ends, a second resolver opens meanwhile, and the capture is whole afterwards.
 */
class NativeResolverCloseTest {
    static final long WRITER_DELAY_MILLIS = 20;
    static final int MESSAGE_CAPACITY = 4096;

    final Arena arena = Arena.ofConfined();
    final MemorySegment status = arena.allocate(ValueLayout.JAVA_INT);
    final MemorySegment message = arena.allocate(MESSAGE_CAPACITY);
    final AtomicReference<Capture> slowCapture = new AtomicReference<>();

    @AfterEach
    void putBackTheOpener() {
        NativeResolver.captureOpener = Capture::open;
        arena.close();
    }

    NativeResolver open(Path folder) {
        NativeResolver r = NativeResolver.open("tree", 16L << 20, 0, null, "capture=" + folder + "\ncapture_queue_bytes="
                + (8 << 20), status.address(), message.address(), MESSAGE_CAPACITY);
        assertNotNull(r, () -> message.getString(0));
        return r;
    }

    @Test
    void closeReturnsBeforeASlowCaptureFinishesAndTheCaptureIsWholeAfterwards(@TempDir Path dir) throws Exception {
        NativeResolver.captureOpener = (settings, engine, warnings) -> {
            Capture c = Capture.open(settings, engine, warnings, () -> sleep(WRITER_DELAY_MILLIS));
            slowCapture.set(c);
            return c;
        };
        long neededBefore = HeapPlan.neededBytes();
        NativeResolver first = open(dir);
        Capture capture = slowCapture.get();
        // 316 batches of adversarial: the writer needs about 316 × 20 ms ≈ 6 s to write them all.
        int batches = recordTrace(first, capture, "adversarial");
        long neededWhileOpen = HeapPlan.neededBytes();
        assertTrue(neededWhileOpen > neededBefore);

        long start = System.nanoTime();
        assertEquals(NativeResolver.OK, first.close(message.address(), MESSAGE_CAPACITY));
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // Generous: a busy machine may stall a thread, but nowhere near the writer's seconds of work.
        assertTrue(closeMillis < batches * WRITER_DELAY_MILLIS / 4, "close took " + closeMillis + " ms");
        assertTrue(!capture.awaitFinished(1), "the writer is still writing after close returned");
        assertEquals(neededWhileOpen, HeapPlan.neededBytes(), "the closed resolver's heap stays admitted while it finishes");
        assertEquals(1, HeapPlan.closingCount());

        // A second resolver opens while the first one's capture still flushes, into a chain of its own.
        NativeResolver.captureOpener = Capture::open;
        NativeResolver second = open(dir);
        assertTrue(HeapPlan.neededBytes() > neededWhileOpen, "both counted");
        assertEquals(NativeResolver.OK, second.close(message.address(), MESSAGE_CAPACITY));

        assertTrue(capture.awaitFinished(TimeUnit.SECONDS.toNanos(120)), "the writer ends");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (HeapPlan.closingCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, HeapPlan.closingCount());
        assertEquals(neededBefore, HeapPlan.neededBytes(), "every admission given back once the closes finished");
        List<byte[]> captured = Frames.batches(capture.folder());
        assertEquals(Frames.batches(Golden.trace("adversarial")).size(), captured.size(), "every batch in the capture");
        assertEquals(captured.size(), Frames.decisions(capture.folder()).size());
    }

    /** Decides the trace's batches with an engine of its own and records them as the resolver would. */
    private static int recordTrace(NativeResolver resolver, Capture capture, String name) throws Exception {
        int n = 0;
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build());
             TraceReader reader = TraceReader.open(Golden.trace(name))) {
            ConflictBatch batch = cs.newBatch();
            while (reader.nextInto(batch)) {
                BatchResult result = batch.detectConflicts(reader.version(), reader.newOldestVersion());
                capture.record(batch, result, reader.version(), reader.newOldestVersion());
                n++;
            }
        }
        assertTrue(capture.isCapturing(), "an 8 MiB queue holds " + name);
        return n;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
