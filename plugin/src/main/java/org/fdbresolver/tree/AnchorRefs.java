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
}
