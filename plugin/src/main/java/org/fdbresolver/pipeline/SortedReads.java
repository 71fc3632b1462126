package org.fdbresolver.pipeline;

import java.util.Arrays;

/**
 * A batch's non-empty reads to check against the history, sorted by begin key (equal begins in any
 * order), each with its end key and snapshot; the reader sets {@link #setConflict} for those that
 * conflict. Keys live in one byte region ({@link KeyRanges}).
 *
 * <p>Each read may name its transaction ({@link #owner}): once one read of a transaction conflicts, its
 * decision is settled, and a reader may leave its other reads unchecked ({@link #settled}), as FoundationDB's
 * skip list does. A transaction that reports its conflicting keys needs every read checked: its reads name none.
 */
public final class SortedReads extends KeyRanges {
    /** The owner of a read whose every conflict matters (its transaction reports conflicting keys). */
    public static final int NO_OWNER = -1;
    private long[] snapshot = new long[256];
    private boolean[] conflict = new boolean[256];
    private int[] owner = new int[256];
    /** Per transaction: whether one of its reads conflicted (a hint: a reader that misses it checks a read more). */
    private boolean[] ownerConflicts = new boolean[64];

    public SortedReads() {
        super(256);
    }

    /** Appends a read of no named transaction; its begin must not sort below the previous read's begin. Returns its position. */
    public int add(int bOff, int bLen, int eOff, int eLen, long readSnapshot) {
        return add(bOff, bLen, eOff, eLen, readSnapshot, NO_OWNER);
    }

    /** Appends a read of transaction {@code readOwner} (or {@link #NO_OWNER}); returns its position. */
    public int add(int bOff, int bLen, int eOff, int eLen, long readSnapshot, int readOwner) {
        int i = append(bOff, bLen, eOff, eLen);
        snapshot[i] = readSnapshot;
        conflict[i] = false;
        owner[i] = readOwner;
        return i;
    }

    /** Read {@code i} of a list {@link #resize}d to hold them all; reads must end up sorted by begin. */
    void set(int i, int bOff, int bLen, int eOff, int eLen, long readSnapshot, int readOwner) {
        set(i, bOff, bLen, eOff, eLen);
        snapshot[i] = readSnapshot;
        conflict[i] = false;
        owner[i] = readOwner;
    }

    /** Clears the marks of transactions {@code [0, transactions)}, before their reads are added. */
    public void resetOwners(int transactions) {
        if (ownerConflicts.length < transactions) {
            ownerConflicts = new boolean[Math.max(transactions, ownerConflicts.length * 2)];
        } else {
            Arrays.fill(ownerConflicts, 0, transactions, false);
        }
    }

    /** Whether read {@code i}'s transaction is decided by a conflict already, so that its answer changes nothing. */
    public boolean settled(int i) {
        int o = owner[i];
        return o != NO_OWNER && ownerConflicts[o];
    }

    @Override
    void grow(int capacity) {
        super.grow(capacity);
        snapshot = Arrays.copyOf(snapshot, capacity);
        conflict = Arrays.copyOf(conflict, capacity);
        owner = Arrays.copyOf(owner, capacity);
    }

    public long snapshot(int i) {
        return snapshot[i];
    }

    public boolean conflict(int i) {
        return conflict[i];
    }

    public void setConflict(int i) {
        conflict[i] = true;
        int o = owner[i];
        if (o != NO_OWNER) {
            ownerConflicts[o] = true;
        }
    }

    /** Clears every read's conflict mark and its transaction's (to check the same reads again, in benchmarks). */
    public void clearConflicts() {
        Arrays.fill(conflict, 0, count(), false);
        for (int i = 0, n = count(); i < n; i++) {
            if (owner[i] != NO_OWNER) {
                ownerConflicts[owner[i]] = false;
            }
        }
    }
}
