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

    BatchRouter(NodeStore store, KeyLayout layout) {
        this.store = store;
        this.layout = layout;
    }

    /**
     * For each key {@code i} in {@code [0, n)} (sorted ascending), its leaf into {@code leafOut[i]} and,
     * when the tree has inner nodes and {@code parentOut} is not null, the leaf's parent and slot.
     */
    void route(long[] kp, byte[] keys, int[] off, int[] len, int n, int[] leafOut, int[] parentOut, int[] slotOut) {
        this.kp = kp;
        this.keys = keys;
        this.off = off;
        this.len = len;
        this.leafOut = leafOut;
        this.parentOut = parentOut;
        this.slotOut = slotOut;
        if (n > 0) {
            routeNode(store.root, store.height, 0, n);
        }
        this.keys = null;
    }

    private void routeNode(int node, int level, int lo, int hi) {
        if (level == 0) {
            int[] out = leafOut;
            for (int i = lo; i < hi; i++) {
                out[i] = node;
            }
            return;
        }
        partition(node, level, 0, store.innerCount(node) - 1, lo, hi);
    }

    /** Keys {@code [lo, hi)} all lie in children {@code a..b} of {@code node}. */
    private void partition(int node, int level, int a, int b, int lo, int hi) {
        while (true) {
            if (a == b) {
                if (level == 1 && parentOut != null) {
                    for (int i = lo; i < hi; i++) {
                        parentOut[i] = node;
                        slotOut[i] = a;
                    }
                }
                routeNode(store.child(node, a), level - 1, lo, hi);
                return;
            }
            int m = (a + b + 1) >>> 1;
            int k = firstAtOrAbove(node, m, lo, hi);
            // The smaller problem by recursion, the other by looping.
            if (k > lo) {
                if (k < hi) {
                    partition(node, level, a, m - 1, lo, k);
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

    /** The first key in {@code [lo, hi)} at or above separator {@code m} of {@code node} ({@code hi} if none). */
    private int firstAtOrAbove(int node, int m, int lo, int hi) {
        NodeStore s = store;
        int at = (node & CHUNK_MASK) * s.innerCap + m;
        long sep = s.iKey[node >>> CHUNK_SHIFT][at];
        int ref = s.iRef[node >>> CHUNK_SHIFT][at];
        long[] p = kp;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long q = p[mid];
            int c = q != sep ? (q < sep ? -1 : 1) : layout.tail(keys, off[mid], len[mid], ref);
            if (c >= 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
