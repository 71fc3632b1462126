package org.fdbresolver.bridge.capture;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Puts the calling thread under Linux's {@code SCHED_BATCH} policy: the scheduler then never lets it preempt another
 * thread when it wakes, while it still gets its fair share of the CPU. For the capture's writer, whose wake-ups would
 * otherwise take the core of the thread that resolves (fdbserver's network thread) in the middle of a batch —
 * measured on a busy two-core machine (docs/capture.md). Any thread may take this policy without privileges; where it
 * cannot (another system, a sandbox), the thread keeps its policy.
 */
final class BatchScheduling {
    /** {@code SCHED_BATCH} in Linux's {@code <sched.h>}. */
    static final int SCHED_BATCH = 3;

    private BatchScheduling() {
    }

    /** Returns whether the calling thread now runs under {@code SCHED_BATCH}. */
    static boolean applyToCurrentThread() {
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            MethodHandle gettid = linker.downcallHandle(libc.find("gettid").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            MethodHandle setScheduler = linker.downcallHandle(libc.find("sched_setscheduler").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // struct sched_param { int sched_priority = 0; }
                int tid = (int) gettid.invokeExact();
                return (int) setScheduler.invokeExact(tid, SCHED_BATCH, param) == 0;
            }
        } catch (Throwable e) {
            return false;
        }
    }
}
