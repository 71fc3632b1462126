package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * A batch's non-empty reads to check against the history, sorted by begin key (equal begins in any
 * order), each with its end key and snapshot; the reader sets {@link #setConflict} for those that
 * conflict. Keys live in one byte region ({@link KeyRanges}).
 */
public final class SortedReads extends KeyRanges {
    private long[] snapshot = new long[256];
    private boolean[] conflict = new boolean[256];

    public SortedReads() {
        super(256);
    }

    /** Appends a read; its begin must not sort below the previous read's begin. Returns its position. */
    public int add(int bOff, int bLen, int eOff, int eLen, long readSnapshot) {
        int i = append(bOff, bLen, eOff, eLen);
        snapshot[i] = readSnapshot;
        conflict[i] = false;
        return i;
    }

    /** Read {@code i} of a list {@link #resize}d to hold them all; reads must end up sorted by begin. */
    void set(int i, int bOff, int bLen, int eOff, int eLen, long readSnapshot) {
        set(i, bOff, bLen, eOff, eLen);
        snapshot[i] = readSnapshot;
        conflict[i] = false;
    }

    @Override
    void grow(int capacity) {
        super.grow(capacity);
        snapshot = Arrays.copyOf(snapshot, capacity);
        conflict = Arrays.copyOf(conflict, capacity);
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
        Arrays.fill(conflict, 0, count(), false);
    }
}
