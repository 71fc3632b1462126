package org.fdbresolver.pipeline;

/**
 * What the batch pipeline needs from a history: the read check, the merge of a batch's combined
 * writes at its version, discarding old history, and the budget's retained boundary.
 */
public interface History extends HistoryReader {

    /** The oldest snapshot the history can still check; reads below it are TOO_OLD. Never decreases. */
    long retainedVersion();

    /** Bytes of blocks currently allocated to the history (exact). */
    long historyBytes();

    /**
     * An upper estimate of the bytes merging {@code writes} would add to this history (so that a history
     * sharing the budget can make room for them first).
     */
    long bytesNeeded(CombinedWrites writes);

    /**
     * Called once before {@link #merge} with the batch's combined writes at {@code now}. Makes room
     * within the budget for them and for {@code otherBytes} that a history sharing the budget will add,
     * dropping the oldest history (and raising the retained boundary) if it must; a history that cannot
     * hold the batch's writes at all forgets everything and raises the boundary above {@code now}, so
     * that nothing the writes could conflict with is ever checked.
     */
    void prepareMerge(long now, CombinedWrites writes, long otherBytes);

    /** Records every range of {@code writes} (those given to {@link #prepareMerge}) at {@code now}. */
    void merge(CombinedWrites writes, long now);

    /**
     * Discards history older than {@code oldestVersion} (at least incrementally: work proportional to
     * {@code mergedRanges} per call, a whole pass over several calls).
     */
    void removeBefore(long oldestVersion, int mergedRanges);

    /** Whether the history certainly holds no write (cheap; a read of an empty history never conflicts). */
    boolean isEmpty();

    /** Forgets everything; reads older than {@code version} become TOO_OLD. */
    void clear(long version);
}
