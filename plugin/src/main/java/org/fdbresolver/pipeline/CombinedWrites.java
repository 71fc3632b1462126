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

    /** The longest begin or end key. */
    public int maxKeyLength() {
        return maxKeyLength;
    }
}
