package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.SKIP_SHIFT;

/**
 * The sweeper's compaction of leaves in key order ({@link Reclaimer}, and a parent sweep's groups,
 * {@link ParentSweep}): expired entries become gaps, an entry whose version equals its predecessor's goes, and
 * the leaf's max version is recomputed. The predecessor carries from one leaf to the next of a sweep
 * ({@link #known}, {@link #prev}). What releasing a removed entry's key reference means is the caller's: at once,
 * or logged to be applied after a phase run across threads. Compaction also counts what it looked at, and the
 * versions it kept for the budget's census ({@link Reclaimer}).
 */
abstract class LeafCompaction {
    /** Whether {@link #prev} holds the version of the entry before the next one compacted. */
    boolean known;
    int prev;
    /**
     * The census of a sweep's pass ({@link Reclaimer#census}), or null: kept entries that are not gaps, counted by
     * version bucket {@code (v - censusLo) >>> censusShift}, the last bucket taking every newer version.
     */
    long[] census;
    int censusLo;
    int censusShift;
    /** The oldest version the census counted (Integer.MAX_VALUE: none yet). */
    int censusOldest = Integer.MAX_VALUE;
    /** Entries compaction has looked at, before compacting (the sweep's work, bounded per batch). */
    long visited;

    /** Releases the key reference of an entry compaction removed (one in a key chunk: inline keys are not passed). */
    abstract void release(int ref);

    /** Releases {@code refs[0, count)} in order; a compaction of one leaf hands its removed entries' references over together. */
    void releaseAll(int[] refs, int count) {
        for (int i = 0; i < count; i++) {
            release(refs[i]);
        }
    }

    /** The references of the entries one compaction removes (a leaf's worth at most; grows once to the leaf capacity). */
    private int[] removed = new int[0];

    /** Compacts {@code leaf} of {@code s}, versions below {@code expiredBelow} expired; returns its new count. */
    final int compact(NodeStore s, int leaf, int expiredBelow) {
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int[] hdr = s.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT] & COUNT_MASK;
        long[] lk = s.lKey[c];
        long[] lvr = s.lVerRef[c];
        boolean k = known;
        int p = prev;
        int out = 0;
        int max = GAP;
        long[] counts = census;
        int lo = censusLo;
        int shift = censusShift;
        int top = counts == null ? 0 : counts.length - 1;
        int oldest = censusOldest;
        if (removed.length < n) {
            removed = new int[s.leafCap];
        }
        int[] rm = removed;
        int gone = 0;
        for (int j = 0; j < n; j++) {
            long e = lvr[base + j];
            int v = NodeStore.ver(e);
            if (v < expiredBelow) {
                v = GAP;
            }
            if (k && v == p) {
                int ref = NodeStore.ref(e);
                if (ref >= 0) {
                    rm[gone++] = ref; // an inline key holds no chunk: nothing to release
                }
                continue;
            }
            lk[base + out] = lk[base + j];
            lvr[base + out] = NodeStore.withVer(e, v);
            out++;
            k = true;
            p = v;
            if (v > max) {
                max = v;
            }
            if (counts != null && v != GAP) {
                int d = v - lo;
                counts[d <= 0 ? 0 : Math.min(top, d >>> shift)]++;
                oldest = Math.min(oldest, v);
            }
        }
        if (gone > 0) {
            releaseAll(rm, gone);
        }
        censusOldest = oldest;
        visited += n;
        known = k;
        prev = p;
        // The leaf's own prefix stays (its keys all still have it), unless nothing is left to hold one (LeafPrefixes):
        // then its anchor's reference goes like a key's.
        if (out == 0 && hdr[h + H_COUNT] >>> SKIP_SHIFT != 0) {
            release(KeyRefs.arenaRef(s.leafAnchor(leaf), false));
        }
        hdr[h + H_COUNT] = out == 0 ? 0 : (hdr[h + H_COUNT] & ~COUNT_MASK) | out;
        hdr[h + H_MAX] = max;
        return out;
    }
}
