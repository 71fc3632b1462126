package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * The heap plan's arithmetic: the heap the native side gives a JVM it starts for one resolver (budget, an eighth
 * and 192 MiB; fdbresolver.cpp's defaultMaxHeap) holds what the Java side then requires for it, for every budget
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

    @Test
    void unboundedEnginesNeedTheirWorkingMemoryOnly() {
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            assertEquals(-1, cs.engine().historyHeapBoundBytes());
            assertEquals(HeapPlan.WORKING_BYTES_PER_RESOLVER, HeapPlan.need(cs.engine().historyHeapBoundBytes()));
        }
    }

    @Test
    void bridgeSettingsAreReadAsTheNativeSideWritesThem() {
        assertEquals(new BridgeSettings(8L << 30, 1L << 29, null), BridgeSettings.parse("process_memory_limit=8589934592\nhost_memory_reserve=536870912"));
        assertEquals(BridgeSettings.NONE, BridgeSettings.parse(null));
        assertEquals(0, BridgeSettings.parse("").processMemoryLimit());
        assertThrows(IllegalArgumentException.class, () -> BridgeSettings.parse("colour=blue"));
        assertThrows(IllegalArgumentException.class, () -> BridgeSettings.parse("process_memory_limit=-3"));
    }
}
