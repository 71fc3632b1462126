package org.fdbresolver.bridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;

/**
 * Synthetic batches through the bridge's own Java path before the first real one (issue 31): a throwaway
 * resolver's call block ({@link NativeResolver#resolveBound}), its {@link NativeBatch} reading host-layout tables
 * from off-heap memory and writing the output, and {@link ConflictSet}'s validation and counting around the engine.
 * The engine's own warm-up ({@code warmUpBatches}) drives the engine directly and leaves all of these cold: right
 * after a JVM started, the first 200 batches of the golden capture spent 180 µs a batch on the bridge side of the
 * call against about 1 µs warm (docs/fdb-integration.md, "Threads and time").
 *
 * <p>The batches are what a Resolver's first minutes bring: one to five transactions (now and then a few hundred),
 * point and range reads and writes over keys of 8 to 67 bytes under a few prefixes, reporting transactions,
 * snapshots behind the window; laid out exactly as the native side lays a batch out, point ranges sharing their
 * bytes. The throwaway engine has the real one's configuration but a 4 MiB budget and no warm-up of its own.
 * Deterministic: a fixed seed. Nothing here may fail an open: the caller catches and reports.
 */
final class BridgeWarmUp {
    private static final long BUDGET = 4L << 20;
    private static final int MAX_TRANSACTIONS = 300;
    private static final int MAX_RANGES = MAX_TRANSACTIONS * 7;
    private static final int KEY_BYTES = 512 << 10;
    private static final int OUTPUT_BYTES = 16 << 10;
    private static final int MESSAGE_BYTES = 1 << 10;
    /**
     * Short and long prefixes, so that the keys' lengths run from 8 to past 64 bytes: the bridge's key copy
     * ({@code MemorySegment.copy}) takes another branch for each length below 64 by its remainder of 8, and a native
     * copy from 64 bytes, and {@code Keys.compare} another for keys sharing more than 32 bytes. A warm-up that never
     * took one left it out of the compiled code, and the first real batch that did (the golden capture's keys of 30
     * to 40 bytes) deoptimised the copy and the comparison in the middle of the batch (JFR, 2026-12-07).
     */
    private static final byte[][] PREFIXES = {
        {}, {0x15, 'u', 's', 'e', 'r', 's', 0x00, 0x02, 'i', 'd'}, {0x02, 'i', 'x', 0x00, 0x02, 'b', 'y', 0x00},
        {(byte) 0xFF, '/'},
        "\u0015\u0001bank\u0000\u0002accounts\u0000\u0002by-branch\u0000\u0015\u0007".getBytes(StandardCharsets.ISO_8859_1),
        "\u0002app\u0000\u0002tenant-000042\u0000\u0002orders\u0000\u0002by-customer-and-date\u0000\u0015\u0003"
            .getBytes(StandardCharsets.ISO_8859_1)};
    /** Bytes that may follow a key's number: 0 to 7 of them, for every remainder of the key's length by 8. */
    private static final int MAX_TAIL = 7;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    /** Key bytes are big-endian: the 8 bytes after a prefix order as the number. */
    private static final ValueLayout.OfLong I64_BIG_ENDIAN = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private BridgeWarmUp() {
    }

    /** What a warm-up did: batches resolved, and their decisions in all (for tests and the open's log). */
    record Outcome(int batches, long commits, long conflicts, long tooOld) {
    }

    /**
     * Resolves {@code batches} synthetic batches through a throwaway resolver of {@code config}.
     *
     * @throws IllegalStateException when a batch is refused (a bug in the bridge or here)
     */
    static Outcome run(ConflictSetConfig config, int batches) {
        ConflictSetConfig throwaway = config.toBuilder()
                .memoryBudgetBytes(Math.min(config.memoryBudgetBytes(), BUDGET))
                .option("warmUpBatches", "0")
                .build();
        try (ConflictSet cs = ConflictSet.open(throwaway); Arena arena = Arena.ofConfined()) {
            NativeResolver resolver = NativeResolver.throwaway(cs);
            MemorySegment call = arena.allocate(NativeResolver.CALL_BYTES, 8);
            MemorySegment txns = arena.allocate((long) MAX_TRANSACTIONS * NativeBatch.TXN_BYTES, 8);
            MemorySegment ranges = arena.allocate((long) MAX_RANGES * NativeBatch.RANGE_BYTES, 8);
            MemorySegment keys = arena.allocate(KEY_BYTES, 8);
            MemorySegment output = arena.allocate(OUTPUT_BYTES, 8);
            MemorySegment message = arena.allocate(MESSAGE_BYTES, 8);
            if (resolver.bind(call.address(), message.address(), MESSAGE_BYTES) != NativeResolver.OK) {
                throw new IllegalStateException("warm-up: bind failed: " + message.getString(0));
            }
            call.set(I64, NativeResolver.CALL_TRANSACTIONS, txns.address());
            call.set(I64, NativeResolver.CALL_RANGES, ranges.address());
            call.set(I64, NativeResolver.CALL_OUTPUT, output.address());
            call.set(I64, NativeResolver.CALL_OUTPUT_CAPACITY, OUTPUT_BYTES);
            SplittableRandom rnd = new SplittableRandom(0x5EED);
            long now = 10_000_000; // past the window from the first batch: some snapshots are too old
            long commits = 0;
            long conflicts = 0;
            long tooOld = 0;
            for (int i = 0; i < batches; i++) {
                now += 1 + rnd.nextInt(5_000);
                int txnCount = rnd.nextInt(50) == 0 ? 100 + rnd.nextInt(MAX_TRANSACTIONS - 100) : 1 + rnd.nextInt(5);
                int rangeCount = layOut(rnd, now, txnCount, txns, ranges, keys);
                call.set(I64, NativeResolver.CALL_NOW, now);
                call.set(I64, NativeResolver.CALL_NEW_OLDEST_VERSION, Math.max(0, now - 5_000_000));
                call.set(I32, NativeResolver.CALL_TRANSACTION_COUNT, txnCount);
                call.set(I32, NativeResolver.CALL_RANGE_COUNT, rangeCount);
                int status = resolver.resolveBound();
                if (status != NativeResolver.OK) {
                    throw new IllegalStateException("warm-up batch " + i + " refused (status " + status + "): "
                            + message.getString(0));
                }
                for (int t = 0; t < txnCount; t++) {
                    byte d = output.get(ValueLayout.JAVA_BYTE, NativeBatch.OUT_DECISIONS + t);
                    if (d == 0) {
                        commits++;
                    } else if (d == 1) {
                        conflicts++;
                    } else {
                        tooOld++;
                    }
                }
            }
            return new Outcome(batches, commits, conflicts, tooOld);
        }
    }

    /** Writes one batch's transaction and range tables and its keys; returns the number of ranges. */
    private static int layOut(SplittableRandom rnd, long now, int txnCount, MemorySegment txns, MemorySegment ranges,
                              MemorySegment keys) {
        int r = 0;
        long keyAt = 0;
        for (int t = 0; t < txnCount; t++) {
            int reads = rnd.nextInt(5);
            int writes = rnd.nextInt(4);
            long snapshot = Math.max(0, now - (rnd.nextInt(20) == 0 ? 8_000_000 : rnd.nextInt(2_000_000)));
            long tx = (long) t * NativeBatch.TXN_BYTES;
            txns.set(I64, tx + NativeBatch.TXN_READ_SNAPSHOT, snapshot);
            txns.set(I32, tx + NativeBatch.TXN_READ_COUNT, reads);
            txns.set(I32, tx + NativeBatch.TXN_WRITE_COUNT, writes);
            txns.set(I32, tx + NativeBatch.TXN_FLAGS, rnd.nextInt(8) == 0 ? NativeBatch.FLAG_REPORT_CONFLICTING_KEYS : 0);
            for (int i = 0; i < reads + writes; i++) {
                // A point range [k, k\0) as the host passes it: one key, its 0x00 after it, both ends on it.
                long begin = keyAt;
                int n = key(rnd, keys, begin);
                long end;
                int m;
                if (rnd.nextInt(4) != 0) {
                    keys.set(ValueLayout.JAVA_BYTE, begin + n, (byte) 0);
                    end = begin;
                    m = n + 1;
                    keyAt += n + 1;
                } else {
                    // A short range: the key with its last byte raised, or the key and 0xFF.
                    end = begin + n;
                    MemorySegment.copy(keys, begin, keys, end, n);
                    int last = keys.get(ValueLayout.JAVA_BYTE, end + n - 1) & 0xFF;
                    if (last < 0xF0) {
                        keys.set(ValueLayout.JAVA_BYTE, end + n - 1, (byte) (last + 1 + rnd.nextInt(15)));
                        m = n;
                    } else {
                        keys.set(ValueLayout.JAVA_BYTE, end + n, (byte) 0xFF);
                        m = n + 1;
                    }
                    keyAt += n + m;
                }
                long at = (long) r * NativeBatch.RANGE_BYTES;
                ranges.set(I64, at + NativeBatch.RANGE_BEGIN_ADDRESS, keys.address() + begin);
                ranges.set(I64, at + NativeBatch.RANGE_END_ADDRESS, keys.address() + end);
                ranges.set(I32, at + NativeBatch.RANGE_BEGIN_LENGTH, n);
                ranges.set(I32, at + NativeBatch.RANGE_END_LENGTH, m);
                r++;
            }
        }
        return r;
    }

    /**
     * A key under one of the prefixes, then 8 bytes of a small keyspace and a tail of 0 to {@value #MAX_TAIL} bytes,
     * at {@code at}; returns its length.
     */
    static int key(SplittableRandom rnd, MemorySegment keys, long at) {
        byte[] p = PREFIXES[rnd.nextInt(PREFIXES.length)];
        MemorySegment.copy(p, 0, keys, ValueLayout.JAVA_BYTE, at, p.length);
        long number = rnd.nextLong(200_000);
        keys.set(I64_BIG_ENDIAN, at + p.length, number);
        // The tail follows from the number, so that a key's bytes stay one key: equal numbers, equal keys.
        int tail = (int) (number % (MAX_TAIL + 1));
        for (int i = 0; i < tail; i++) {
            keys.set(ValueLayout.JAVA_BYTE, at + p.length + 8 + i, (byte) ('a' + i));
        }
        return p.length + 8 + tail;
    }
}
