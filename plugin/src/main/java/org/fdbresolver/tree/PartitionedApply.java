package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

import java.util.Arrays;
import org.fdbresolver.pipeline.BatchWorkers;
import org.fdbresolver.pipeline.CombinedWrites;

/**
 * The write path: a batch's writes (or a piece of them, {@link BatchWriter}) applied in key-disjoint partitions
 * ({@link PartitionWriter}), at once on the workers' threads when there are any, once the budget has room for the most
 * the phase can add ({@link #measure}):
 * <ol>
 * <li>every endpoint is routed to its leaf (begins and ends), raising the maxima of the inner slots on the way
 * to the batch's version, so that nobody writes a shared inner node during the phase;</li>
 * <li>the chunks of every new key are made, in key order, by one thread (a key that turns out to exist is
 * released again after the phase);</li>
 * <li>the writes are cut into partitions between leaf parents that no write spans, and the partitions are
 * applied at once — B-link style: a split is published as a right link and a high key first, its parent's
 * pointer later;</li>
 * <li>one thread then replaces the separators of siblings that took entries, registers every split in its
 * parent (in key order, bottom-up: each parent that gains children is rewritten once, one that overflows is cut
 * into even pieces that go up the same way), and applies the logged reference counts: retains first, then
 * releases.</li>
 * </ol>
 * How the partitions are cut (by the thread count) changes nothing in the tree: see {@link PartitionWriter}.
 */
final class PartitionedApply implements BatchWorkers.Task {
    /** Partitions per thread: more than one, so that a thread the system delays holds up little of the batch. */
    static final int PARTS_PER_THREAD = 4;

    private final NodeStore store;
    private final KeyLayout layout;
    private final VersionWindow versions;
    private final MemoryBudget budget;
    private final TreeSearch search;
    private final BatchWorkers workers;
    /** Fewest writes a partition gets when the writes are spread over threads. */
    private final int writesPerPart;
    private final PartitionWriter[] parts;
    /** One router per slice of the plan's routing. */
    private final BatchRouter[] routers;
    /** Grows to the longest key materialized ({@link KeyLayout#fit}). */
    private byte[] scratch = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    /** What {@link #run} does: apply the partitions, or encode and route a slice of the plan. */
    private boolean routing;
    private CombinedWrites routed;
    private int routeFrom;
    private int routeTo;
    private int routeVersion;
    private int routeSlices;

    // ---- the batch, shared read-only with the partitions (begin 2i, end 2i + 1) ----
    byte[] keys;
    /** The piece of the batch being applied: writes {@code [writeFrom, writeTo)}. */
    int writeFrom;
    int writeTo;
    long[] endpointKey;
    int[] endpointOff;
    int[] endpointLen;
    int[] endpointLeaf;
    int[] endpointParent;
    int[] endpointSlot;
    /** The key reference each write's begin and end take if they are new (made before the phase). */
    int[] beginRef = new int[64];
    int[] endRef = new int[64];
    /** Whether the partitions used them (written by the partition of the write only). */
    boolean[] beginUsed = new boolean[64];
    boolean[] endUsed = new boolean[64];
    /** Whether a write's begin shares its end's chunk (a point write). */
    private boolean[] pointShare = new boolean[64];
    /** Per write, found while routing: whether its end, its begin need a chunk, whether the begin shares the end's. */
    private byte[] keyKind = new byte[64];
    /** Per write, found while routing: the key-block bytes its new keys take at most ({@link #newKeyBytes}). */
    private long[] keyBytes = new long[64];
    private static final int END_CHUNK = 1;
    private static final int BEGIN_CHUNK = 2;
    private static final int POINT_SHARE = 4;
    /** The writes being applied (during {@link #apply}). */
    private CombinedWrites applying;
    private int[] partStart = new int[65];
    private int partCount;
    /** What the phases did, for tests: batches cut into more than one partition, splits installed, siblings updated. */
    long multiPartBatches;
    long splitsInstalled;
    long siblingsUpdated;
    /** Parents rewritten in their own encoding (their separators' key blocks not read; see {@link #rewrite}). */
    long localRewrites;
    /** The most the measured piece can add ({@link #measure}): leaves, inner nodes, key-block bytes. */
    long boundLeaves;
    long boundInners;
    long boundKeyBytes;

    PartitionedApply(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, LeafEntries entries,
                     MemoryBudget budget, BatchWorkers workers, int writesPerPart, int ways) {
        this.store = store;
        this.layout = layout;
        this.versions = versions;
        this.budget = budget;
        this.search = search;
        this.workers = workers;
        this.writesPerPart = writesPerPart;
        int n = workers == null ? 1 : PARTS_PER_THREAD * workers.threads();
        this.parts = new PartitionWriter[n];
        this.routers = new BatchRouter[n];
        for (int i = 0; i < n; i++) {
            parts[i] = new PartitionWriter(store, layout, search, versions, entries, this, ways);
            routers[i] = new BatchRouter(store, layout);
        }
    }

    /**
     * The most that applying routed writes {@code [from, to)} can add, into {@link #boundLeaves}, {@link #boundInners}
     * and {@link #boundKeyBytes}; false when a leaf they land in holds suffix keys they would lower
     * ({@link LeafPrefixes#partsCanWrite}): those writes are then the single-write path's ({@link TreeWriter}).
     */
    boolean measure(byte[] keys, int from, int to) {
        NodeStore s = store;
        long[] kb = keyBytes;
        int[] leaf = endpointLeaf;
        int[] parent = endpointParent;
        int[] slot = endpointSlot;
        int[] off = endpointOff;
        int[] len = endpointLen;
        int endpoints = 2 * to;
        // The most leaves the chains can add, per destination leaf; then the inner nodes their registration can
        // add: a parent of c children receiving x more ends in ceil((c + x) / cap) nodes, and each level above
        // receives at most as many new children as the level below made nodes.
        long leaves = 0;
        long parentSplits = 0;
        long overflowing = 0;
        int innerCap = s.innerCap;
        for (int i = 2 * from; i < endpoints; ) {
            int p = parent[i];
            long x = 0;
            while (i < endpoints && parent[i] == p) {
                int l = leaf[i];
                int j = i + 1;
                while (j < endpoints && leaf[j] == l) {
                    j++;
                }
                int sibling = PartitionWriter.rightSibling(s, p, slot[i]);
                int siblingInserts = 0;
                for (int f = j; f < endpoints && leaf[f] == sibling; f++) {
                    siblingInserts++;
                }
                x += PartitionWriter.splitBound(s.leafCount(l), j - i, s.leafCap, sibling != NodeStore.NIL, siblingInserts);
                if (s.leafCount(l) + (j - i) > s.leafCap) {
                    overflowing++;
                }
                if (!layout.leaf.partsCanWrite(l, keys, off[i], len[i], off[j - 1], len[j - 1])) {
                    return false;
                }
                i = j;
            }
            leaves += x;
            parentSplits += Math.max(0, (s.innerCount(p) + x + innerCap - 1) / innerCap - 1);
        }
        long newKeyBytes = 0;
        for (int x = from; x < to; x++) {
            newKeyBytes += kb[x];
        }
        // Separators cut from suffix keys or from keys far longer than they are take chunks after the phase
        // (PartitionWriter#pendingBytes): one per split and per chain of an overflowing leaf (its sibling may take
        // entries), each no longer than the longest key.
        long pendingBytes = budget.separatorBytesBound(leaves + overflowing);
        boundLeaves = leaves;
        boundInners = parentSplits == 0 ? 0 : parentSplits * s.height + s.height + 1;
        boundKeyBytes = newKeyBytes + pendingBytes;
        return true;
    }

    /**
     * Applies routed writes {@code [from, to)} at relative version {@code v}, once {@link #measure} has measured them and
     * the budget has room for that ({@link BatchWriter} checks).
     */
    void apply(CombinedWrites w, int v, int from, int to) {
        NodeStore s = store;
        int[] parent = endpointParent;
        this.keys = w.keys();
        this.applying = w;
        this.writeFrom = from;
        this.writeTo = to;
        s.ensureLeafChunkSlots(boundLeaves);
        makeKeys(w, from, to);
        cut(from, to);
        for (int p = 0; p < partCount; p++) {
            int first = partStart[p];
            int boundaryLeaf = NodeStore.NIL;
            int boundaryVersion = 0;
            if (p > 0) {
                boundaryLeaf = s.child(parent[2 * first], 0);
                boundaryVersion = lastVersionBefore(boundaryLeaf);
            }
            parts[p].start(first, partStart[p + 1], v, boundaryLeaf, boundaryVersion);
        }
        if (partCount > 1) {
            multiPartBatches++;
        }
        if (workers != null && partCount > 1) {
            workers.run(this, partCount);
        } else {
            for (int p = 0; p < partCount; p++) {
                parts[p].run();
            }
        }
        publish(from, to);
        this.keys = null;
        this.applying = null;
    }

    @Override
    public void run(int part) {
        if (routing) {
            routeSlice(part);
        } else {
            parts[part].run();
        }
    }

    /**
     * The plan of writes {@code [from, to)} of a batch, in slices across the threads: every endpoint's inline
     * long (the shared prefix has admitted them all), each write's new-key bytes ({@link #newKeyBytes}), and every
     * endpoint routed to its leaf with the maxima on the way raised to relative version {@code v}. Routing reads the
     * tree only; a slot that two slices pass through is raised to the same value by both. The tree has inner nodes.
     */
    void encodeAndRoute(CombinedWrites w, int from, int to, long[] key, int[] off, int[] len, int[] leaf, int[] parent,
                        int[] slot, int v) {
        int m = w.count();
        this.routed = w;
        this.routeFrom = from;
        this.routeTo = to;
        this.keys = w.keys();
        this.endpointKey = key;
        this.endpointOff = off;
        this.endpointLen = len;
        this.endpointLeaf = leaf;
        this.endpointParent = parent;
        this.endpointSlot = slot;
        this.routeVersion = v;
        this.routeSlices = workers == null ? 1 : Math.max(1, Math.min(routers.length, (to - from) / writesPerPart));
        if (keyKind.length < m) {
            keyKind = new byte[Math.max(m, keyKind.length * 2)];
            keyBytes = new long[keyKind.length];
        }
        routing = true;
        try {
            if (workers != null && routeSlices > 1) {
                workers.run(this, routeSlices);
            } else {
                for (int p = 0; p < routeSlices; p++) {
                    routeSlice(p);
                }
            }
        } finally {
            routing = false;
            routed = null;
            this.keys = null;
        }
    }

    private void routeSlice(int p) {
        CombinedWrites w = routed;
        int first = routeFrom;
        int count = routeTo - first;
        int from = first + (int) ((long) count * p / routeSlices);
        int to = first + (int) ((long) count * (p + 1) / routeSlices);
        KeyLayout kl = layout;
        byte[] k = keys;
        long[] ek = endpointKey;
        int[] eo = endpointOff;
        int[] el = endpointLen;
        for (int x = from; x < to; x++) {
            int bOff = w.beginOffset(x);
            int bLen = w.beginLength(x);
            int eOff = w.endOffset(x);
            int eLen = w.endLength(x);
            ek[2 * x] = kl.inlineOf(k, bOff, bLen);
            eo[2 * x] = bOff;
            el[2 * x] = bLen;
            ek[2 * x + 1] = kl.inlineOf(k, eOff, eLen);
            eo[2 * x + 1] = eOff;
            el[2 * x + 1] = eLen;
            int kind = keyKind(k, bOff, bLen, eOff, eLen);
            keyKind[x] = (byte) kind;
            keyBytes[x] = keyBytes(kind, bLen, eLen);
        }
        routers[p].routeRaising(ek, k, eo, el, 2 * from, 2 * to, endpointLeaf, endpointParent, endpointSlot, routeVersion);
    }

    /** The key-block bytes write {@code x}'s new keys take at most (found while routing it). */
    long newKeyBytes(int x) {
        return keyBytes[x];
    }

    /**
     * Which of write {@code [b, e)}'s keys need a chunk of their own if new ({@link #END_CHUNK}, {@link #BEGIN_CHUNK}):
     * k\0 in one, k sharing it ({@link #POINT_SHARE}); any other key too long to be inline in its own.
     */
    static int keyKind(byte[] k, int bOff, int bLen, int eOff, int eLen) {
        boolean eChunk = !KeyRefs.fitsInline(k, eOff, eLen);
        boolean share = eChunk && eLen == bLen + 1 && k[eOff + bLen] == 0 && Arrays.equals(k, bOff, bOff + bLen, k, eOff, eOff + bLen);
        boolean bChunk = !share && !KeyRefs.fitsInline(k, bOff, bLen);
        return (eChunk ? END_CHUNK : 0) | (bChunk ? BEGIN_CHUNK : 0) | (share ? POINT_SHARE : 0);
    }

    /** The key-block bytes the chunks {@code kind} names take, for a begin and an end of these lengths. */
    static long keyBytes(int kind, int bLen, int eLen) {
        return ((kind & END_CHUNK) != 0 ? KeyArena.chunkBytes(eLen) : 0) + ((kind & BEGIN_CHUNK) != 0 ? KeyArena.chunkBytes(bLen) : 0);
    }

    /**
     * The chunk (or inline reference) of every write's begin and end, as a single write would store
     * them, taken from the arena in key order (so the arena ends the same whatever the threads): only the arena's
     * part is here, which keys need a chunk was found while routing ({@link #keyKind}); the partitions write their
     * own writes' chunks ({@link #fillKeys}) before they use them.
     */
    private void makeKeys(CombinedWrites w, int from, int to) {
        int m = w.count();
        if (beginRef.length < m) {
            int n = Math.max(m, beginRef.length * 2);
            beginRef = new int[n];
            endRef = new int[n];
            beginUsed = new boolean[n];
            endUsed = new boolean[n];
            pointShare = new boolean[n];
        }
        KeyArena arena = store.arena;
        byte[] kind = keyKind;
        for (int x = from; x < to; x++) {
            int k = kind[x];
            int eRef = (k & END_CHUNK) != 0 ? KeyRefs.arenaRef(arena.reserve(w.endLength(x)), false) : KeyRefs.inline(w.endLength(x));
            boolean share = (k & POINT_SHARE) != 0;
            int bRef = share ? eRef | 1
                    : (k & BEGIN_CHUNK) != 0 ? KeyRefs.arenaRef(arena.reserve(w.beginLength(x)), false) : KeyRefs.inline(w.beginLength(x));
            beginRef[x] = bRef;
            endRef[x] = eRef;
            pointShare[x] = share;
            beginUsed[x] = false;
            endUsed[x] = false;
        }
    }

    /** Writes the chunks {@link #makeKeys} took for writes {@code [from, to)} (by the partition that holds them). */
    void fillKeys(int from, int to) {
        CombinedWrites w = applying;
        KeyArena arena = store.arena;
        byte[] k = keys;
        for (int x = from; x < to; x++) {
            int eRef = endRef[x];
            if (eRef >= 0) {
                arena.fill(eRef >>> 1, k, w.endOffset(x), w.endLength(x), pointShare[x] ? 2 : 1);
            }
            int bRef = beginRef[x];
            if (bRef >= 0 && !pointShare[x]) {
                arena.fill(bRef >>> 1, k, w.beginOffset(x), w.beginLength(x), 1);
            }
        }
    }

    /**
     * Cuts writes {@code [from, to)} into partitions of at least {@link #writesPerPart} writes, at the points nearest
     * to equal shares where the write before ends under another leaf parent than the next one begins (so no
     * write and no leaf parent is shared by two partitions).
     */
    private void cut(int from, int to) {
        int wanted = workers == null ? 1 : Math.min(parts.length, Math.max(1, (to - from) / writesPerPart));
        if (partStart.length < wanted + 1) {
            partStart = new int[wanted + 1];
        }
        int count = 0;
        partStart[count++] = from;
        int[] parent = endpointParent;
        for (int p = 1; p < wanted; p++) {
            int target = from + (int) ((long) (to - from) * p / wanted);
            int at = Math.max(target, partStart[count - 1] + 1);
            while (at < to && parent[2 * at - 1] == parent[2 * at]) {
                at++;
            }
            if (at >= to) {
                break;
            }
            partStart[count++] = at;
        }
        partStart[count] = to;
        partCount = count;
    }

    /** The version of the last entry before {@code leaf}, before the phase (GAP if none). */
    private int lastVersionBefore(int leaf) {
        NodeStore s = store;
        for (int h = s.leafPrev(leaf); h != NodeStore.NIL; h = s.leafPrev(h)) {
            int n = s.leafCount(h);
            if (n > 0) {
                return NodeStore.ver(s.lVerRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * s.leafCap + n - 1]);
            }
        }
        return NodeStore.GAP;
    }

    /**
     * After the phase, by one thread, in key order: the retains, the separators of siblings that took entries,
     * every split's pointer in its parent, the releases, and the chunks made for keys that already existed.
     */
    private void publish(int from, int to) {
        NodeStore s = store;
        KeyArena arena = s.arena;
        for (int p = 0; p < partCount; p++) {
            PartitionWriter pw = parts[p];
            s.madeSuffixKey(pw.longestSuffixMade);
            for (int i = 0; i < pw.siblingUpdates; i++) {
                pw.updateRef[i] = madePending(pw, pw.updateRef[i]);
            }
            for (int i = 0; i < pw.installs; i++) {
                pw.installRef[i] = madePending(pw, pw.installRef[i]);
            }
        }
        for (int p = 0; p < partCount; p++) {
            PartitionWriter pw = parts[p];
            for (int i = 0; i < pw.retains; i++) {
                arena.retain(pw.retained[i] >>> 1);
            }
        }
        for (int p = 0; p < partCount; p++) {
            PartitionWriter pw = parts[p];
            for (int i = 0; i < pw.siblingUpdates; i++) {
                int parent = pw.updateParent[i];
                int at = (parent & CHUNK_MASK) * s.innerCap + pw.updateSlot[i];
                int c = parent >>> CHUNK_SHIFT;
                layout.inner.replace(parent, pw.updateSlot[i], pw.updateKey[i], pw.updateRef[i]);
                s.iMax[c][at] = Math.max(s.iMax[c][at], s.leafMax(pw.updateLeaf[i]));
                siblingsUpdated++;
            }
        }
        installSplits();
        for (int p = 0; p < partCount; p++) {
            PartitionWriter pw = parts[p];
            s.arena.releaseAll(pw.released, 0, pw.releases);
        }
        for (int x = from; x < to; x++) {
            if (!beginUsed[x]) {
                s.releaseRef(beginRef[x]);
            }
            if (!endUsed[x]) {
                s.releaseRef(endRef[x]);
            }
        }
    }

    /** {@code ref}, or the chunk made for it when it is one of {@code pw}'s pending separators. */
    private int madePending(PartitionWriter pw, int ref) {
        if (!PartitionWriter.isPending(ref)) {
            return ref;
        }
        int i = ref - PartitionWriter.PENDING;
        return KeyRefs.arenaRef(store.arena.allocate(pw.pendingBytes, pw.pendingOff[i], pw.pendingLen[i]), false);
    }

    // ---- the second phase of the splits: their pointers in the parents, bottom-up, one rewrite per node ----

    /** Children to add at the level being registered: node, the slot they follow, separator, child, its max. */
    private PendingAdds level = new PendingAdds(64);
    /** The same for the level above, filled while a level is registered. */
    private PendingAdds above = new PendingAdds(16);
    /** A node's slots with its new children merged in. */
    private long[] mergedKey = new long[64];
    private int[] mergedRef = new int[64];
    private int[] mergedChild = new int[64];
    private int[] mergedMax = new int[64];

    /**
     * Registers every split of the phase in its parent: each parent that gains children is rewritten once, with
     * them merged in after the leaves they split from; a parent that overflows is cut into even pieces, whose
     * first separators go up to its own parent the same way, level by level (a new root when the root
     * overflows). In key order, by one thread.
     */
    private void installSplits() {
        NodeStore s = store;
        level.count = 0;
        for (int p = 0; p < partCount; p++) {
            PartitionWriter pw = parts[p];
            for (int i = 0; i < pw.installs; i++) {
                int right = pw.installRight[i];
                level.add(pw.installParent[i], pw.installAfter[i], pw.installKey[i], pw.installRef[i], right, s.leafMax(right));
                splitsInstalled++;
            }
        }
        boolean leavesBelow = true;
        while (level.count > 0) {
            above.count = 0;
            for (int i = 0; i < level.count; ) {
                int node = level.node[i];
                int j = i + 1;
                while (j < level.count && level.node[j] == node) {
                    j++;
                }
                rewrite(node, i, j, leavesBelow);
                i = j;
            }
            swapLevels();
            leavesBelow = false;
        }
    }

    private void swapLevels() {
        PendingAdds t = level;
        level = above;
        above = t;
        above.count = 0;
    }

    /**
     * Merges adds {@code [from, to)} into inner node {@code node}; if it overflows, cuts it into even pieces and
     * hands the new pieces to its parent. A child leaf that was split gets its leaf's max again.
     */
    private void rewrite(int node, int from, int to, boolean leavesBelow) {
        NodeStore s = store;
        int cap = s.innerCap;
        int c = node >>> CHUNK_SHIFT;
        int base = (node & CHUNK_MASK) * cap;
        int count = s.innerCount(node);
        int total = count + (to - from);
        if (mergedKey.length < total) {
            int n = Math.max(total, mergedKey.length * 2);
            mergedKey = new long[n];
            mergedRef = new int[n];
            mergedChild = new int[n];
            mergedMax = new int[n];
        }
        // Merged in the node's own encoding when it has a prefix of its own that every new separator has (a split under
        // a subspace: its longs are kept and only the new separators' key blocks read), else in the tree's (every
        // separator's key block read); each node written takes its own prefix after (writeSlots).
        InnerPrefixes inner = layout.inner;
        int own = inner.localSkip(node);
        for (int a = from; a < to && own != 0; a++) {
            if (!inner.hasPrefix(node, own, level.ref[a])) {
                own = 0;
            }
        }
        if (own != 0) {
            localRewrites++;
        }
        int o = 0;
        int a = from;
        for (int i = 0; i < count; i++) {
            mergedKey[o] = i == 0 || own != 0 ? s.iKey[c][base + i] : inner.globalOf(node, i);
            mergedRef[o] = s.iRef[c][base + i];
            mergedChild[o] = s.iChild[c][base + i];
            mergedMax[o] = s.iMax[c][base + i];
            if (a < to && level.after[a] == i && leavesBelow) {
                mergedMax[o] = s.leafMax(mergedChild[o]);
            }
            o++;
            while (a < to && level.after[a] == i) {
                mergedKey[o] = own != 0 ? inner.localOf(level.ref[a], own) : level.key[a];
                mergedRef[o] = level.ref[a];
                mergedChild[o] = level.child[a];
                mergedMax[o] = level.max[a];
                o++;
                a++;
            }
        }
        if (a != to) {
            throw new IllegalStateException("a split follows slot " + level.after[a] + " of a node of " + count + " children");
        }
        if (total <= cap) {
            writeSlots(node, 0, total, own);
            return;
        }
        // Even pieces; the node keeps the first, each other piece's first separator goes up.
        int pieces = (total + cap - 1) / cap;
        int parent;
        int slotInParent;
        if (node == s.root) {
            int r = s.allocInner();
            s.setInnerSlot(r, 0, 0, KeyRefs.EMPTY, node, Integer.MIN_VALUE);
            s.setInnerCount(r, 1);
            s.root = r;
            s.height++;
            parent = r;
            slotInParent = 0;
        } else {
            long key = level.key[from];
            scratch = layout.fit(scratch, level.ref[from]);
            int len = layout.materialize(key, level.ref[from], scratch);
            parent = parentOf(node, key, scratch, len);
            slotInParent = search.childSlot(parent, key, scratch, 0, len);
        }
        int start = 0;
        for (int q = 0; q < pieces; q++) {
            int end = (int) ((long) total * (q + 1) / pieces);
            int target = q == 0 ? node : s.allocInner();
            int upRef = mergedRef[start];
            long upKey = own != 0 && q > 0 ? inner.globalOfRef(upRef) : mergedKey[start];
            if (q > 0) {
                mergedKey[start] = 0;
                mergedRef[start] = KeyRefs.EMPTY;
            }
            writeSlots(target, start, end, own);
            if (q > 0) {
                above.add(parent, slotInParent, upKey, upRef, target, s.maxOfInner(target));
            }
            start = end;
        }
        int pc = parent >>> CHUNK_SHIFT;
        s.iMax[pc][(parent & CHUNK_MASK) * cap + slotInParent] = s.maxOfInner(node);
    }

    /**
     * Writes merged slots {@code [from, to)}, their longs skipping {@code own} bytes (0: the tree's encoding), as the whole
     * of inner node {@code node}.
     */
    private void writeSlots(int node, int from, int to, int own) {
        NodeStore s = store;
        int c = node >>> CHUNK_SHIFT;
        int base = (node & CHUNK_MASK) * s.innerCap;
        int n = to - from;
        System.arraycopy(mergedKey, from, s.iKey[c], base, n);
        System.arraycopy(mergedRef, from, s.iRef[c], base, n);
        System.arraycopy(mergedChild, from, s.iChild[c], base, n);
        System.arraycopy(mergedMax, from, s.iMax[c], base, n);
        s.setInnerCount(node, n);
        layout.inner.encodedAt(node, own);
    }

    /** The inner node whose child is {@code node}, found by a descent for a key inside node's range. */
    private int parentOf(int node, long kp, byte[] key, int len) {
        NodeStore s = store;
        int at = s.root;
        for (int level = s.height; ; level--) {
            int child = s.child(at, search.childSlot(at, kp, key, 0, len));
            if (child == node) {
                return at;
            }
            if (level <= 1) {
                throw new IllegalStateException("inner node " + node + " is not on the path of its own key");
            }
            at = child;
        }
    }

    long sink() {
        long t = 0;
        for (PartitionWriter p : parts) {
            t += p.sink();
        }
        return t;
    }

    /**
     * Children waiting to be added to inner nodes of one level, in parallel arrays (no object per add): the level
     * being registered and the one above it swap once a level is done.
     */
    private static final class PendingAdds {
        int count;
        int[] node;
        int[] after;
        long[] key;
        int[] ref;
        int[] child;
        int[] max;

        PendingAdds(int capacity) {
            node = new int[capacity];
            after = new int[capacity];
            key = new long[capacity];
            ref = new int[capacity];
            child = new int[capacity];
            max = new int[capacity];
        }

        void add(int node, int after, long key, int ref, int child, int max) {
            if (count == this.node.length) {
                int n = count * 2;
                this.node = Arrays.copyOf(this.node, n);
                this.after = Arrays.copyOf(this.after, n);
                this.key = Arrays.copyOf(this.key, n);
                this.ref = Arrays.copyOf(this.ref, n);
                this.child = Arrays.copyOf(this.child, n);
                this.max = Arrays.copyOf(this.max, n);
            }
            this.node[count] = node;
            this.after[count] = after;
            this.key[count] = key;
            this.ref[count] = ref;
            this.child[count] = child;
            this.max[count] = max;
            count++;
        }
    }
}
