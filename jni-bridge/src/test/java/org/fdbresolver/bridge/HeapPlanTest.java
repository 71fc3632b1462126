package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.bridge.capture.CaptureSettings;
import org.junit.jupiter.api.Test;

/**
 * The heap plan's arithmetic: the heap the native side gives a JVM it starts for one resolver (budget, an eighth
 * and 192 MiB; jvm_start.cpp's defaultMaxHeap) holds what the Java side then requires for it, for every budget
 * from the smallest the tree takes to 64 GiB, at the engine's default node and key block sizes; and the bridge's
 * own settings are read as the native side writes them.
 */
class HeapPlanTest {

    static long nativeDefaultHeap(long budget) {
        long mib = (budget + budget / 8 + (192L << 20) + (1 << 20) - 1) >> 20;
        return mib << 20;
    }

    @Test
    void theNativeDefaultHeapHoldsWhatTheJavaSideRequires() {
        for (long budget : new long[] {32 << 10, 1 << 20, 64L << 20, 256L << 20, 1L << 30, 4L << 30, 16L << 30, 64L << 30}) {
            try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(budget).build())) {
                long bound = cs.engine().historyHeapBoundBytes();
                assertTrue(bound >= budget && bound <= budget + budget / 16 + (2L << 20), "budget " + budget + ": bound " + bound);
                long required = HeapPlan.heapFor(bound);
                assertTrue(required <= nativeDefaultHeap(budget), "budget " + budget + ": the Java side needs " + required
                        + ", the native side gives " + nativeDefaultHeap(budget));
            }
        }
    }

    /**
     * A recovery's overlap (issue 32): a second resolver that does not fit beside one still open waits for it to
     * close and is admitted then, instead of being refused while the old generation's Resolver ends.
     */
    @Test
    void anOpenThatDoesNotFitWaitsForAnOpenResolverToClose() throws Exception {
        long free = Runtime.getRuntime().maxMemory() - HeapPlan.neededBytes() - HeapPlan.RUNTIME_HEAP_BYTES;
        long each = free / 4 * 3; // one fits, two do not
        HeapPlan.admit(each, "the old generation's resolver", 0, 0);
        Thread closer = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            HeapPlan.releaseLater(each);
            HeapPlan.released(each);
        });
        long start = System.nanoTime();
        closer.start();
        try {
            HeapPlan.admit(each, "the new generation's resolver", 0, 0);
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waitedMillis >= 250, "admitted once the other closed, after " + waitedMillis + " ms");
        } finally {
            closer.join();
            HeapPlan.release(each);
        }
    }

    @Test
    void anOpenThatCouldNeverFitIsRefusedAtOnce() {
        HeapPlan.admit(16L << 20, "an open resolver", 0, 0);
        try {
            long start = System.nanoTime();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HeapPlan.admit(Runtime.getRuntime().maxMemory(), "a budget larger than the heap", 0, 0));
            assertTrue((System.nanoTime() - start) / 1_000_000 < HeapPlan.ADMISSION_WAIT_NANOS / 1_000_000 / 2,
                    "refused without waiting for the other to close");
            assertTrue(e.getMessage().contains("raise jvm_option=-Xmx"), e.getMessage());
        } finally {
            HeapPlan.release(16L << 20);
        }
    }

    @Test
    void unboundedEnginesNeedTheirWorkingMemoryOnly() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            assertEquals(-1, cs.engine().historyHeapBoundBytes());
            assertEquals(HeapPlan.WORKING_BYTES_PER_RESOLVER, HeapPlan.need(cs.engine().historyHeapBoundBytes()));
        }
    }

    /**
     * The room beside the JVM that fdbserver's skip list gets (issue 32, item 7): the limit less the reserve and the
     * most the JVM may take, as the admission counts it; none without a limit, never below zero.
     */
    @Test
    void theHostsRoomIsWhatTheAdmissionLeaves() {
        long maxHeap = Runtime.getRuntime().maxMemory();
        long jvm = maxHeap + HeapPlan.nonHeapAllowance(maxHeap);
        assertEquals(-1, HeapPlan.hostRoom(0, HeapPlan.DEFAULT_HOST_RESERVE_BYTES));
        assertEquals(100L << 20, HeapPlan.hostRoom(jvm + (1L << 30) + (100L << 20), 1L << 30));
        assertEquals(0, HeapPlan.hostRoom(jvm, 1L << 30));
    }

    @Test
    void bridgeSettingsAreReadAsTheNativeSideWritesThem() {
        assertEquals(new BridgeSettings(8L << 30, 1L << 29, null), BridgeSettings.parse("process_memory_limit=8589934592\nhost_memory_reserve=536870912"));
        assertEquals(BridgeSettings.NONE, BridgeSettings.parse(null));
        assertEquals(0, BridgeSettings.parse("").processMemoryLimit());
        assertThrows(IllegalArgumentException.class, () -> BridgeSettings.parse("colour=blue"));
        assertThrows(IllegalArgumentException.class, () -> BridgeSettings.parse("process_memory_limit=-3"));
    }

    @Test
    void captureSettingsAreReadAsTheNativeSideWritesThem() {
        BridgeSettings s = BridgeSettings.parse("capture=/tmp/c\ncapture_segment_bytes=1048576\ncapture_max_bytes=8388608\n"
                + "capture_queue_bytes=2097152\ncapture_config=engine=tree;capture=/tmp/c");
        assertEquals(new CaptureSettings(Path.of("/tmp/c"), 1 << 20, 8 << 20, 2 << 20, "engine=tree;capture=/tmp/c"), s.capture());
        CaptureSettings defaults = BridgeSettings.parse("capture=/tmp/c").capture();
        assertEquals(64L << 20, defaults.segmentBytes());
        assertEquals(1L << 30, defaults.maxBytes());
        assertEquals(32 << 20, defaults.queueBytes());
        // What the native side adds to the heap of a JVM it starts for a capture (2 x queue + 8 MiB) is the Java need.
        assertEquals(2L * (32 << 20) + (8 << 20), defaults.heapBytes());
        assertEquals("capture_queue_bytes is set but capture= is not (it names where captures go)",
                assertThrows(IllegalArgumentException.class, () -> BridgeSettings.parse("capture_queue_bytes=1048576")).getMessage());
        assertEquals("capture_segment_bytes=1024 is below the least, 65536 (64k)",
                assertThrows(IllegalArgumentException.class,
                        () -> BridgeSettings.parse("capture=/tmp/c\ncapture_segment_bytes=1024")).getMessage());
        assertEquals("capture_queue_bytes=3221225472 is over the most, 2 GiB", assertThrows(IllegalArgumentException.class,
                () -> BridgeSettings.parse("capture=/tmp/c\ncapture_queue_bytes=3221225472")).getMessage());
    }
}
