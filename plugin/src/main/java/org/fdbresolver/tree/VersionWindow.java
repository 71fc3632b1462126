package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;

/**
 * The versions the tree can still check: versions are stored as {@code version - base} in an int; the
 * retained boundary (reads below it are TOO_OLD; it never decreases) and the relative version below
 * which entries count as expired gaps. When {@code now - base} would pass {@link #REBASE_LIMIT}, the
 * base moves up to the retained boundary in one pass over the tree ({@link #rebase}).
 */
final class VersionWindow {
    /** Relative versions stay below this; beyond it the base moves. */
    static final long REBASE_LIMIT = Integer.MAX_VALUE - 1;

    private final NodeStore store;
    long base;
    long retained;
    /** Relative versions below this are expired (treated as gaps). */
    int expiredBelow = GAP;

    VersionWindow(NodeStore store) {
        this.store = store;
    }

    /** {@code version} relative to the base, clamped into the int range that never collides with GAP. */
    int relative(long version) {
        long r = version - base;
        return r > REBASE_LIMIT ? Integer.MAX_VALUE : r < -REBASE_LIMIT ? GAP + 1 : (int) r;
    }

    /** Raises the retained boundary to at least {@code version} (never lowers it). */
    void retain(long version) {
        retained = Math.max(retained, version);
        expiredBelow = Math.max(expiredBelow, relative(retained));
    }

    /** Whether versions up to {@code now} fit the int encoding without moving the base. */
    boolean needsRebase(long now) {
        return now - base > REBASE_LIMIT;
    }

    /** Moves the base up to the oldest checkable version (raising it if the window is too wide). */
    void rebase(long now) {
        long newBase = Math.max(retained, base);
        if (now - newBase > REBASE_LIMIT / 2) {
            newBase = now - REBASE_LIMIT / 2;
            retained = Math.max(retained, newBase);
        }
        long shift = newBase - base;
        int below = (int) Math.min(Integer.MAX_VALUE, shift);
        rebaseSubtree(store.root, store.height, below);
        base = newBase;
        expiredBelow = relative(retained);
    }

    private static int rebaseVersion(int v, int below) {
        return v == GAP || v < below ? GAP : v - below;
    }

    private void rebaseSubtree(int h, int level, int below) {
        NodeStore s = store;
        int c = h >>> CHUNK_SHIFT;
        if (level == 0) {
            int b = (h & CHUNK_MASK) * s.leafCap;
            int[] hdr = s.lHdr[c];
            int at = (h & CHUNK_MASK) * LEAF_HEADER_INTS;
            long[] lvr = s.lVerRef[c];
            for (int j = 0, n = hdr[at + H_COUNT] & COUNT_MASK; j < n; j++) {
                long e = lvr[b + j];
                lvr[b + j] = NodeStore.withVer(e, rebaseVersion(NodeStore.ver(e), below));
            }
            hdr[at + H_MAX] = rebaseVersion(hdr[at + H_MAX], below);
            return;
        }
        int b = (h & CHUNK_MASK) * s.innerCap;
        int n = s.iCount[c][h & CHUNK_MASK];
        for (int i = 0; i < n; i++) {
            s.iMax[c][b + i] = rebaseVersion(s.iMax[c][b + i], below);
            rebaseSubtree(s.iChild[c][b + i], level - 1, below);
        }
    }
}
