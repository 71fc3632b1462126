package org.fdbresolver.pipeline;

/**
 * A batch's combined writes as the history receives them: non-empty ranges {@code [begin, end)},
 * sorted and disjoint ({@code end(i) <= begin(i + 1)}), keys in one byte region ({@link KeyRanges}).
 */
public final class CombinedWrites extends KeyRanges {
    private int maxKeyLength;

    public CombinedWrites() {
        super(64);
    }

    @Override
    public void reset(byte[] keys) {
        super.reset(keys);
        maxKeyLength = 0;
    }

    /** Appends {@code [begin, end)}, which must sort after (and not overlap) the ranges before it. */
    public void add(int bOff, int bLen, int eOff, int eLen) {
        append(bOff, bLen, eOff, eLen);
        maxKeyLength = Math.max(maxKeyLength, Math.max(bLen, eLen));
    }

    /** Raises the longest key length seen to {@code length} (for ranges given by {@link #set}). */
    void noteKeyLength(int length) {
        maxKeyLength = Math.max(maxKeyLength, length);
    }

    /** The longest begin or end key. */
    public int maxKeyLength() {
        return maxKeyLength;
    }
}
