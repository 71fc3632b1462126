package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fdbresolver.harness.sizing.MemoryPlan;
import org.junit.jupiter.api.Test;

/**
 * {@code fdbresolver size} prints the heap, the JVM and fdbserver's {@code --memory} a budget means from its own
 * copy of the bridge's plan ({@link MemoryPlan}, in the harness, which cannot see this module): the same figures as
 * the bridge's — the native side's default heap (mirrored in {@link HeapPlanTest#nativeDefaultHeap}), the non-heap
 * allowance and the host's reserve — and the --memory it prints is the least that the admission check takes.
 */
class SizingMemoryPlanTest {

    @Test
    void sizeUsesTheBridgesPlan() {
        assertEquals(HeapPlan.NON_HEAP_BASE_BYTES, MemoryPlan.NON_HEAP_BASE_BYTES);
        assertEquals(HeapPlan.DEFAULT_HOST_RESERVE_BYTES, MemoryPlan.HOST_RESERVE_BYTES);
        for (long budget : new long[] {1 << 20, 45L << 20, 1L << 30, 3L << 30, 64L << 30}) {
            MemoryPlan plan = MemoryPlan.forBudget(budget);
            assertEquals(HeapPlanTest.nativeDefaultHeap(budget), plan.heapBytes(), "heap for " + budget);
            assertEquals(HeapPlan.nonHeapAllowance(plan.heapBytes()), plan.nonHeapBytes(), "non-heap for " + budget);
            // HeapPlan.admit refuses when heap + non-heap > limit - reserve: the --memory printed is the least it takes
            long footprint = plan.heapBytes() + HeapPlan.nonHeapAllowance(plan.heapBytes());
            long memory = plan.fdbserverMemoryBytes();
            assertTrue(footprint <= memory - HeapPlan.DEFAULT_HOST_RESERVE_BYTES, "admitted under " + memory);
            assertTrue(footprint > memory - (1 << 20) - HeapPlan.DEFAULT_HOST_RESERVE_BYTES, "a MiB less is refused");
        }
    }
}
