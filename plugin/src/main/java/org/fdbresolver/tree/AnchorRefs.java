package org.fdbresolver.tree;

/**
 * Where the references a leaf with a prefix of its own holds on its anchor chunk ({@link LeafPrefixes}) are taken
 * and dropped: at once by one thread ({@link NodeStore}), logged and applied after the phase by the parts that run at
 * once ({@link PartitionWriter}, {@link ParentSweep}), as their key references are.
 */
interface AnchorRefs {
    /** Takes a reference on key chunk {@code unit} (referenced already: it is a key of the leaf). */
    void retainAnchor(int unit);

    /** Drops one. */
    void releaseAnchor(int unit);

    /**
     * Whether key chunks may be taken and dropped in a move of entries here: true on one thread ({@link NodeStore}),
     * false for the parts of a phase, which make chunks before it only (so no move of theirs may need one).
     */
    boolean mayAllocate();

    /**
     * A new key chunk for a suffix key ({@link KeyRefs#isSuffix}) of {@code len} bytes whose leaf is lowered past it:
     * the prefix {@code p[pOff, pOff + s)}, then the bytes of its long {@code inline} (which skips {@code s}). Returns
     * the key's reference. Only where {@link #mayAllocate}.
     */
    int storeSuffixKey(byte[] p, int pOff, int s, long inline, int len);
}
