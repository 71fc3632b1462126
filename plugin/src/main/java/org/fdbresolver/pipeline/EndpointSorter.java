package org.fdbresolver.pipeline;

import java.util.Arrays;
import org.fdbresolver.api.Keys;

/**
 * Sorts a batch's range endpoints (keys in the batch's key region) and numbers the distinct keys in
 * order, so that ranges become runs of elementary intervals for {@link MiniConflictSet}. Each endpoint
 * carries an order-preserving {@code long} of its 8 bytes that follow the batch's common prefix (the
 * longest prefix every endpoint shares, {@link #commonPrefixLength()}), so most comparisons are one
 * {@code long} compare even when all keys begin alike. Arrays are reused and grow only past the
 * largest batch so far.
 */
final class EndpointSorter {
    private static final int INSERTION_SORT = 16;

    private int count;
    private int[] offset = new int[256];
    private int[] length = new int[256];
    private long[] prefix = new long[256];
    private int[] order = new int[256];
    private int[] rank = new int[256];
    /** The caller's tag of each endpoint ({@link #add(int, int, int)}). */
    private int[] tag = new int[256];
    private int distinct;
    /** The endpoint index holding each distinct key, by rank. */
    private int[] byRank = new int[256];
    private byte[] keys;
    /** The bytes after which the sort keys start: the common prefix when that is 8 bytes or more, else 0. */
    private int common;
    /** Bits in which some endpoint's first 8 bytes differ from the first endpoint's. */
    private long differ;
    private int minLength;

    void reset(byte[] keys) {
        this.keys = keys;
        count = 0;
        common = 0;
        differ = 0;
        minLength = Integer.MAX_VALUE;
    }

    /**
     * The bytes the sort keys skip (valid after {@link #sort()}): the longest prefix all endpoints share
     * when that is at least 8 bytes, else 0 (the first 8 bytes then differ somewhere, and sorting on
     * them is as good).
     */
    int commonPrefixLength() {
        return common;
    }

    /**
     * When every endpoint is at least 8 bytes long and all share their first 8, finds how far they all
     * agree (a vectorized mismatch against the first key, over a shrinking length) and re-derives the
     * sort keys from the bytes after that.
     */
    private void skipCommonPrefix() {
        common = 0;
        if (count < 2 || differ != 0 || minLength < 8) {
            return;
        }
        int first = offset[0];
        int c = minLength;
        for (int i = 1; i < count && c > 8; i++) {
            int m = Arrays.mismatch(keys, first + 8, first + c, keys, offset[i] + 8, offset[i] + c);
            if (m >= 0) {
                c = 8 + m;
            }
        }
        common = c;
        for (int i = 0; i < count; i++) {
            prefix[i] = Keys.orderedPrefix(keys, offset[i] + c, length[i] - c);
        }
    }

    /** Adds an endpoint; returns its id (ranks are read with {@link #rank(int)} after {@link #sort()}). */
    int add(int off, int len) {
        return add(off, len, -1);
    }

    /** Adds an endpoint with a tag the caller reads back in sorted order ({@link #tagAt}). */
    int add(int off, int len, int tagValue) {
        if (count == offset.length) {
            int n = count * 2;
            tag = Arrays.copyOf(tag, n);
            offset = Arrays.copyOf(offset, n);
            length = Arrays.copyOf(length, n);
            prefix = Arrays.copyOf(prefix, n);
            order = Arrays.copyOf(order, n);
            rank = Arrays.copyOf(rank, n);
            byRank = Arrays.copyOf(byRank, n);
        }
        int id = count++;
        tag[id] = tagValue;
        offset[id] = off;
        length[id] = len;
        order[id] = id;
        long p = Keys.orderedPrefix(keys, off, len);
        prefix[id] = p;
        differ |= p ^ prefix[0];
        minLength = Math.min(minLength, len);
        return id;
    }

    void sort() {
        skipCommonPrefix();
        radixSortByPrefix();
        distinct = 0;
        for (int i = 0; i < count; i++) {
            int id = order[i];
            if (i == 0 || compare(order[i - 1], id) != 0) {
                byRank[distinct++] = id;
            }
            rank[id] = distinct - 1;
        }
    }

    int rank(int id) {
        return rank[id];
    }

    /** Endpoints added since the last reset. */
    int count() {
        return count;
    }

    /** The tag of the endpoint at {@code position} in sorted order (valid after {@link #sort()}). */
    int tagAt(int position) {
        return tag[order[position]];
    }

    int distinctCount() {
        return distinct;
    }

    int keyOffset(int rank) {
        return offset[byRank[rank]];
    }

    int keyLength(int rank) {
        return length[byRank[rank]];
    }

    private int[] scratchOrder = new int[256];
    private long[] sortKeys = new long[256];
    private long[] scratchKeys = new long[256];
    private final int[] counts = new int[257];

    /**
     * LSD radix sort of the endpoints by their 8 bytes after the common prefix, one pass per byte that
     * differs between them, then the few runs of equal prefixes sorted by the
     * full comparison.
     */
    private void radixSortByPrefix() {
        int n = count;
        if (sortKeys.length < n) {
            sortKeys = new long[offset.length];
            scratchKeys = new long[offset.length];
            scratchOrder = new int[offset.length];
        }
        long[] k = sortKeys;
        long[] k2 = scratchKeys;
        int[] o = order;
        int[] o2 = scratchOrder;
        long differ = 0;
        for (int i = 0; i < n; i++) {
            k[i] = prefix[i] ^ Long.MIN_VALUE;
            o[i] = i;
            differ |= k[i] ^ k[0];
        }
        int[] cnt = counts;
        for (int shift = 0; shift < 64; shift += 8) {
            if (((differ >>> shift) & 0xFF) == 0) {
                continue;
            }
            Arrays.fill(cnt, 0);
            for (int i = 0; i < n; i++) {
                cnt[(int) ((k[i] >>> shift) & 0xFF) + 1]++;
            }
            for (int d = 0; d < 256; d++) {
                cnt[d + 1] += cnt[d];
            }
            for (int i = 0; i < n; i++) {
                int d = (int) ((k[i] >>> shift) & 0xFF);
                int at = cnt[d]++;
                k2[at] = k[i];
                o2[at] = o[i];
            }
            long[] tk = k;
            k = k2;
            k2 = tk;
            int[] to = o;
            o = o2;
            o2 = to;
        }
        if (o != order) {
            System.arraycopy(o, 0, order, 0, n);
        }
        // Equal prefixes: order by the rest of the key.
        int[] ord = order;
        for (int i = 1; i < n; ) {
            if (prefix[ord[i]] != prefix[ord[i - 1]]) {
                i++;
                continue;
            }
            int start = i - 1;
            int end = i + 1;
            while (end < n && prefix[ord[end]] == prefix[ord[start]]) {
                end++;
            }
            if (end - start > 1) {
                insertionSort(start, end - 1);
            }
            i = end;
        }
    }

    private void insertionSort(int lo, int hi) {
        if (hi - lo > INSERTION_SORT) {
            quicksort(lo, hi);
            return;
        }
        int[] o = order;
        for (int i = lo + 1; i <= hi; i++) {
            int x = o[i];
            int j = i - 1;
            while (j >= lo && compare(o[j], x) > 0) {
                o[j + 1] = o[j];
                j--;
            }
            o[j + 1] = x;
        }
    }

    private int compare(int a, int b) {
        long pa = prefix[a];
        long pb = prefix[b];
        if (pa != pb) {
            return pa < pb ? -1 : 1;
        }
        // Equal bytes in [common, common + 8): a key that ends within them is a prefix of the other.
        int from = common + 8;
        int la = length[a];
        int lb = length[b];
        if (la <= from || lb <= from) {
            return Integer.compare(la, lb);
        }
        return Arrays.compareUnsigned(keys, offset[a] + from, offset[a] + la, keys, offset[b] + from, offset[b] + lb);
    }

    private void quicksort(int lo, int hi) {
        int[] o = order;
        while (hi - lo > INSERTION_SORT) {
            int mid = (lo + hi) >>> 1;
            // Median of three as the pivot.
            if (compare(o[mid], o[lo]) < 0) {
                swap(o, mid, lo);
            }
            if (compare(o[hi], o[lo]) < 0) {
                swap(o, hi, lo);
            }
            if (compare(o[hi], o[mid]) < 0) {
                swap(o, hi, mid);
            }
            int pivot = o[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (compare(o[i], pivot) < 0) {
                    i++;
                }
                while (compare(o[j], pivot) > 0) {
                    j--;
                }
                if (i <= j) {
                    swap(o, i++, j--);
                }
            }
            // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
            if (j - lo < hi - i) {
                quicksort(lo, j);
                lo = i;
            } else {
                quicksort(i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            int x = o[i];
            int j = i - 1;
            while (j >= lo && compare(o[j], x) > 0) {
                o[j + 1] = o[j];
                j--;
            }
            o[j + 1] = x;
        }
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
