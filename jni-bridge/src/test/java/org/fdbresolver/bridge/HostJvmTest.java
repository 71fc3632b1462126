package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;

/**
 * libfdbresolver inside a JVM that someone else started (this test's): fdbr_open finds it with
 * JNI_GetCreatedJavaVMs instead of creating one, loads the bridge class through the system class
 * loader, and resolves batches for a caller that is itself a Java thread (calling through FFM).
 */
class HostJvmTest {

    @Test
    void bridgeRunsInsideAnExistingJvm() throws Throwable {
        System.load(NativeProgram.nativeDir().resolve("libfdbresolver.so").toAbsolutePath().toString());
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.loaderLookup();
        MethodHandle open = linker.downcallHandle(lib.find("fdbr_open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle resolve = linker.downcallHandle(lib.find("fdbr_resolve").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle close = linker.downcallHandle(lib.find("fdbr_close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = arena.allocate(64, 8); // fdbr_config, all defaults but the engine
            config.set(ValueLayout.ADDRESS, 24, arena.allocateFrom("reference"));
            MemorySegment handle = arena.allocate(ValueLayout.ADDRESS);
            assertEquals(0, (int) open.invokeExact(config, handle));
            MemorySegment resolver = handle.get(ValueLayout.ADDRESS, 0);

            // Two batches: t0 writes k at version 10; then a reader at snapshot 5 conflicts, one at 10 commits.
            MemorySegment key = arena.allocateFrom("k"); // "k\0": the point range [k, k\0) in one buffer
            MemorySegment ranges = arena.allocate(NativeBatch.RANGE_BYTES, 8);
            ranges.set(ValueLayout.JAVA_LONG, NativeBatch.RANGE_BEGIN_ADDRESS, key.address());
            ranges.set(ValueLayout.JAVA_LONG, NativeBatch.RANGE_END_ADDRESS, key.address());
            ranges.set(ValueLayout.JAVA_INT, NativeBatch.RANGE_BEGIN_LENGTH, 1);
            ranges.set(ValueLayout.JAVA_INT, NativeBatch.RANGE_END_LENGTH, 2);
            MemorySegment writer = arena.allocate(NativeBatch.TXN_BYTES, 8);
            writer.set(ValueLayout.JAVA_INT, NativeBatch.TXN_WRITE_COUNT, 1);
            MemorySegment result = arena.allocate(40, 8);
            assertEquals(0, (int) resolve.invokeExact(resolver, 10L, 0L, writer, 1, ranges, 1, result));

            MemorySegment readers = arena.allocate(2L * NativeBatch.TXN_BYTES, 8);
            MemorySegment readRanges = arena.allocate(2L * NativeBatch.RANGE_BYTES, 8);
            MemorySegment.copy(ranges, 0, readRanges, 0, NativeBatch.RANGE_BYTES);
            MemorySegment.copy(ranges, 0, readRanges, NativeBatch.RANGE_BYTES, NativeBatch.RANGE_BYTES);
            readers.set(ValueLayout.JAVA_LONG, NativeBatch.TXN_READ_SNAPSHOT, 5);
            readers.set(ValueLayout.JAVA_INT, NativeBatch.TXN_READ_COUNT, 1);
            readers.set(ValueLayout.JAVA_LONG, NativeBatch.TXN_BYTES + NativeBatch.TXN_READ_SNAPSHOT, 10);
            readers.set(ValueLayout.JAVA_INT, NativeBatch.TXN_BYTES + NativeBatch.TXN_READ_COUNT, 1);
            assertEquals(0, (int) resolve.invokeExact(resolver, 20L, 0L, readers, 2, readRanges, 2, result));
            byte[] decisions = result.get(ValueLayout.ADDRESS, 0).reinterpret(2).toArray(ValueLayout.JAVA_BYTE);
            assertArrayEquals(new byte[] {1, 0}, decisions);
            assertEquals(0, (int) close.invokeExact(resolver));
        }
    }
}
