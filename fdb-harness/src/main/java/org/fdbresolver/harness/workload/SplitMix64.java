package org.fdbresolver.harness.workload;

/**
 * The generators' pseudo-random numbers: SplitMix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014) — a 64-bit counter advanced by the golden-ratio
 * gamma {@code 0x9E3779B97F4A7C15} and passed through the MurmurHash3-style finalizer
 * {@code mix64}. Written out here rather than taken from {@code java.util} so that a trace made
 * from a seed today is the same trace on every future JDK: the algorithm, the bounded draw and the
 * double conversion below are all fixed by this file.
 */
final class SplitMix64 {
    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    SplitMix64(long seed) {
        this.state = seed;
    }

    /**
     * A generator for an independent stream of the same seed (e.g. the report-flag stream), so that
     * drawing from one stream never shifts the other.
     */
    static SplitMix64 stream(long seed, long streamId) {
        return new SplitMix64(mix64(seed ^ mix64(streamId * GAMMA + GAMMA)));
    }

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    long nextLong() {
        state += GAMMA;
        return mix64(state);
    }

    /** Uniform in {@code [0, bound)}, unbiased (rejection on the 63-bit draw); {@code bound > 0}. */
    long nextLong(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        long r = nextLong() >>> 1;
        long m = bound - 1;
        if ((bound & m) == 0) {
            return r & m;
        }
        for (long u = r; u - (r = u % bound) + m < 0; u = nextLong() >>> 1) {
            // rejected: u fell in the incomplete last block of size bound
        }
        return r;
    }

    int nextInt(int bound) {
        return (int) nextLong(bound);
    }

    /** Uniform in {@code [lo, hi]}, both inclusive. */
    long between(long lo, long hi) {
        return lo + nextLong(hi - lo + 1);
    }

    /** Uniform in {@code [0, 1)} with 53 random bits. */
    double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** True with probability {@code p}; never draws when {@code p} is 0 or 1. */
    boolean chance(double p) {
        if (p <= 0) {
            return false;
        }
        if (p >= 1) {
            return true;
        }
        return nextDouble() < p;
    }
}
