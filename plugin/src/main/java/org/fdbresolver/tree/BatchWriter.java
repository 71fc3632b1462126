package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

import java.util.Arrays;
import org.fdbresolver.pipeline.CombinedWrites;

/**
 * A batch's combined writes (sorted, disjoint) applied together ({@link #plan}, {@link #apply}): routed
 * to their leaves in one partitioned descent, then applied in key order one run per destination leaf —
 * a descent with proactive split preparation ({@link TreeWriter#descendForInsert}), then every
 * following write inside the leaf's key range merged with the leaf's entries in one pass; an overflowing
 * run hands entries to the right sibling or splits the leaf once; a write that reaches past its leaf
 * takes {@link TreeWriter}'s single-write path. Before a block of {@code ways} writes is applied, the
 * cache lines their runs will need are loaded together, in stages ({@link WriteAhead}), so that the misses
 * of the block overlap instead of each write waiting for its own. Every step is checked against the
 * budget first ({@link MemoryBudget#ensureRoom}).
 */
final class BatchWriter {
    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final TreeWriter writer;
    private final int[] pathNode;
    private final int[] pathIdx;

    // ---- the batch's endpoints (begin 2i, end 2i + 1), encoded and routed ----
    private final BatchRouter router;
    private final MemoryBudget budget;
    private long[] endpointKey = new long[128];
    private int[] endpointOff = new int[128];
    private int[] endpointLen = new int[128];
    private int[] endpointLeaf = new int[128];
    private int[] endpointParent = new int[128];
    private int[] endpointSlot = new int[128];
    /** Loads ahead the lines of a block of writes ({@link #ways} of them). */
    private final WriteAhead ahead;
    /** Key-block bytes of the writes before write i (prefix sums, for the per-run budget check). */
    private long[] keyBytesBefore = new long[65];
    /** One leaf's run of writes merged with its entries, the loop the partitions' writer shares. */
    private final RunMerge merge;
    /** This writer's side of a merge: keys stored now, references released at once. */
    private final RunMerge.Keys mergeKeys = new MergeKeys();
    private final LeafEntries entries;
    private int plannedWrites;
    /** The layout epoch the endpoints were encoded in ({@link KeyLayout#epoch}). */
    private int encodedEpoch;
    private long plannedLeaves;
    private long plannedKeyBytes;

    /** Writes whose leaves are loaded ahead together ({@link WriteAhead}); 0 or 1: none. */
    private final int ways;
    /** Partitions applied at once (null: never), from this many writes on. */
    private PartitionedApply partitioned;
    private int partitionFromWrites = Integer.MAX_VALUE;
    /** Whether the planned batch is applied by partitions: every endpoint routed, maxima raised on the way. */
    private boolean partitionPlan;
    private int plannedVersion;
    /** Evictions and forgotten batches when the batch was planned: a change means the route is stale. */
    private long budgetStepsAtPlan;
    /** Batches applied by partitions, and their splits registered after the phase. */
    private long partitionedBatches;

    BatchWriter(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, MemoryBudget budget,
                TreeWriter writer, LeafEntries entries, int ways) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.budget = budget;
        this.writer = writer;
        this.pathNode = writer.pathNode;
        this.pathIdx = writer.pathIdx;
        this.ways = ways;
        this.router = new BatchRouter(store, layout);
        this.entries = entries;
        this.merge = new RunMerge(store, layout, search, versions, entries);
        this.ahead = new WriteAhead(store);
    }

    /**
     * Batches of at least {@code fromWrites} combined writes are applied by {@code partitioned}, in key-disjoint
     * partitions at once (the choice depends on the batch alone, never on the threads).
     */
    void usePartitions(PartitionedApply partitioned, int fromWrites) {
        this.partitioned = partitioned;
        this.partitionFromWrites = fromWrites;
    }

    /**
     * Whether the plan routed every endpoint's parent as well as its leaf (only when the tree had inner nodes): the
     * one-thread writer's loads ahead ({@link WriteAhead}) read the parents only then. A root that splits during the
     * batch gives the tree inner nodes the plan never saw, and the arrays hold an older batch's parents.
     */
    private boolean parentsRouted;
    /**
     * Whether the plan's routes still point into the tree: false once making room forgot everything (the pools start
     * again, and a route may point past them), when the loads ahead stop.
     */
    private boolean routesCurrent;

    /**
     * Admits every endpoint of {@code w} to the shared prefix, encodes them and routes them to their
     * leaves in one partitioned descent ({@link BatchRouter}); then estimates what applying the batch
     * adds: for each destination leaf, the leaves its entries will need beyond itself, and the key-block
     * bytes of the new keys and of a separator per new leaf. A batch for the partitions has its ends routed
     * too, and the maxima on every route raised to relative version {@code v}.
     */
    void plan(CombinedWrites w, int v) {
        NodeStore s = store;
        int m = w.count();
        ensureEndpoints(m);
        byte[] keys = w.keys();
        long[] ek = endpointKey;
        int[] eo = endpointOff;
        int[] el = endpointLen;
        plannedWrites = m;
        partitionPlan = partitioned != null && m >= partitionFromWrites && s.height > 0;
        plannedVersion = v;
        budgetStepsAtPlan = budget.evictions() + budget.forgottenBatches();
        if (partitionPlan) {
            // Encoded, key bytes counted and routed in slices across the threads.
            admit(w);
            partitioned.encodeAndRoute(w, ek, eo, el, keyBytesBefore, endpointLeaf, endpointParent, endpointSlot, v);
            encodedEpoch = layout.epoch();
        } else {
            encode(w, 0);
            for (int x = 0; x < m; x++) {
                keyBytesBefore[x] = newKeyBytes(keys, w.beginOffset(x), w.beginLength(x), w.endOffset(x), w.endLength(x));
            }
        }
        long keyBytes = 0;
        for (int x = 0; x < m; x++) {
            long b = keyBytesBefore[x];
            keyBytesBefore[x] = keyBytes;
            keyBytes += b;
        }
        keyBytesBefore[m] = keyBytes;
        if (!partitionPlan) {
            // The begins only (endpoints 2i, stride 2): a write's end lands in its begin's leaf but for the few
            // that reach past it, and the estimate counts both of its entries in the begin's leaf.
            router.route(ek, keys, eo, el, 2 * m, 2, endpointLeaf, s.height > 0 ? endpointParent : null, endpointSlot);
        }
        parentsRouted = s.height > 0;
        routesCurrent = true;
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
        plannedKeyBytes = keyBytes + budget.separatorBytesBound(leaves);
    }

    /** Admits every endpoint of {@code w} to the shared prefix (which may shorten it, re-encoding the tree). */
    private void admit(CombinedWrites w) {
        KeyLayout kl = layout;
        byte[] keys = w.keys();
        for (int x = 0, m = w.count(); x < m; x++) {
            kl.admit(keys, w.beginOffset(x), w.beginLength(x));
            kl.admit(keys, w.endOffset(x), w.endLength(x));
        }
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
    static long newKeyBytes(byte[] keys, int bOff, int bLen, int eOff, int eLen) {
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
        if (partitionPlan && v == plannedVersion && applyInPartitions(w, v)) {
            partitionedBatches++;
            return true;
        }
        long[] ek = endpointKey;
        int cap = s.leafCap;
        int i = 0;
        int prefetched = 0;
        while (i < m) {
            if (ways > 1 && i >= prefetched && routesCurrent) {
                prefetched = Math.min(m, i + ways);
                // The leaves of the plan's route (the slots' maxima too: a run raises them).
                ahead.load(i, prefetched, endpointLeaf, parentsRouted ? endpointParent : null, endpointSlot, true);
            }
            // The most the next step can add: a run of at most a leaf's worth of writes splitting its leaf
            // once, or a single write splitting two leaves, with inner splits on the way down; and the chunks
            // of suffix keys in the leaves it lowers (LeafPrefixes).
            long keyBound = keyBytesBefore[Math.min(m, i + cap)] - keyBytesBefore[i] + 2 * separatorBytes()
                    + layout.leaf.loweringBytesBound();
            if (!budget.ensureRoom(now, 2, 2L * (s.height + 2), keyBound, laterBytes(i))) {
                return false;
            }
            if (layout.epoch() != encodedEpoch) {
                encode(w, i); // making room forgot everything, the shared prefix with it
                routesCurrent = false;
            }
            int leaf = writer.descendForInsert(ek[2 * i], keys, w.beginOffset(i), w.beginLength(i));
            // The leaf's upper fence: the separator after the path at the lowest level that has one.
            boolean fenced = false;
            long fenceKey = 0;
            int fenceRef = 0;
            for (int level = s.height - 1; level >= 0; level--) {
                int node = pathNode[level];
                int slot = pathIdx[level] + 1;
                if (slot < s.innerCount(node)) {
                    int at = (node & CHUNK_MASK) * s.innerCap + slot;
                    fenceKey = layout.inner.globalOf(node, slot);
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
                writer.merge(keys, w.beginOffset(i), w.beginLength(i), w.endOffset(i), w.endLength(i), v);
                i++;
            } else {
                applyRun(w, leaf, i, j, v);
                i = j;
            }
        }
        return true;
    }

    long partitionedBatches() {
        return partitionedBatches;
    }

    /**
     * The partitions' counters (tests): batches cut into several, splits installed, siblings updated, parents rewritten
     * in their own encoding; null without.
     */
    long[] partitionCounters() {
        return partitioned == null ? null
                : new long[] {partitioned.multiPartBatches, partitioned.splitsInstalled, partitioned.siblingsUpdated,
                        partitioned.localRewrites};
    }

    /**
     * The partitions' way ({@link PartitionedApply}); false, having changed nothing but raised maxima, when the
     * budget has no room for the most it can add.
     */
    private boolean applyInPartitions(CombinedWrites w, int v) {
        int m = w.count();
        if (budget.evictions() + budget.forgottenBatches() != budgetStepsAtPlan || layout.epoch() != encodedEpoch) {
            // Making room for the batch changed the tree since it was routed: route it again.
            if (layout.epoch() != encodedEpoch) {
                encode(w, 0);
            }
            if (store.height == 0) {
                return false;
            }
            router.routeRaising(endpointKey, w.keys(), endpointOff, endpointLen, 0, 2 * m, endpointLeaf, endpointParent,
                    endpointSlot, v);
        }
        return partitioned.apply(w, v, endpointKey, endpointOff, endpointLen, endpointLeaf, endpointParent, endpointSlot,
                keyBytesBefore[m]);
    }

    /** Whether endpoint {@code x} lies below the fence separator. */
    private boolean below(int x, byte[] keys, long fenceKey, int fenceRef) {
        long p = endpointKey[x];
        return p != fenceKey ? p < fenceKey : layout.tail(keys, endpointOff[x], endpointLen[x], fenceRef) < 0;
    }

    private long separatorBytes() {
        return budget.separatorBytesBound(1);
    }

    /** The planned bytes of the writes from {@code i} on (what later steps will still need). */
    private long laterBytes(int i) {
        int m = Math.max(1, plannedWrites);
        long share = (plannedLeaves + plannedInners()) * store.nodeBytes * (m - i) / m;
        return share + keyBytesBefore[plannedWrites] - keyBytesBefore[Math.min(i, plannedWrites)];
    }

    /**
     * Merges writes {@code [i, j)} (all inside {@code leaf}'s key range, the last descent's leaf) with the leaf's entries
     * in one pass ({@link RunMerge}); an overflowing result is spilled ({@link #overflow}).
     */
    private void applyRun(CombinedWrites w, int leaf, int i, int j, int v) {
        if (merge.apply(leaf, w.keys(), endpointKey, endpointOff, endpointLen, i, j, v, store, mergeKeys)) {
            writer.raiseMax(leaf, v);
            return;
        }
        overflow(leaf, merge.first, merge.outLen, v);
    }

    /** {@link RunMerge}'s keys for the one thread: chunks made as the keys are stored, references released at once. */
    private final class MergeKeys implements RunMerge.Keys {
        @Override
        public int endRef(int x, int local, byte[] keys) {
            return layout.leaf.storeKey(local, keys, endpointOff[2 * x + 1], endpointLen[2 * x + 1]);
        }

        @Override
        public int beginRef(int x, int local, int endRef, byte[] keys) {
            int bOff = endpointOff[2 * x];
            int bLen = endpointLen[2 * x];
            int eOff = endpointOff[2 * x + 1];
            // A point write [k, k\0): the begin shares the end's chunk (its bytes but the last).
            if (endRef >= 0 && endpointLen[2 * x + 1] == bLen + 1 && keys[eOff + bLen] == 0
                    && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
                store.arena.retain(endRef >>> 1);
                return endRef | 1;
            }
            return layout.leaf.storeKey(local, keys, bOff, bLen);
        }

        @Override
        public void release(int ref) {
            store.releaseRef(ref);
        }

        @Override
        public int versionBefore(int leaf) {
            return search.lastVersionFrom(store.leafPrev(leaf));
        }
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
                    entries.spillToSibling(leaf, first, merge.out, outLen, right, move, s);
                    int pc = parent >>> CHUNK_SHIFT;
                    int pb = (parent & CHUNK_MASK) * s.innerCap;
                    s.iMax[pc][pb + slot] = s.leafMax(leaf);
                    s.iMax[pc][pb + slot + 1] = s.leafMax(right);
                    s.releaseRef(s.iRef[pc][pb + slot + 1]);
                    writer.separatorBetween(leaf, right);
                    layout.inner.replace(parent, slot + 1, writer.sepKeyOut, writer.sepRefOut);
                    raiseAncestors(height - 1, v);
                    return;
                }
            }
        }
        int right = s.allocLeaf();
        entries.spillToNew(leaf, first, merge.out, outLen, right, s);
        s.linkAfter(leaf, right);
        writer.separatorBetween(leaf, right);
        writer.registerRight(leaf, s.leafMax(leaf), right, s.leafMax(right), writer.sepKeyOut, writer.sepRefOut);
        raiseAncestors(s.height - 1, v);
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
}
