package org.fdbresolver.bridge;

import java.lang.management.ManagementFactory;

/**
 * How the memory budget, the JVM heap and the host's memory limit agree, checked at every open: the history
 * lives on the Java heap (in primitive arrays the collector never walks), and every budgeted engine knows the
 * most heap its history can take ({@code ConflictEngine.historyHeapBoundBytes}, the tree's reservation: the
 * budget and a sixteenth). The heap must hold that for every open resolver in the process, plus what each
 * needs to decide a batch and what the runtime itself keeps; and the JVM, heap and non-heap, must fit in the
 * host's memory limit less what the host keeps for itself (for fdbserver: its {@code --memory}, past which it
 * kills itself, less {@link #DEFAULT_HOST_RESERVE_BYTES}). A configuration that cannot fit is refused at open,
 * with a message naming the setting to change, instead of failing later with an out-of-memory error.
 *
 * <p>Why on the heap and not in off-heap segments: measured with {@code HistoryLayoutBench}, the tree's read
 * and write kernels run as fast on the heap as off it once both use one flat layout (docs/fdb-integration.md,
 * "Memory"), so the heap costs nothing in speed; with the heap sized from the budget (the bridge does that when
 * no {@code -Xmx} is given) the budget bounds the process's memory just as tightly.
 */
final class HeapPlan {
    /** What one resolver needs beside its history: batch buffers, sort and pipeline scratch, key buffers. */
    static final long WORKING_BYTES_PER_RESOLVER = 64L << 20;
    /** What the runtime keeps on the heap whatever the resolvers do (class mirrors, strings, caches). */
    static final long RUNTIME_HEAP_BYTES = 32L << 20;
    /**
     * JVM memory outside the heap: metaspace, code cache, thread stacks, the collector's own structures (up to a
     * sixteenth of the heap for G1), the runtime's native buffers. Checked against Native Memory Tracking in the
     * cluster tests (docs/fdb-integration.md, "Memory").
     */
    static final long NON_HEAP_BASE_BYTES = 192L << 20;
    /**
     * What fdbserver keeps for itself inside its {@code --memory}: the role and its buffers. Not the skip list, whose
     * bytes fdbserver's hook counts against the room left beside the JVM ({@link #hostRoom}) at every batch.
     */
    static final long DEFAULT_HOST_RESERVE_BYTES = 1L << 30;

    /**
     * How long an open that does not fit waits for resolvers of the process to give their heap back before it is
     * refused: closed ones still finishing (a capture's last flush, {@link #releaseLater}), and open ones that close
     * meanwhile. The second is a recovery's: FoundationDB recruits the new generation's Resolver while the old one's
     * object is still alive, and ends the old one (closing its plugin) once the new ServerDBInfo names the new
     * resolvers, which comes before the new Resolver's first batch. The open runs off the host's network thread
     * (fdbserver opens on a thread of its own), so a wait here delays only the open; in plugin mode the first batches
     * wait for it at most the hook's open_timeout (10 s by default), which this stays under.
     */
    static final long ADMISSION_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    /**
     * Heap that the open resolvers need in all (their bounds, or their working memory for unbounded ones), those closed
     * but still finishing included.
     */
    private static long openNeed;
    private static int openCount;
    /** Resolvers closed whose capture or workers are still finishing: counted in {@link #openNeed} until they end. */
    private static int closingCount;

    private HeapPlan() {
    }

    /** What a resolver whose history is bounded by {@code historyBound} (-1: unbounded) needs of the heap. */
    static long need(long historyBound) {
        return Math.max(0, historyBound) + WORKING_BYTES_PER_RESOLVER;
    }

    /** The JVM memory outside a heap of {@code maxHeap} bytes (an allowance, see {@link #NON_HEAP_BASE_BYTES}). */
    static long nonHeapAllowance(long maxHeap) {
        return NON_HEAP_BASE_BYTES + maxHeap / 16;
    }

    /** The most a JVM with a heap limit of {@code maxHeap} bytes may take from the host: the heap and the allowance. */
    static long jvmFootprint(long maxHeap) {
        return maxHeap + nonHeapAllowance(maxHeap);
    }

    /**
     * The heap a JVM started for one resolver with this budget should get when no {@code -Xmx} was given: its
     * history bound, working memory and the runtime's, rounded up to a MiB. The native side starts the JVM with
     * its own estimate from the budget alone ({@code budget + budget / 8 + 192 MiB}), which is at least this for
     * every default configuration (tested).
     */
    static long heapFor(long historyBound) {
        long bytes = need(historyBound) + RUNTIME_HEAP_BYTES;
        return (bytes + (1 << 20) - 1) & -(1L << 20);
    }

    /**
     * Admits a resolver that needs {@code need} bytes of heap, or throws {@link IllegalArgumentException} saying
     * why it cannot fit: the heap ({@code -Xmx}) is too small for every open resolver, or the JVM may outgrow the
     * host's limit ({@code hostLimit} bytes, 0 for none, less {@code hostReserve}).
     */
    static synchronized void admit(long need, String what, long hostLimit, long hostReserve) {
        long maxHeap = Runtime.getRuntime().maxMemory();
        long deadline = System.nanoTime() + ADMISSION_WAIT_NANOS;
        // Resolvers still open or closed but still finishing hold their heap: wait a little for them before refusing.
        // (Not for a resolver that would not fit alone: refused at once.)
        for (long left; openNeed + need + RUNTIME_HEAP_BYTES > maxHeap && need + RUNTIME_HEAP_BYTES <= maxHeap
                && (closingCount > 0 || openCount > 0)
                && (left = deadline - System.nanoTime()) > 0; ) {
            try {
                HeapPlan.class.wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        long total = openNeed + need + RUNTIME_HEAP_BYTES;
        if (total > maxHeap) {
            String others = openCount == 0 ? "" : " with the " + openCount + " resolver" + (openCount == 1 ? "" : "s")
                    + " already open in this process (" + mib(openNeed) + (closingCount == 0 ? "" : "; " + closingCount
                    + " of them closed but still finishing a capture or stopping workers") + ", waited "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(ADMISSION_WAIT_NANOS) + " s for them to close)";
            throw new IllegalArgumentException(what + " needs " + mib(need) + " of Java heap" + others + ", and the JVM's heap "
                    + "is " + mib(maxHeap) + " (at least " + mib(total) + " needed: raise jvm_option=-Xmx, which only the first "
                    + "open in a process sets, or lower memory_budget)");
        }
        if (hostLimit > 0) {
            long footprint = jvmFootprint(maxHeap);
            if (footprint > hostLimit - hostReserve) {
                throw new IllegalArgumentException("the JVM may take " + mib(footprint) + " (heap " + mib(maxHeap)
                        + " and " + mib(nonHeapAllowance(maxHeap)) + " beside it), over the host's memory limit of "
                        + mib(hostLimit) + " less the " + mib(hostReserve) + " it keeps for itself (process_memory_limit, "
                        + "host_memory_reserve; for fdbserver its --memory): lower memory_budget or -Xmx, or raise --memory");
            }
        }
        openNeed += need;
        openCount++;
    }

    /**
     * What the host may still hold beside this JVM inside its memory limit: {@code hostLimit} less
     * {@code hostReserve} and the most the JVM may take (its heap limit and the allowance beside it), as
     * {@link #admit} checked it; -1 when there is no limit ({@code hostLimit} 0). fdbserver's hook gives this room
     * to its skip list, which in shadow and guarded mode holds FoundationDB's whole window beside the plugin: its
     * nodes' bytes are checked against it at every batch, and the plugin steps aside (its heap given back) before
     * the skip list would push the process past {@code --memory}.
     */
    static long hostRoom(long hostLimit, long hostReserve) {
        if (hostLimit <= 0) {
            return -1;
        }
        long maxHeap = Runtime.getRuntime().maxMemory();
        return Math.max(0, hostLimit - hostReserve - jvmFootprint(maxHeap));
    }

    /**
     * Once the last resolver of a JVM the bridge started has closed and is finishing (a fallback to the skip list, the
     * Resolver's end), a full collection, so that the collector hands the freed heap back to the system (G1, the
     * default, shrinks the heap after a full collection down to what its free-ratio settings keep): after a fallback
     * in plugin mode the skip list rebuilds the window in the same process, and the history's heap should not stay
     * committed beside it. Not in a JVM the bridge did not start (its heap is its owner's), not while a
     * resolver is open (a full collection stops every Java thread, the one deciding a batch too), and not in a JVM
     * started with {@code -XX:+AlwaysPreTouch}: its operator asked for the heap committed and touched up front, and a
     * heap given back is touched again as it grows, in the young collections' pauses (docs/latency.md). Runs on the
     * closing thread, never the host's.
     */
    static void returnHeapIfLastToClose() {
        synchronized (HeapPlan.class) {
            // The caller is still counted, open and closing, until its released: the last one when it is alone.
            if (openCount != 1 || closingCount != 1 || !Boolean.getBoolean("fdbresolver.bridge.ownJvm")) {
                return;
            }
        }
        if (preTouched()) {
            return;
        }
        System.gc();
        heapReturns.incrementAndGet();
    }

    /** Whether this JVM commits and touches its heap up front ({@code -XX:+AlwaysPreTouch}). */
    static boolean preTouched() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean hotspot =
                    java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return hotspot != null && Boolean.parseBoolean(hotspot.getVMOption("AlwaysPreTouch").getValue());
        } catch (RuntimeException | LinkageError e) {
            return false; // not HotSpot, or no such option: the heap is given back as usual
        }
    }

    /**
     * A full collection after the first open's warm-up, before that open makes its own history. The warm-up's
     * throwaway engines leave tens of MB in the young generation (53 MB on the cluster's flood capture replayed with
     * Serial), and the first young collection then fell in one of the first real batches: 22 ms, that replay's slowest
     * batch every run (29 ms of wall time against 1 ms of CPU; docs/latency.md). Here the pause falls in the open,
     * which the prestart runs off the network thread (the slowest batch of that replay 7.9–8.5 ms in four runs,
     * against 21–29 ms). The same conditions as {@link #returnHeapIfLastToClose}: the bridge's own JVM, no resolver
     * open or closing (a full collection stops every Java thread, one deciding a batch too), no pre-touched heap.
     * And Serial only, the collector measured to gain: G1 shrinks the heap after a full collection (198 to 10 MB
     * committed on that replay), and its first real batches then met more young collections and a concurrent
     * cycle's remark (7 ms) as the heap grew again.
     *
     * @return whether it collected
     */
    static boolean collectAfterWarmUp() {
        synchronized (HeapPlan.class) {
            if (openCount != 0 || closingCount != 0 || !Boolean.getBoolean("fdbresolver.bridge.ownJvm")) {
                return false;
            }
        }
        if (preTouched() || !serialCollector()) {
            return false;
        }
        System.gc();
        warmUpCollections.incrementAndGet();
        return true;
    }

    /** Whether this JVM collects with Serial (whose young collector HotSpot names "Copy"). */
    static boolean serialCollector() {
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().equals("Copy")) {
                return true;
            }
        }
        return false;
    }

    /** How many times {@link #collectAfterWarmUp} collected (for tests). */
    static final java.util.concurrent.atomic.AtomicLong warmUpCollections = new java.util.concurrent.atomic.AtomicLong();

    /** How many times {@link #returnHeapIfLastToClose} collected (for tests). */
    static final java.util.concurrent.atomic.AtomicLong heapReturns = new java.util.concurrent.atomic.AtomicLong();

    /** Gives back an admission at once (an open that failed after {@link #admit}). */
    static synchronized void release(long need) {
        openNeed -= need;
        openCount--;
        HeapPlan.class.notifyAll();
    }

    /** A resolver closed but still finishing: its admission stays counted until {@link #released}. */
    static synchronized void releaseLater(long need) {
        closingCount++;
    }

    /** A resolver {@link #releaseLater} named has finished: its heap is free for the next open. */
    static synchronized void released(long need) {
        closingCount--;
        release(need);
    }

    /** Waits at most {@code timeoutMillis} until no closed resolver is still finishing; returns how many still are. */
    static synchronized int awaitClosing(long timeoutMillis) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis));
        for (long left; closingCount > 0 && (left = deadline - System.nanoTime()) > 0; ) {
            try {
                HeapPlan.class.wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return closingCount;
    }

    /** Resolvers closed but still finishing. */
    static synchronized int closingCount() {
        return closingCount;
    }

    /** Heap the open resolvers need in all, the runtime's share included (what {@link #admit} compares). */
    static synchronized long neededBytes() {
        return openNeed + RUNTIME_HEAP_BYTES;
    }

    /** JVM memory outside the heap in use now (metaspace, code cache, ...), as the JVM reports it. */
    static long nonHeapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getUsed();
    }

    static String mib(long bytes) {
        return String.format("%,d MiB", (bytes + (1 << 20) - 1) >> 20);
    }
}
