package org.fdbresolver.tree;

/**
 * Where the moves of a leaf with a prefix of its own ({@link LeafPrefixes}) take and drop references on key chunks (its
 * anchor's, and a key's that becomes a suffix key) and make suffix keys: at once by one thread ({@link NodeStore}),
 * logged and applied after the phase by the parts that run at once ({@link PartitionWriter}, {@link ParentSweep}), as
 * their key references are.
 */
interface AnchorRefs {
    /** Takes a reference on key chunk {@code unit} (referenced already: it is a key of the leaf), for an anchor. */
    void retainChunk(int unit);

    /** Drops one: an anchor's, or a key's that became a suffix key. */
    void releaseChunk(int unit);

    /**
     * The prefix length a key must fit after ({@link KeyRefs#fitsAfter}), beside its leaf's own, to be made a suffix key
     * here ({@link LeafPrefixes#tighten}): {@link Integer#MAX_VALUE} on one thread ({@link NodeStore}), which can give
     * it a chunk back in any move; the floor no move of the partition's chain lowers a leaf below
     * ({@link PartitionWriter}); 0 where none is made (the sweeper's groups).
     */
    int suffixFloor();

    /**
     * A new key chunk for a suffix key ({@link KeyRefs#isSuffix}) of {@code len} bytes whose leaf is lowered past it:
     * the prefix {@code p[pOff, pOff + s)}, then the bytes of its long {@code inline} (which skips {@code s}). Returns
     * the key's reference. On one thread only: the parts of a phase refuse the moves that would need one.
     */
    int storeSuffixKey(byte[] p, int pOff, int s, long inline, int len);

    /** A suffix key of {@code len} bytes was made here (the tree keeps the longest, {@link NodeStore#longestSuffixKey}). */
    void madeSuffixKey(int len);
}
