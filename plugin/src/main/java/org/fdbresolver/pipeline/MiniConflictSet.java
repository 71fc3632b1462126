package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * The intra-batch conflict set over the batch's sorted distinct endpoints (FoundationDB's
 * {@code MiniConflictSet}): bit {@code i} stands for the keys {@code [key_i, key_{i+1})}, so a range is a
 * run of bits and "overlaps a committed write" is "any bit set in the run". After the batch it holds
 * exactly the union of the committed writes, which {@link #nextRun} reads back as combined ranges.
 */
final class MiniConflictSet {
    private long[] words = new long[16];
    private int bits;

    /** Clears and sizes for {@code bits} elementary intervals; grows only past the largest batch so far. */
    void reset(int bits) {
        int n = (bits + 64) >>> 6;
        if (n > words.length) {
            words = new long[Math.max(n, words.length * 2)];
        } else {
            Arrays.fill(words, 0, n, 0L);
        }
        this.bits = bits;
    }

    void set(int from, int to) {
        if (from >= to) {
            return;
        }
        int fw = from >>> 6;
        int lw = (to - 1) >>> 6;
        long first = -1L << from;
        long last = -1L >>> -to;
        if (fw == lw) {
            words[fw] |= first & last;
            return;
        }
        words[fw] |= first;
        for (int w = fw + 1; w < lw; w++) {
            words[w] = -1L;
        }
        words[lw] |= last;
    }

    boolean any(int from, int to) {
        if (from >= to) {
            return false;
        }
        int fw = from >>> 6;
        int lw = (to - 1) >>> 6;
        long first = -1L << from;
        long last = -1L >>> -to;
        if (fw == lw) {
            return (words[fw] & first & last) != 0;
        }
        if ((words[fw] & first) != 0) {
            return true;
        }
        for (int w = fw + 1; w < lw; w++) {
            if (words[w] != 0) {
                return true;
            }
        }
        return (words[lw] & last) != 0;
    }

    /** Whether bit {@code i} is set. */
    boolean get(int i) {
        return (words[i >>> 6] & (1L << i)) != 0;
    }

    /** The first set bit at or after {@code from}, or {@code bits} if none. */
    int nextSet(int from) {
        if (from >= bits) {
            return bits;
        }
        int w = from >>> 6;
        long word = words[w] & (-1L << from);
        while (word == 0) {
            if (++w > (bits - 1) >>> 6) {
                return bits;
            }
            word = words[w];
        }
        return Math.min(bits, (w << 6) + Long.numberOfTrailingZeros(word));
    }

    /** The first clear bit at or after {@code from}, or {@code bits} if none. */
    int nextClear(int from) {
        if (from >= bits) {
            return bits;
        }
        int w = from >>> 6;
        long word = ~words[w] & (-1L << from);
        while (word == 0) {
            if (++w > (bits - 1) >>> 6) {
                return bits;
            }
            word = ~words[w];
        }
        return Math.min(bits, (w << 6) + Long.numberOfTrailingZeros(word));
    }
}
