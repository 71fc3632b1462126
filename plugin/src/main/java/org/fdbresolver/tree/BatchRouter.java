package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

/**
 * Routes a sorted sequence of search keys to the leaves whose key ranges hold them, all in one descent,
 * by recursive partitioning: at an inner node, the middle child boundary (separator) is located among
 * the keys by binary search, splitting both the keys and the boundaries into two smaller problems;
 * a side with no keys is dropped, a slice of keys with no boundary left belongs to one child and goes
 * down into it. Each separator is compared against a logarithmic number of keys of its slice instead of
 * every key being compared against a logarithmic number of separators. Equal keys go right (a key equal
 * to a separator belongs to that separator's child), so equal keys stay together.
 *
 * <p>Read-only: the tree must not change while a route is in use. Keys are given as parallel arrays of
 * inline longs, offsets and search lengths ({@link KeyLayout#searchLength}).
 */
final class BatchRouter {
    private final NodeStore store;
    private final KeyLayout layout;

    // the current call's input and output
    private long[] kp;
    private byte[] keys;
    private int[] off;
    private int[] len;
    private int[] leafOut;
    private int[] parentOut;
    private int[] slotOut;
    /**
     * The keys re-encoded for a node with a prefix of its own ({@link InnerPrefixes}), at the same indices: a node
     * writes only its own slice, and its parent no longer needs that slice once it is handed down.
     */
    private long[] localKp = new long[64];
    private int[] localLen = new int[64];

    BatchRouter(NodeStore store, KeyLayout layout) {
        this.store = store;
        this.layout = layout;
    }

    /** Parents of leaves reached by {@link #routeToParents}: node, and the slice of keys below it. */
    private int[] parentNode = new int[64];
    private int[] parentLo = new int[64];
    private int[] parentHi = new int[64];
    private int parents;
    private boolean stopAtParents;
    /** Key {@code i} of the slices is at index {@code i * stride} of the arrays. */
    private int stride = 1;
    /** While routing, every inner slot a key passes through is raised to at least this version (GAP: none). */
    private int raiseTo = NodeStore.GAP;

    /**
     * For each key {@code i} in {@code [0, n)} (sorted ascending), its leaf into {@code leafOut[i]} and,
     * when the tree has inner nodes and {@code parentOut} is not null, the leaf's parent and slot.
     */
    void route(long[] kp, byte[] keys, int[] off, int[] len, int n, int[] leafOut, int[] parentOut, int[] slotOut) {
        route(kp, keys, off, len, n, 1, leafOut, parentOut, slotOut);
    }

    /**
     * Like {@link #route}, for the keys at indices {@code 0, stride, 2 stride, ...} below {@code n} (the
     * others are left alone).
     */
    void route(long[] kp, byte[] keys, int[] off, int[] len, int n, int stride, int[] leafOut, int[] parentOut,
               int[] slotOut) {
        start(kp, keys, off, len, leafOut, parentOut, slotOut, false);
        this.stride = stride;
        int count = (n + stride - 1) / stride;
        if (count > 0) {
            routeNode(store.root, store.height, 0, count);
        }
        this.stride = 1;
        this.keys = null;
    }

    /**
     * Like {@link #route} for keys {@code [from, to)}, and raises the maximum version of every inner slot a key
     * passes through to at least {@code version}: a batch's writes at {@code version} will land below those slots
     * (maxima are upper bounds, so raising them before the entries arrive is safe). Several routers may route
     * slices of the same keys at once: a slot they share is raised to the same value by each.
     */
    void routeRaising(long[] kp, byte[] keys, int[] off, int[] len, int from, int to, int[] leafOut, int[] parentOut,
                      int[] slotOut, int version) {
        start(kp, keys, off, len, leafOut, parentOut, slotOut, false);
        raiseTo = version;
        try {
            if (to > from) {
                routeNode(store.root, store.height, from, to);
            }
        } finally {
            raiseTo = NodeStore.GAP;
            this.keys = null;
        }
    }

    /**
     * Like {@link #route}, but stops one level above the leaves: the parents reached and their slices
     * of keys are then {@link #parentCount()}, {@link #parentNode(int)}... and each is finished by
     * {@link #routeParent(int)} (so that a caller can load the parents' blocks before their turn). A tree
     * of height 0 is routed completely and reaches no parent.
     */
    void routeToParents(long[] kp, byte[] keys, int[] off, int[] len, int n, int[] leafOut, int[] parentOut,
                        int[] slotOut) {
        start(kp, keys, off, len, leafOut, parentOut, slotOut, true);
        parents = 0;
        if (n > 0) {
            routeNode(store.root, store.height, 0, n);
        }
    }

    int parentCount() {
        return parents;
    }

    int parentNode(int p) {
        return parentNode[p];
    }

    /** Routes the slice of keys below parent {@code p} (of {@link #routeToParents}) to their leaves. */
    void routeParent(int p) {
        int node = parentNode[p];
        partitionNode(node, 1, parentLo[p], parentHi[p]);
    }

    /** Ends a {@link #routeToParents}: drops the reference to the caller's keys. */
    void done() {
        this.keys = null;
    }

    private void start(long[] kp, byte[] keys, int[] off, int[] len, int[] leafOut, int[] parentOut, int[] slotOut,
                       boolean stopAtParents) {
        this.kp = kp;
        this.keys = keys;
        this.off = off;
        this.len = len;
        this.leafOut = leafOut;
        this.parentOut = parentOut;
        this.slotOut = slotOut;
        this.stopAtParents = stopAtParents;
        if (localKp.length < kp.length) {
            localKp = new long[kp.length];
            localLen = new int[kp.length];
        }
    }

    private void routeNode(int node, int level, int lo, int hi) {
        if (level == 1 && stopAtParents) {
            if (parents == parentNode.length) {
                int m = parents * 2;
                parentNode = java.util.Arrays.copyOf(parentNode, m);
                parentLo = java.util.Arrays.copyOf(parentLo, m);
                parentHi = java.util.Arrays.copyOf(parentHi, m);
            }
            parentNode[parents] = node;
            parentLo[parents] = lo;
            parentHi[parents] = hi;
            parents++;
            return;
        }
        if (level == 0) {
            int[] out = leafOut;
            int st = stride;
            for (int i = lo; i < hi; i++) {
                out[i * st] = node;
            }
            return;
        }
        partitionNode(node, level, lo, hi);
    }

    /** {@link #partition} over all of inner node {@code node}'s children, in the node's encoding. */
    private void partitionNode(int node, int level, int lo, int hi) {
        int skip = store.iSkip[node >>> CHUNK_SHIFT][node & CHUNK_MASK];
        if (skip == 0) {
            partition(node, level, 0, store.innerCount(node) - 1, lo, hi, kp, len, layout.skip());
            return;
        }
        InnerPrefixes inner = layout.inner;
        long[] q = localKp;
        int[] ql = localLen;
        int st = stride;
        if (sliceHasPrefix(node, skip, lo, hi)) {
            // Every key of the slice has the node's prefix: re-encoded without comparing each with it.
            for (int i = lo; i < hi; i++) {
                int x = i * st;
                q[x] = InnerPrefixes.localInline(keys, off[x], len[x], skip);
                ql[x] = len[x];
            }
            partition(node, level, 0, store.innerCount(node) - 1, lo, hi, q, ql, skip);
            return;
        }
        for (int i = lo; i < hi; i++) {
            int x = i * st;
            int l = len[x];
            if (l >= 0) {
                l = inner.localLength(node, skip, keys, off[x], l);
                q[x] = InnerPrefixes.localInline(keys, off[x], l, skip);
            } else {
                q[x] = kp[x];
            }
            ql[x] = l;
        }
        partition(node, level, 0, store.innerCount(node) - 1, lo, hi, q, ql, skip);
    }

    /**
     * Whether every key of slice {@code [lo, hi)} has local node {@code node}'s prefix of {@code skip} bytes: the keys
     * are sorted, so when the first and the last have it, every key between does (and none is a sentinel).
     */
    private boolean sliceHasPrefix(int node, int skip, int lo, int hi) {
        if (hi <= lo) {
            return false;
        }
        int a = lo * stride;
        int z = (hi - 1) * stride;
        int la = len[a];
        int lz = len[z];
        return la >= 0 && lz >= 0 && layout.inner.localLength(node, skip, keys, off[a], la) == la
                && (a == z || layout.inner.localLength(node, skip, keys, off[z], lz) == lz);
    }

    /**
     * Keys {@code [lo, hi)} all lie in children {@code a..b} of {@code node}. A slice of one or two keys
     * is searched key by key (partitioning then degenerates into the same binary search, at a higher
     * cost per step).
     */
    private void partition(int node, int level, int a, int b, int lo, int hi, long[] q, int[] ql, int skip) {
        while (true) {
            if (hi - lo <= 2 && a < b) {
                for (int i = lo; i < hi; i++) {
                    int slot = childOf(node, a, b, i, q, ql, skip);
                    raise(node, slot);
                    if (level == 1 && parentOut != null) {
                        parentOut[i * stride] = node;
                        slotOut[i * stride] = slot;
                    }
                    routeNode(store.child(node, slot), level - 1, i, i + 1);
                }
                return;
            }
            if (a == b) {
                raise(node, a);
                if (level == 1 && parentOut != null) {
                    for (int i = lo; i < hi; i++) {
                        parentOut[i * stride] = node;
                        slotOut[i * stride] = a;
                    }
                }
                routeNode(store.child(node, a), level - 1, lo, hi);
                return;
            }
            int m = (a + b + 1) >>> 1;
            int k = firstAtOrAbove(node, m, lo, hi, q, ql, skip);
            // The smaller problem by recursion, the other by looping.
            if (k > lo) {
                if (k < hi) {
                    partition(node, level, a, m - 1, lo, k, q, ql, skip);
                    a = m;
                    lo = k;
                } else {
                    b = m - 1;
                }
            } else {
                a = m;
            }
        }
    }

    private void raise(int node, int slot) {
        if (raiseTo != NodeStore.GAP) {
            int[] im = store.iMax[node >>> CHUNK_SHIFT];
            int at = (node & CHUNK_MASK) * store.innerCap + slot;
            if (im[at] < raiseTo) {
                im[at] = raiseTo;
            }
        }
    }

    /** The child of {@code node} among {@code a..b} holding key {@code i}: the last whose separator is at or below it. */
    private int childOf(int node, int a, int b, int i, long[] kps, int[] lens, int skip) {
        NodeStore s = store;
        long[] ik = s.iKey[node >>> CHUNK_SHIFT];
        int base = (node & CHUNK_MASK) * s.innerCap;
        int at = i * stride;
        long q = kps[at];
        // Branch-free steps (conditional moves): which way a probe goes is a coin toss to the branch predictor.
        int first = a + 1;
        int n = b - a;
        while (n > 0) {
            int half = n >>> 1;
            int mid = first + half;
            long sep = ik[base + mid];
            boolean atOrAbove = q > sep || q == sep && layout.tailAt(skip, keys, off[at], lens[at], s.iRef[node >>> CHUNK_SHIFT][base + mid]) >= 0;
            first = atOrAbove ? mid + 1 : first;
            n = atOrAbove ? n - half - 1 : half;
        }
        return first - 1;
    }

    /** The first key in {@code [lo, hi)} at or above separator {@code m} of {@code node} ({@code hi} if none). */
    private int firstAtOrAbove(int node, int m, int lo, int hi, long[] kps, int[] lens, int skip) {
        NodeStore s = store;
        int at = (node & CHUNK_MASK) * s.innerCap + m;
        long sep = s.iKey[node >>> CHUNK_SHIFT][at];
        int ref = s.iRef[node >>> CHUNK_SHIFT][at];
        long[] p = kps;
        int st = stride;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int x = mid * st;
            long q = p[x];
            boolean atOrAbove = q > sep || q == sep && layout.tailAt(skip, keys, off[x], lens[x], ref) >= 0;
            hi = atOrAbove ? mid : hi;
            lo = atOrAbove ? lo : mid + 1;
        }
        return lo;
    }
}
