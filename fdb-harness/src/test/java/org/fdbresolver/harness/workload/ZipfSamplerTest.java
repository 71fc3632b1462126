package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rejection-inversion sampler against the exact table of cumulative weights (LongTraceWorkload.zipfCdf). */
class ZipfSamplerTest {

    @ParameterizedTest
    @ValueSource(doubles = {0.5, 0.8, 1.0, 1.2, 2.0})
    void frequenciesMatchTheExactLaw(double s) {
        int n = 1000;
        int draws = 200_000;
        double[] cdf = LongTraceWorkload.zipfCdf(n, s);
        long[] counts = new long[n];
        ZipfSampler zipf = new ZipfSampler(n, s);
        SplitMix64 rng = new SplitMix64(42);
        for (int i = 0; i < draws; i++) {
            long r = zipf.next(rng);
            assertTrue(r >= 0 && r < n, "rank " + r);
            counts[(int) r]++;
        }
        // The first ranks one by one, then the mass of ranks 10..99 and of the tail, each within 4 standard errors.
        for (int r = 0; r < 5; r++) {
            assertShare(cdf[r] - (r == 0 ? 0 : cdf[r - 1]), counts[r], draws, "rank " + r + " at s=" + s);
        }
        long middle = 0;
        for (int r = 10; r < 100; r++) {
            middle += counts[r];
        }
        assertShare(cdf[99] - cdf[9], middle, draws, "ranks 10..99 at s=" + s);
        long tail = 0;
        for (int r = 100; r < n; r++) {
            tail += counts[r];
        }
        assertShare(1.0 - cdf[99], tail, draws, "ranks 100.. at s=" + s);
    }

    @Test
    void exponentZeroIsUniformAndHugeRangesWork() {
        ZipfSampler uniform = new ZipfSampler(10, 0);
        SplitMix64 rng = new SplitMix64(7);
        long[] counts = new long[10];
        for (int i = 0; i < 100_000; i++) {
            counts[(int) uniform.next(rng)]++;
        }
        for (long c : counts) {
            assertShare(0.1, c, 100_000, "uniform");
        }
        ZipfSampler huge = new ZipfSampler(1L << 31, 0.9);
        for (int i = 0; i < 10_000; i++) {
            long r = huge.next(rng);
            assertTrue(r >= 0 && r < 1L << 31);
        }
        assertEquals(0, new ZipfSampler(1, 3.0).next(rng));
        assertThrows(IllegalArgumentException.class, () -> new ZipfSampler(0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new ZipfSampler(5, Double.NaN));
    }

    private static void assertShare(double p, long count, long draws, String what) {
        double sd = Math.sqrt(p * (1 - p) / draws);
        double got = count / (double) draws;
        assertTrue(Math.abs(got - p) <= 4 * sd + 1e-9, what + ": expected " + p + ", got " + got);
    }
}
