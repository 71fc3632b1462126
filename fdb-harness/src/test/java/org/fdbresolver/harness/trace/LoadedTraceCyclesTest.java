package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LoadedTrace#cycled}, what {@code bench --cycles} resolves: each later cycle is the trace again with every
 * version, oldest version and read snapshot shifted by the same span, the keys byte for byte the same, and the
 * versions still rising from one cycle into the next.
 */
class LoadedTraceCyclesTest {
    @TempDir
    Path dir;

    private Path write(List<Batch> batches) throws IOException {
        Path file = dir.resolve("t" + batches.size() + ".trace");
        try (TraceWriter w = TraceWriter.create(file, TraceRoundTripTest.header())) {
            for (Batch b : batches) {
                w.write(b);
            }
            w.commit();
        }
        return file;
    }

    @Test
    void laterCyclesAreTheTraceShiftedByOneSpanEach() throws IOException {
        // Random batches 1000 versions apart, keys up to 500 bytes (longer than a new batch's first key region).
        LoadedTrace plain = LoadedTrace.load(write(TraceRoundTripTest.batches(7, 40)));
        int n = plain.batchCount();
        LoadedTrace cycled = plain.cycled(3);

        assertEquals(3 * n, cycled.batchCount());
        assertEquals(3 * plain.transactionCount(), cycled.transactionCount());
        // last - first + the first step: the next cycle's first batch one step after this one's last
        long span = plain.version(n - 1) - plain.version(0) + (plain.version(1) - plain.version(0));
        assertEquals(40_000, span);
        for (int i = 1; i < cycled.batchCount(); i++) {
            assertTrue(cycled.version(i) > cycled.version(i - 1), "version of batch " + i + " rises");
            assertTrue(cycled.newOldestVersion(i) >= cycled.newOldestVersion(i - 1), "oldest version of batch " + i);
        }
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < n; i++) {
                int at = c * n + i;
                ConflictBatch a = plain.batch(i);
                ConflictBatch b = cycled.batch(at);
                String where = "cycle " + c + " batch " + i;
                assertEquals(plain.version(i) + c * span, cycled.version(at), where);
                assertEquals(plain.newOldestVersion(i) + c * span, cycled.newOldestVersion(at), where);
                assertEquals(a.transactionCount(), b.transactionCount(), where);
                for (int t = 0; t < a.transactionCount(); t++) {
                    assertEquals(a.readSnapshot(t) + c * span, b.readSnapshot(t), where + " transaction " + t);
                    assertEquals(a.reportConflictingKeys(t), b.reportConflictingKeys(t), where);
                    assertEquals(a.readEnd(t) - a.readStart(t), b.readEnd(t) - b.readStart(t), where);
                    assertEquals(a.writeEnd(t) - a.writeStart(t), b.writeEnd(t) - b.writeStart(t), where);
                }
                for (int r = 0; r < a.readCount(); r++) {
                    assertArrayEquals(a.readBegin(r), b.readBegin(r), where + " read " + r);
                    assertArrayEquals(a.readEndKey(r), b.readEndKey(r), where + " read " + r);
                }
                for (int w = 0; w < a.writeCount(); w++) {
                    assertArrayEquals(a.writeBegin(w), b.writeBegin(w), where + " write " + w);
                    assertArrayEquals(a.writeEndKey(w), b.writeEndKey(w), where + " write " + w);
                }
                if (c == 0) {
                    assertSame(a, b, "cycle 0 is the trace as loaded");
                } else {
                    assertNotSame(a, b, "a later cycle holds its own copy");
                }
            }
        }
    }

    @Test
    void oneCycleIsTheTraceItselfAndZeroIsRefused() throws IOException {
        LoadedTrace plain = LoadedTrace.load(write(TraceRoundTripTest.batches(8, 5)));
        assertSame(plain, plain.cycled(1));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> plain.cycled(0));
        assertEquals("cycles 0: wanted 1 or more", zero.getMessage());
    }

    @Test
    void aSingleBatchCycleStepsOneVersion() throws IOException {
        Batch only = TraceRoundTripTest.batches(9, 1).getFirst();
        LoadedTrace cycled = LoadedTrace.load(write(List.of(only))).cycled(4);
        for (int c = 0; c < 4; c++) {
            assertEquals(only.getVersion() + c, cycled.version(c));
        }
    }

    @Test
    void cyclesThatWouldPassTheLastVersionAreRefused() throws IOException {
        long half = Long.MAX_VALUE / 2;
        // versions 1, 2, half: one cycle spans half versions, so the second cycle ends at 2 * half = Long.MAX_VALUE - 1
        LoadedTrace plain = LoadedTrace.load(write(List.of(Batch.newBuilder().setVersion(1).build(),
                Batch.newBuilder().setVersion(2).build(), Batch.newBuilder().setVersion(half).build())));
        assertEquals(Long.MAX_VALUE - 1, plain.cycled(2).version(5));
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> plain.cycled(3));
        assertEquals("3 cycles would pass version 9223372036854775807: one cycle spans " + half + " versions from 1",
                tooMany.getMessage());
    }
}
