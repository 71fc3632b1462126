package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * Ranges {@code [begin, end)} whose keys are slices of one byte region: per range a begin and an end,
 * each an offset and a length into {@link #keys()}. The batch's reads ({@link SortedReads}) and its
 * combined writes ({@link CombinedWrites}) cross into the history this way; subclasses add their own
 * per-range columns. Reused across batches; the arrays grow only past the largest batch so far.
 */
public abstract class KeyRanges {
    private byte[] keys;
    private int count;
    private int[] beginOffset;
    private int[] beginLength;
    private int[] endOffset;
    private int[] endLength;

    KeyRanges(int capacity) {
        beginOffset = new int[capacity];
        beginLength = new int[capacity];
        endOffset = new int[capacity];
        endLength = new int[capacity];
    }

    /** Empties the list; the ranges to come have their keys in {@code keys}. */
    public void reset(byte[] keys) {
        this.keys = keys;
        count = 0;
    }

    /** Appends a range's keys and returns its position; a subclass fills its own columns there. */
    final int append(int bOff, int bLen, int eOff, int eLen) {
        if (count == beginOffset.length) {
            grow(count * 2);
        }
        int i = count++;
        beginOffset[i] = bOff;
        beginLength[i] = bLen;
        endOffset[i] = eOff;
        endLength[i] = eLen;
        return i;
    }

    /** Makes the list hold {@code n} ranges, to be filled at any position with {@link #set} (by several threads at once). */
    final void resize(int n) {
        if (beginOffset.length < n) {
            grow(Math.max(n, beginOffset.length * 2));
        }
        count = n;
    }

    /** Range {@code i}'s keys (after {@link #resize}; several threads may fill different ranges at once). */
    final void set(int i, int bOff, int bLen, int eOff, int eLen) {
        beginOffset[i] = bOff;
        beginLength[i] = bLen;
        endOffset[i] = eOff;
        endLength[i] = eLen;
    }

    /** Grows every column to {@code capacity}; a subclass grows its own and calls this. */
    void grow(int capacity) {
        beginOffset = Arrays.copyOf(beginOffset, capacity);
        beginLength = Arrays.copyOf(beginLength, capacity);
        endOffset = Arrays.copyOf(endOffset, capacity);
        endLength = Arrays.copyOf(endLength, capacity);
    }

    public final byte[] keys() {
        return keys;
    }

    public final int count() {
        return count;
    }

    public final int beginOffset(int i) {
        return beginOffset[i];
    }

    public final int beginLength(int i) {
        return beginLength[i];
    }

    public final int endOffset(int i) {
        return endOffset[i];
    }

    public final int endLength(int i) {
        return endLength[i];
    }

    /** Whether ranges {@code i} and {@code j} have the same begin and end keys. */
    public final boolean sameRange(int i, int j) {
        int bl = beginLength[i];
        int el = endLength[i];
        if (bl != beginLength[j] || el != endLength[j]) {
            return false;
        }
        byte[] k = keys;
        return Arrays.equals(k, beginOffset[i], beginOffset[i] + bl, k, beginOffset[j], beginOffset[j] + bl)
                && Arrays.equals(k, endOffset[i], endOffset[i] + el, k, endOffset[j], endOffset[j] + el);
    }
}
