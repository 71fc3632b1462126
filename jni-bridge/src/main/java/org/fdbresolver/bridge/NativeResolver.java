package org.fdbresolver.bridge;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fdbresolver.api.BatchFigures;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.ConflictSetStats;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.api.Phase;
import org.fdbresolver.bridge.capture.Capture;
import org.fdbresolver.bridge.capture.CaptureSettings;
import org.fdbresolver.tree.TreeEngine;

/**
 * The one class that native code calls (libfdbresolver, {@code fdbresolver.h}): {@link #open} makes a
 * resolver, and its instance methods resolve a batch, clear, read statistics, name the engine and close. Each call
 * returns a status code and never throws: an exception becomes {@link #INVALID_BATCH} or
 * {@link #ENGINE_ERROR} with its message written, NUL-terminated UTF-8, into the caller's message buffer.
 * The native side still checks for a pending exception after every call, for what escapes even this
 * (an error while formatting the message).
 *
 * <p>Not thread-safe: the native library serializes the calls on one resolver.
 */
public final class NativeResolver {
    /** Status codes; the same values as {@code fdbr_status}. */
    static final int OK = 0;
    static final int INVALID_BATCH = 1;
    static final int ENGINE_ERROR = 2;
    static final int INVALID_ARGUMENT = 3;

    /**
     * Offsets in the stats block the native side passes (docs/bridge-layout.md, static_asserts in
     * stats.cpp): {@code fdbr_stats} at 0, whose {@code resolve_nanos} (offset 48) is the native side's,
     * then {@code fdbr_batch_stats} at 104.
     */
    static final int STATS_BATCHES = 0;
    static final int STATS_TRANSACTIONS = 8;
    static final int STATS_HISTORY_BYTES = 16;
    static final int STATS_MEMORY_BUDGET = 24;
    static final int STATS_RETAINED_VERSION = 32;
    static final int STATS_ENGINE_NANOS = 40;
    static final int STATS_PHASE_NANOS = 56;
    // fdbr_batch_stats
    static final int STATS_COMMITS = 104;
    static final int STATS_CONFLICTS = 112;
    static final int STATS_TOO_OLD_FDB = 120;
    static final int STATS_TOO_OLD_BUDGET = 128;
    static final int STATS_LAST_VERSION = 136;
    static final int STATS_LAST_NEW_OLDEST_VERSION = 144;
    static final int STATS_LAST_TRANSACTIONS = 152;
    static final int STATS_LAST_TOO_OLD_FDB = 160;
    static final int STATS_LAST_TOO_OLD_BUDGET = 168;
    static final int STATS_LAST_ENGINE_NANOS = 176;
    static final int STATS_LAST_PHASE_NANOS = 184;
    // fdbr_memory (FDBRESOLVER_1.2), at 232
    static final int MEMORY_JVM_MAX_HEAP = 232;
    static final int MEMORY_JVM_HEAP_USED = 240;
    static final int MEMORY_JVM_NON_HEAP_USED = 248;
    static final int MEMORY_HEAP_NEEDED = 256;
    static final int MEMORY_HISTORY_HEAP_BOUND = 264;
    static final int MEMORY_HISTORY_RESERVED = 272;
    static final int MEMORY_FORGOTTEN_BATCHES = 280;
    static final int MEMORY_WARNINGS_PENDING = 288;
    static final int STATS_BYTES = MEMORY_WARNINGS_PENDING + 8;

    /**
     * The call block (bridge.h's {@code CallBlock}, docs/bridge-layout.md): one per resolver, laid out once in native
     * memory, whose address {@link #bind} gets once; the native side writes a batch's arguments there and calls
     * {@link #resolveBound} with none.
     */
    static final int CALL_NOW = 0;
    static final int CALL_NEW_OLDEST_VERSION = 8;
    static final int CALL_TRANSACTIONS = 16;
    static final int CALL_RANGES = 24;
    static final int CALL_OUTPUT = 32;
    static final int CALL_OUTPUT_CAPACITY = 40;
    static final int CALL_TRANSACTION_COUNT = 48;
    static final int CALL_RANGE_COUNT = 52;
    static final int CALL_PROFILE = 56;
    static final int CALL_STAMPS = 64;
    static final int CALL_BYTES = 96;

    /**
     * {@code -Dfdbresolver.bridge.profile=true}: each batch stamps {@link System#nanoTime} four times into the call
     * block so that the native side can split its time (stats.cpp prints it). A constant: off, the JIT drops it.
     */
    static final boolean PROFILE = Boolean.getBoolean("fdbresolver.bridge.profile");

    /** Warnings kept per resolver until the host takes them (older ones are dropped and counted). */
    static final int MAX_WARNINGS = 32;

    // Every int and long this class and NativeBatch touch in native memory goes through these two layouts, the open's
    // status word included: a second layout (JAVA_INT, aligned) written once at the end of the open deoptimised the
    // compiled segment setters the warm-up had just made, and the first batches ran them cold (issue 31).
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;

    /** The engine and its batch; let go once the resolver has closed, so that the collector can give its heap back. */
    private ConflictSet conflictSet;
    private ConflictBatch batch;
    private final String engineName;
    private final NativeBatch layout = new NativeBatch();
    private final int maxKeyBytes;
    /** Heap admitted for this resolver at open ({@link HeapPlan}); given back at close. */
    private final long heapNeed;
    private final ArrayDeque<String> warnings = new ArrayDeque<>();
    private long warningsDropped;
    private long batchesResolved;
    private long engineNanos;
    private long lastEngineNanos;
    /** The call block ({@link #bind}), and the message buffer an error of a batch is written into. */
    private MemorySegment call = MemorySegment.NULL;
    private long messageAddress;
    private int messageCapacity;
    /** The thread of the last batch and its warning slot ({@link WarningCapture#slot}), kept while it stays. */
    private Thread slotThread;
    private Object[] warningSlot;
    /** Records every batch decided ({@code capture=PATH}), or null. */
    private Capture capture;
    /** {@link #hostMemoryRoom()}: set by the open, once. */
    private long hostMemoryRoom = -1;
    /** Set by {@link #close}: warnings from then on go to the next resolver opened. */
    private volatile boolean closed;
    /** How a capture is opened: {@link Capture#open}; tests put in a slow writer. */
    static volatile CaptureOpener captureOpener = Capture::open;

    /** {@link Capture#open}'s shape. */
    @FunctionalInterface
    interface CaptureOpener {
        Capture open(CaptureSettings settings, String engine, java.util.function.Consumer<String> warnings);
    }

    private NativeResolver(ConflictSet conflictSet, long heapNeed) {
        this.conflictSet = conflictSet;
        this.batch = conflictSet.newBatch();
        this.engineName = conflictSet.engineName();
        this.maxKeyBytes = conflictSet.config().maxKeyBytes();
        this.heapNeed = heapNeed;
    }

    /** The engine, for tests that fill its history directly; null once the resolver has closed and finished. */
    ConflictSet conflictSetForTests() {
        return conflictSet;
    }

    /** A resolver over {@code conflictSet} that admitted no heap and captures nothing ({@link BridgeWarmUp}); the caller closes the set. */
    static NativeResolver throwaway(ConflictSet conflictSet) {
        return new NativeResolver(conflictSet, 0);
    }

    /**
     * Synthetic batches the first open of engine {@code tree} then runs through the bridge's Java path
     * ({@link BridgeWarmUp}), which the engine's warm-up leaves cold.
     */
    static final int FIRST_OPEN_BRIDGE_WARM_UP_BATCHES = 1_000;
    /**
     * After the warm-up's batches, the longest the first open goes on warming with large batches until the JIT has
     * settled (the engine's {@code warmUpSettleMillis}): with the JVM started with fdbserver, no Resolver waits for it.
     */
    static final long FIRST_OPEN_SETTLE_MILLIS = 3_000;
    private static final AtomicBoolean ENGINE_WARMED = new AtomicBoolean();

    /**
     * Opens a conflict set. {@code engine} null, {@code memoryBudgetBytes <= 0} and {@code maxKeyBytes <= 0}
     * mean the defaults; {@code options} (engine options) and {@code settings} (the bridge's own:
     * {@link BridgeSettings}) are "name=value" lines joined by '\n' (or null). Refused when its history cannot
     * fit in this JVM's heap with the resolvers already open, or the JVM in the host's memory limit ({@link HeapPlan}).
     *
     * @return the resolver, or null with the status at {@code statusAddress} and the message written
     */
    static NativeResolver open(String engine, long memoryBudgetBytes, int maxKeyBytes, String options, String settings,
                               long statusAddress, long messageAddress, int messageCapacity) {
        MemorySegment status = MemorySegment.ofAddress(statusAddress).reinterpret(4);
        WarningCapture.Scope scope = WarningCapture.begin();
        try {
            BridgeSettings bridge = BridgeSettings.parse(settings);
            ConflictSetConfig.Builder config = ConflictSetConfig.builder();
            if (engine != null) {
                config.engine(engine);
            }
            if (memoryBudgetBytes > 0) {
                config.memoryBudgetBytes(memoryBudgetBytes);
            }
            if (maxKeyBytes > 0) {
                config.maxKeyBytes(maxKeyBytes);
            }
            if (options != null && !options.isEmpty()) {
                for (String line : options.split("\n")) {
                    int eq = line.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("engine option '" + line + "' is not name=value");
                    }
                    config.option(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            // The first open of engine tree in this JVM warms it (issue 31): a Resolver holds every commit while it
            // decides, and a cold JVM's first batches ran about ten times slower than warm ones. Later opens find
            // the code compiled; engine_option=warmUpBatches=N sets another count (0: none).
            boolean warm = (engine == null || engine.equals("tree")) && (options == null || !options.contains("warmUpBatches="))
                    && ENGINE_WARMED.compareAndSet(false, true);
            if (warm) {
                config.option("warmUpBatches", Integer.toString(TreeEngine.FIRST_OPEN_WARM_UP_BATCHES));
                if (options == null || !options.contains("warmUpSettleMillis=")) {
                    config.option("warmUpSettleMillis", Long.toString(FIRST_OPEN_SETTLE_MILLIS));
                }
            }
            ConflictSetConfig built = config.build();
            // Then the bridge's own path, which the engine's warm-up does not run (BridgeWarmUp).
            String warmUpFailure = null;
            if (warm) {
                try {
                    BridgeWarmUp.run(built, FIRST_OPEN_BRIDGE_WARM_UP_BATCHES);
                } catch (Throwable e) {
                    warmUpFailure = "the bridge's warm-up failed (the first batches run cold): " + describe(e);
                }
            }
            ConflictSet cs = ConflictSet.open(built);  // the engine's warm-up runs first, in its throwaway engines
            if (warm) {
                // The warm-ups' garbage collected here, not in a young collection inside the first real batches.
                HeapPlan.collectAfterWarmUp();
            }
            long bound = cs.engine().historyHeapBoundBytes();
            CaptureSettings captureSettings = bridge.capture();
            long need = HeapPlan.need(bound) + (captureSettings == null ? 0 : captureSettings.heapBytes());
            try {
                HeapPlan.admit(need, "engine " + cs.engineName() + " with memory_budget=" + built.memoryBudgetBytes()
                        + (bound < 0 ? "" : " (its history takes at most " + HeapPlan.mib(bound) + " of heap)")
                        + (captureSettings == null ? "" : " and a capture (capture_queue_bytes=" + captureSettings.queueBytes() + ")"),
                        bridge.processMemoryLimit(), bridge.hostMemoryReserve());
            } catch (RuntimeException e) {
                cs.close();
                throw e;
            }
            NativeResolver resolver = new NativeResolver(cs, need);
            resolver.hostMemoryRoom = HeapPlan.hostRoom(bridge.processMemoryLimit(), bridge.hostMemoryReserve());
            if (captureSettings != null) {
                try {
                    resolver.capture = captureOpener.open(captureSettings, cs.engineName(), resolver::warn);
                } catch (RuntimeException e) {
                    HeapPlan.release(need);
                    cs.close();
                    throw e;
                }
            }
            if (warmUpFailure != null) {
                resolver.warn(warmUpFailure);
            }
            if (bound < 0) {
                resolver.warn("engine " + cs.engineName() + " keeps all history: its memory has no bound (an oracle for "
                        + "tests and checks, not for production)");
            }
            resolver.takeLateWarnings();
            scope.drainInto(resolver);
            status.set(I32, 0, OK);
            return resolver;
        } catch (IllegalArgumentException e) {
            status.set(I32, 0, INVALID_ARGUMENT);
            writeMessage(e.getMessage(), messageAddress, messageCapacity);
        } catch (Throwable e) {
            status.set(I32, 0, ENGINE_ERROR);
            writeMessage(describe(e), messageAddress, messageCapacity);
        } finally {
            scope.close();
        }
        return null;
    }

    /**
     * Queues a warning for the host ({@code fdbr_take_warnings}); the oldest go when too many wait. Once closed (a
     * capture finishing after its resolver), for the next resolver opened instead.
     */
    synchronized void warn(String text) {
        if (closed) {
            lateWarning(text);
            return;
        }
        if (warnings.size() == MAX_WARNINGS) {
            warnings.removeFirst();
            warningsDropped++;
        }
        warnings.addLast(text);
    }

    /**
     * Writes the waiting warnings, one per line, NUL-terminated, into the host's buffer (cut to fit), and forgets
     * them; returns how many were written.
     */
    synchronized int takeWarnings(long outAddress, int capacity) {
        StringBuilder text = new StringBuilder();
        if (warningsDropped > 0) {
            text.append(warningsDropped).append(" older warnings were dropped\n");
            warningsDropped = 0;
        }
        int n = warnings.size();
        for (String w : warnings) {
            text.append(w.replace('\n', ' ')).append('\n');
        }
        warnings.clear();
        writeMessage(text.toString(), outAddress, capacity);
        return n;
    }

    /**
     * Takes the resolver's call block and message buffer, once, before its first batch: every batch after is one
     * call without arguments ({@link #resolveBound}).
     */
    int bind(long callAddress, long messageAddress, int messageCapacity) {
        try {
            call = MemorySegment.ofAddress(callAddress).reinterpret(CALL_BYTES);
            call.set(I32, CALL_PROFILE, PROFILE ? 1 : 0);
            this.messageAddress = messageAddress;
            this.messageCapacity = messageCapacity;
            return OK;
        } catch (Throwable e) {
            writeMessage(describe(e), messageAddress, messageCapacity);
            return ENGINE_ERROR;
        }
    }

    /** Resolves the batch the call block describes ({@link #bind}); see {@link NativeBatch} for its memory. */
    int resolveBound() {
        MemorySegment c = call;
        if (PROFILE) {
            c.set(I64, CALL_STAMPS, System.nanoTime());
        }
        return resolve(c.get(I64, CALL_NOW), c.get(I64, CALL_NEW_OLDEST_VERSION), c.get(I64, CALL_TRANSACTIONS),
                c.get(I32, CALL_TRANSACTION_COUNT), c.get(I64, CALL_RANGES), c.get(I32, CALL_RANGE_COUNT),
                c.get(I64, CALL_OUTPUT), c.get(I64, CALL_OUTPUT_CAPACITY), messageAddress, messageCapacity);
    }

    /**
     * Resolves one batch; see {@link NativeBatch} for the memory it reads and writes. The native side calls
     * {@link #resolveBound}; this form, with the arguments, stays for a library of an earlier build.
     */
    int resolve(long now, long newOldestVersion, long txnAddress, int transactionCount, long rangeAddress,
                int rangeCount, long outAddress, long outCapacity, long messageAddress, int messageCapacity) {
        Object[] warningsTo = warningSlot();
        warningsTo[0] = this;
        try {
            layout.read(batch, txnAddress, transactionCount, rangeAddress, rangeCount, maxKeyBytes,
                    batchesResolved, now);
            if (PROFILE) {
                stamp(1);
            }
            BatchResult result = batch.detectConflicts(now, newOldestVersion);
            if (PROFILE) {
                stamp(2);
            }
            long nanos = conflictSet.lastBatchNanos();
            layout.write(result, outAddress, outCapacity, nanos);
            engineNanos += nanos;
            lastEngineNanos = nanos;
            batchesResolved++;
            if (capture != null) {
                capture.record(batch, result, now, newOldestVersion); // never throws: a failing capture stops itself
            }
            if (PROFILE) {
                stamp(3);
            }
            return OK;
        } catch (InvalidBatchException e) {
            writeMessage(e.getMessage(), messageAddress, messageCapacity);
            return INVALID_BATCH;
        } catch (IllegalArgumentException e) {
            writeMessage(e.getMessage(), messageAddress, messageCapacity);
            return INVALID_ARGUMENT;
        } catch (Throwable e) {
            writeMessage(describe(e), messageAddress, messageCapacity);
            return ENGINE_ERROR;
        } finally {
            warningsTo[0] = null;
        }
    }

    /** This thread's warning slot, looked up only when the host calls from another thread than the last batch's. */
    private Object[] warningSlot() {
        Thread thread = Thread.currentThread();
        if (thread != slotThread) {
            warningSlot = WarningCapture.slot();
            slotThread = thread;
        }
        return warningSlot;
    }

    private void stamp(int i) {
        if (call.byteSize() >= CALL_BYTES) {
            call.set(I64, CALL_STAMPS + 8L * i, System.nanoTime());
        }
    }

    int clear(long version, long messageAddress, int messageCapacity) {
        try {
            conflictSet.clear(version);
            if (capture != null) {
                capture.stop("fdbr_clear(" + version + ") forgot the history, which a trace cannot say");
            }
            return OK;
        } catch (Throwable e) {
            writeMessage(describe(e), messageAddress, messageCapacity);
            return ENGINE_ERROR;
        }
    }

    /** Writes {@code fdbr_stats} except {@code resolve_nanos}, which the native side keeps. */
    int stats(long outAddress, long messageAddress, int messageCapacity) {
        try {
            ConflictSetStats stats = conflictSet.stats();
            MemorySegment out = MemorySegment.ofAddress(outAddress).reinterpret(STATS_BYTES);
            out.set(I64, STATS_BATCHES, stats.batches());
            out.set(I64, STATS_TRANSACTIONS, stats.transactions());
            out.set(I64, STATS_HISTORY_BYTES, stats.historyBytes());
            out.set(I64, STATS_MEMORY_BUDGET, stats.memoryBudgetBytes());
            out.set(I64, STATS_RETAINED_VERSION, stats.retainedVersion());
            out.set(I64, STATS_ENGINE_NANOS, engineNanos);
            for (Phase p : Phase.values()) {
                out.set(I64, STATS_PHASE_NANOS + 8L * p.ordinal(), stats.phaseNanos(p));
            }
            out.set(I64, STATS_COMMITS, stats.commits());
            out.set(I64, STATS_CONFLICTS, stats.conflicts());
            out.set(I64, STATS_TOO_OLD_FDB, stats.tooOldFdb());
            out.set(I64, STATS_TOO_OLD_BUDGET, stats.tooOldBudget());
            BatchFigures last = stats.lastBatch();
            out.set(I64, STATS_LAST_VERSION, last.version());
            out.set(I64, STATS_LAST_NEW_OLDEST_VERSION, last.newOldestVersion());
            out.set(I64, STATS_LAST_TRANSACTIONS, last.transactions());
            out.set(I64, STATS_LAST_TOO_OLD_FDB, last.tooOldFdb());
            out.set(I64, STATS_LAST_TOO_OLD_BUDGET, last.tooOldBudget());
            out.set(I64, STATS_LAST_ENGINE_NANOS, lastEngineNanos);
            for (Phase p : Phase.values()) {
                out.set(I64, STATS_LAST_PHASE_NANOS + 8L * p.ordinal(), last.phaseNanos(p));
            }
            Runtime runtime = Runtime.getRuntime();
            out.set(I64, MEMORY_JVM_MAX_HEAP, runtime.maxMemory());
            out.set(I64, MEMORY_JVM_HEAP_USED, runtime.totalMemory() - runtime.freeMemory());
            out.set(I64, MEMORY_JVM_NON_HEAP_USED, HeapPlan.nonHeapUsedBytes());
            out.set(I64, MEMORY_HEAP_NEEDED, HeapPlan.neededBytes());
            out.set(I64, MEMORY_HISTORY_HEAP_BOUND, conflictSet.engine().historyHeapBoundBytes());
            out.set(I64, MEMORY_HISTORY_RESERVED, conflictSet.engine().historyReservedBytes());
            out.set(I64, MEMORY_FORGOTTEN_BATCHES, stats.forgottenBatches());
            out.set(I64, MEMORY_WARNINGS_PENDING, pendingWarnings());
            return OK;
        } catch (Throwable e) {
            writeMessage(describe(e), messageAddress, messageCapacity);
            return ENGINE_ERROR;
        }
    }

    /** The name of the engine this resolver runs, the default engine's when none was asked for. */
    String engineName() {
        return engineName;
    }

    /**
     * What the host may hold beside this JVM inside process_memory_limit less host_memory_reserve, as this open
     * admitted it ({@link HeapPlan#hostRoom}); -1 without a limit. Read once by the native open
     * ({@code fdbr_host_memory_room}).
     */
    long hostMemoryRoom() {
        return hostMemoryRoom;
    }

    private synchronized long pendingWarnings() {
        return warnings.size() + (warningsDropped > 0 ? 1 : 0);
    }

    /**
     * Closes the resolver and returns at once (fdbserver's network thread calls it, from a fallback or a Resolver's
     * end): the capture's last flush and the engine's worker shutdown go on in a daemon thread, and the heap admitted
     * at open stays counted until they end ({@link HeapPlan#releaseLater}), so an open meanwhile cannot overcommit
     * the heap. What fails after this returns is told to the next resolver opened in the process (its warnings).
     */
    int close(long messageAddress, int messageCapacity) {
        try {
            closed = true;
            if (capture != null) {
                capture.finish(); // the writer writes what is queued, finishes the segment and ends on its own thread
            }
            HeapPlan.releaseLater(heapNeed);
            Thread closer = new Thread(this::finishClose, "fdbresolver-close");
            closer.setDaemon(true);
            try {
                closer.start();
            } catch (Throwable e) { // no thread to be had: finish here rather than leak the admission
                finishClose();
            }
            return OK;
        } catch (Throwable e) {
            writeMessage(describe(e), messageAddress, messageCapacity);
            return ENGINE_ERROR;
        }
    }

    /**
     * Waits at most {@code timeoutMillis} for every resolver closed in this process to finish ({@code fdbr_await_closes});
     * returns how many have not.
     */
    static int awaitCloses(long timeoutMillis) {
        return HeapPlan.awaitClosing(timeoutMillis);
    }

    /** The slow half of {@link #close}: stops the engine's workers, waits for the capture's writer, gives the heap back. */
    private void finishClose() {
        try {
            conflictSet.close();
        } catch (Throwable e) {
            lateWarning("closing engine " + engineName() + " failed after its resolver closed: " + describe(e));
        }
        try {
            if (capture != null) {
                // Unbounded: the ring is the writer's until it ends, so its heap stays counted until then.
                capture.awaitFinished(Long.MAX_VALUE);
            }
        } catch (Throwable e) {
            lateWarning("waiting for the capture's writer of " + capture.folder() + " failed: " + describe(e));
        } finally {
            conflictSet = null;
            batch = null;
            capture = null;
            // Before released: a close is finished (fdbr_await_closes) only once the heap is back.
            HeapPlan.returnHeapIfLastToClose();
            HeapPlan.released(heapNeed);
        }
    }

    /** Warnings of resolvers already closed (a capture's last flush, a worker shutdown), for the next one opened. */
    private static final ArrayDeque<String> LATE_WARNINGS = new ArrayDeque<>();

    private static void lateWarning(String text) {
        synchronized (LATE_WARNINGS) {
            if (LATE_WARNINGS.size() == MAX_WARNINGS) {
                LATE_WARNINGS.removeFirst();
            }
            LATE_WARNINGS.addLast("after a close: " + text);
        }
    }

    /** Hands the warnings of closed resolvers to this one. */
    private void takeLateWarnings() {
        synchronized (LATE_WARNINGS) {
            while (!LATE_WARNINGS.isEmpty()) {
                warn(LATE_WARNINGS.removeFirst());
            }
        }
    }

    /** The exception's class and message, and where it was thrown: enough for a host's log line. */
    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder(e.toString());
        StackTraceElement[] trace = e.getStackTrace();
        if (trace.length > 0) {
            sb.append(" (at ").append(trace[0]).append(')');
        }
        return sb.toString();
    }

    /** Writes {@code message} as NUL-terminated UTF-8, cut to fit {@code capacity} bytes. */
    static void writeMessage(String message, long address, int capacity) {
        if (address == 0 || capacity <= 0) {
            return;
        }
        byte[] bytes = String.valueOf(message).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(bytes.length, capacity - 1);
        while (n > 0 && n < bytes.length && (bytes[n] & 0xC0) == 0x80) {
            n--; // do not cut a multi-byte character in half
        }
        MemorySegment out = MemorySegment.ofAddress(address).reinterpret(capacity);
        MemorySegment.copy(bytes, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
    }
}
