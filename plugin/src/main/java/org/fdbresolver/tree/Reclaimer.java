package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;

/**
 * Reclamation: a sweeper over the leaves in key order that resumes where it stopped. Expired entries
 * (version below the oldest checkable version) become gaps, entries equal to their predecessor go,
 * empty leaves are unlinked, small neighbours merged (leaves and inner nodes that fit into their left
 * sibling at most 3/4 full together), and a root with one child is collapsed. Each batch sweeps about
 * {@code max(16, leaf capacity / 4) + 8 × merged writes} entries (as found, before compaction), so a full pass is faster
 * than the tree grows; while the budget catches up after raising the boundary ahead of need, faster
 * ({@link MemoryBudget#sweepWork}).
 *
 * <p><b>Census.</b> A pass (from the first key to the last, over as many batches as it takes) counts the entries
 * it keeps by version, in {@value #CENSUS_BUCKETS} buckets over the versions live when the pass began; a pass
 * that completes publishes its counts, with the history's bytes then. The budget picks a boundary from the last
 * census without looking at the tree: its work per batch is bounded by the batch, not the history.
 */
final class Reclaimer {
    /** Buckets of a census: a boundary picked from it is one of 256 steps over the live versions. */
    static final int CENSUS_BUCKETS = 256;

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final LeafEntries entries;
    /** Where the next sweep resumes: the last key of the last leaf swept (length -1: from the start). */
    byte[] cursorKey = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    int cursorLen = -1;
    long cursorPrefix;

    // sweeper state during one call
    private long sweepWork;
    private boolean sweepStopped;
    /** The sweep's compaction of leaves, its predecessor carried across them; releases at once. */
    private final LeafCompaction sweepLeaves = new LeafCompaction() {
        @Override
        void release(int ref) {
            store.releaseRef(ref);
        }

        @Override
        void releaseAll(int[] refs, int count) {
            store.arena.releaseAll(refs, 0, count);
        }
    };

    // ---- passes and their census ----
    /** Passes completed (a sweep reached the last key of a pass that began at the first). */
    long passes;
    /** Entries looked at by every sweep so far (before compaction; the groups of a parent sweep included). */
    long visited;
    /** The census of the pass under way (valid when {@link #countingValid}). */
    final long[] counting = new long[CENSUS_BUCKETS];
    private boolean countingValid;
    /** The census of the last completed pass: counts, bucket origin and width (relative versions), entries, bytes. */
    final long[] census = new long[CENSUS_BUCKETS];
    boolean censusValid;
    int censusLo;
    int censusShift;
    /** The newest relative version when the census's pass began: what the census knows of. */
    int censusNewest;
    /** The oldest relative version the census counted (Integer.MAX_VALUE: none). */
    int censusOldest = Integer.MAX_VALUE;
    long censusEntries;
    long censusBytes;

    Reclaimer(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, LeafEntries entries) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.entries = entries;
    }

    /** The next sweep starts from the first key (and a new pass, whose census starts afresh). */
    void resetCursor() {
        cursorLen = -1;
    }

    /** Forgets every census: the versions they counted no longer mean the same (a rebase) or the tree went. */
    void forgetCensus() {
        countingValid = false;
        censusValid = false;
        sweepLeaves.census = null;
    }

    /**
     * Before a sweep: when it starts from the first key, a pass begins and its census is set up over the versions
     * live now (from the oldest unexpired to the newest in the tree).
     */
    void beginPassIfAtStart() {
        if (cursorLen >= 0) {
            return;
        }
        java.util.Arrays.fill(counting, 0);
        // From the oldest version the last pass found live (nothing older has been written since): the window
        // newOldestVersion leaves open can be far longer than the history the budget keeps.
        int lo = Math.max(0, versions.expiredBelow);
        if (censusValid && censusOldest != Integer.MAX_VALUE) {
            lo = Math.max(lo, censusOldest);
        }
        int newest = newestVersion();
        long span = newest == GAP || newest < lo ? 1 : (long) newest - lo + 1;
        int shift = 0;
        while ((span - 1) >>> shift >= CENSUS_BUCKETS) {
            shift++;
        }
        countingValid = true;
        countingLo = lo;
        countingShift = shift;
        countingNewest = newest;
        sweepLeaves.census = counting;
        sweepLeaves.censusLo = lo;
        sweepLeaves.censusShift = shift;
        sweepLeaves.censusOldest = Integer.MAX_VALUE;
    }

    private int countingLo;
    private int countingShift;
    private int countingNewest;

    /** The census parameters of the pass under way onto {@code c} (a parent sweep's group); none: null. */
    void countInto(LeafCompaction c, long[] counts) {
        c.census = countingValid ? counts : null;
        c.censusLo = countingLo;
        c.censusShift = countingShift;
        c.censusOldest = Integer.MAX_VALUE;
    }

    /** A parent sweep's group found {@code oldest} as its oldest counted version. */
    void countedOldest(int oldest) {
        sweepLeaves.censusOldest = Math.min(sweepLeaves.censusOldest, oldest);
    }

    /** A sweep reached the last key: the pass is complete and its census, if valid, becomes the last one. */
    void endPass() {
        passes++;
        if (!countingValid) {
            return;
        }
        long entries = 0;
        for (int i = 0; i < CENSUS_BUCKETS; i++) {
            census[i] = counting[i];
            entries += counting[i];
        }
        censusLo = countingLo;
        censusShift = countingShift;
        censusNewest = countingNewest;
        censusOldest = sweepLeaves.censusOldest;
        censusEntries = entries;
        censusBytes = store.historyBytes();
        censusValid = true;
        countingValid = false;
        sweepLeaves.census = null;
    }

    /** The newest relative version in the tree (GAP when it holds none). */
    int newestVersion() {
        NodeStore s = store;
        return s.height == 0 ? s.leafMax(s.root) : s.maxOfInner(s.root);
    }

    /** Sweeps about {@code work} entries from the cursor on, wrapping to the start after the last leaf. */
    void sweep(long work) {
        NodeStore s = store;
        beginPassIfAtStart();
        long visitedBefore = sweepLeaves.visited;
        sweepWork = work;
        sweepStopped = false;
        boolean seek = cursorLen >= 0;
        sweepLeaves.known = !seek;
        sweepLeaves.prev = GAP;
        if (s.height == 0) {
            compactLeaf(s.root);
            cursorLen = -1;
            visited += sweepLeaves.visited - visitedBefore;
            endPass();
            return;
        }
        if (seek) {
            // The shared prefix may have shrunk since the cursor was taken: encode it afresh.
            cursorPrefix = layout.inlineOf(cursorKey, 0, cursorLen);
        }
        sweepInner(s.root, s.height, seek);
        visited += sweepLeaves.visited - visitedBefore;
        if (!sweepStopped) {
            cursorLen = -1;
            endPass();
        }
        collapseRoot();
    }

    /** Sweeps the subtree of inner node {@code h} at {@code level} (1 = parent of leaves). */
    private void sweepInner(int h, int level, boolean seek) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int innerCap = s.innerCap;
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * innerCap;
        int i = seek ? search.childSlot(h, cursorPrefix, cursorKey, 0, cursorLen) : 0;
        while (i < s.iCount[c][h & CHUNK_MASK]) {
            if (sweepWork <= 0) {
                sweepStopped = true;
                return;
            }
            int child = s.iChild[c][base + i];
            if (level == 1) {
                // Work is what the leaf held before compaction: a leaf of expired entries costs its entries too.
                sweepWork -= s.leafCount(child) + 1;
                int n = compactLeaf(child);
                s.iMax[c][base + i] = s.leafMax(child);
                if (n == 0) {
                    s.unlinkLeaf(child);
                    s.removeInnerSlot(h, i);
                    s.freeLeaf(child);
                    continue;
                }
                if (i > 0) {
                    int left = s.iChild[c][base + i - 1];
                    if (s.leafCount(left) + n <= leafCap * 3 / 4 && layout.leaf.canUnify(left, child)) {
                        mergeLeafInto(left, child, s);
                        s.iMax[c][base + i - 1] = s.leafMax(left);
                        s.unlinkLeaf(child);
                        s.removeInnerSlot(h, i);
                        s.freeLeaf(child);
                        continue;
                    }
                }
                rememberCursor(child);
            } else {
                sweepInner(child, level - 1, seek);
                if (s.innerCount(child) == 0) {
                    s.removeInnerSlot(h, i);
                    s.freeInner(child);
                    if (sweepStopped) {
                        return;
                    }
                    seek = false;
                    continue;
                }
                s.iMax[c][base + i] = s.maxOfInner(child);
                if (i > 0) {
                    int left = s.iChild[c][base + i - 1];
                    if (s.innerCount(left) + s.innerCount(child) <= innerCap * 3 / 4) {
                        mergeInnerInto(h, i, left, child);
                        if (sweepStopped) {
                            return;
                        }
                        seek = false;
                        continue;
                    }
                }
                if (sweepStopped) {
                    return;
                }
            }
            seek = false;
            i++;
        }
    }

    /** Remembers the first key of {@code leaf} (which holds entries) as where the next sweep starts. */
    void rememberFirstKey(int leaf) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        cursorKey = layout.fit(cursorKey, NodeStore.ref(s.lVerRef[c][base]));
        cursorLen = layout.leaf.materialize(leaf, 0, cursorKey);
        cursorPrefix = layout.inlineOf(cursorKey, 0, cursorLen);
    }

    /** Remembers the last key of {@code leaf} as where the next sweep resumes. */
    void rememberCursor(int leaf) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int n = s.leafCount(leaf);
        if (n > 0) {
            cursorKey = layout.fit(cursorKey, NodeStore.ref(s.lVerRef[c][base + n - 1]));
            cursorLen = layout.leaf.materialize(leaf, n - 1, cursorKey);
            cursorPrefix = layout.inlineOf(cursorKey, 0, cursorLen);
        }
    }

    /** Drops expired and redundant entries of {@code leaf} and recomputes its max version; returns the new count. */
    private int compactLeaf(int leaf) {
        return sweepLeaves.compact(store, leaf, versions.expiredBelow);
    }

    /**
     * Appends leaf {@code right}'s entries to its left sibling {@code left}, which has room; right is left empty. The
     * leaves' anchor references are taken and dropped through {@code refs}.
     */
    void mergeLeafInto(int left, int right, AnchorRefs refs) {
        entries.append(left, right, refs);
    }

    /**
     * Appends inner node {@code right} (slot {@code i} of {@code parent}) to its left sibling: the
     * parent's separator for {@code right} moves down as the separator of right's first child.
     */
    void mergeInnerInto(int parent, int i, int left, int right) {
        NodeStore s = store;
        int innerCap = s.innerCap;
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * innerCap;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * innerCap;
        int rb = (right & CHUNK_MASK) * innerCap;
        int ln = s.innerCount(left);
        int rn = s.innerCount(right);
        // Copied in the tree's encoding; the merged node takes its own prefix after.
        InnerPrefixes inner = layout.inner;
        inner.flatten(left);
        inner.flatten(right);
        long down = inner.globalOf(parent, i);
        System.arraycopy(s.iKey[rc], rb, s.iKey[lc], lb + ln, rn);
        System.arraycopy(s.iRef[rc], rb, s.iRef[lc], lb + ln, rn);
        System.arraycopy(s.iChild[rc], rb, s.iChild[lc], lb + ln, rn);
        System.arraycopy(s.iMax[rc], rb, s.iMax[lc], lb + ln, rn);
        s.iKey[lc][lb + ln] = down;
        s.iRef[lc][lb + ln] = s.iRef[pc][pb + i];
        s.setInnerCount(left, ln + rn);
        inner.tighten(left);
        s.iMax[pc][pb + i - 1] = Math.max(s.iMax[pc][pb + i - 1], s.iMax[pc][pb + i]);
        // The separator now belongs to the merged node: remove the slot without freeing it.
        s.iRef[pc][pb + i] = KeyRefs.EMPTY;
        s.removeInnerSlot(parent, i);
        s.freeInner(right);
    }

    void collapseRoot() {
        NodeStore s = store;
        while (s.height > 0 && s.innerCount(s.root) <= 1) {
            int old = s.root;
            if (s.innerCount(old) == 0) {
                s.root = s.allocLeaf();
                s.height = 0;
            } else {
                s.root = s.child(old, 0);
                s.height--;
            }
            s.freeInner(old);
        }
    }
}
