package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bridge overhead with the noise of a shared machine cancelled out: ONE JVM, two conflict sets of the
 * same engine, fed the same batches alternately — one in-process (filling a {@link ConflictBatch} from
 * byte arrays, then {@code detectConflicts}), one through libfdbresolver ({@code fdbr_resolve} called
 * through FFM; the library finds this JVM with JNI_GetCreatedJavaVMs and calls back into it exactly as
 * it does from a C++ host). Same JIT state for the engine, same load on the machine for both. The
 * host's tables (fdbr_transaction/fdbr_range, keys) are laid out in native memory before timing, as a
 * C++ host holds them. After one untimed pass over the trace, prints both totals (wall and thread CPU)
 * of a second pass, after its warmup half, and their ratio; asserts only that both decide alike. Run with
 * {@code ./mvnw -pl jni-bridge -am test -Dgroups=benchmark -Dtest.excludedGroups= -Dtest=InterleavedOverheadBench
 * -Dsurefire.failIfNoSpecifiedTests=false} (engine: {@code -Dfdbresolver.bench.engine}, default reference).
 */
@Tag("benchmark")
class InterleavedOverheadBench {
    private static final Linker LINKER = Linker.nativeLinker();

    @ParameterizedTest
    @ValueSource(strings = {"conflictset-range", "custom-point"})
    void bridgeVersusInProcessInOneJvm(String name) throws Throwable {
        Path trace = ReplayGoldenTest.goldenDir().resolve(name + ".trace.gz");
        String engine = System.getProperty("fdbresolver.bench.engine", "reference");
        List<InProcessReplay.DecodedBatch> batches = InProcessReplay.decode(trace);
        int warmup = Integer.getInteger("fdbresolver.bench.warmup", batches.size() / 2);
        // A whole untimed pass first, on conflict sets of its own: the golden traces are too short for
        // the JIT to finish within one, and steady state is what a long-running resolver sees.
        for (int pass = Integer.getInteger("fdbresolver.bench.warmupPasses", 1); pass > 0; pass--) {
            measure(name, engine, batches, batches.size(), false);
        }
        measure(name, engine, batches, warmup, true);
    }

    private static void measure(String name, String engine, List<InProcessReplay.DecodedBatch> batches, int warmup,
                                boolean print) throws Throwable {

        System.load(NativeProgram.nativeDir().resolve("libfdbresolver.so").toAbsolutePath().toString());
        SymbolLookup lib = SymbolLookup.loaderLookup();
        MethodHandle open = LINKER.downcallHandle(lib.find("fdbr_open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle resolve = LINKER.downcallHandle(lib.find("fdbr_resolve").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle close = LINKER.downcallHandle(lib.find("fdbr_close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle lastError = LINKER.downcallHandle(lib.find("fdbr_last_error").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS));

        try (Arena arena = Arena.ofConfined();
             ConflictSet inProcess = ConflictSet.open(ConflictSetConfig.builder().engine(engine).build())) {
            // fdbr_config: engine name at offset 24, everything else zero (defaults).
            MemorySegment config = arena.allocate(64, 8);
            config.set(ValueLayout.ADDRESS, 24, arena.allocateFrom(engine));
            MemorySegment handleOut = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) open.invokeExact(config, handleOut);
            assertEquals(0, status, () -> error(lastError));
            MemorySegment resolver = handleOut.get(ValueLayout.ADDRESS, 0);
            MemorySegment result = arena.allocate(40, 8);
            List<MemorySegment[]> tables = new ArrayList<>();
            for (InProcessReplay.DecodedBatch d : batches) {
                tables.add(layOut(arena, d));
            }

            ConflictBatch batch = inProcess.newBatch();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long inWall = 0, inCpu = 0, bridgeWall = 0, bridgeCpu = 0, timedTransactions = 0;
            for (int b = 0; b < batches.size(); b++) {
                InProcessReplay.DecodedBatch d = batches.get(b);
                MemorySegment[] t = tables.get(b);
                int n = d.snapshots().length;
                // Alternate which goes first, so neither always finds the caches warm.
                long[] inTimes = new long[2];
                long[] bridgeTimes = new long[2];
                byte[] inDecisions = null;
                byte[] bridgeDecisions = null;
                for (int pass = 0; pass < 2; pass++) {
                    if ((b + pass) % 2 == 0) {
                        long w = System.nanoTime();
                        long c = threads.getCurrentThreadCpuTime();
                        BatchResult r = fill(batch, d).detectConflicts(d.version(), d.newOldestVersion());
                        inTimes[0] = System.nanoTime() - w;
                        inTimes[1] = threads.getCurrentThreadCpuTime() - c;
                        inDecisions = Arrays.copyOf(r.decisionBytes(), n);
                    } else {
                        long w = System.nanoTime();
                        long c = threads.getCurrentThreadCpuTime();
                        status = (int) resolve.invokeExact(resolver, d.version(), d.newOldestVersion(), t[0], n, t[1],
                                (int) (t[1].byteSize() / NativeBatch.RANGE_BYTES), result);
                        bridgeTimes[0] = System.nanoTime() - w;
                        bridgeTimes[1] = threads.getCurrentThreadCpuTime() - c;
                        assertEquals(0, status, () -> error(lastError));
                        bridgeDecisions = result.get(ValueLayout.ADDRESS, 0).reinterpret(n).toArray(ValueLayout.JAVA_BYTE);
                    }
                }
                assertEquals(Arrays.toString(inDecisions), Arrays.toString(bridgeDecisions), "batch " + b);
                if (b >= warmup) {
                    inWall += inTimes[0];
                    inCpu += inTimes[1];
                    bridgeWall += bridgeTimes[0];
                    bridgeCpu += bridgeTimes[1];
                    timedTransactions += n;
                }
            }
            status = (int) close.invokeExact(resolver);
            assertEquals(0, status);
            if (!print) {
                return;
            }
            System.out.printf("interleaved-overhead %s engine=%s warmup=%d: in-process %.3f s wall, %.3f s cpu; "
                            + "through the bridge %.3f s wall, %.3f s cpu; ratio wall %.3f, cpu %.3f; "
                            + "difference %+.0f ns (wall), %+.0f ns (cpu) per transaction%n",
                    name, engine, warmup, inWall / 1e9, inCpu / 1e9, bridgeWall / 1e9, bridgeCpu / 1e9,
                    (double) bridgeWall / inWall, (double) bridgeCpu / inCpu,
                    (double) (bridgeWall - inWall) / timedTransactions, (double) (bridgeCpu - inCpu) / timedTransactions);
        }
    }

    private static ConflictBatch fill(ConflictBatch batch, InProcessReplay.DecodedBatch d) {
        int r = 0;
        for (int t = 0; t < d.snapshots().length; t++) {
            batch.addTransaction(d.snapshots()[t], d.report()[t]);
            for (int i = 0; i < d.readCounts()[t]; i++, r++) {
                batch.addRead(d.begins()[r], d.ends()[r]);
            }
            for (int i = 0; i < d.writeCounts()[t]; i++, r++) {
                batch.addWrite(d.begins()[r], d.ends()[r]);
            }
        }
        return batch;
    }

    /** The batch as a host lays it out (docs/bridge-layout.md): {transactions, ranges}, keys alongside. */
    private static MemorySegment[] layOut(Arena arena, InProcessReplay.DecodedBatch d) {
        int n = d.snapshots().length;
        int rc = d.begins().length;
        MemorySegment txns = arena.allocate(Math.max(1, (long) n * NativeBatch.TXN_BYTES), 8);
        MemorySegment ranges = arena.allocate(Math.max(1, (long) rc * NativeBatch.RANGE_BYTES), 8);
        for (int t = 0; t < n; t++) {
            long at = (long) t * NativeBatch.TXN_BYTES;
            txns.set(ValueLayout.JAVA_LONG, at + NativeBatch.TXN_READ_SNAPSHOT, d.snapshots()[t]);
            txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_READ_COUNT, d.readCounts()[t]);
            txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_WRITE_COUNT, d.writeCounts()[t]);
            txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_FLAGS,
                    d.report()[t] ? NativeBatch.FLAG_REPORT_CONFLICTING_KEYS : 0);
        }
        for (int i = 0; i < rc; i++) {
            byte[] b = d.begins()[i];
            byte[] e = d.ends()[i];
            MemorySegment end = arena.allocate(Math.max(1, e.length));
            MemorySegment.copy(e, 0, end, ValueLayout.JAVA_BYTE, 0, e.length);
            boolean prefix = b.length <= e.length && Arrays.equals(b, 0, b.length, e, 0, b.length);
            MemorySegment begin = end;
            if (!prefix) {
                begin = arena.allocate(Math.max(1, b.length));
                MemorySegment.copy(b, 0, begin, ValueLayout.JAVA_BYTE, 0, b.length);
            }
            long at = (long) i * NativeBatch.RANGE_BYTES;
            ranges.set(ValueLayout.JAVA_LONG, at + NativeBatch.RANGE_BEGIN_ADDRESS, begin.address());
            ranges.set(ValueLayout.JAVA_LONG, at + NativeBatch.RANGE_END_ADDRESS, end.address());
            ranges.set(ValueLayout.JAVA_INT, at + NativeBatch.RANGE_BEGIN_LENGTH, b.length);
            ranges.set(ValueLayout.JAVA_INT, at + NativeBatch.RANGE_END_LENGTH, e.length);
        }
        return new MemorySegment[] {txns, ranges.asSlice(0, (long) rc * NativeBatch.RANGE_BYTES)};
    }

    private static String error(MethodHandle lastError) {
        try {
            return ((MemorySegment) lastError.invokeExact()).reinterpret(4096).getString(0);
        } catch (Throwable t) {
            return t.toString();
        }
    }
}
