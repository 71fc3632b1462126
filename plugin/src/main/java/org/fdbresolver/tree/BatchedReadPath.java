package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.SKIP_SHIFT;

import org.fdbresolver.pipeline.SortedReads;

/**
 * The read check for a whole batch at once. The reads come sorted by begin key; their begins are routed
 * to leaves in one descent by recursive partitioning ({@link BatchRouter}), so the separators near the
 * root are compared against a few reads instead of every read against them. Reads that land in the
 * same leaf form a group and are checked together: one search in the leaf for the first begin, the
 * others found by walking on from it, the predecessor of the leaf looked up once. A read that runs past
 * its leaf walks on through the parent's later slots, skipping every child whose max version is not
 * above its snapshot and stopping at the first separator at or above its end; one that runs past the
 * parent is checked by the one-descent path ({@link SingleReadPath}). A point read {@code [k, k\0)} never
 * walks on: the interval holding {@code k} decides it.
 *
 * <h2>Interleaving</h2>
 * Leaf groups are independent, and a leaf is a cache miss (the leaves are most of the history, far
 * beyond the caches), so up to {@code ways} groups are in flight on one thread, visited in turns. A
 * visit does one step — read the leaf's header, or one probe of the binary search — and, when
 * {@code touch} is on, loads the cache line the group's next step needs before yielding to the other
 * groups (the JVM has no prefetch instruction: a load whose value no branch waits for is the nearest
 * thing, and the other groups' steps give it time to arrive). With {@code touch} off the groups only
 * interleave: each step's load is issued when the step runs.
 *
 * <h2>Safety</h2>
 * The seed's read path needed three rules because its reads could run while leaves were compacted and
 * its separators could point at reclaimed key blocks. Here a read check never changes the tree: leaves
 * are compacted, emptied and unlinked only by writes and the sweeper, which run after the batch's reads;
 * separators hold counted references to their key chunks, so they never point at freed bytes. Positions
 * saved by a group (a leaf handle, a slot, a parent slot) therefore stay valid until every group is done.
 */
final class BatchedReadPath {
    /** Groups in flight by default. */
    static final int DEFAULT_WAYS = 16;
    /**
     * History bytes from which the batched path is used by default. In a history of a few MB the leaves mostly
     * stay cached, there are few misses to overlap, and one descent per read is as fast. It was 16 MiB, where one
     * descent per read once won on custom-range (7 MB) and longtrace (16 MB); measured again on 2026-12-07 the
     * batched path from 4 MiB took 15–25 % off the read check of longtrace, custom-range and tuple keys and was level
     * on the others (docs/tree.md, "The batched read path from 4 MiB").
     */
    static final long DEFAULT_FROM_BYTES = 4L << 20;

    private static final int ST_SEARCH = 1;
    private static final int ST_SCAN = 2;
    private static final int ST_OLD = 3;

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final SingleReadPath single;
    private final BatchRouter router;
    private final int ways;
    private final boolean touch;

    // ---- the reads, in begin order: search encodings and where they landed ----
    private SortedReads reads;
    /** Read {@code i} of this check is read {@code sliceStart + i} of {@link #reads}. */
    private int sliceStart;
    private byte[] keys;
    private long[] bp = new long[256];
    private int[] bLen = new int[256];
    private long[] ep = new long[256];
    private int[] eLen = new int[256];
    private int[] snap = new int[256];
    /** Whether the read is a point range {@code [k, k\0)} ({@link SingleReadPath#isPoint}): nothing past its leaf can matter. */
    private boolean[] point = new boolean[256];
    private int[] leafOf = new int[256];
    private int[] parentOf = new int[256];
    private int[] slotOf = new int[256];

    // ---- groups: reads [groupStart[g], groupStart[g + 1]) land in the same leaf ----
    private int[] groupStart = new int[257];
    private int[] groupMinSnap = new int[256];
    private int groups;

    // ---- the block of groups in flight, one per way ----
    private final int[] wayState;
    private final int[] wayLo;
    private final int[] wayHi;
    /** The first begin of each way's group in its leaf's encoding: prefix length, inline long, search length. */
    private final int[] waySkip;
    private final long[] wayKp;
    private final int[] wayLen;
    /** Keeps the touching loads alive (their values are otherwise unused). */
    private long sink;

    BatchedReadPath(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions,
                    SingleReadPath single, int ways, boolean touch) {
        if (ways < 1 || ways > 1024) {
            throw new IllegalArgumentException("read ways must be within [1, 1024]: " + ways);
        }
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.single = single;
        this.router = new BatchRouter(store, layout);
        this.ways = ways;
        this.touch = touch;
        this.wayState = new int[ways];
        this.wayLo = new int[ways];
        this.wayHi = new int[ways];
        this.waySkip = new int[ways];
        this.wayKp = new long[ways];
        this.wayLen = new int[ways];
    }

    /** See {@link org.fdbresolver.pipeline.HistoryReader#checkSorted}. */
    void check(SortedReads reads) {
        check(reads, 0, reads.count());
    }

    /**
     * Checks reads {@code [from, to)} of {@code reads}. The tree must not change meanwhile; other instances may
     * check other slices of the same reads at the same time (each read's mark is its own).
     */
    void check(SortedReads reads, int from, int to) {
        int n = to - from;
        if (n <= 0) {
            return;
        }
        this.reads = reads;
        this.sliceStart = from;
        this.keys = reads.keys();
        encode(n);
        route(n);
        formGroups(n);
        run();
        this.reads = null;
        this.keys = null;
    }

    /**
     * Routes the begins to their leaves: by partitioning down to the parents of leaves (the few nodes
     * above them stay cached), then the parents {@code ways} at a time — with touching, each block's
     * separator and child lines are loaded first, in one tight loop — each partitioned into its leaves.
     */
    private void route(int n) {
        NodeStore s = store;
        BatchRouter rt = router;
        rt.routeToParents(bp, keys, beginOffsets(n), bLen, n, leafOf, parentOf, slotOf);
        int parents = rt.parentCount();
        int innerCap = s.innerCap;
        long t = 0;
        for (int from = 0; from < parents; from += ways) {
            int to = Math.min(parents, from + ways);
            if (touch) {
                for (int p = from; p < to; p++) {
                    int node = rt.parentNode(p);
                    int c = node >>> CHUNK_SHIFT;
                    int base = (node & CHUNK_MASK) * innerCap;
                    int count = s.iCount[c][node & CHUNK_MASK];
                    long[] ik = s.iKey[c];
                    int[] ic = s.iChild[c];
                    for (int i = 0; i < count; i += 8) {
                        t += ik[base + i];
                    }
                    for (int i = 0; i < count; i += 16) {
                        t += ic[base + i];
                    }
                }
            }
            for (int p = from; p < to; p++) {
                rt.routeParent(p);
            }
        }
        rt.done();
        sink += t;
    }

    private int[] beginOffsetScratch = new int[256];

    private int[] beginOffsets(int n) {
        int[] out = beginOffsetScratch;
        for (int i = 0; i < n; i++) {
            out[i] = reads.beginOffset(sliceStart + i);
        }
        return out;
    }

    /** Search lengths, inline longs and relative snapshots of every read. */
    private void encode(int n) {
        ensureReads(n);
        KeyLayout kl = layout;
        VersionWindow vw = versions;
        SortedReads rs = reads;
        byte[] k = keys;
        int b = sliceStart;
        for (int i = 0; i < n; i++) {
            int bo = rs.beginOffset(b + i);
            int bl = kl.searchLength(k, bo, rs.beginLength(b + i));
            bLen[i] = bl;
            bp[i] = kl.searchInline(k, bo, bl);
            int eo = rs.endOffset(b + i);
            int el = kl.searchLength(k, eo, rs.endLength(b + i));
            eLen[i] = el;
            ep[i] = kl.searchInline(k, eo, el);
            snap[i] = vw.relative(rs.snapshot(b + i));
            point[i] = SingleReadPath.isPoint(k, bo, rs.beginLength(b + i), eo, rs.endLength(b + i));
        }
    }

    private void formGroups(int n) {
        int g = 0;
        int[] start = groupStart;
        int[] minSnap = groupMinSnap;
        for (int i = 0; i < n; ) {
            int leaf = leafOf[i];
            int m = snap[i];
            int j = i + 1;
            while (j < n && leafOf[j] == leaf) {
                m = Math.min(m, snap[j]);
                j++;
            }
            start[g] = i;
            minSnap[g] = m;
            g++;
            i = j;
        }
        start[g] = n;
        groups = g;
    }

    /**
     * Checks the groups {@code ways} at a time, in stages: every group of the block takes a step before
     * any takes the next, so the block's loads of one stage are in flight together. With touching, each
     * stage first loads the cache lines the next stage needs, in a tight loop, and only the next stage
     * uses them.
     */
    private void run() {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int w = ways;
        long t = 0;
        for (int from = 0; from < groups; from += w) {
            int to = Math.min(groups, from + w);
            int k = to - from;
            if (touch) {
                // The leaves' headers and first keys.
                for (int x = 0; x < k; x++) {
                    int r0 = groupStart[from + x];
                    int leaf = leafOf[r0];
                    int c = leaf >>> CHUNK_SHIFT;
                    t += s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
                    t += s.lKey[c][(leaf & CHUNK_MASK) * leafCap];
                    if (s.height > 0) {
                        // The parent's next separator, which tells whether a read runs past the leaf.
                        int parent = parentOf[r0];
                        int next = Math.min(slotOf[r0] + 1, s.innerCap - 1);
                        t += s.iKey[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * s.innerCap + next];
                    }
                }
            }
            if (touch) {
                // The anchors of leaves with a prefix of their own (LeafPrefixes), which the next stage compares with
                // (their headers are loaded: only such leaves pay for the anchor's line and the key block's).
                for (int x = 0; x < k; x++) {
                    int leaf = leafOf[groupStart[from + x]];
                    int c = leaf >>> CHUNK_SHIFT;
                    int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
                    if ((s.lHdr[c][h + H_COUNT] >>> SKIP_SHIFT) != 0) {
                        int unit = s.lAnchor[c][leaf & CHUNK_MASK];
                        t += s.arena.block(unit)[s.arena.offset(unit)];
                    }
                }
            }
            // Which leaves need a search (they hold something newer than one of the group's snapshots), and the
            // first begin of each in its leaf's encoding.
            int searching = 0;
            for (int x = 0; x < k; x++) {
                int g = from + x;
                int leaf = leafOf[groupStart[g]];
                int c = leaf >>> CHUNK_SHIFT;
                int[] hdr = s.lHdr[c];
                int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
                int n = hdr[h + H_COUNT] & COUNT_MASK;
                if (hdr[h + H_MAX] <= groupMinSnap[g] || n == 0) {
                    wayState[x] = ST_OLD;
                } else {
                    int first = groupStart[g];
                    int skip = layout.leaf.skipOf(leaf);
                    long kp = bp[first];
                    int len = bLen[first];
                    if (skip != layout.skip() && len >= 0) {
                        int off = reads.beginOffset(sliceStart + first);
                        len = layout.leaf.localLength(leaf, skip, keys, off, len);
                        kp = LeafPrefixes.localInline(keys, off, len, skip);
                    }
                    waySkip[x] = skip;
                    wayKp[x] = kp;
                    wayLen[x] = len;
                    wayState[x] = ST_SEARCH;
                    wayLo[x] = 0;
                    wayHi[x] = n;
                    searching++;
                    if (touch) {
                        t += s.lKey[c][(leaf & CHUNK_MASK) * leafCap + ((n - 1) >>> 1)];
                    }
                }
            }
            // The searches, one probe per searching group per round.
            while (searching > 0) {
                for (int x = 0; x < k; x++) {
                    if (wayState[x] != ST_SEARCH) {
                        continue;
                    }
                    int g = from + x;
                    int first = groupStart[g];
                    int leaf = leafOf[first];
                    int c = leaf >>> CHUNK_SHIFT;
                    int base = (leaf & CHUNK_MASK) * leafCap;
                    long[] lk = s.lKey[c];
                    int lo = wayLo[x];
                    int hi = wayHi[x];
                    int mid = (lo + hi) >>> 1;
                    long p = lk[base + mid];
                    long kp = wayKp[x];
                    int cmp = kp != p ? (kp < p ? -1 : 1)
                            : layout.tailAt(waySkip[x], keys, reads.beginOffset(sliceStart + first), wayLen[x],
                                    NodeStore.ref(s.lVerRef[c][base + mid]));
                    if (cmp >= 0) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                    wayLo[x] = lo;
                    wayHi[x] = hi;
                    if (lo < hi) {
                        if (touch) {
                            t += lk[base + ((lo + hi) >>> 1)];
                        }
                    } else {
                        wayState[x] = ST_SCAN;
                        searching--;
                        if (touch && lo > 0) {
                            t += NodeStore.ver(s.lVerRef[c][base + lo - 1]);
                        }
                    }
                }
            }
            for (int x = 0; x < k; x++) {
                int g = from + x;
                finish(g, leafOf[groupStart[g]], wayLo[x], wayState[x] == ST_OLD);
            }
        }
        sink += t;
    }

    /**
     * Checks every read of group {@code g} in {@code leaf}: {@code pos} is the first entry above the
     * first read's begin, or (when {@code old}, the leaf holding nothing newer than any of the group's
     * snapshots) unknown and not needed.
     */
    private void finish(int g, int leaf, int pos, boolean old) {
        NodeStore s = store;
        KeyLayout kl = layout;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int[] hdr = s.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT] & COUNT_MASK;
        int max = hdr[h + H_MAX];
        long[] lk = s.lKey[c];
        long[] lvr = s.lVerRef[c];
        SortedReads rs = reads;
        byte[] k = keys;
        boolean predKnown = false;
        int pred = 0;
        int skip = kl.leaf.skipOf(leaf);
        // Begins are in the tree's encoding: a leaf whose longs skip more takes them re-encoded (LeafPrefixes).
        boolean reencode = skip != kl.skip();
        for (int r = groupStart[g], end = groupStart[g + 1]; r < end; r++) {
            int sr = snap[r];
            long b = bp[r];
            int bo = rs.beginOffset(sliceStart + r);
            int bl = bLen[r];
            if (reencode && bl >= 0 && n > 0) {
                // The begin in the leaf's encoding (LeafPrefixes).
                bl = kl.leaf.localLength(leaf, skip, k, bo, bl);
                b = LeafPrefixes.localInline(k, bo, bl, skip);
            }
            boolean hit = false;
            boolean onward;
            if (max <= sr || n == 0) {
                // Nothing in this leaf is newer: only an interval holding begin that starts before the
                // leaf can be, and what lies past the leaf.
                boolean beforeFirst = n == 0;
                if (!beforeFirst) {
                    long p = lk[base];
                    beforeFirst = (b != p ? (b < p ? -1 : 1) : kl.tailAt(skip, k, bo, bl, NodeStore.ref(lvr[base]))) < 0;
                }
                if (beforeFirst) {
                    if (!predKnown) {
                        pred = search.lastVersionFrom(s.leafPrev(leaf));
                        predKnown = true;
                    }
                    hit = pred > sr;
                }
                onward = !hit;
            } else {
                if (old) {
                    throw new AssertionError("group taken as old holds a newer entry");
                }
                while (pos < n) {
                    long p = lk[base + pos];
                    if ((b != p ? (b < p ? -1 : 1) : kl.tailAt(skip, k, bo, bl, NodeStore.ref(lvr[base + pos]))) < 0) {
                        break;
                    }
                    pos++;
                }
                int before;
                if (pos > 0) {
                    before = NodeStore.ver(lvr[base + pos - 1]);
                } else {
                    if (!predKnown) {
                        pred = search.lastVersionFrom(s.leafPrev(leaf));
                        predKnown = true;
                    }
                    before = pred;
                }
                if (before > sr) {
                    hit = true;
                    onward = false;
                } else if (point[r]) {
                    // No key lies strictly between k and k\0: the interval holding k decided it.
                    onward = false;
                } else {
                    int scanned = single.scanLeaf(leaf, pos, sr, ep[r], k, rs.endOffset(sliceStart + r), eLen[r]);
                    hit = scanned == 1;
                    onward = scanned < 0;
                }
            }
            // A point read that found nothing up to its leaf's end is done: every key past the leaf is above k, so at
            // or above its end k\0 (the parent's next separator need not be compared, nor, past the parent, the tree
            // descended again).
            if (onward && !point[r]) {
                hit = onward(r);
            }
            if (hit) {
                rs.setConflict(sliceStart + r);
            }
        }
    }

    /**
     * Read {@code r} has found nothing up to the end of its leaf: the parent's later slots, skipping old
     * subtrees, up to the first separator at or above the read's end; past the parent, a full one-descent
     * check.
     */
    private boolean onward(int r) {
        NodeStore s = store;
        if (s.height == 0) {
            return false;
        }
        int parent = parentOf[r];
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * s.innerCap;
        int count = s.iCount[pc][parent & CHUNK_MASK];
        long e = ep[r];
        int eo = reads.endOffset(sliceStart + r);
        int el = eLen[r];
        int sr = snap[r];
        for (int slot = slotOf[r] + 1; slot < count; slot++) {
            if (layout.inner.compare(parent, slot, e, keys, eo, el) <= 0) {
                return false;
            }
            if (s.iMax[pc][pb + slot] <= sr) {
                continue;
            }
            int scanned = single.scanLeaf(s.iChild[pc][pb + slot], 0, sr, e, keys, eo, el);
            if (scanned >= 0) {
                return scanned == 1;
            }
        }
        SortedReads rs = reads;
        int at = sliceStart + r;
        return single.conflicts(keys, rs.beginOffset(at), rs.beginLength(at), eo, rs.endLength(at), rs.snapshot(at));
    }

    /** What the touching loads read, summed (keeps them from being optimized away; for tests). */
    long sink() {
        return sink;
    }

    private void ensureReads(int n) {
        if (bp.length < n) {
            int m = Math.max(n, bp.length * 2);
            bp = new long[m];
            bLen = new int[m];
            ep = new long[m];
            eLen = new int[m];
            snap = new int[m];
            point = new boolean[m];
            leafOf = new int[m];
            parentOf = new int[m];
            slotOf = new int[m];
            beginOffsetScratch = new int[m];
            groupMinSnap = new int[m];
            groupStart = new int[m + 1];
        }
    }
}
