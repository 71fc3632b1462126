package org.fdbresolver.harness.cli;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * What the JVM did during a timed section: bytes this thread and the engine's worker threads allocated (an
 * engine's steady state should allocate nothing) and garbage collections. Read before and after, never inside the
 * timed loop.
 */
final class JvmCounters {
    private long allocatedAtStart;
    private long allocated = -1;
    private long cpuAtStart;
    private long cpu = -1;
    private long gcCountAtStart;
    private long gcMillisAtStart;
    private long gcCount;
    private long gcMillis;

    void start() {
        cpuAtStart = threadCpuNanos();
        allocatedAtStart = threadAllocatedBytes();
        gcCountAtStart = totalGcCount();
        gcMillisAtStart = totalGcMillis();
    }

    void stop() {
        long now = threadAllocatedBytes();
        long cpuNow = threadCpuNanos();
        allocated = now < 0 || allocatedAtStart < 0 ? -1 : now - allocatedAtStart;
        cpu = cpuNow < 0 || cpuAtStart < 0 ? -1 : cpuNow - cpuAtStart;
        gcCount = totalGcCount() - gcCountAtStart;
        gcMillis = totalGcMillis() - gcMillisAtStart;
    }

    /** Bytes this thread and the engine's workers allocated between start and stop, or -1 when the JVM cannot tell. */
    long allocatedBytes() {
        return allocated;
    }

    /**
     * CPU nanoseconds this thread and the engine's workers used between start and stop, or -1: on a machine whose
     * cores are shared, the time the engine computed, whatever else ran (a worker spinning between phases counts).
     */
    long cpuNanos() {
        return cpu;
    }

    long gcCount() {
        return gcCount;
    }

    long gcMillis() {
        return gcMillis;
    }

    /** This thread's CPU time plus the engine's workers' (as for the allocation), or -1 when the JVM cannot tell. */
    private static long threadCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            return -1;
        }
        long sum = threads.getCurrentThreadCpuTime();
        long self = Thread.currentThread().threadId();
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadId() != self && info.getThreadName().startsWith(WORKER_PREFIX)) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /** Name prefix of the engines' worker threads ({@code org.fdbresolver.pipeline.BatchWorkers}). */
    private static final String WORKER_PREFIX = "fdbresolver-";

    /**
     * This thread's allocated bytes plus the engine's worker threads' (made at open, alive as long as the engine),
     * so that a difference over the timed part is what resolving allocated, on every thread it used.
     */
    private static long threadAllocatedBytes() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads instanceof com.sun.management.ThreadMXBean hotspot && hotspot.isThreadAllocatedMemorySupported()) {
            long sum = hotspot.getCurrentThreadAllocatedBytes();
            long self = Thread.currentThread().threadId();
            for (var info : hotspot.getThreadInfo(hotspot.getAllThreadIds())) {
                if (info != null && info.getThreadId() != self && info.getThreadName().startsWith(WORKER_PREFIX)) {
                    sum += Math.max(0, hotspot.getThreadAllocatedBytes(info.getThreadId()));
                }
            }
            return sum;
        }
        return -1;
    }

    private static long totalGcCount() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }

    private static long totalGcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }
}
