package org.fdbresolver.pipeline;

import java.util.Arrays;
import org.fdbresolver.api.Keys;

/**
 * Sorts a batch's range endpoints (keys in the batch's key region) and numbers the distinct keys in
 * order, so that ranges become runs of elementary intervals for {@link MiniConflictSet}. Arrays are
 * reused and grow only past the largest batch so far.
 *
 * <p>Each endpoint carries an order-preserving {@code long} of its 8 bytes that follow the batch's
 * common prefix ({@link #commonPrefixLength()}: the leading bytes all endpoints agree on, shorter keys
 * counting as zero-padded), so keys that all begin alike — 12-byte ASCII decimal keys begin with zeros,
 * {@code skiplisttest}'s with twelve dots — still differ within their sort key. Only the bits that differ
 * between endpoints are kept ({@link Long#compress}: ASCII decimal digits vary in 4 bits of their 8), and
 * an LSD radix sort takes one pass per digit of the kept bits. When every key is whole in its sort key
 * (at most 8 bytes, or such a key and a 0x00: the end of a point range), the varying bits of the length
 * go below them, so the sort alone orders the batch; otherwise endpoints with equal sort keys are then
 * ordered by the rest of their bytes: a short run by comparison, a long one (tuple-layer keys: every endpoint of a
 * subspace ties on a sort key of subspace bytes) from its own common prefix on ({@link #refineTies}), so that the
 * bytes the whole run shares are not compared.
 *
 * <p><b>Point ends</b> ({@link #addPointEnd}): the end {@code k\0} of a point range {@code [k, k\0)} — about half
 * of what FoundationDB's clients send — is not sorted at all but ranked after the sort, right after its begin.
 *
 * <p><b>Across threads</b> ({@link #sortAcross}): the endpoints are added in slices at once ({@link #put}),
 * then the sort keys' top digit scatters them into ranges of about equal size (one counting and one scatter
 * pass, each thread over its slice), each range is sorted on the remaining digits by one thread, and ranks are
 * numbered per range and offset. Both passes are stable, so the order is exactly the one-thread order.
 */
final class EndpointSorter {
    private static final int INSERTION_SORT = 16;
    /** Runs of equal sort keys longer than this are refined ({@link #refineTies}), shorter ones compared whole. */
    private static final int REFINE_RUN = 16;
    /** Refined runs of more than this many endpoints take radix passes; shorter ones a comparison sort. */
    private static final int REFINE_RADIX = 64;
    /** Refinement levels (each at least 8 bytes deeper) before a run is left to the comparison sort. */
    private static final int REFINE_LEVELS = 16;
    /** Top bits of a refined run's sort keys that its first radix passes take ({@link #refineTies}). */
    private static final int TIE_TOP_BITS = 16;
    /**
     * Batches of at most this many endpoints are sorted by comparing their sort keys, not by radix passes: a
     * radix pass costs its 257 digit counts whatever the batch (8 passes for 64 varying bits: about 1 µs at 4
     * endpoints), a comparison sort about n log n sort-key comparisons. Measured on 16-byte keys sharing 0, 8 or
     * 20 bytes: comparing wins up to 32 endpoints, the two are level about 48, radix wins from 64 (docs/tree.md,
     * "Small batches").
     */
    static final int DEFAULT_DIRECT_SORT_ENDPOINTS = 40;
    /** A small batch's insertion looks this many places back before it searches the rest ({@link #directSort}). */
    private static final int DIRECT_LINEAR_STEPS = 8;

    /** See {@link #DEFAULT_DIRECT_SORT_ENDPOINTS}; 0: always radix. */
    private final int directSortEndpoints;

    EndpointSorter() {
        this(DEFAULT_DIRECT_SORT_ENDPOINTS);
    }

    EndpointSorter(int directSortEndpoints) {
        if (directSortEndpoints < 0) {
            throw new IllegalArgumentException("direct sort endpoints must not be negative: " + directSortEndpoints);
        }
        this.directSortEndpoints = directSortEndpoints;
    }

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
    /** A small batch's second sort key of each endpoint, the 8 bytes after its first ({@link #directSort}), by id. */
    private long[] second = new long[256];
    /** Each endpoint's sort key within its run of equal sort keys ({@link #refineTies}), by id. */
    private long[] tieKey = new long[256];
    private byte[] keys;
    /** The bytes after which the sort keys start (see {@link #commonPrefixLength()}). */
    private int common;
    /** Bits in which some endpoint's first 8 bytes differ from the first endpoint's. */
    private long differ;
    private int minLength;
    /** Whether some endpoint has bytes past its 8th other than the 0x00 ending a point range's end. */
    private boolean longTails;
    /** Bits in which some endpoint's length differs from the first one's (filled by {@link #addStats} only). */
    private int lengthDiffer;

    void reset(byte[] keys) {
        this.keys = keys;
        count = 0;
        common = 0;
        differ = 0;
        lengthDiffer = 0;
        minLength = Integer.MAX_VALUE;
        longTails = false;
        pointCount = 0;
    }

    /**
     * The bytes the sort keys skip (valid after {@link #sort()}): the leading bytes on which every
     * endpoint agrees, a key shorter than them counting as padded with zeros — when some endpoint has
     * bytes past its 8th that the sort key must reach (0 otherwise: every key is whole in its sort key).
     */
    int commonPrefixLength() {
        return common;
    }

    /**
     * Finds the common prefix and re-derives the sort keys from the bytes after it. Within the first 8
     * bytes it is read off the bits in which the endpoints differ; when they agree on all 8 (and are all
     * that long), a vectorized mismatch against the first key finds how far they agree.
     */
    private void skipCommonPrefix() {
        common = 0;
        if (count < 2) {
            return;
        }
        int c;
        if (differ != 0) {
            c = Long.numberOfLeadingZeros(differ) >>> 3;
            if (c == 0 || !longTails) {
                // Keys of at most 8 bytes (and point ends k\0 of them) are whole in their sort keys
                // already; the shared bytes are dropped by the radix sort's compress.
                return;
            }
        } else {
            if (minLength < 8) {
                return;
            }
            int first = offset[0];
            c = minLength;
            for (int i = 1; i < count && c > 8; i++) {
                int m = Arrays.mismatch(keys, first + 8, first + c, keys, offset[i] + 8, offset[i] + c);
                if (m >= 0) {
                    c = 8 + m;
                }
            }
        }
        common = c;
        for (int i = 0; i < count; i++) {
            prefix[i] = Keys.orderedPrefix(keys, offset[i] + c, length[i] - c);
        }
    }

    /**
     * Starts a batch of {@code n} endpoints that threads fill at once with {@link #put} (ids {@code 0 .. n - 1}),
     * then {@link #addStats} for each slice, then {@link #sortAcross}.
     */
    void prepare(byte[] keys, int n) {
        reset(keys);
        ensureCapacity(n);
        count = n;
    }

    /** Endpoint {@code id} of a batch begun by {@link #prepare}; what {@link #add} does but the batch figures. */
    void put(int id, int off, int len, int tagValue) {
        tag[id] = tagValue;
        offset[id] = off;
        length[id] = len;
        order[id] = id;
        prefix[id] = Keys.orderedPrefix(keys, off, len);
    }

    /**
     * A slice's figures for {@link #put}'s endpoints: the first id's prefix and length, the bits in which the
     * slice's prefixes differ from its first one's, and the bits in which its lengths differ from its first one's,
     * the shortest length and whether some key has bytes past its 8th (other than a point end's 0x00).
     */
    void addStats(int firstId, long differFromFirst, int lengthsDifferFromFirst, int shortest, boolean tails) {
        differ |= differFromFirst | (prefix[firstId] ^ prefix[0]);
        lengthDiffer |= lengthsDifferFromFirst | (length[firstId] ^ length[0]);
        minLength = Math.min(minLength, shortest);
        longTails |= tails;
    }

    long prefixOf(int id) {
        return prefix[id];
    }

    int lengthOf(int id) {
        return length[id];
    }

    /** Whether key {@code key[off, off + len)} has bytes past its 8th other than the 0x00 ending a point range's end. */
    static boolean hasLongTail(byte[] key, int off, int len) {
        return len > 9 || len == 9 && key[off + 8] != 0;
    }

    private void ensureCapacity(int n) {
        if (offset.length < n) {
            int m = Math.max(n, offset.length * 2);
            tag = Arrays.copyOf(tag, m);
            offset = Arrays.copyOf(offset, m);
            length = Arrays.copyOf(length, m);
            prefix = Arrays.copyOf(prefix, m);
            order = Arrays.copyOf(order, m);
            rank = Arrays.copyOf(rank, m);
            byRank = Arrays.copyOf(byRank, m);
            tieKey = new long[m];
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
            tieKey = new long[n];
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
        longTails |= hasLongTail(keys, off, len);
        return id;
    }

    /**
     * Sorts the endpoints and numbers the distinct keys: those {@link #add}ed by their bytes, then the point ends
     * ({@link #addPointEnd}) woven in after their begins ({@link #weavePointEnds}).
     */
    void sort() {
        sortAdded();
        if (pointCount > 0) {
            weavePointEnds();
        }
    }

    /** {@link #sort()} of the endpoints {@link #add}ed (the point ends left out). */
    private void sortAdded() {
        packed = false;
        skipCommonPrefix();
        if (count <= directSortEndpoints) {
            // A small batch: a radix pass costs its digit counts (257 entries to clear and sum) whatever the
            // batch; comparing the few sort keys directly does not.
            directSort();
            return;
        }
        if (longTails) {
            int bits = packWholeKeys();
            if (bits >= 0) {
                sortPacked(bits);
                return;
            }
        }
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

    /** The rank of endpoint {@code id} (an id {@link #add} or {@link #addPointEnd} returned), after {@link #sort()}. */
    int rank(int id) {
        return id >= 0 ? rank[id] : pointRank[~id];
    }

    // ---- point ends ----

    /**
     * Point ends: ends {@code k\0} of ranges {@code [k, k\0)}, the range FoundationDB's client writes for every key it
     * reads or writes, so about half of a batch's endpoints. Such an end needs no sort: no key lies strictly between
     * {@code k} and {@code k\0}, so it ranks right after its begin's key, equal to the next key when that key is
     * {@code k\0} itself. Left out, the sort handles half the endpoints, and none of the ties between {@code k} and
     * {@code k\0} that only their lengths settle (keys longer than a sort key compare their whole tails for it).
     * A point end's id is {@code ~j}: its begin's id, offset and length at {@code j} of these arrays.
     */
    private int pointCount;
    private int[] pointBegin = new int[128];
    private int[] pointOffset = new int[128];
    private int[] pointLength = new int[128];
    private int[] pointRank = new int[128];
    /** By rank: one point end (plus one) whose begin has that rank, or 0 ({@link #weavePointEnds}; kept all 0). */
    private int[] pointAfter = new int[256];
    /** The new rank of each old one, and the endpoint (or point end) holding each new rank. */
    private int[] newRank = new int[256];
    private int[] newByRank = new int[256];

    /**
     * Whether {@code key[off, off + len)} is the end {@code k\0} of a point range whose begin {@code k} is endpoint
     * {@code beginId}; if so the end is added with {@link #addPointEnd}, else with {@link #add}. (Two calls rather
     * than one that chooses: {@link #add} then stays inlined where the batch's endpoints are added; the range-only
     * workloads' sort was 12 % slower through one.)
     */
    boolean isPointEnd(int beginId, int off, int len) {
        int bOff = offset[beginId];
        int bLen = length[beginId];
        return len == bLen + 1 && keys[off + bLen] == 0 && sameBytes(bOff, off, bLen);
    }

    /**
     * Adds the end of the point range whose begin is endpoint {@code beginId} ({@link #isPointEnd}), at
     * {@code key[off, off + len)}; returns its id. It is kept aside and ranked after the sort.
     */
    int addPointEnd(int beginId, int off, int len) {
        int j = pointCount;
        if (j == pointBegin.length) {
            int n = 2 * j;
            pointBegin = Arrays.copyOf(pointBegin, n);
            pointOffset = Arrays.copyOf(pointOffset, n);
            pointLength = Arrays.copyOf(pointLength, n);
            pointRank = Arrays.copyOf(pointRank, n);
        }
        pointBegin[j] = beginId;
        pointOffset[j] = off;
        pointLength[j] = len;
        pointCount = j + 1;
        return ~j;
    }

    /**
     * Ranks the point ends after the sort of the rest: each end right after its begin's key, sharing the rank of the
     * next key when that key is the end's own bytes, and renumbers the other ranks around them.
     */
    private void weavePointEnds() {
        int d = distinct;
        int m = pointCount;
        if (pointAfter.length < d) {
            pointAfter = new int[Math.max(d, 2 * pointAfter.length)];
            newRank = new int[pointAfter.length];
        }
        // Swapped with byRank below: as long as the endpoint arrays, as byRank is.
        if (newByRank.length < Math.max(d + m, offset.length)) {
            newByRank = new int[Math.max(Math.max(d + m, offset.length), 2 * newByRank.length)];
        }
        int[] after = pointAfter;
        int[] rk = rank;
        int[] pb = pointBegin;
        for (int j = 0; j < m; j++) {
            after[rk[pb[j]]] = j + 1;
        }
        int[] nr = newRank;
        int[] nb = newByRank;
        int[] br = byRank;
        int next = 0;
        for (int r = 0; r < d; r++) {
            nr[r] = next;
            nb[next++] = br[r];
            int j = after[r] - 1;
            if (j >= 0) {
                after[r] = 0;
                // Its ends rank next: a rank of their own, or the next key's when that key is k\0 itself.
                if (r + 1 == d || !isKey(br[r + 1], pointOffset[j], pointLength[j])) {
                    nb[next++] = ~j;
                }
            }
        }
        int[] pr = pointRank;
        for (int j = 0; j < m; j++) {
            pr[j] = nr[rk[pb[j]]] + 1;
        }
        for (int id = 0, n = count; id < n; id++) {
            rk[id] = nr[rk[id]];
        }
        newByRank = byRank;
        byRank = nb;
        distinct = next;
    }

    /** Whether added endpoint {@code id}'s key is {@code keys[off, off + len)}. */
    private boolean isKey(int id, int off, int len) {
        return length[id] == len && sameBytes(offset[id], off, len);
    }

    /** Whether the {@code len} key bytes at offsets {@code a} and {@code b} are equal (a point range stores them once). */
    private boolean sameBytes(int a, int b, int len) {
        return a == b || Arrays.equals(keys, a, a + len, keys, b, b + len);
    }

    /**
     * A small batch's sort: each endpoint gets a second sort key, the 8 bytes after its first (zero-padded), so that
     * two keys of up to 16 bytes past the common prefix compare by two longs and their lengths, never by their bytes
     * (a point range's {@code k} and {@code k\0} tie on the first); then a binary insertion in the order added, each
     * endpoint after every one it does not sort before, which is the total order of {@link #orderCompare} (key, then
     * id) in about {@code n log n} comparisons and no set-up. Ranks as {@link #sort()} numbers them.
     */
    private void directSort() {
        int n = count;
        int[] o = order;
        // Keys whole in their sort keys (at most 8 bytes, or such a key and a 0x00) need no second one.
        boolean twoKeys = longTails;
        if (twoKeys) {
            if (second.length < n) {
                second = new long[offset.length];
            }
            long[] sec = second;
            int[] off = offset;
            int[] len = length;
            byte[] k = keys;
            int from = common + 8;
            for (int i = 0; i < n; i++) {
                sec[i] = Keys.orderedPrefix(k, off[i] + from, len[i] - from);
            }
        }
        for (int i = 1; i < n; i++) {
            // o[0 .. i) sorted, o[i] == i: i goes before the first endpoint that sorts after it (equal keys: by id,
            // and every id placed so far is smaller). A few steps back from the end, then a binary search.
            int j = i - 1;
            int stop = Math.max(0, i - DIRECT_LINEAR_STEPS);
            while (j >= stop && directCompare(o[j], i, twoKeys) > 0) {
                j--;
            }
            int at = j + 1;
            if (j >= 0 && j < stop) {
                int lo = 0;
                int hi = stop;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (directCompare(o[mid], i, twoKeys) <= 0) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                at = lo;
            }
            if (at < i) {
                System.arraycopy(o, at, o, at + 1, i - at);
                o[at] = i;
            }
        }
        int d = 0;
        int[] rk = rank;
        int[] br = byRank;
        for (int i = 0; i < n; i++) {
            int id = o[i];
            if (i == 0 || directCompare(o[i - 1], id, twoKeys) != 0) {
                br[d++] = id;
            }
            rk[id] = d - 1;
        }
        distinct = d;
    }

    /**
     * {@link #compare} of a small batch ({@link #directSort}): the sort keys, then (with {@code twoKeys}) the
     * {@link #second} ones, then the lengths when a key ends within those 16 bytes (it is then a prefix, zero-padded,
     * of the other), else the rest.
     */
    private int directCompare(int a, int b, boolean twoKeys) {
        long pa = prefix[a];
        long pb = prefix[b];
        if (pa != pb) {
            return pa < pb ? -1 : 1;
        }
        if (!twoKeys) {
            return compareFrom(a, b, common + 8);
        }
        long sa = second[a];
        long sb = second[b];
        if (sa != sb) {
            return sa < sb ? -1 : 1;
        }
        int la = length[a];
        int lb = length[b];
        int from = common + 16;
        if (la <= from || lb <= from) {
            return Integer.compare(la, lb);
        }
        return Keys.compare(keys, offset[a] + from, la - from, keys, offset[b] + from, lb - from);
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
        int id = byRank[rank];
        return id >= 0 ? offset[id] : pointOffset[~id];
    }

    int keyLength(int rank) {
        int id = byRank[rank];
        return id >= 0 ? length[id] : pointLength[~id];
    }

    private int[] scratchOrder = new int[256];
    private long[] sortKeys = new long[256];
    private long[] scratchKeys = new long[256];
    /** Digit counts of a radix pass. */
    private final int[] counts = new int[RADIX + 1];
    private static final int WIDE_DIGIT_BITS = 11;
    private static final int RADIX = 1 << WIDE_DIGIT_BITS;

    /**
     * Sorts the endpoints into {@link #order} by their sort keys' kept bits (an LSD radix sort, a counting
     * and a scatter pass per digit; 11-bit digits for large batches when they save a pass, else bytes),
     * then equal sort keys by the rest of the key.
     */
    private void radixSortByPrefix() {
        int n = count;
        if (sortKeys.length < n) {
            sortKeys = new long[offset.length];
            scratchKeys = new long[offset.length];
            scratchOrder = new int[offset.length];
        }
        long[] pre = prefix;
        // Only the bits in which some endpoint differs carry order: keep those, in order.
        long varying = 0;
        long p0 = pre[0];
        for (int i = 0; i < n; i++) {
            varying |= pre[i] ^ p0;
        }
        long[] k = sortKeys;
        long[] k2 = scratchKeys;
        int[] o = order;
        int[] o2 = scratchOrder;
        int bits = Long.bitCount(varying);
        // When every key lies within its sort key (at most 8 bytes after the common prefix, or such a
        // key and a 0x00: a point range's end), equal sort keys order by length: the length's varying
        // bits go below the kept bits and no equal sort keys are left to order but equal keys.
        int lenVarying = 0;
        boolean byLength = !longTails && common == 0;
        if (byLength) {
            int[] len = length;
            int l0 = len[0];
            for (int i = 0; i < n; i++) {
                lenVarying |= len[i] ^ l0;
            }
        }
        int lenBits = Integer.bitCount(lenVarying);
        byLength = byLength && bits + lenBits <= 64;
        if (byLength) {
            int[] len = length;
            for (int i = 0; i < n; i++) {
                k[i] = Long.compress(pre[i] ^ Long.MIN_VALUE, varying) << lenBits | Integer.compress(len[i], lenVarying);
                o[i] = i;
            }
            bits += lenBits;
        } else {
            for (int i = 0; i < n; i++) {
                k[i] = Long.compress(pre[i] ^ Long.MIN_VALUE, varying);
                o[i] = i;
            }
        }
        // radixSort's passes, written out: this path calling radixSort (or even digitBits and ensureSortKeys) sorted
        // 12-digit decimal and 8-byte keys 7-10 % slower (2026-12-06, a loop over the sorter, two JVMs each).
        // Wide digits only when they save a pass and the batch is large enough to pay for their counts.
        int digitBits = n >= 4096 && (bits + WIDE_DIGIT_BITS - 1) / WIDE_DIGIT_BITS < (bits + 7) / 8 ? WIDE_DIGIT_BITS : 8;
        int radix = 1 << digitBits;
        int mask = radix - 1;
        int passes = (bits + digitBits - 1) / digitBits;
        int[] cnt = counts;
        for (int p = 0; p < passes; p++) {
            int shift = p * digitBits;
            Arrays.fill(cnt, 0, radix + 1, 0);
            for (int i = 0; i < n; i++) {
                cnt[(int) ((k[i] >>> shift) & mask) + 1]++;
            }
            for (int d = 0; d < radix; d++) {
                cnt[d + 1] += cnt[d];
            }
            for (int i = 0; i < n; i++) {
                int d = (int) ((k[i] >>> shift) & mask);
                int to = cnt[d]++;
                k2[to] = k[i];
                o2[to] = o[i];
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
        if (byLength) {
            return;
        }
        // Equal prefixes: order by the rest of the key.
        int[] ord = order;
        for (int i = 1; i < n; ) {
            if (pre[ord[i]] != pre[ord[i - 1]]) {
                i++;
                continue;
            }
            int start = i - 1;
            int end = i + 1;
            while (end < n && pre[ord[end]] == pre[ord[start]]) {
                end++;
            }
            orderTies(start, end - 1, cnt);
            i = end;
        }
    }

    /** Words of 8 bytes past the common prefix that {@link #packWholeKeys} reads of each key, at most. */
    private static final int PACKED_WORDS = 6;
    /**
     * The bits in which some endpoint's word {@code w} past the common prefix (its bytes {@code [c + 8w, c + 8w + 8)},
     * zero-padded) differs from the first endpoint's.
     */
    private final long[] wordVarying = new long[PACKED_WORDS];
    /** Whether the last {@link #sort()} packed the whole keys ({@link #packWholeKeys}). */
    private boolean packed;

    /** Whether the last {@link #sort()} ordered whole keys packed in one {@code long} each ({@link #packWholeKeys}). */
    boolean sortedPacked() {
        return packed;
    }

    /**
     * Packs each endpoint's whole key past the common prefix into its {@link #sortKeys} when the bits in which the keys
     * differ there fit one {@code long}: the bits that vary in each 8-byte word (zero-padded), in order, then those of the
     * length, so that one radix sort orders the keys and equal sort keys are equal keys. Returns the bits used, or -1
     * (and {@link #sortKeys} as it was) when the sort keys alone order the keys but for their lengths (every varying bit
     * lies in the first word: {@link #radixSortByPrefix} takes as many passes or fewer, without packing), when some key
     * is longer than {@link #PACKED_WORDS} words past the prefix, or when the keys differ in more than 64 bits.
     *
     * <p>This is for keys of a few tuple-layer subspaces: the golden bank capture's share 19 bytes, then {@code
     * account\x00} or {@code transfer} make every endpoint of a subspace tie on its sort key, and a byte or two after
     * those tell the keys apart. Sorted by the sort keys, every endpoint fell in a run of ties to refine and compare,
     * and the ranks were numbered by comparing neighbours' bytes ({@link #refineTies}): 60 % of the engine's time on that
     * capture regrouped into batches of 500, where its 56–60 varying bits sort in six radix passes and nothing else.
     */
    private int packWholeKeys() {
        int n = count;
        int[] off = offset;
        int[] len = length;
        byte[] kb = keys;
        long[] pre = prefix;
        int c = common;
        int l0 = len[0];
        int longest = 0;
        int lenVarying = 0;
        for (int i = 0; i < n; i++) {
            int l = len[i];
            longest = Math.max(longest, l);
            lenVarying |= l ^ l0;
        }
        int words = (longest - c + 7) >>> 3;
        if (words <= 1 || words > PACKED_WORDS) {
            return -1;
        }
        long p0 = pre[0];
        long v0 = 0;
        for (int i = 0; i < n; i++) {
            v0 |= pre[i] ^ p0;
        }
        int lenBits = Integer.bitCount(lenVarying);
        int bits = Long.bitCount(v0) + lenBits;
        long[] wv = wordVarying;
        wv[0] = v0;
        boolean beyond = false;
        for (int w = 1; w < words; w++) {
            int from = c + 8 * w;
            long first = Keys.orderedPrefix(kb, off[0] + from, l0 - from);
            long v = 0;
            for (int i = 0; i < n; i++) {
                v |= Keys.orderedPrefix(kb, off[i] + from, len[i] - from) ^ first;
            }
            wv[w] = v;
            beyond |= v != 0;
            bits += Long.bitCount(v);
            if (bits > 64) {
                return -1;
            }
        }
        if (!beyond) {
            return -1;
        }
        ensureSortKeys(n);
        // Word by word, each a plain loop over the keys: the varying bits of each word below those before it.
        long[] k = sortKeys;
        int[] o = order;
        for (int i = 0; i < n; i++) {
            k[i] = Long.compress(pre[i] ^ Long.MIN_VALUE, v0);
            o[i] = i;
        }
        for (int w = 1; w < words; w++) {
            long v = wv[w];
            if (v == 0) {
                continue;
            }
            int from = c + 8 * w;
            int shift = Long.bitCount(v);
            for (int i = 0; i < n; i++) {
                long word = Keys.orderedPrefix(kb, off[i] + from, len[i] - from) ^ Long.MIN_VALUE;
                k[i] = k[i] << shift | Long.compress(word, v);
            }
        }
        if (lenBits > 0) {
            for (int i = 0; i < n; i++) {
                k[i] = k[i] << lenBits | Integer.toUnsignedLong(Integer.compress(len[i], lenVarying));
            }
        }
        return bits;
    }

    /** {@link #radixSort}'s digit: 11 bits for large batches when they save a pass, else bytes. */
    private static int digitBits(int n, int bits) {
        return n >= 4096 && (bits + WIDE_DIGIT_BITS - 1) / WIDE_DIGIT_BITS < (bits + 7) / 8 ? WIDE_DIGIT_BITS : 8;
    }

    /** The sort of whole keys packed by {@link #packWholeKeys} in {@code bits} bits: radix passes, ranks by equal sort keys. */
    private void sortPacked(int bits) {
        packed = true;
        int n = count;
        long[] k = sortByFewTopDigits(n, bits) ? sortKeys : radixSort(n, bits);
        int[] ord = order;
        int d = 0;
        for (int i = 0; i < n; i++) {
            int id = ord[i];
            if (i == 0 || k[i] != k[i - 1]) {
                byRank[d++] = id;
            }
            rank[id] = d - 1;
        }
        distinct = d;
    }

    /** At most this many distinct top digits make {@link #sortByFewTopDigits} sort by buckets. */
    private static final int FEW_TOP_DIGITS = 8;

    /**
     * Sorts {@link #sortKeys} (packed whole keys of {@code bits} bits) by their top digit first when it takes at most
     * {@link #FEW_TOP_DIGITS} values, and then each bucket by LSD passes on the bits that vary within it; returns false
     * (having counted the top digits only) when the sort is short or the top digits many. A batch of a few subspaces
     * splits by subspace on its top digit, and a subspace's keys vary in far fewer bits than the batch's: the bank
     * capture's 56–60 bits take six passes over the batch, where its account keys vary in about 8 and its transfers
     * in about 12.
     */
    private boolean sortByFewTopDigits(int n, int bits) {
        int digitBits = digitBits(n, bits);
        if ((bits + digitBits - 1) / digitBits <= 2) {
            return false;
        }
        long[] k = sortKeys;
        int[] o = order;
        int shift = bits - digitBits;
        int radix = 1 << digitBits;
        int[] cnt = counts;
        Arrays.fill(cnt, 0, radix + 1, 0);
        for (int i = 0; i < n; i++) {
            cnt[(int) (k[i] >>> shift) + 1]++;
        }
        int used = 0;
        for (int d = 1; d <= radix && used <= FEW_TOP_DIGITS; d++) {
            if (cnt[d] != 0) {
                used++;
            }
        }
        if (used > FEW_TOP_DIGITS) {
            return false;
        }
        for (int d = 0; d < radix; d++) {
            cnt[d + 1] += cnt[d];
        }
        long[] k2 = scratchKeys;
        int[] o2 = scratchOrder;
        for (int i = 0; i < n; i++) {
            long key = k[i];
            int to = cnt[(int) (key >>> shift)]++;
            k2[to] = key;
            o2[to] = o[i];
        }
        System.arraycopy(k2, 0, k, 0, n);
        System.arraycopy(o2, 0, o, 0, n);
        // Bucket ends, taken before the buckets' own passes reuse the counts.
        int[] ends = bucketEnds;
        int buckets = 0;
        for (int d = 0, start = 0; d < radix; d++) {
            if (cnt[d] > start) {
                ends[buckets++] = cnt[d];
                start = cnt[d];
            }
        }
        for (int b = 0, start = 0; b < buckets; b++) {
            radixSortRange(start, ends[b]);
            start = ends[b];
        }
        return true;
    }

    private final int[] bucketEnds = new int[FEW_TOP_DIGITS];

    /** Stable LSD passes over positions {@code [lo, hi)} of {@link #sortKeys} on the bits that vary among them. */
    private void radixSortRange(int lo, int hi) {
        int n = hi - lo;
        if (n < 2) {
            return;
        }
        long[] k = sortKeys;
        int[] o = order;
        long first = k[lo];
        long v = 0;
        for (int i = lo + 1; i < hi; i++) {
            v |= k[i] ^ first;
        }
        int bits = Long.bitCount(v);
        int digitBits = digitBits(n, bits);
        int radix = 1 << digitBits;
        int mask = radix - 1;
        long[] k2 = scratchKeys;
        int[] o2 = scratchOrder;
        int[] cnt = counts;
        for (int shift = 0; shift < bits; shift += digitBits) {
            Arrays.fill(cnt, 0, radix + 1, 0);
            for (int i = lo; i < hi; i++) {
                cnt[(int) (Long.compress(k[i], v) >>> shift & mask) + 1]++;
            }
            cnt[0] = lo;
            for (int d = 0; d < radix; d++) {
                cnt[d + 1] += cnt[d];
            }
            for (int i = lo; i < hi; i++) {
                long key = k[i];
                int to = cnt[(int) (Long.compress(key, v) >>> shift & mask)]++;
                k2[to] = key;
                o2[to] = o[i];
            }
            System.arraycopy(k2, lo, k, lo, n);
            System.arraycopy(o2, lo, o, lo, n);
        }
    }

    private void ensureSortKeys(int n) {
        if (sortKeys.length < n) {
            sortKeys = new long[offset.length];
            scratchKeys = new long[offset.length];
            scratchOrder = new int[offset.length];
        }
    }

    /**
     * Sorts positions {@code [0, n)} of {@link #sortKeys}, and {@link #order} with them, by their low {@code bits} bits
     * (the others are zero): an LSD radix sort, a counting and a scatter pass per digit; 11-bit digits for large
     * batches when they save a pass, else bytes. Stable, so equal sort keys stay in the order they were added. Returns
     * the array that holds the sorted keys: {@link #sortKeys} or, after an odd number of passes, {@link #scratchKeys}
     * (not copied back: only the packed sort reads them). {@link #radixSortByPrefix} writes the same passes out.
     */
    private long[] radixSort(int n, int bits) {
        long[] k = sortKeys;
        long[] k2 = scratchKeys;
        int[] o = order;
        int[] o2 = scratchOrder;
        // Wide digits only when they save a pass and the batch is large enough to pay for their counts.
        int digitBits = digitBits(n, bits);
        int radix = 1 << digitBits;
        int mask = radix - 1;
        int passes = (bits + digitBits - 1) / digitBits;
        int[] cnt = counts;
        for (int p = 0; p < passes; p++) {
            int shift = p * digitBits;
            Arrays.fill(cnt, 0, radix + 1, 0);
            for (int i = 0; i < n; i++) {
                cnt[(int) ((k[i] >>> shift) & mask) + 1]++;
            }
            for (int d = 0; d < radix; d++) {
                cnt[d + 1] += cnt[d];
            }
            for (int i = 0; i < n; i++) {
                int d = (int) ((k[i] >>> shift) & mask);
                int to = cnt[d]++;
                k2[to] = k[i];
                o2[to] = o[i];
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
        return k;
    }

    // ---- one sort across threads ----

    /** Most top bits of the sort keys that scatter the endpoints into ranges. */
    private static final int TOP_BITS = 11;
    /** Top digits per range: enough to cut ranges of about equal size, few enough to count them quickly. */
    private static final int DIGITS_PER_RANGE = 32;
    private static final int STAGE_COMMON = 0;
    private static final int STAGE_PREFIXES = 1;
    private static final int STAGE_KEYS = 2;
    private static final int STAGE_SCATTER = 3;
    private static final int STAGE_RANGES = 4;
    private static final int STAGE_RANKS = 5;
    private final Across across = new Across();

    /**
     * {@link #sort()} across {@code workers}' threads in {@code parts} slices (of the ids) and ranges (of the sorted
     * positions): the same order, ranks and common prefix as {@link #sort()}. The top digit has about 32 values per
     * range (at most 11 bits), so that the serial step between the passes, the scatter offsets of every digit in
     * every slice, stays small.
     */
    void sortAcross(BatchWorkers workers, int parts) {
        across.sort(workers, Math.max(1, Math.min(parts, count / 64)));
    }

    private final class Across implements BatchWorkers.Task {
        private int stage;
        private int parts;
        private int ranges;
        // ---- the common prefix: the shortest agreement found per slice; the slices' prefix figures ----
        private int[] agreed = new int[8];
        private long[] sliceDiffer = new long[8];
        // ---- sort keys: kept bits and length bits, the top digit's shift, digit counts per slice ----
        private long varying;
        private int lenVarying;
        private int lenBits;
        private boolean byLength;
        private int lowBits;
        private int sortBits;
        private int digits;
        private int[][] sliceCounts = new int[8][];
        /** Ranges of sorted positions: range r is [rangeStart[r], rangeStart[r + 1]). */
        private int[] rangeStart = new int[9];
        private int[] rangeDistinct = new int[8];
        private int[] rangeRankBase = new int[8];
        private int[][] rangeCounts = new int[8][];

        void sort(BatchWorkers workers, int parts) {
            this.parts = parts;
            if (agreed.length < parts) {
                int n = Math.max(parts, agreed.length * 2);
                agreed = new int[n];
                sliceDiffer = new long[n];
                sliceCounts = Arrays.copyOf(sliceCounts, n);
                rangeStart = new int[n + 1];
                rangeDistinct = new int[n];
                rangeRankBase = new int[n];
                rangeCounts = Arrays.copyOf(rangeCounts, n);
            }
            int n = count;
            if (sortKeys.length < n) {
                sortKeys = new long[offset.length];
                scratchKeys = new long[offset.length];
                scratchOrder = new int[offset.length];
            }
            // The common prefix, as skipCommonPrefix decides it (its scan of every key by slices).
            common = 0;
            boolean skip = false;
            int c = 0;
            if (n >= 2) {
                if (differ != 0) {
                    c = Long.numberOfLeadingZeros(differ) >>> 3;
                    skip = c != 0 && longTails;
                } else if (minLength >= 8) {
                    runStage(workers, STAGE_COMMON);
                    c = minLength;
                    for (int p = 0; p < parts; p++) {
                        c = Math.min(c, agreed[p]);
                    }
                    skip = true;
                }
            }
            if (skip) {
                common = c;
                runStage(workers, STAGE_PREFIXES);
                varying = 0;
                for (int p = 0; p < parts; p++) {
                    varying |= sliceDiffer[p] | (prefix[slice(p)] ^ prefix[0]);
                }
            } else {
                varying = differ;
            }
            int bits = Long.bitCount(varying);
            byLength = !longTails && common == 0;
            lenVarying = byLength ? lengthDiffer : 0;
            lenBits = Integer.bitCount(lenVarying);
            byLength = byLength && bits + lenBits <= 64;
            if (byLength) {
                bits += lenBits;
            }
            int top = Math.min(bits, Math.min(TOP_BITS, 32 - Integer.numberOfLeadingZeros(parts * DIGITS_PER_RANGE - 1)));
            sortBits = bits;
            lowBits = bits - top;
            digits = 1 << top;
            runStage(workers, STAGE_KEYS);
            // Ranges of about n / parts positions, cut between top digits; each slice's scatter offsets per digit.
            int r = 1;
            int at = 0;
            rangeStart[0] = 0;
            for (int d = 0; d < digits; d++) {
                int total = 0;
                for (int p = 0; p < parts; p++) {
                    int[] counts = sliceCounts[p];
                    int k = counts[d];
                    counts[d] = at + total;
                    total += k;
                }
                at += total;
                while (r < parts && at >= (long) n * r / parts) {
                    rangeStart[r++] = at;
                }
            }
            while (r <= parts) {
                rangeStart[r++] = n;
            }
            ranges = parts;
            runStage(workers, STAGE_SCATTER);
            runStage(workers, STAGE_RANGES);
            int base = 0;
            for (int q = 0; q < ranges; q++) {
                rangeRankBase[q] = base;
                base += rangeDistinct[q];
            }
            runStage(workers, STAGE_RANKS);
            distinct = base;
        }

        private void runStage(BatchWorkers workers, int stage) {
            this.stage = stage;
            workers.run(this, parts);
        }

        /** The first id of slice {@code p}. */
        private int slice(int p) {
            return (int) ((long) count * p / parts);
        }

        @Override
        public void run(int p) {
            int from = slice(p);
            int to = slice(p + 1);
            switch (stage) {
                case STAGE_COMMON -> agreed[p] = agreement(from, to);
                case STAGE_PREFIXES -> prefixes(p, from, to);
                case STAGE_KEYS -> keys(p, from, to);
                case STAGE_SCATTER -> scatter(p, from, to);
                case STAGE_RANGES -> sortRange(p, rangeStart[p], rangeStart[p + 1]);
                case STAGE_RANKS -> ranks(p, rangeStart[p], rangeStart[p + 1]);
                default -> throw new IllegalStateException("stage " + stage);
            }
        }

        /** How many leading bytes endpoints {@code [from, to)} share with the first endpoint (at least 8 compared). */
        private int agreement(int from, int to) {
            int first = offset[0];
            int c = minLength;
            for (int i = Math.max(1, from); i < to && c > 8; i++) {
                int m = Arrays.mismatch(keys, first + 8, first + c, keys, offset[i] + 8, offset[i] + c);
                if (m >= 0) {
                    c = 8 + m;
                }
            }
            return c;
        }

        private void prefixes(int p, int from, int to) {
            int c = common;
            long d = 0;
            for (int i = from; i < to; i++) {
                long q = Keys.orderedPrefix(keys, offset[i] + c, length[i] - c);
                prefix[i] = q;
                d |= q ^ prefix[from];
            }
            sliceDiffer[p] = d;
        }

        private void keys(int p, int from, int to) {
            int[] counts = sliceCounts[p];
            if (counts == null || counts.length < digits) {
                counts = sliceCounts[p] = new int[1 << TOP_BITS];
            }
            Arrays.fill(counts, 0, digits, 0);
            long[] k = sortKeys;
            long[] pre = prefix;
            long v = varying;
            int shift = lowBits;
            int mask = digits - 1;
            if (byLength) {
                int[] len = length;
                int lv = lenVarying;
                int lb = lenBits;
                for (int i = from; i < to; i++) {
                    long key = Long.compress(pre[i] ^ Long.MIN_VALUE, v) << lb | Integer.compress(len[i], lv);
                    k[i] = key;
                    counts[(int) (key >>> shift) & mask]++;
                }
            } else {
                for (int i = from; i < to; i++) {
                    long key = Long.compress(pre[i] ^ Long.MIN_VALUE, v);
                    k[i] = key;
                    counts[(int) (key >>> shift) & mask]++;
                }
            }
        }

        /** Stable: ids of a slice keep their order within each digit, and slices come in order. */
        private void scatter(int p, int from, int to) {
            int[] at = sliceCounts[p];
            long[] k = sortKeys;
            long[] k2 = scratchKeys;
            int[] o2 = scratchOrder;
            int shift = lowBits;
            int mask = digits - 1;
            for (int i = from; i < to; i++) {
                long key = k[i];
                int pos = at[(int) (key >>> shift) & mask]++;
                k2[pos] = key;
                o2[pos] = i;
            }
        }

        /**
         * Positions {@code [lo, hi)}, which hold every endpoint of a run of top digits: LSD passes over all the sort
         * key's bits (stable, so the scatter's order by id stays among equal keys), then equal sort keys by the rest.
         */
        private void sortRange(int q, int lo, int hi) {
            long[] k = scratchKeys;
            long[] k2 = sortKeys;
            int[] o = scratchOrder;
            int[] o2 = order;
            int n = hi - lo;
            // Only up to the highest bit that varies within the range (its top digits are few).
            long rangeVarying = 0;
            for (int i = lo; i < hi; i++) {
                rangeVarying |= k[i] ^ k[lo];
            }
            int bits = Math.min(sortBits, 64 - Long.numberOfLeadingZeros(rangeVarying));
            int digitBits = n >= 4096 && (bits + WIDE_DIGIT_BITS - 1) / WIDE_DIGIT_BITS < (bits + 7) / 8 ? WIDE_DIGIT_BITS : 8;
            int radix = 1 << digitBits;
            int mask = radix - 1;
            int passes = n < 2 ? 0 : (bits + digitBits - 1) / digitBits;
            int[] cnt = rangeCounts[q];
            if (cnt == null) {
                cnt = rangeCounts[q] = new int[RADIX + 1];
            }
            for (int pass = 0; pass < passes; pass++) {
                int shift = pass * digitBits;
                Arrays.fill(cnt, 0, radix + 1, 0);
                for (int i = lo; i < hi; i++) {
                    cnt[(int) ((k[i] >>> shift) & mask) + 1]++;
                }
                cnt[0] = lo;
                for (int d = 0; d < radix; d++) {
                    cnt[d + 1] += cnt[d];
                }
                for (int i = lo; i < hi; i++) {
                    int d = (int) ((k[i] >>> shift) & mask);
                    int to = cnt[d]++;
                    k2[to] = k[i];
                    o2[to] = o[i];
                }
                long[] tk = k;
                k = k2;
                k2 = tk;
                int[] to = o;
                o = o2;
                o2 = to;
            }
            if (o != order) {
                System.arraycopy(o, lo, order, lo, n);
            }
            if (!byLength) {
                // Equal prefixes (always within one range: equal sort keys, equal top digits) by the rest of the key.
                int[] ord = order;
                long[] pre = prefix;
                for (int i = lo + 1; i < hi; ) {
                    if (pre[ord[i]] != pre[ord[i - 1]]) {
                        i++;
                        continue;
                    }
                    int start = i - 1;
                    int end = i + 1;
                    while (end < hi && pre[ord[end]] == pre[ord[start]]) {
                        end++;
                    }
                    orderTies(start, end - 1, cnt);
                    i = end;
                }
            }
            int d = 0;
            for (int i = lo; i < hi; i++) {
                if (i == lo || compare(order[i - 1], order[i]) != 0) {
                    d++;
                }
            }
            rangeDistinct[q] = d;
        }

        private void ranks(int q, int lo, int hi) {
            int r = rangeRankBase[q] - 1;
            int[] ord = order;
            for (int i = lo; i < hi; i++) {
                int id = ord[i];
                if (i == lo || compare(ord[i - 1], id) != 0) {
                    byRank[++r] = id;
                }
                rank[id] = r;
            }
        }
    }

    /**
     * Orders positions {@code [lo, hi]} of {@link #order}, a run of equal sort keys in the order they were added: by
     * comparison when short, else by {@link #refineTies} from the bytes after the sort keys. {@code cnt}: digit counts
     * the calling thread owns.
     */
    private void orderTies(int lo, int hi, int[] cnt) {
        if (hi - lo < REFINE_RUN) {
            insertionSort(lo, hi);
        } else {
            refineTies(lo, hi, common + 8, 0, cnt);
        }
    }

    /**
     * Orders positions {@code [lo, hi]} of {@link #order}, endpoints in the order they were added that agree on their
     * first {@code from} bytes (zero-padded), without comparing the bytes they all share: their own common prefix
     * {@code c} (a vectorized mismatch against the first, as {@link #skipCommonPrefix} does for the batch), a sort key of
     * the 8 bytes after it ({@link #tieKey}), sorted by comparison when the run is short, else by stable radix passes
     * and then the same again on each run of those that still tie, from {@code c + 8}. Tuple-layer keys need this: a
     * batch mixes subspaces of 10–50 bytes, so its common prefix is short and every endpoint of one subspace ties on
     * its sort key. Uses {@link #sortKeys}, {@link #scratchKeys} and {@link #scratchOrder} at the run's positions only,
     * and {@link #tieKey} of the run's ids only, so that ranges sort at once across threads.
     */
    private void refineTies(int lo, int hi, int from, int level, int[] cnt) {
        int[] ord = order;
        int[] off = offset;
        int[] len = length;
        byte[] k = keys;
        int min = Integer.MAX_VALUE;
        for (int i = lo; i <= hi; i++) {
            min = Math.min(min, len[ord[i]]);
        }
        // Only real bytes can be skipped: a key shorter than from agrees with the others as zero-padded only.
        int c = from;
        if (min > from) {
            int first = off[ord[lo]];
            c = min;
            for (int i = lo + 1; i <= hi && c > from; i++) {
                int o = off[ord[i]];
                int m = Arrays.mismatch(k, first + from, first + c, k, o + from, o + c);
                if (m >= 0) {
                    c = from + m;
                }
            }
        }
        long[] tk = tieKey;
        for (int i = lo; i <= hi; i++) {
            int id = ord[i];
            // A key ending within the 8 bytes is zero-padded here; equal sort keys then order by length.
            tk[id] = Keys.orderedPrefix(k, off[id] + c, len[id] - c);
        }
        if (hi - lo < REFINE_RADIX || level >= REFINE_LEVELS) {
            // Complete on its own (tieOrder compares the rest past c + 8); the level bound keeps the recursion shallow.
            tieSort(lo, hi, c);
            return;
        }
        // Two radix passes on the top bits of the sort keys that vary: enough to split most runs into single keys
        // and short runs (k and k\0); only a long run that still ties on them takes passes on the rest.
        int bits = compressTieKeys(lo, hi);
        int low = Math.max(0, bits - TIE_TOP_BITS);
        radixPasses(lo, hi, low, bits, cnt);
        long[] sk = sortKeys;
        for (int start = lo; start < hi; ) {
            long top = sk[start] >>> low;
            int end = start + 1;
            while (end <= hi && sk[end] >>> low == top) {
                end++;
            }
            if (end - start > REFINE_RUN) {
                radixPasses(start, end - 1, 0, low, cnt);
                refineTied(start, end - 1, c, level, cnt);
            } else if (end - start > 1) {
                tieSort(start, end - 1, c);
            }
            start = end;
        }
    }

    /**
     * Positions {@code [lo, hi]} sorted by their whole {@link #sortKeys} (stably: each run of equal ones is in the order
     * its endpoints were added): each such run, which agrees on {@code c + 8} bytes, ordered from there.
     */
    private void refineTied(int lo, int hi, int c, int level, int[] cnt) {
        long[] sk = sortKeys;
        for (int start = lo; start < hi; ) {
            // Read before refining [start, end): that overwrites sortKeys there.
            long key = sk[start];
            int end = start + 1;
            while (end <= hi && sk[end] == key) {
                end++;
            }
            if (end - start > REFINE_RUN) {
                refineTies(start, end - 1, c + 8, level + 1, cnt);
            } else if (end - start > 1) {
                tieSort(start, end - 1, c);
            }
            start = end;
        }
    }

    /**
     * {@link #sortKeys} at positions {@code [lo, hi]}: the bits of their endpoints' {@link #tieKey}s that vary within
     * the run, kept in order ({@link Long#compress}); returns how many.
     */
    private int compressTieKeys(int lo, int hi) {
        long[] tk = tieKey;
        int[] o = order;
        long[] k = sortKeys;
        long t0 = tk[o[lo]];
        long varying = 0;
        for (int i = lo; i <= hi; i++) {
            varying |= tk[o[i]] ^ t0;
        }
        for (int i = lo; i <= hi; i++) {
            k[i] = Long.compress(tk[o[i]] ^ Long.MIN_VALUE, varying);
        }
        return Long.bitCount(varying);
    }

    /**
     * Stable LSD radix passes (8-bit digits) over bits {@code [fromBit, toBit)} of {@link #sortKeys} at positions
     * {@code [lo, hi]}, moving {@link #order} with them; both end in place. A digit may reach above {@code toBit}: those
     * bits are zero (above the kept bits) or the same for the whole range (a run of equal top bits).
     */
    private void radixPasses(int lo, int hi, int fromBit, int toBit, int[] cnt) {
        int[] o = order;
        int[] o2 = scratchOrder;
        long[] k = sortKeys;
        long[] k2 = scratchKeys;
        for (int shift = fromBit; shift < toBit; shift += 8) {
            Arrays.fill(cnt, 0, 257, 0);
            for (int i = lo; i <= hi; i++) {
                cnt[(int) ((k[i] >>> shift) & 0xFF) + 1]++;
            }
            cnt[0] = lo;
            for (int d = 0; d < 256; d++) {
                cnt[d + 1] += cnt[d];
            }
            for (int i = lo; i <= hi; i++) {
                int to = cnt[(int) ((k[i] >>> shift) & 0xFF)]++;
                k2[to] = k[i];
                o2[to] = o[i];
            }
            long[] tk = k;
            k = k2;
            k2 = tk;
            int[] to = o;
            o = o2;
            o2 = to;
        }
        if (o != order) {
            System.arraycopy(o, lo, order, lo, hi - lo + 1);
            System.arraycopy(k, lo, sortKeys, lo, hi - lo + 1);
        }
    }

    /** Sorts positions {@code [lo, hi]} by {@link #orderCompare}. */
    private void insertionSort(int lo, int hi) {
        if (hi - lo > INSERTION_SORT) {
            quicksort(lo, hi);
            return;
        }
        int[] o = order;
        for (int i = lo + 1; i <= hi; i++) {
            int x = o[i];
            int j = i - 1;
            while (j >= lo && orderCompare(o[j], x) > 0) {
                o[j + 1] = o[j];
                j--;
            }
            o[j + 1] = x;
        }
    }

    /**
     * Sorts positions {@code [lo, hi]} by {@link #tieOrder}{@code (c)}: {@link #insertionSort(int, int)} for a run whose
     * {@link #tieKey}s hold the 8 bytes after {@code c} (its own comparator, so that the batch's keeps its code and cost).
     */
    private void tieSort(int lo, int hi, int c) {
        if (hi - lo > INSERTION_SORT) {
            tieQuicksort(lo, hi, c);
            return;
        }
        int[] o = order;
        for (int i = lo + 1; i <= hi; i++) {
            int x = o[i];
            int j = i - 1;
            while (j >= lo && tieOrder(o[j], x, c) > 0) {
                o[j + 1] = o[j];
                j--;
            }
            o[j + 1] = x;
        }
    }

    /**
     * The sort's order: by key, equal keys by id. A total order, so every way of sorting gives the one order the
     * stable radix passes give (equal keys in the order they were added), on one thread or across threads.
     */
    private int orderCompare(int a, int b) {
        int c = compare(a, b);
        return c != 0 ? c : Integer.compare(a, b);
    }

    /**
     * {@link #orderCompare} of two endpoints that agree on their first {@code c} bytes (zero-padded) and whose
     * {@link #tieKey}s hold the 8 bytes after them.
     */
    private int tieOrder(int a, int b, int c) {
        long ta = tieKey[a];
        long tb = tieKey[b];
        if (ta != tb) {
            return ta < tb ? -1 : 1;
        }
        int r = compareFrom(a, b, c + 8);
        return r != 0 ? r : Integer.compare(a, b);
    }

    private int compare(int a, int b) {
        long pa = prefix[a];
        long pb = prefix[b];
        if (pa != pb) {
            return pa < pb ? -1 : 1;
        }
        return compareFrom(a, b, common + 8);
    }

    /** Two keys that agree on their first {@code from} bytes (zero-padded), by the rest. */
    private int compareFrom(int a, int b, int from) {
        // A key that ends within the agreed bytes is a prefix of the other.
        int la = length[a];
        int lb = length[b];
        if (la <= from || lb <= from) {
            return Integer.compare(la, lb);
        }
        if (la - from <= 8 && lb - from <= 8) {
            // Tails of at most 8 bytes (a 16-byte key past an 8-byte sort key; k and k\0 of a point range): two
            // loads settle it, where Arrays.compareUnsigned sets up a vectorized mismatch.
            long ta = Keys.orderedPrefix(keys, offset[a] + from, la - from);
            long tb = Keys.orderedPrefix(keys, offset[b] + from, lb - from);
            return ta != tb ? (ta < tb ? -1 : 1) : Integer.compare(la, lb);
        }
        return Keys.compare(keys, offset[a] + from, la - from, keys, offset[b] + from, lb - from);
    }

    private void quicksort(int lo, int hi) {
        int[] o = order;
        while (hi - lo > INSERTION_SORT) {
            int mid = (lo + hi) >>> 1;
            // Median of three as the pivot.
            if (orderCompare(o[mid], o[lo]) < 0) {
                swap(o, mid, lo);
            }
            if (orderCompare(o[hi], o[lo]) < 0) {
                swap(o, hi, lo);
            }
            if (orderCompare(o[hi], o[mid]) < 0) {
                swap(o, hi, mid);
            }
            int pivot = o[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (orderCompare(o[i], pivot) < 0) {
                    i++;
                }
                while (orderCompare(o[j], pivot) > 0) {
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
            while (j >= lo && orderCompare(o[j], x) > 0) {
                o[j + 1] = o[j];
                j--;
            }
            o[j + 1] = x;
        }
    }

    private void tieQuicksort(int lo, int hi, int c) {
        int[] o = order;
        while (hi - lo > INSERTION_SORT) {
            int mid = (lo + hi) >>> 1;
            // Median of three as the pivot.
            if (tieOrder(o[mid], o[lo], c) < 0) {
                swap(o, mid, lo);
            }
            if (tieOrder(o[hi], o[lo], c) < 0) {
                swap(o, hi, lo);
            }
            if (tieOrder(o[hi], o[mid], c) < 0) {
                swap(o, hi, mid);
            }
            int pivot = o[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (tieOrder(o[i], pivot, c) < 0) {
                    i++;
                }
                while (tieOrder(o[j], pivot, c) > 0) {
                    j--;
                }
                if (i <= j) {
                    swap(o, i++, j--);
                }
            }
            // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
            if (j - lo < hi - i) {
                tieQuicksort(lo, j, c);
                lo = i;
            } else {
                tieQuicksort(i, hi, c);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            int x = o[i];
            int j = i - 1;
            while (j >= lo && tieOrder(o[j], x, c) > 0) {
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
