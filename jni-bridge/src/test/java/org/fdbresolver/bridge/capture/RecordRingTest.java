package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The ring hands records from one thread to another intact, in order, across many laps of its array. */
class RecordRingTest {

    @Test
    void recordsOfEverySizeCrossBetweenThreadsIntactAndInOrder() throws Exception {
        RecordRing ring = new RecordRing(1 << 16);
        int records = 20_000;
        long seed = 7;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            Random sizes = new Random(seed);
            byte[] bytes = ring.array();
            try {
                for (int i = 0; i < records; ) {
                    int at = ring.peek();
                    if (at < 0) {
                        ring.awaitRecord(1_000_000);
                        continue;
                    }
                    int expected = size(sizes, ring);
                    assertEquals(expected, ring.recordLength(at), "record " + i);
                    for (int b = 0; b < expected; b++) {
                        assertEquals((byte) (i + b), bytes[at + b], "record " + i + " byte " + b);
                    }
                    ring.release(at);
                    i++;
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        ring.consumer(consumer);
        consumer.start();
        Random sizes = new Random(seed);
        byte[] bytes = ring.array();
        for (int i = 0; i < records; i++) {
            int size = size(sizes, ring);
            int at = ring.reserve(size, System.nanoTime() + 60_000_000_000L);
            assertTrue(at >= 0, "the consumer keeps up");
            for (int b = 0; b < size; b++) {
                bytes[at + b] = (byte) (i + b);
            }
            ring.publish();
        }
        consumer.join(60_000);
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(ring.isEmpty());
    }

    /** Sizes from empty to the largest the ring takes, most small, some that force a lap's end to be skipped. */
    private static int size(Random random, RecordRing ring) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextInt(4);
            case 1 -> random.nextInt(ring.maxRecordBytes() + 1);
            default -> random.nextInt(2000);
        };
    }

    @Test
    void aFullRingRefusesARecordOnceItsDeadlinePasses() {
        RecordRing ring = new RecordRing(1 << 10);
        int at = ring.reserve(ring.maxRecordBytes(), System.nanoTime());
        assertTrue(at >= 0);
        ring.publish();
        at = ring.reserve(ring.maxRecordBytes(), System.nanoTime());
        assertTrue(at >= 0, "two halves fit");
        ring.publish();
        assertEquals(-1, ring.reserve(1, System.nanoTime() + 5_000_000), "nobody consumes: no room");
        int first = ring.peek();
        ring.release(first);
        assertTrue(ring.reserve(10, System.nanoTime()) >= 0, "room again");
    }
}
