package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * A batch's non-empty reads to check against the history, sorted by begin key (equal begins in any
 * order), each with its end key and snapshot; the reader sets {@link #setConflict} for those that
 * conflict. Keys live in one byte region. Reused across batches; the arrays grow only past the largest
 * batch so far.
 */
public final class SortedReads {
    private byte[] keys;
    private int count;
    private int[] beginOffset = new int[256];
    private int[] beginLength = new int[256];
    private int[] endOffset = new int[256];
    private int[] endLength = new int[256];
    private long[] snapshot = new long[256];
    private boolean[] conflict = new boolean[256];

    /** Empties the list; the reads to come have their keys in {@code keys}. */
    public void reset(byte[] keys) {
        this.keys = keys;
        count = 0;
    }

    /** Appends a read; its begin must not sort below the previous read's begin. Returns its position. */
    public int add(int bOff, int bLen, int eOff, int eLen, long readSnapshot) {
        if (count == beginOffset.length) {
            int n = count * 2;
            beginOffset = Arrays.copyOf(beginOffset, n);
            beginLength = Arrays.copyOf(beginLength, n);
            endOffset = Arrays.copyOf(endOffset, n);
            endLength = Arrays.copyOf(endLength, n);
            snapshot = Arrays.copyOf(snapshot, n);
            conflict = Arrays.copyOf(conflict, n);
        }
        int i = count++;
        beginOffset[i] = bOff;
        beginLength[i] = bLen;
        endOffset[i] = eOff;
        endLength[i] = eLen;
        snapshot[i] = readSnapshot;
        conflict[i] = false;
        return i;
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

    public long snapshot(int i) {
        return snapshot[i];
    }

    public boolean conflict(int i) {
        return conflict[i];
    }

    public void setConflict(int i) {
        conflict[i] = true;
    }

    /** Clears every read's conflict mark (to check the same reads again, in benchmarks). */
    public void clearConflicts() {
        Arrays.fill(conflict, 0, count, false);
    }
}
