package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * A batch's combined writes as the history receives them: non-empty ranges {@code [begin, end)},
 * sorted and disjoint ({@code end(i) <= begin(i + 1)}), keys in one byte region. Reused across batches;
 * the arrays grow only past the largest batch so far.
 */
public final class CombinedWrites {
    private byte[] keys;
    private int count;
    private int[] beginOffset = new int[64];
    private int[] beginLength = new int[64];
    private int[] endOffset = new int[64];
    private int[] endLength = new int[64];
    private int maxKeyLength;

    /** Empties the list; the ranges to come have their keys in {@code keys}. */
    public void reset(byte[] keys) {
        this.keys = keys;
        count = 0;
        maxKeyLength = 0;
    }

    /** Appends {@code [begin, end)}, which must sort after (and not overlap) the ranges before it. */
    public void add(int bOff, int bLen, int eOff, int eLen) {
        if (count == beginOffset.length) {
            int n = count * 2;
            beginOffset = Arrays.copyOf(beginOffset, n);
            beginLength = Arrays.copyOf(beginLength, n);
            endOffset = Arrays.copyOf(endOffset, n);
            endLength = Arrays.copyOf(endLength, n);
        }
        beginOffset[count] = bOff;
        beginLength[count] = bLen;
        endOffset[count] = eOff;
        endLength[count] = eLen;
        count++;
        maxKeyLength = Math.max(maxKeyLength, Math.max(bLen, eLen));
    }

    public byte[] keys() {
        return keys;
    }

    public int count() {
        return count;
    }

    public int beginOffset(int i) {
        return beginOffset[i];
    }

    public int beginLength(int i) {
        return beginLength[i];
    }

    public int endOffset(int i) {
        return endOffset[i];
    }

    public int endLength(int i) {
        return endLength[i];
    }

    /** The longest begin or end key. */
    public int maxKeyLength() {
        return maxKeyLength;
    }
}
