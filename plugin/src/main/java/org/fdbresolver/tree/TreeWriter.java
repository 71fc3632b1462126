package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.H_MAX;
import static org.fdbresolver.tree.NodeStore.H_PREV;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.MAX_HEIGHT;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.CombinedWrites;

/**
 * Write application and splits. {@link #merge} sets {@code [b, e)} to {@code now}: an entry at {@code e}
 * keeps the version that was in force there (the outer fragment), the entry at {@code b} takes
 * {@code now}, entries strictly between go — in one pass over one leaf in the common case. Inner nodes
 * are split on the way down when full (proactive split preparation), so a leaf split always finds room
 * in its parent and no split cascades upwards. A full leaf first shifts entries to its right sibling
 * when that has room. Deletions may leave leaves empty; the sweeper unlinks them.
 *
 * <p>A batch's writes come together ({@link #plan}, {@link #apply}): routed to their leaves in one
 * partitioned descent, then applied in key order one run per destination leaf. Before a block of
 * {@code ways} writes is applied, the cache lines their runs will need are loaded together, in stages
 * ({@link #prefetch}), so that the misses of the block overlap instead of each write waiting for its own.
 */
final class TreeWriter {

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    /** The last descent's path: inner node and slot per level, root first. */
    final int[] pathNode = new int[MAX_HEIGHT];
    final int[] pathIdx = new int[MAX_HEIGHT];
    private final byte[] scratchA;
    private final byte[] scratchB;
    private long sepKeyOut;
    private int sepRefOut;

    // ---- batched writes: the batch's endpoints (begin 2i, end 2i + 1), encoded and routed ----
    private final BatchRouter router;
    private final MemoryBudget budget;
    private long[] endpointKey = new long[128];
    private int[] endpointOff = new int[128];
    private int[] endpointLen = new int[128];
    private int[] endpointLeaf = new int[128];
    private int[] endpointParent = new int[128];
    private int[] endpointSlot = new int[128];
    /** The block of writes being prefetched: search bounds of each one's begin in its leaf. */
    private final int[] aheadLo;
    private final int[] aheadHi;
    private long sink;
    /** Key-block bytes of the writes before write i (prefix sums, for the per-run budget check). */
    private long[] keyBytesBefore = new long[65];
    /** One leaf's merged run: up to twice a leaf (a run never grows a leaf past two). */
    private final long[] outKey;
    private final int[] outVer;
    private final int[] outRef;
    private int plannedWrites;
    /** The layout epoch the endpoints were encoded in ({@link KeyLayout#epoch}). */
    private int encodedEpoch;
    private long plannedLeaves;
    private long plannedKeyBytes;

    /** Writes whose leaves are loaded ahead together ({@link #prefetch}); 0 or 1: none. */
    private final int ways;

    TreeWriter(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, MemoryBudget budget,
               int maxKeyBytes, int ways) {
        this.ways = ways;
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.budget = budget;
        this.router = new BatchRouter(store, layout);
        this.scratchA = new byte[maxKeyBytes + 1];
        this.scratchB = new byte[maxKeyBytes + 1];
        this.outKey = new long[2 * store.leafCap + 2];
        this.outVer = new int[2 * store.leafCap + 2];
        this.outRef = new int[2 * store.leafCap + 2];
        this.aheadLo = new int[Math.max(1, ways)];
        this.aheadHi = new int[Math.max(1, ways)];
    }

    // =====================================================================================
    // Batched writes
    // =====================================================================================

    /**
     * Admits every endpoint of {@code w} to the shared prefix, encodes them and routes them to their
     * leaves in one partitioned descent ({@link BatchRouter}); then estimates what applying the batch
     * adds: for each destination leaf, the leaves its entries will need beyond itself, and the key-block
     * bytes of the new keys and of a separator per new leaf.
     */
    void plan(CombinedWrites w, int maxKeyLengthSeen) {
        NodeStore s = store;
        int m = w.count();
        ensureEndpoints(m);
        byte[] keys = w.keys();
        encode(w, 0);
        long[] ek = endpointKey;
        int[] eo = endpointOff;
        int[] el = endpointLen;
        long keyBytes = 0;
        for (int x = 0; x < m; x++) {
            keyBytesBefore[x] = keyBytes;
            keyBytes += newKeyBytes(keys, w.beginOffset(x), w.beginLength(x), w.endOffset(x), w.endLength(x));
        }
        keyBytesBefore[m] = keyBytes;
        plannedWrites = m;
        // The begins only (endpoints 2i, stride 2): a write's end lands in its begin's leaf but for the few
        // that reach past it, and the estimate counts both of its entries in the begin's leaf.
        router.route(ek, keys, eo, el, 2 * m, 2, endpointLeaf, s.height > 0 ? endpointParent : null, endpointSlot);
        // A destination leaf with n entries receiving k writes ends up in at most ceil((n + 2k) / cap) leaves.
        long leaves = 0;
        int cap = s.leafCap;
        for (int i = 0; i < 2 * m; ) {
            int leaf = endpointLeaf[i];
            int j = i + 2;
            while (j < 2 * m && endpointLeaf[j] == leaf) {
                j += 2;
            }
            int total = s.leafCount(leaf) + (j - i);
            leaves += (total + cap - 1) / cap - 1;
            i = j;
        }
        plannedLeaves = leaves;
        plannedKeyBytes = keyBytes + (maxKeyLengthSeen > KeyRefs.INLINE_BYTES ? leaves * KeyArena.chunkBytes(maxKeyLengthSeen) : 0);
    }

    /**
     * Admits the endpoints of writes {@code from..} to the shared prefix and records their inline longs,
     * offsets and lengths (begin at {@code 2i}, end at {@code 2i + 1}).
     */
    private void encode(CombinedWrites w, int from) {
        KeyLayout kl = layout;
        byte[] keys = w.keys();
        int m = w.count();
        for (int x = from; x < m; x++) {
            kl.admit(keys, w.beginOffset(x), w.beginLength(x));
            kl.admit(keys, w.endOffset(x), w.endLength(x));
        }
        long[] ek = endpointKey;
        int[] eo = endpointOff;
        int[] el = endpointLen;
        for (int x = from; x < m; x++) {
            int bOff = w.beginOffset(x);
            int bLen = w.beginLength(x);
            int eOff = w.endOffset(x);
            int eLen = w.endLength(x);
            ek[2 * x] = kl.inlineOf(keys, bOff, bLen);
            eo[2 * x] = bOff;
            el[2 * x] = bLen;
            ek[2 * x + 1] = kl.inlineOf(keys, eOff, eLen);
            eo[2 * x + 1] = eOff;
            el[2 * x + 1] = eLen;
        }
        encodedEpoch = kl.epoch();
    }

    /** Leaves the planned batch adds (an estimate; every step is checked against the budget anyway). */
    long plannedLeaves() {
        return plannedLeaves;
    }

    /** Inner nodes the planned batch adds (an estimate). */
    long plannedInners() {
        return plannedLeaves / Math.max(1, store.innerCap / 2) + store.height + 2;
    }

    long plannedKeyBytes() {
        return plannedKeyBytes;
    }

    /** Key-block bytes new entries for {@code [b, e)} take at most (k shares the chunk of k\0). */
    private static long newKeyBytes(byte[] keys, int bOff, int bLen, int eOff, int eLen) {
        boolean eInline = KeyRefs.fitsInline(keys, eOff, eLen);
        long bytes = eInline ? 0 : KeyArena.chunkBytes(eLen);
        boolean pointShare = !eInline && eLen == bLen + 1 && keys[eOff + bLen] == 0
                && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen);
        if (!pointShare && !KeyRefs.fitsInline(keys, bOff, bLen)) {
            bytes += KeyArena.chunkBytes(bLen);
        }
        return bytes;
    }

    private void ensureEndpoints(int writes) {
        if (endpointKey.length < 2 * writes) {
            int n = Math.max(2 * writes, endpointKey.length * 2);
            endpointKey = new long[n];
            endpointOff = new int[n];
            endpointLen = new int[n];
            endpointLeaf = new int[n];
            endpointParent = new int[n];
            endpointSlot = new int[n];
        }
        if (keyBytesBefore.length < writes + 1) {
            keyBytesBefore = new long[Math.max(writes + 1, keyBytesBefore.length * 2)];
        }
    }

    /**
     * Applies the planned writes at relative version {@code v}, in key order, one run per destination
     * leaf: a descent (splitting full inner nodes on the way, as for single writes) to the leaf holding
     * the run's first begin, then every following write that lies inside that leaf's key range and keeps
     * the leaf within two leaves' worth is merged with the leaf's entries in one pass. A run whose result
     * overflows the leaf hands entries to the right sibling or splits the leaf once. A write that reaches
     * past its leaf takes the single-write path. Before each step the budget is checked
     * ({@link MemoryBudget#ensureRoom}); returns false when it dropped the batch's writes instead.
     */
    boolean apply(CombinedWrites w, int v, long now) {
        NodeStore s = store;
        int m = w.count();
        byte[] keys = w.keys();
        long[] ek = endpointKey;
        int cap = s.leafCap;
        int i = 0;
        int prefetched = 0;
        while (i < m) {
            if (ways > 1 && i >= prefetched) {
                prefetched = Math.min(m, i + ways);
                prefetch(i, prefetched);
            }
            // The most the next step can add: a run of at most a leaf's worth of writes splitting its leaf
            // once, or a single write splitting two leaves, with inner splits on the way down.
            long keyBound = keyBytesBefore[Math.min(m, i + cap)] - keyBytesBefore[i] + 2 * separatorBytes();
            if (!budget.ensureRoom(now, 2, 2L * (s.height + 2), keyBound, laterBytes(i))) {
                return false;
            }
            if (layout.epoch() != encodedEpoch) {
                encode(w, i); // making room forgot everything, the shared prefix with it
            }
            int leaf = descendForInsert(ek[2 * i], keys, w.beginOffset(i), w.beginLength(i));
            // The leaf's upper fence: the separator after the path at the lowest level that has one.
            boolean fenced = false;
            long fenceKey = 0;
            int fenceRef = 0;
            for (int level = s.height - 1; level >= 0; level--) {
                int node = pathNode[level];
                int slot = pathIdx[level] + 1;
                if (slot < s.innerCount(node)) {
                    int at = (node & CHUNK_MASK) * s.innerCap + slot;
                    fenceKey = s.iKey[node >>> CHUNK_SHIFT][at];
                    fenceRef = s.iRef[node >>> CHUNK_SHIFT][at];
                    fenced = true;
                    break;
                }
            }
            int n = s.leafCount(leaf);
            int j = i;
            while (j < m && n + 2 * (j - i + 1) <= 2 * cap
                    && (!fenced || (j == i || below(2 * j, keys, fenceKey, fenceRef)) && below(2 * j + 1, keys, fenceKey, fenceRef))) {
                j++;
            }
            if (j == i) {
                merge(keys, w.beginOffset(i), w.beginLength(i), w.endOffset(i), w.endLength(i), v);
                i++;
            } else {
                applyRun(w, leaf, i, j, v);
                i = j;
            }
        }
        return true;
    }

    /**
     * Loads, for writes {@code [from, to)}, the cache lines their runs will need, all writes' loads of a
     * stage together: the parent's slot (separator, max version) and the leaf's header;
     * then the search for each begin in its leaf, one probe per write per round, each loading the next
     * probe's line; finally the version and reference lines at the found slot, where the run's copies
     * start. Where the writes land comes from the plan's route, made before this batch changed the tree:
     * a hint only, nothing depends on it.
     */
    private void prefetch(int from, int to) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int innerCap = s.innerCap;
        int[] el = endpointLeaf;
        long t = 0;
        for (int x = from; x < to; x++) {
            int leaf = el[2 * x];
            int c = leaf >>> CHUNK_SHIFT;
            t += s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            if (s.height > 0) {
                int parent = endpointParent[2 * x];
                int at = (parent & CHUNK_MASK) * innerCap + endpointSlot[2 * x];
                t += s.iKey[parent >>> CHUNK_SHIFT][at] + s.iMax[parent >>> CHUNK_SHIFT][at];
            }
        }
        int searching = 0;
        for (int x = from; x < to; x++) {
            int leaf = el[2 * x];
            int c = leaf >>> CHUNK_SHIFT;
            int n = Math.min(leafCap, s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT]);
            aheadLo[x - from] = 0;
            aheadHi[x - from] = n;
            if (n > 0) {
                searching++;
                t += s.lKey[c][(leaf & CHUNK_MASK) * leafCap + ((n - 1) >>> 1)];
            }
        }
        long[] ek = endpointKey;
        while (searching > 0) {
            for (int x = from; x < to; x++) {
                int lo = aheadLo[x - from];
                int hi = aheadHi[x - from];
                if (lo >= hi) {
                    continue;
                }
                int leaf = el[2 * x];
                int c = leaf >>> CHUNK_SHIFT;
                int base = (leaf & CHUNK_MASK) * leafCap;
                long[] lk = s.lKey[c];
                int mid = (lo + hi) >>> 1;
                boolean below = lk[base + mid] < ek[2 * x];
                lo = below ? mid + 1 : lo;
                hi = below ? hi : mid;
                aheadLo[x - from] = lo;
                aheadHi[x - from] = hi;
                if (lo < hi) {
                    t += lk[base + ((lo + hi) >>> 1)];
                } else {
                    searching--;
                    int at = base + Math.max(0, lo - 1);
                    t += s.lVer[c][at] + s.lRef[c][at];
                }
            }
        }
        sink += t;
    }

    /** Whether endpoint {@code x} lies below the fence separator. */
    private boolean below(int x, byte[] keys, long fenceKey, int fenceRef) {
        long p = endpointKey[x];
        return p != fenceKey ? p < fenceKey : layout.tail(keys, endpointOff[x], endpointLen[x], fenceRef) < 0;
    }

    private long separatorBytes() {
        return budget.maxKeyLength() > KeyRefs.INLINE_BYTES ? KeyArena.chunkBytes(budget.maxKeyLength()) : 0;
    }

    /** The planned bytes of the writes from {@code i} on (what later steps will still need). */
    private long laterBytes(int i) {
        int m = Math.max(1, plannedWrites);
        long share = (plannedLeaves + plannedInners()) * store.nodeBytes * (m - i) / m;
        return share + keyBytesBefore[plannedWrites] - keyBytesBefore[Math.min(i, plannedWrites)];
    }

    /**
     * Merges writes {@code [i, j)} (all inside {@code leaf}'s key range, the last descent's leaf) with
     * the leaf's entries in one pass, as single merges in order would: entries in {@code [b, e)} go,
     * {@code b} takes {@code v}, {@code e} (unless an entry sits there) the version in force there.
     */
    private void applyRun(CombinedWrites w, int leaf, int i, int j, int v) {
        NodeStore s = store;
        KeyLayout kl = layout;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int[] hdr = s.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT];
        long[] lk = s.lKey[c];
        int[] lv = s.lVer[c];
        int[] lr = s.lRef[c];
        byte[] keys = w.keys();
        long[] ek = endpointKey;
        long[] ok = outKey;
        int[] ov = outVer;
        int[] or = outRef;
        int expired = versions.expiredBelow;
        int first = search.leafSearch(leaf, ek[2 * i], keys, w.beginOffset(i), w.beginLength(i), false);
        int src = base + first;
        int end = base + n;
        int o = 0;
        for (int x = i; x < j; x++) {
            long bp = ek[2 * x];
            long ep = ek[2 * x + 1];
            int bOff = w.beginOffset(x);
            int bLen = w.beginLength(x);
            int eOff = w.endOffset(x);
            int eLen = w.endLength(x);
            // Entries below begin stay.
            while (src < end) {
                long p = lk[src];
                if ((bp != p ? (bp < p ? -1 : 1) : kl.tail(keys, bOff, bLen, lr[src])) <= 0) {
                    break;
                }
                ok[o] = p;
                ov[o] = lv[src];
                or[o] = lr[src];
                o++;
                src++;
            }
            // Entries in [begin, end) go; an entry exactly at begin keeps its key reference.
            int bRef = NIL;
            boolean removed = false;
            int lastRemoved = 0;
            if (src < end && lk[src] == bp && kl.tail(keys, bOff, bLen, lr[src]) == 0) {
                bRef = lr[src];
                lastRemoved = lv[src];
                removed = true;
                src++;
            }
            int cmpE = 1;
            while (src < end) {
                long p = lk[src];
                cmpE = ep != p ? (ep < p ? -1 : 1) : kl.tail(keys, eOff, eLen, lr[src]);
                if (cmpE <= 0) {
                    break;
                }
                lastRemoved = lv[src];
                removed = true;
                s.releaseRef(lr[src]);
                src++;
            }
            boolean exactE = src < end && cmpE == 0;
            int eRef = 0;
            int vE = 0;
            if (!exactE) {
                // The version in force at end before this write: the last entry below end.
                vE = removed ? lastRemoved : o > 0 ? ov[o - 1]
                        : first > 0 ? lv[base + first - 1] : search.lastVersionFrom(hdr[h + H_PREV]);
                if (vE < expired) {
                    vE = GAP;
                }
                eRef = kl.storeKey(keys, eOff, eLen);
            }
            if (bRef == NIL) {
                if (!exactE && eRef >= 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                        && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
                    s.arena.retain(eRef >>> 1);
                    bRef = eRef | 1;
                } else {
                    bRef = kl.storeKey(keys, bOff, bLen);
                }
            }
            ok[o] = bp;
            ov[o] = v;
            or[o] = bRef;
            o++;
            if (!exactE) {
                ok[o] = ep;
                ov[o] = vE;
                or[o] = eRef;
                o++;
            }
        }
        int tail = end - src;
        int total = first + o + tail;
        if (total <= s.leafCap) {
            int dst = base + first + o;
            if (dst != src) {
                System.arraycopy(lk, src, lk, dst, tail);
                System.arraycopy(lv, src, lv, dst, tail);
                System.arraycopy(lr, src, lr, dst, tail);
            }
            System.arraycopy(ok, 0, lk, base + first, o);
            System.arraycopy(ov, 0, lv, base + first, o);
            System.arraycopy(or, 0, lr, base + first, o);
            hdr[h + H_COUNT] = total;
            raiseMax(leaf, v);
            return;
        }
        // The leaf's new entries are its first `first` entries, then out[0, o + tail).
        System.arraycopy(lk, src, ok, o, tail);
        System.arraycopy(lv, src, ov, o, tail);
        System.arraycopy(lr, src, or, o, tail);
        overflow(leaf, first, o + tail, v);
    }

    /**
     * A run left {@code leaf} with more entries than fit: its first {@code first} entries in place, then
     * {@code out[0, outLen)}. Hands the last entries to the right sibling under the same parent when that
     * has room (fuller leaves, as single writes do), or else splits the leaf in two.
     */
    private void overflow(int leaf, int first, int outLen, int v) {
        NodeStore s = store;
        int cap = s.leafCap;
        int total = first + outLen;
        int height = s.height;
        if (height > 0) {
            int parent = pathNode[height - 1];
            int slot = pathIdx[height - 1];
            if (slot + 1 < s.innerCount(parent)) {
                int right = s.child(parent, slot + 1);
                int rn = s.leafCount(right);
                int move = (cap - rn) / 2;
                if (move >= Math.max(2, cap / 16) && total - move <= cap) {
                    int rc = right >>> CHUNK_SHIFT;
                    int rb = (right & CHUNK_MASK) * cap;
                    System.arraycopy(s.lKey[rc], rb, s.lKey[rc], rb + move, rn);
                    System.arraycopy(s.lVer[rc], rb, s.lVer[rc], rb + move, rn);
                    System.arraycopy(s.lRef[rc], rb, s.lRef[rc], rb + move, rn);
                    distribute(leaf, first, total - move, total, right, 0);
                    s.setLeafCount(leaf, total - move);
                    s.setLeafCount(right, rn + move);
                    int leftMax = s.maxOfLeaf(leaf);
                    int rightMax = s.maxOfLeaf(right);
                    s.setLeafMax(leaf, leftMax);
                    s.setLeafMax(right, rightMax);
                    int pc = parent >>> CHUNK_SHIFT;
                    int pb = (parent & CHUNK_MASK) * s.innerCap;
                    s.iMax[pc][pb + slot] = leftMax;
                    s.iMax[pc][pb + slot + 1] = rightMax;
                    s.releaseRef(s.iRef[pc][pb + slot + 1]);
                    separatorBetween(leaf, right);
                    s.iKey[pc][pb + slot + 1] = sepKeyOut;
                    s.iRef[pc][pb + slot + 1] = sepRefOut;
                    raiseAncestors(height - 1, v);
                    return;
                }
            }
        }
        int right = s.allocLeaf();
        int keep = total / 2;
        distribute(leaf, first, keep, total, right, 0);
        s.setLeafCount(leaf, keep);
        s.setLeafCount(right, total - keep);
        s.linkAfter(leaf, right);
        int leftMax = s.maxOfLeaf(leaf);
        int rightMax = s.maxOfLeaf(right);
        s.setLeafMax(leaf, leftMax);
        s.setLeafMax(right, rightMax);
        separatorBetween(leaf, right);
        registerRight(leaf, leftMax, right, rightMax, sepKeyOut, sepRefOut);
        raiseAncestors(s.height - 1, v);
    }

    /**
     * Writes the new sequence of {@code leaf} — its slots {@code [0, first)}, then the run's output —
     * so that the leaf keeps positions {@code [0, keep)} and positions {@code [keep, total)} go to
     * {@code right} from slot {@code at} on.
     */
    private void distribute(int leaf, int first, int keep, int total, int right, int at) {
        NodeStore s = store;
        int cap = s.leafCap;
        int lc = leaf >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * cap;
        int rc = right >>> CHUNK_SHIFT;
        int rb = (right & CHUNK_MASK) * cap + at;
        // The moving part first: it may include leaf slots [keep, first), which the leaf's part overwrites.
        if (keep < first) {
            int fromLeaf = first - keep;
            System.arraycopy(s.lKey[lc], lb + keep, s.lKey[rc], rb, fromLeaf);
            System.arraycopy(s.lVer[lc], lb + keep, s.lVer[rc], rb, fromLeaf);
            System.arraycopy(s.lRef[lc], lb + keep, s.lRef[rc], rb, fromLeaf);
            System.arraycopy(outKey, 0, s.lKey[rc], rb + fromLeaf, total - first);
            System.arraycopy(outVer, 0, s.lVer[rc], rb + fromLeaf, total - first);
            System.arraycopy(outRef, 0, s.lRef[rc], rb + fromLeaf, total - first);
            return;
        }
        System.arraycopy(outKey, keep - first, s.lKey[rc], rb, total - keep);
        System.arraycopy(outVer, keep - first, s.lVer[rc], rb, total - keep);
        System.arraycopy(outRef, keep - first, s.lRef[rc], rb, total - keep);
        System.arraycopy(outKey, 0, s.lKey[lc], lb + first, keep - first);
        System.arraycopy(outVer, 0, s.lVer[lc], lb + first, keep - first);
        System.arraycopy(outRef, 0, s.lRef[lc], lb + first, keep - first);
    }

    /** Raises the recorded path's slot maxima above level {@code below} (exclusive) to {@code v}. */
    private void raiseAncestors(int below, int v) {
        NodeStore s = store;
        for (int level = 0; level < below; level++) {
            int node = pathNode[level];
            int[] im = s.iMax[node >>> CHUNK_SHIFT];
            int slot = (node & CHUNK_MASK) * s.innerCap + pathIdx[level];
            if (im[slot] < v) {
                im[slot] = v;
            }
        }
    }

    // =====================================================================================
    // Single writes
    // =====================================================================================

    /** Records write {@code [b, e)} (non-empty) at relative version {@code v}. */
    void merge(byte[] keys, int bOff, int bLen, int eOff, int eLen, int v) {
        NodeStore s = store;
        KeyLayout kl = layout;
        kl.admit(keys, bOff, bLen);
        kl.admit(keys, eOff, eLen);
        long bp = kl.inlineOf(keys, bOff, bLen);
        long ep = kl.inlineOf(keys, eOff, eLen);
        int first = descendForInsert(bp, keys, bOff, bLen);
        if (mergeInLeaf(first, v, bp, keys, bOff, bLen, ep, eOff, eLen)) {
            return;
        }
        // The general path, when the write reaches past the leaf or the leaf is full.
        // 1. The entry at end keeps the version in force there (the outer fragment of what was covered).
        int eRef = ensureEntry(ep, keys, eOff, eLen);
        // 2. The entry at begin takes now; a point write [k, k\0) lets k share the chunk of k\0.
        int bRef = NIL;
        if (eRef >= 0 && (eRef & 1) == 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
            bRef = eRef | 1;
        }
        int leaf = descendForInsert(bp, keys, bOff, bLen);
        int i = search.leafSearch(leaf, bp, keys, bOff, bLen, false);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (i < n && s.lKey[c][base + i] == bp && kl.tail(keys, bOff, bLen, s.lRef[c][base + i]) == 0) {
            s.lVer[c][base + i] = v;
        } else {
            if (bRef != NIL) {
                s.arena.retain(bRef >>> 1);
            } else {
                bRef = kl.storeKey(keys, bOff, bLen);
            }
            long pos = insertEntry(leaf, i, bp, keys, bOff, bLen, bRef, v);
            leaf = (int) (pos >>> 32);
            i = (int) pos;
        }
        raiseMax(leaf, v);
        // 3. Entries strictly inside (begin, end) go; the entry at end stops the scan.
        removeUntil(leaf, i + 1, ep, keys, eOff, eLen);
    }

    /**
     * The common case in one pass over one leaf: an entry {@code >= end} is in the leaf holding
     * {@code begin} and the result fits. Entries in {@code [begin, end)} are replaced by
     * {@code begin: now} and, unless an entry sits exactly at {@code end}, {@code end: the version in
     * force there}. Returns false (changing nothing) otherwise.
     */
    private boolean mergeInLeaf(int leaf, int v, long bp, byte[] keys, int bOff, int bLen, long ep, int eOff, int eLen) {
        NodeStore s = store;
        KeyLayout kl = layout;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int[] hdr = s.lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT];
        long[] lk = s.lKey[c];
        int[] lv = s.lVer[c];
        int[] lr = s.lRef[c];
        int i = search.leafSearch(leaf, bp, keys, bOff, bLen, false);
        int j = i;
        int cmpE = 1;
        while (j < n) {
            long p = lk[base + j];
            cmpE = ep != p ? (ep < p ? -1 : 1) : kl.tail(keys, eOff, eLen, lr[base + j]);
            if (cmpE <= 0) {
                break;
            }
            j++;
        }
        if (j == n) {
            return false;
        }
        boolean exactE = cmpE == 0;
        boolean exactB = i < j && lk[base + i] == bp && kl.tail(keys, bOff, bLen, lr[base + i]) == 0;
        int newCount = i + (exactE ? 1 : 2) + (n - j);
        if (newCount > s.leafCap) {
            return false;
        }
        int vE = 0;
        if (!exactE) {
            vE = j > 0 ? lv[base + j - 1] : search.lastVersionFrom(hdr[h + H_PREV]);
            if (vE < versions.expiredBelow) {
                vE = GAP;
            }
        }
        int bRef = exactB ? lr[base + i] : NIL;
        for (int k = exactB ? i + 1 : i; k < j; k++) {
            s.releaseRef(lr[base + k]);
        }
        int eRef = 0;
        if (!exactE) {
            eRef = kl.storeKey(keys, eOff, eLen);
        }
        if (bRef == NIL) {
            if (!exactE && eRef >= 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                    && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
                s.arena.retain(eRef >>> 1);
                bRef = eRef | 1;
            } else {
                bRef = kl.storeKey(keys, bOff, bLen);
            }
        }
        int dst = i + (exactE ? 1 : 2);
        if (dst != j) {
            System.arraycopy(lk, base + j, lk, base + dst, n - j);
            System.arraycopy(lv, base + j, lv, base + dst, n - j);
            System.arraycopy(lr, base + j, lr, base + dst, n - j);
        }
        lk[base + i] = bp;
        lv[base + i] = v;
        lr[base + i] = bRef;
        if (!exactE) {
            lk[base + i + 1] = ep;
            lv[base + i + 1] = vE;
            lr[base + i + 1] = eRef;
        }
        hdr[h + H_COUNT] = newCount;
        raiseMax(leaf, v);
        return true;
    }

    /**
     * Makes sure an entry exists at {@code key}, inserting one with the version in force there;
     * returns its key reference.
     */
    private int ensureEntry(long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int leaf = descendForInsert(kp, key, off, len);
        int i = search.leafSearch(leaf, kp, key, off, len, false);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (i < n && s.lKey[c][base + i] == kp && layout.tail(key, off, len, s.lRef[c][base + i]) == 0) {
            return s.lRef[c][base + i];
        }
        int v = i > 0 ? s.lVer[c][base + i - 1] : search.lastVersionFrom(s.leafPrev(leaf));
        if (v < versions.expiredBelow) {
            v = GAP;
        }
        int ref = layout.storeKey(key, off, len);
        long pos = insertEntry(leaf, i, kp, key, off, len, ref, v);
        raiseMax((int) (pos >>> 32), v);
        return ref;
    }

    /** Raises the max version of {@code leaf} and of its slot along the recorded descent path. */
    void raiseMax(int leaf, int v) {
        NodeStore s = store;
        int[] m = s.lHdr[leaf >>> CHUNK_SHIFT];
        int at = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX;
        if (m[at] < v) {
            m[at] = v;
        }
        for (int level = 0, height = s.height; level < height; level++) {
            int node = pathNode[level];
            int[] im = s.iMax[node >>> CHUNK_SHIFT];
            int slot = (node & CHUNK_MASK) * s.innerCap + pathIdx[level];
            if (im[slot] < v) {
                im[slot] = v;
            }
        }
    }

    /**
     * Descends to the leaf for {@code key}, splitting every full inner node on the way (the root
     * first) so that the leaf's parent has room for a split. Records the path.
     */
    int descendForInsert(long kp, byte[] key, int off, int len) {
        NodeStore s = store;
        int innerCap = s.innerCap;
        if (s.height > 0 && s.innerCount(s.root) == innerCap) {
            int old = s.root;
            int r = s.allocInner();
            s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, old, s.maxOfInner(old));
            s.setInnerCount(r, 1);
            s.root = r;
            s.height++;
            splitInnerChild(r, 0);
        }
        int node = s.root;
        for (int level = 0, height = s.height; level < height; level++) {
            int slot = search.childSlot(node, kp, key, off, len);
            if (level + 1 < height) {
                int child = s.child(node, slot);
                if (s.innerCount(child) == innerCap) {
                    splitInnerChild(node, slot);
                    slot = search.childSlot(node, kp, key, off, len);
                }
            }
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = s.child(node, slot);
        }
        return node;
    }

    /** Splits the full inner child at {@code slot} of {@code parent} (which has room) into two halves. */
    private void splitInnerChild(int parent, int slot) {
        NodeStore s = store;
        int innerCap = s.innerCap;
        int left = s.child(parent, slot);
        int right = s.allocInner();
        int n = s.innerCount(left);
        int mid = n / 2;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * innerCap;
        int rb = (right & CHUNK_MASK) * innerCap;
        // Slot mid's separator moves up; it becomes the right node's (unused) slot-0 separator.
        long upKey = s.iKey[lc][lb + mid];
        int upRef = s.iRef[lc][lb + mid];
        System.arraycopy(s.iKey[lc], lb + mid, s.iKey[rc], rb, n - mid);
        System.arraycopy(s.iRef[lc], lb + mid, s.iRef[rc], rb, n - mid);
        System.arraycopy(s.iChild[lc], lb + mid, s.iChild[rc], rb, n - mid);
        System.arraycopy(s.iMax[lc], lb + mid, s.iMax[rc], rb, n - mid);
        s.iRef[rc][rb] = KeyRefs.EMPTY;
        s.iKey[rc][rb] = 0;
        s.setInnerCount(left, mid);
        s.setInnerCount(right, n - mid);
        s.insertInnerSlot(parent, slot + 1, upKey, upRef, right, s.maxOfInner(right));
        s.iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slot] = s.maxOfInner(left);
    }

    /**
     * Inserts an entry at slot {@code i} of {@code leaf} (the last descent's leaf), splitting the leaf if
     * full. Returns {@code leaf << 32 | slot} of where the entry went.
     */
    private long insertEntry(int leaf, int i, long kp, byte[] key, int off, int len, int ref, int v) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (n == s.leafCap) {
            // A full leaf first hands entries to its right sibling (fuller leaves, less memory) and
            // splits only when the sibling is nearly full too.
            int height = s.height;
            int right = height > 0 ? shiftToRightSibling(leaf) : NIL;
            if (right == NIL) {
                right = splitLeaf(leaf);
                height = s.height;
            }
            int mid = s.leafCount(leaf);
            boolean goRight;
            if (i != mid) {
                goRight = i > mid;
            } else {
                // Between the halves: the separator (possibly shorter than the right's first key) decides.
                int parent = pathNode[height - 1];
                int at = (parent & CHUNK_MASK) * s.innerCap + pathIdx[height - 1] + 1;
                goRight = KeyRefs.compare(kp, key, off, len, s.iKey[parent >>> CHUNK_SHIFT][at],
                        s.iRef[parent >>> CHUNK_SHIFT][at], s.arena, layout.skip()) >= 0;
            }
            if (goRight) {
                leaf = right;
                i -= mid;
                pathIdx[height - 1]++;
            }
            c = leaf >>> CHUNK_SHIFT;
            n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        }
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int move = n - i;
        System.arraycopy(s.lKey[c], base + i, s.lKey[c], base + i + 1, move);
        System.arraycopy(s.lVer[c], base + i, s.lVer[c], base + i + 1, move);
        System.arraycopy(s.lRef[c], base + i, s.lRef[c], base + i + 1, move);
        s.lKey[c][base + i] = kp;
        s.lVer[c][base + i] = v;
        s.lRef[c][base + i] = ref;
        s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = n + 1;
        return (long) leaf << 32 | i;
    }

    /**
     * Splits full {@code leaf} (the last descent's leaf) in two; the right half goes into a new leaf
     * linked after it and registered in the parent (making a new root if the leaf was the root).
     */
    private int splitLeaf(int leaf) {
        NodeStore s = store;
        int right = s.allocLeaf();
        int lc = leaf >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * s.leafCap;
        int rb = (right & CHUNK_MASK) * s.leafCap;
        int n = s.leafCount(leaf);
        int mid = n / 2;
        System.arraycopy(s.lKey[lc], lb + mid, s.lKey[rc], rb, n - mid);
        System.arraycopy(s.lVer[lc], lb + mid, s.lVer[rc], rb, n - mid);
        System.arraycopy(s.lRef[lc], lb + mid, s.lRef[rc], rb, n - mid);
        s.setLeafCount(leaf, mid);
        s.setLeafCount(right, n - mid);
        s.linkAfter(leaf, right);
        int leftMax = s.maxOfLeaf(leaf);
        int rightMax = s.maxOfLeaf(right);
        s.setLeafMax(leaf, leftMax);
        s.setLeafMax(right, rightMax);
        separatorBetween(leaf, right);
        registerRight(leaf, leftMax, right, rightMax, sepKeyOut, sepRefOut);
        return right;
    }

    /**
     * Registers new leaf {@code right} after {@code leaf} (the last descent's leaf) in the parent,
     * making a new root when the leaf was the root.
     */
    private void registerRight(int leaf, int leftMax, int right, int rightMax, long sepKey, int sepRef) {
        NodeStore s = store;
        if (s.height == 0) {
            int r = s.allocInner();
            s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, leaf, leftMax);
            s.setInnerSlot(r, 1, sepKey, sepRef, right, rightMax);
            s.setInnerCount(r, 2);
            s.root = r;
            s.height = 1;
            pathNode[0] = r;
            pathIdx[0] = 0;
        } else {
            int parent = pathNode[s.height - 1];
            int slot = pathIdx[s.height - 1];
            s.insertInnerSlot(parent, slot + 1, sepKey, sepRef, right, rightMax);
            s.iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * s.innerCap + slot] = leftMax;
        }
    }

    /**
     * Moves the last entries of full {@code leaf} (the last descent's leaf) to the front of its right
     * sibling under the same parent when that has room, and fixes the separator between them.
     * Returns the sibling, or NIL when there is none with room.
     */
    private int shiftToRightSibling(int leaf) {
        NodeStore s = store;
        int leafCap = s.leafCap;
        int parent = pathNode[s.height - 1];
        int slot = pathIdx[s.height - 1];
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * s.innerCap;
        if (slot + 1 >= s.iCount[pc][parent & CHUNK_MASK]) {
            return NIL;
        }
        int right = s.iChild[pc][pb + slot + 1];
        int rc = right >>> CHUNK_SHIFT;
        int rb = (right & CHUNK_MASK) * leafCap;
        int rn = s.leafCount(right);
        int move = (leafCap - rn) / 2;
        if (move < Math.max(2, leafCap / 16)) {
            return NIL;
        }
        int lc = leaf >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * leafCap;
        int n = s.leafCount(leaf);
        System.arraycopy(s.lKey[rc], rb, s.lKey[rc], rb + move, rn);
        System.arraycopy(s.lVer[rc], rb, s.lVer[rc], rb + move, rn);
        System.arraycopy(s.lRef[rc], rb, s.lRef[rc], rb + move, rn);
        System.arraycopy(s.lKey[lc], lb + n - move, s.lKey[rc], rb, move);
        System.arraycopy(s.lVer[lc], lb + n - move, s.lVer[rc], rb, move);
        System.arraycopy(s.lRef[lc], lb + n - move, s.lRef[rc], rb, move);
        s.setLeafCount(leaf, n - move);
        s.setLeafCount(right, rn + move);
        int leftMax = s.maxOfLeaf(leaf);
        int rightMax = s.maxOfLeaf(right);
        s.setLeafMax(leaf, leftMax);
        s.setLeafMax(right, rightMax);
        s.iMax[pc][pb + slot] = leftMax;
        s.iMax[pc][pb + slot + 1] = rightMax;
        s.releaseRef(s.iRef[pc][pb + slot + 1]);
        separatorBetween(leaf, right);
        s.iKey[pc][pb + slot + 1] = sepKeyOut;
        s.iRef[pc][pb + slot + 1] = sepRefOut;
        return right;
    }

    /** The shortest prefix of {@code right}'s first key above {@code left}'s last key, stored; into sepKeyOut/sepRefOut. */
    private void separatorBetween(int left, int right) {
        NodeStore s = store;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int last = (left & CHUNK_MASK) * s.leafCap + s.leafCount(left) - 1;
        int first = (right & CHUNK_MASK) * s.leafCap;
        int lastLen = layout.materialize(s.lKey[lc][last], s.lRef[lc][last], scratchA);
        int firstLen = layout.materialize(s.lKey[rc][first], s.lRef[rc][first], scratchB);
        int common = Arrays.mismatch(scratchA, 0, lastLen, scratchB, 0, firstLen);
        int sepLen = Math.min(firstLen, common + 1);
        sepKeyOut = layout.inlineOf(scratchB, 0, sepLen);
        sepRefOut = layout.storeKey(scratchB, 0, sepLen);
    }

    /** Removes entries from slot {@code i} of {@code leaf} on, across leaves, while their key is below {@code end}. */
    private void removeUntil(int leaf, int i, long ep, byte[] key, int off, int len) {
        NodeStore s = store;
        while (leaf != NIL) {
            int c = leaf >>> CHUNK_SHIFT;
            int base = (leaf & CHUNK_MASK) * s.leafCap;
            int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            long[] lk = s.lKey[c];
            int[] lr = s.lRef[c];
            int j = i;
            while (j < n) {
                long p = lk[base + j];
                if (p > ep || (p == ep && layout.tail(key, off, len, lr[base + j]) <= 0)) {
                    break;
                }
                s.releaseRef(lr[base + j]);
                j++;
            }
            if (j > i) {
                int move = n - j;
                System.arraycopy(lk, base + j, lk, base + i, move);
                System.arraycopy(s.lVer[c], base + j, s.lVer[c], base + i, move);
                System.arraycopy(lr, base + j, lr, base + i, move);
                s.setLeafCount(leaf, n - (j - i));
            }
            if (j < n) {
                return;
            }
            leaf = s.leafNext(leaf);
            i = 0;
        }
    }
}
