package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SplitMix64Test {

    @Test
    void matchesTheReferenceSequence() {
        // Reference outputs of splitmix64.c (Vigna) for seed 0: fixes the algorithm for good.
        SplitMix64 r = new SplitMix64(0);
        assertEquals(0xE220A8397B1DCDAFL, r.nextLong());
        assertEquals(0x6E789E6AA1B965F4L, r.nextLong());
        assertEquals(0x06C45D188009454FL, r.nextLong());
    }

    @Test
    void boundedDrawsStayInRangeAndCoverIt() {
        SplitMix64 r = new SplitMix64(42);
        int[] seen = new int[7];
        for (int i = 0; i < 7000; i++) {
            long v = r.between(3, 9);
            assertTrue(v >= 3 && v <= 9, "between(3, 9) gave " + v);
            seen[(int) (v - 3)]++;
        }
        for (int c : seen) {
            assertTrue(c > 800 && c < 1200, "roughly uniform, got " + c);
        }
        for (int i = 0; i < 1000; i++) {
            double d = r.nextDouble();
            assertTrue(d >= 0 && d < 1);
            assertTrue(r.nextLong(1L << 62 | 1) >= 0);
        }
        assertThrows(IllegalArgumentException.class, () -> r.nextLong(0));
    }

    @Test
    void streamsOfOneSeedDiffer() {
        assertNotEquals(SplitMix64.stream(1, 1).nextLong(), SplitMix64.stream(1, 2).nextLong());
        assertNotEquals(SplitMix64.stream(1, 1).nextLong(), new SplitMix64(1).nextLong());
        assertEquals(SplitMix64.stream(7, 3).nextLong(), SplitMix64.stream(7, 3).nextLong());
    }
}
