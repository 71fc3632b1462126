package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.InvalidBatchException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The flyweight against the layout of docs/bridge-layout.md, with tables laid out here in native memory. */
class NativeBatchTest {
    private final Arena arena = Arena.ofConfined();
    private final NativeBatch layout = new NativeBatch();

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment key(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        MemorySegment s = arena.allocate(Math.max(1, bytes.length));
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s;
    }

    private static void transaction(MemorySegment txns, int t, long snapshot, int reads, int writes, boolean report) {
        long at = (long) t * NativeBatch.TXN_BYTES;
        txns.set(ValueLayout.JAVA_LONG, at + NativeBatch.TXN_READ_SNAPSHOT, snapshot);
        txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_READ_COUNT, reads);
        txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_WRITE_COUNT, writes);
        txns.set(ValueLayout.JAVA_INT, at + NativeBatch.TXN_FLAGS, report ? NativeBatch.FLAG_REPORT_CONFLICTING_KEYS : 0);
    }

    private static void range(MemorySegment ranges, int r, MemorySegment begin, int beginLength, MemorySegment end,
                              int endLength) {
        long at = (long) r * NativeBatch.RANGE_BYTES;
        ranges.set(ValueLayout.JAVA_LONG, at + NativeBatch.RANGE_BEGIN_ADDRESS, begin.address());
        ranges.set(ValueLayout.JAVA_LONG, at + NativeBatch.RANGE_END_ADDRESS, end.address());
        ranges.set(ValueLayout.JAVA_INT, at + NativeBatch.RANGE_BEGIN_LENGTH, beginLength);
        ranges.set(ValueLayout.JAVA_INT, at + NativeBatch.RANGE_END_LENGTH, endLength);
    }

    @Test
    void readsTransactionsRangesAndSharedPointKeys() {
        MemorySegment txns = arena.allocate(2L * NativeBatch.TXN_BYTES);
        MemorySegment ranges = arena.allocate(3L * NativeBatch.RANGE_BYTES);
        transaction(txns, 0, 5, 1, 1, true);
        transaction(txns, 1, -3, 0, 1, false);
        MemorySegment point = key("k\0");
        range(ranges, 0, point, 1, point, 2); // [k, k\0): one copy
        range(ranges, 1, key("a"), 1, key("c"), 1);
        range(ranges, 2, key("x"), 1, key("z"), 1);
        ConflictBatch batch = ConflictBatch.detached();
        layout.read(batch, txns.address(), 2, ranges.address(), 3, 100, 0, 1);
        assertEquals(2, batch.transactionCount());
        assertEquals(5, batch.readSnapshot(0));
        assertEquals(-3, batch.readSnapshot(1));
        assertTrue(batch.reportConflictingKeys(0));
        assertEquals(1, batch.readCount());
        assertEquals(2, batch.writeCount());
        assertArrayEquals("k".getBytes(), batch.readBegin(0));
        assertArrayEquals("k\0".getBytes(), batch.readEndKey(0));
        assertEquals(batch.readBeginOffset(0), batch.readEndOffset(0), "a point range's ends share bytes");
        assertArrayEquals("x".getBytes(), batch.writeBegin(1));
        assertArrayEquals("z".getBytes(), batch.writeEndKey(1));
        assertEquals(2 + 1 + 1 + 1 + 1, batch.keyBytes(), "each key copied once");
    }

    @Test
    void countsThatOverrunTheRangesAreRejected() {
        MemorySegment txns = arena.allocate(NativeBatch.TXN_BYTES);
        MemorySegment ranges = arena.allocate(NativeBatch.RANGE_BYTES);
        transaction(txns, 0, 5, 2, 0, false);
        range(ranges, 0, key("a"), 1, key("b"), 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> layout.read(ConflictBatch.detached(), txns.address(), 1, ranges.address(), 1, 100, 4, 40));
        assertTrue(e.getMessage().contains("batch 4 (version 40) transaction 0"), e.getMessage());
        transaction(txns, 0, 5, 0, 0, false);
        e = assertThrows(IllegalArgumentException.class,
                () -> layout.read(ConflictBatch.detached(), txns.address(), 1, ranges.address(), 1, 100, 4, 40));
        assertTrue(e.getMessage().contains("own 0 ranges but 1 were given"), e.getMessage());
    }

    @Test
    void keyOverTheLimitRejectsTheBatchBeforeCopying() {
        MemorySegment txns = arena.allocate(NativeBatch.TXN_BYTES);
        MemorySegment ranges = arena.allocate(NativeBatch.RANGE_BYTES);
        transaction(txns, 0, 5, 0, 1, false);
        range(ranges, 0, key("a"), 1, key("b"), -1); // 4 GiB - 1 as uint32
        InvalidBatchException e = assertThrows(InvalidBatchException.class,
                () -> layout.read(ConflictBatch.detached(), txns.address(), 1, ranges.address(), 1, 100, 0, 7));
        assertTrue(e.getMessage().contains("write range 0 has a key of 4294967295 bytes"), e.getMessage());
    }

    @Test
    void writesDecisionsAndConflictingReads() {
        BatchResult result = new BatchResult();
        result.reset(5);
        result.setDecision(1, Decision.CONFLICT_CODE);
        result.setDecision(2, Decision.TOO_OLD_CODE);
        result.setDecision(3, Decision.CONFLICT_CODE);
        result.beginConflictingReads(1);
        result.addConflictingRead(0);
        result.addConflictingRead(2);
        result.beginConflictingReads(3);
        result.addConflictingRead(1);
        long capacity = NativeBatch.align4(16 + 5) + 4L * (5 + 6 + 10);
        MemorySegment out = arena.allocate(capacity);
        layout.write(result, out.address(), capacity, 1234);
        assertEquals(2, out.get(ValueLayout.JAVA_INT, NativeBatch.OUT_CONFLICTING_COUNT));
        assertEquals(3, out.get(ValueLayout.JAVA_INT, NativeBatch.OUT_CONFLICTING_READ_COUNT));
        assertEquals(1234, out.get(ValueLayout.JAVA_LONG, NativeBatch.OUT_ENGINE_NANOS));
        byte[] decisions = new byte[5];
        MemorySegment.copy(out, ValueLayout.JAVA_BYTE, NativeBatch.OUT_DECISIONS, decisions, 0, 5);
        assertArrayEquals(new byte[] {0, 1, 2, 1, 0}, decisions);
        long r = NativeBatch.align4(16 + 5);
        int[] report = new int[2 + 3 + 3];
        MemorySegment.copy(out, ValueLayout.JAVA_INT, r, report, 0, report.length);
        // transactions [1, 3], starts [0, 2, 3], reads [0, 2, 1]
        assertArrayEquals(new int[] {1, 3, 0, 2, 3, 0, 2, 1}, report);
        assertThrows(IllegalStateException.class, () -> layout.write(result, out.address(), 20, 0));
    }
}
