package org.fdbresolver.harness.sizing;

/**
 * What a memory budget means inside fdbserver, as the bridge plans it (jni-bridge: {@code HeapPlan.java} and
 * {@code jvm_start.cpp}'s {@code defaultMaxHeap}; a test there checks these figures against them): with no
 * {@code -Xmx} in the plugin's configuration the JVM's heap is the budget, an eighth more and 192 MiB, rounded
 * up to a MiB; the JVM outside its heap is allowed 192 MiB and a sixteenth of the heap; and fdbserver keeps
 * 1 GiB of its {@code --memory} for itself (past its {@code --memory} fdbserver kills itself, so the bridge
 * refuses a budget whose JVM does not fit in what is left).
 *
 * @param budgetBytes   the history's memory budget
 * @param heapBytes     the JVM's heap
 * @param nonHeapBytes  what the JVM may take beside its heap
 * @param hostReserve   what fdbserver keeps for itself
 */
public record MemoryPlan(long budgetBytes, long heapBytes, long nonHeapBytes, long hostReserve) {
    static final long MIB = 1L << 20;
    /** The heap beyond the budget and its eighth: working memory and the runtime's (the bridge's jvm_start.cpp). */
    public static final long HEAP_BASE_BYTES = 192 * MIB;
    /** HeapPlan.NON_HEAP_BASE_BYTES: metaspace, code cache, thread stacks, the collector's structures. */
    public static final long NON_HEAP_BASE_BYTES = 192 * MIB;
    /** HeapPlan.DEFAULT_HOST_RESERVE_BYTES: fdbserver's own share of its --memory. */
    public static final long HOST_RESERVE_BYTES = 1L << 30;

    public static MemoryPlan forBudget(long budgetBytes) {
        long heap = roundUpToMib(budgetBytes + budgetBytes / 8 + HEAP_BASE_BYTES);
        return new MemoryPlan(budgetBytes, heap, NON_HEAP_BASE_BYTES + heap / 16, HOST_RESERVE_BYTES);
    }

    /** The JVM in all: heap and what it may take beside it. */
    public long jvmBytes() {
        return heapBytes + nonHeapBytes;
    }

    /** The least {@code --memory} the bridge admits this budget under (plugin mode), rounded up to a MiB. */
    public long fdbserverMemoryBytes() {
        return roundUpToMib(jvmBytes() + hostReserve);
    }

    /**
     * The same in shadow and guarded modes, where FoundationDB's skip list decides beside the plugin and holds the
     * same window: its {@code skipListBytes} on top (the reserve covers its usual 5 seconds, not a longer window).
     */
    public long fdbserverMemoryBesideSkipList(long skipListBytes) {
        return roundUpToMib(jvmBytes() + hostReserve + skipListBytes);
    }

    public static long roundUpToMib(long bytes) {
        return (bytes + MIB - 1) & -MIB;
    }
}
