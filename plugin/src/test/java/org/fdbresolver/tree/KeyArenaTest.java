package org.fdbresolver.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The key arena's chunks and its unrolled free lists: a chunk handed out is never one still in use, live keys keep
 * their bytes whatever is freed and taken around them, the counts stay exact, and freed chunks are taken again
 * before any new block.
 */
class KeyArenaTest {

    @Test
    void chunksTakenAndFreedInAnyOrderKeepEveryLiveKeyIntact() {
        KeyArena arena = new KeyArena(1 << 12, new Reservation(1L << 30));
        SplittableRandom rnd = new SplittableRandom(29);
        Map<Integer, byte[]> live = new HashMap<>();
        List<Integer> units = new ArrayList<>();
        for (int step = 0; step < 50_000; step++) {
            if (units.isEmpty() || rnd.nextInt(5) < 3) {
                byte[] key = new byte[1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 300 : 60)];
                rnd.nextBytes(key);
                int unit = arena.allocate(key, 0, key.length);
                assertNull(live.put(unit, key), "chunk " + unit + " handed out while in use (step " + step + ")");
                units.add(unit);
            } else {
                int i = rnd.nextInt(units.size());
                int unit = units.get(i);
                units.set(i, units.get(units.size() - 1));
                units.remove(units.size() - 1);
                live.remove(unit);
                arena.release(unit);
            }
        }
        long inUse = 0;
        for (Map.Entry<Integer, byte[]> e : live.entrySet()) {
            int unit = e.getKey();
            byte[] key = e.getValue();
            assertEquals(key.length, arena.length(unit), "length of chunk " + unit);
            assertArrayEquals(key, Arrays.copyOfRange(arena.block(unit), arena.offset(unit), arena.offset(unit) + key.length),
                    "bytes of chunk " + unit);
            assertEquals(1, arena.refs(unit));
            inUse += KeyArena.chunkBytes(key.length);
        }
        assertEquals(inUse, arena.bytesInUse(), "bytes in use, exactly the live chunks'");
    }

    /**
     * A chunk can be referenced by more leaves than its header counts (thousands of leaves anchored on one chunk): the
     * references past the header's are counted beside it, in any order of taking and dropping, and the chunk is freed
     * at its last reference only, never before.
     */
    @Test
    void referencesPastTheHeaderAreCountedAndTheChunkFreedAtTheLast() {
        KeyArena arena = new KeyArena(1 << 12, new Reservation(1L << 30));
        SplittableRandom rnd = new SplittableRandom(4095);
        int chunks = 40;
        int[] units = new int[chunks];
        byte[][] keys = new byte[chunks][];
        int[] expected = new int[chunks];
        for (int i = 0; i < chunks; i++) {
            keys[i] = new byte[12 + i];
            rnd.nextBytes(keys[i]);
            units[i] = arena.allocate(keys[i], 0, keys[i].length);
            expected[i] = 1;
        }
        int peak = 0;
        for (int step = 0; step < 600_000; step++) {
            int i = rnd.nextInt(chunks);
            // Mostly taking for a while, so that counts climb well past the header's, then mostly dropping.
            boolean take = expected[i] > 0 && rnd.nextInt(100) < (step < 400_000 ? 70 : 20);
            if (take) {
                arena.retain(units[i]);
                expected[i]++;
            } else if (expected[i] > 1) {
                arena.release(units[i]);
                expected[i]--;
            }
            peak = Math.max(peak, expected[i]);
            if (step % 1000 == 0) {
                for (int c = 0; c < chunks; c++) {
                    assertEquals(expected[c], arena.refs(units[c]), "references of chunk " + c + " at step " + step);
                }
            }
        }
        assertTrue(peak > KeyArena.HEADER_REFS_MAX, "no chunk got past the header's count: " + peak);
        long inUse = arena.bytesInUse();
        for (int i = 0; i < chunks; i++) {
            assertEquals(expected[i], arena.refs(units[i]), "references of chunk " + i);
            while (expected[i] > 1) {
                arena.release(units[i]);
                expected[i]--;
            }
            assertEquals(1, arena.refs(units[i]));
            assertArrayEquals(keys[i], Arrays.copyOfRange(arena.block(units[i]), arena.offset(units[i]),
                    arena.offset(units[i]) + keys[i].length), "bytes of chunk " + i + ", still referenced once");
        }
        assertEquals(inUse, arena.bytesInUse(), "no chunk freed while referenced");
        for (int i = 0; i < chunks; i++) {
            arena.release(units[i]);
        }
        assertEquals(0, arena.bytesInUse(), "every chunk freed at its last reference");
    }

    @Test
    void freedChunksAreTakenAgainBeforeAnyNewBlock() {
        KeyArena arena = new KeyArena(1 << 12, new Reservation(1L << 30));
        int[] lengths = new int[5_000];
        int[] units = new int[lengths.length];
        SplittableRandom rnd = new SplittableRandom(31);
        byte[] key = new byte[64];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = 9 + rnd.nextInt(50);
            units[i] = arena.allocate(key, 0, lengths[i]);
        }
        long reserved = arena.reservedBytes();
        long inUse = arena.bytesInUse();
        for (int i = lengths.length - 1; i >= 0; i -= 2) {
            arena.release(units[i]);
        }
        for (int i = 0; i < lengths.length; i += 2) {
            arena.release(units[i]);
        }
        assertEquals(0, arena.bytesInUse());
        long tails = arena.freeListBytes() - inUse; // blocks' unused tails, free chunks since the next block was taken
        assertTrue(tails >= 0 && tails < 4L * lengths.length, "every freed chunk's bytes on a free list: " + tails);
        for (int i = 0; i < lengths.length; i++) {
            arena.allocate(key, 0, lengths[i]);
        }
        assertEquals(reserved, arena.reservedBytes(), "the same chunks again: no new block");
        assertEquals(inUse, arena.bytesInUse());
        assertEquals(tails, arena.freeListBytes(), "the freed chunks taken again, the tails left");
    }
}
