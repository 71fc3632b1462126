package org.fdbresolver.tree;

import java.util.Arrays;

/**
 * Node storage and byte accounting: the leaf and inner-node pools, the key blocks, and the tree's root
 * and height. Every other part of the tree reads and writes nodes through these arrays.
 *
 * <h2>Layout</h2>
 * Nodes are fixed-size blocks in chunked primitive arrays ({@link #CHUNK_NODES} nodes per chunk),
 * addressed by int handles; leaves and inner nodes have separate pools with free lists. Slot {@code i}
 * of node {@code h} is at index {@code (h & CHUNK_MASK) * capacity + i} of chunk {@code h >>> CHUNK_SHIFT}.
 * <ul>
 * <li>Leaf slot ({@value #LEAF_SLOT_BYTES} bytes): {@code lKey} long — the key's 8 bytes after the
 * prefix the leaf skips (the tree's shared prefix, or the leaf's own), order-preserving ({@link KeyRefs});
 * {@code lVerRef} long — in its high half the version minus the base ({@link VersionWindow}), or {@link #GAP},
 * in its low half the key reference (inline length, or a {@link KeyArena} chunk): one array, so that a write's
 * run, a shift or a split moves two arrays, and an entry's version and reference share a cache line
 * ({@link #entry}).</li>
 * <li>Leaf header ({@value #LEAF_HEADER_BYTES} bytes, {@code lHdr}, {@value #LEAF_HEADER_INTS} ints):
 * {@link #H_COUNT} — the entry count in its low 16 bits ({@link #COUNT_MASK}; a leaf holds at most 65,535 entries
 * at the largest node size) and above them ({@link #SKIP_SHIFT}) the length of the leaf's own prefix
 * ({@link LeafPrefixes}: 0 when its longs follow the tree's shared prefix), so that a search reads both in one
 * load; {@link #H_NEXT} and {@link #H_PREV} leaf; {@link #H_MAX} (an upper bound of its entries' versions).</li>
 * <li>Leaf anchor ({@value #LEAF_ANCHOR_BYTES} bytes, {@code lAnchor}, an array of its own so that headers stay 16
 * bytes): for a leaf with a prefix of its own, the key chunk its prefix bytes are read from, on which it holds a
 * reference ({@link LeafPrefixes}).</li>
 * <li>Inner slot ({@value #INNER_SLOT_BYTES} bytes): separator prefix long ({@code iKey}) and reference
 * int ({@code iRef}) — slot 0's separator is unused: it routes everything below slot 1's —, child
 * handle ({@code iChild}), child's max version ({@code iMax}, an upper bound of every version in the
 * child's subtree).</li>
 * <li>Inner header ({@value #INNER_HEADER_BYTES} bytes): count ({@code iCount}) and the node's own prefix length
 * ({@code iSkip}, {@link InnerPrefixes}: 0 when its separators' longs follow the tree's shared prefix).</li>
 * </ul>
 * A leaf or inner block counts {@code nodeBytes} towards {@link #historyBytes()}; capacities are what
 * fits ({@code (nodeBytes - 20) / 16} entries, {@code (nodeBytes - 8) / 20} children). Pools never grow
 * past {@code budget / nodeBytes} nodes each.
 */
final class NodeStore implements AnchorRefs {
    /** Version of an interval no retained write covers. */
    static final int GAP = Integer.MIN_VALUE;
    static final int NIL = -1;
    static final int LEAF_HEADER_BYTES = 16;
    /** Per leaf beside its header: the unit of the key chunk that holds its own prefix ({@link #lAnchor}). */
    static final int LEAF_ANCHOR_BYTES = 4;
    static final int LEAF_SLOT_BYTES = 16;
    static final int LEAF_HEADER_INTS = 4;
    static final int H_COUNT = 0;
    static final int H_NEXT = 1;
    static final int H_PREV = 2;
    static final int H_MAX = 3;
    /** The entry count's bits of a leaf's {@link #H_COUNT} word. */
    static final int COUNT_MASK = 0xFFFF;
    /** Where a leaf's own prefix length sits in its {@link #H_COUNT} word ({@link LeafPrefixes}). */
    static final int SKIP_SHIFT = 16;
    /** The longest own prefix a leaf records (a longer shared prefix is recorded cut to this). */
    static final int MAX_LEAF_SKIP = 0xFFFF;
    static final int INNER_HEADER_BYTES = 8;
    static final int INNER_SLOT_BYTES = 20;
    static final int CHUNK_SHIFT = 6;
    static final int CHUNK_NODES = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK_NODES - 1;
    /** Deeper than any tree the pools can hold (2^31 nodes of at least 6 children). */
    static final int MAX_HEIGHT = 48;

    final int nodeBytes;
    final int leafCap;
    final int innerCap;
    final int maxLeaves;
    final int maxInners;
    final KeyArena arena;
    /** A suffix key's bytes on their way to a chunk of their own ({@link #storeSuffixKey}); grows to the longest, once. */
    private byte[] suffixScratch = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    private int longestSuffixKey;
    private boolean localLeafSeen;
    /** The heap the node chunks and key arrays of this store (and of any history sharing it) may take. */
    final Reservation reservation;
    /** Heap one chunk of {@link #CHUNK_NODES} leaves, or inner nodes, takes (its arrays with their headers). */
    private final long leafChunkBytes;
    private final long innerChunkBytes;

    // ---- leaf pool ----
    long[][] lKey = new long[0][];
    /** Each leaf entry's version and key reference in one long ({@link #entry}). */
    long[][] lVerRef = new long[0][];
    /** Leaf headers, {@link #LEAF_HEADER_INTS} ints per leaf: count and own prefix length, next, previous, max version. */
    int[][] lHdr = new int[0][];
    /**
     * Per leaf with a prefix of its own ({@link LeafPrefixes}): the unit of a key chunk whose first bytes are that
     * prefix (its <em>anchor</em>), on which the leaf holds a reference of its own; meaningless for a global leaf.
     */
    int[][] lAnchor = new int[0][];
    private int leafHighWater;
    private int leafFree = NIL;
    int leavesInUse;

    // ---- inner pool ----
    long[][] iKey = new long[0][];
    int[][] iRef = new int[0][];
    int[][] iChild = new int[0][];
    int[][] iMax = new int[0][];
    int[][] iCount = new int[0][];
    /** Per inner node: the length of the prefix its separators' longs skip, or 0: the tree's ({@link InnerPrefixes}). */
    int[][] iSkip = new int[0][];
    private int innerHighWater;
    private int innerFree = NIL;
    int innersInUse;

    int root;
    /** Inner levels above the leaves; 0 when the root is a leaf. */
    int height;
    /** Taken by {@link #allocLeafConcurrently} (the partitions of a batch's writes split leaves at once). */
    private final Object leafPoolLock = new Object();

    NodeStore(int nodeBytes, int keyBlockBytes, long budgetBytes, Reservation reservation) {
        this.nodeBytes = nodeBytes;
        this.leafCap = (nodeBytes - LEAF_HEADER_BYTES - LEAF_ANCHOR_BYTES) / LEAF_SLOT_BYTES;
        if (leafCap > COUNT_MASK) {
            throw new IllegalArgumentException("nodeBytes " + nodeBytes + " holds more leaf entries than a header counts");
        }
        this.innerCap = (nodeBytes - INNER_HEADER_BYTES) / INNER_SLOT_BYTES;
        this.maxLeaves = (int) Math.min(Integer.MAX_VALUE - CHUNK_NODES, budgetBytes / nodeBytes);
        this.maxInners = maxLeaves;
        this.reservation = reservation;
        this.leafChunkBytes = CHUNK_NODES * (long) leafCap * (2 * Long.BYTES)
                + CHUNK_NODES * (long) (LEAF_HEADER_INTS + 1) * Integer.BYTES + 4 * Reservation.ARRAY_HEADER_BYTES;
        this.innerChunkBytes = CHUNK_NODES * (long) innerCap * (Long.BYTES + 3 * Integer.BYTES)
                + CHUNK_NODES * (long) INNER_HEADER_BYTES + 6 * Reservation.ARRAY_HEADER_BYTES;
        this.arena = new KeyArena(keyBlockBytes, reservation);
        this.root = allocLeaf();
    }

    // ---- leaf entries ----

    /** A leaf entry's version and key reference as {@link #lVerRef} holds them. */
    static long entry(int ver, int ref) {
        return (long) ver << 32 | (ref & 0xFFFF_FFFFL);
    }

    /** The version of a {@link #lVerRef} entry. */
    static int ver(long entry) {
        return (int) (entry >> 32);
    }

    /** The key reference of a {@link #lVerRef} entry. */
    static int ref(long entry) {
        return (int) entry;
    }

    /** A {@link #lVerRef} entry with its version replaced. */
    static long withVer(long entry, int ver) {
        return (long) ver << 32 | (entry & 0xFFFF_FFFFL);
    }

    /** Sets the version of entry {@code slot} of leaf {@code h}, keeping its key reference. */
    void setLeafVersion(int h, int slot, int ver) {
        long[] lvr = lVerRef[h >>> CHUNK_SHIFT];
        int at = (h & CHUNK_MASK) * leafCap + slot;
        lvr[at] = withVer(lvr[at], ver);
    }

    /** A {@link #lVerRef} entry with its key reference replaced. */
    static long withRef(long entry, int ref) {
        return entry & 0xFFFF_FFFF_0000_0000L | (ref & 0xFFFF_FFFFL);
    }

    // ---- accounting ----

    /** Bytes of the nodes and key chunks in use: what the budget counts. */
    long historyBytes() {
        return (long) (leavesInUse + innersInUse) * nodeBytes + arena.bytesInUse();
    }

    /** Heap held by the pools' backing arrays, in use or free (array headers included). */
    long reservedBytes() {
        return leafChunks() * leafChunkBytes + innerChunks() * innerChunkBytes + arena.reservedBytes();
    }

    /** Leaves handed out so far: every leaf below it is in the tree or free ({@link #freeLeaf}: a count of 0). */
    int leafHighWater() {
        return leafHighWater;
    }

    private long leafChunks() {
        return (leafHighWater + CHUNK_NODES - 1) / CHUNK_NODES;
    }

    private long innerChunks() {
        return (innerHighWater + CHUNK_NODES - 1) / CHUNK_NODES;
    }

    /**
     * At most how much new heap adding {@code leaves} leaves, {@code inners} inner nodes and {@code keyBytes} of
     * key chunks takes from the reservation: new chunks for the nodes the free lists and the last chunks cannot
     * hold, and what the key arena may need ({@link KeyArena#reservationNeeded}).
     */
    long reservationNeeded(long leaves, long inners, long keyBytes) {
        long leafRoom = leafChunks() * CHUNK_NODES - leavesInUse;
        long innerRoom = innerChunks() * CHUNK_NODES - innersInUse;
        long newLeafChunks = (Math.max(0, leaves - leafRoom) + CHUNK_NODES - 1) / CHUNK_NODES;
        long newInnerChunks = (Math.max(0, inners - innerRoom) + CHUNK_NODES - 1) / CHUNK_NODES;
        return newLeafChunks * leafChunkBytes + newInnerChunks * innerChunkBytes + arena.reservationNeeded(keyBytes);
    }

    /** Forgets every node and key chunk; the tree is one empty leaf again. */
    void clear() {
        reservation.give(leafChunks() * leafChunkBytes + innerChunks() * innerChunkBytes);
        lKey = new long[0][];
        lVerRef = new long[0][];
        lHdr = new int[0][];
        lAnchor = new int[0][];
        leafHighWater = 0;
        leafFree = NIL;
        leavesInUse = 0;
        iKey = new long[0][];
        iRef = new int[0][];
        iChild = new int[0][];
        iMax = new int[0][];
        iCount = new int[0][];
        iSkip = new int[0][];
        innerHighWater = 0;
        innerFree = NIL;
        innersInUse = 0;
        arena.clear();
        longestSuffixKey = 0;
        localLeafSeen = false;
        height = 0;
        root = allocLeaf();
    }

    // ---- pools ----

    int allocLeaf() {
        int h;
        if (leafFree != NIL) {
            h = leafFree;
            leafFree = lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT];
        } else {
            if (leafHighWater >= maxLeaves) {
                throw new IllegalStateException("leaf pool is full: the budget check let too much in");
            }
            h = leafHighWater++;
            int c = h >>> CHUNK_SHIFT;
            if (c == lKey.length) {
                int n = c + 1;
                lKey = Arrays.copyOf(lKey, n);
                lVerRef = Arrays.copyOf(lVerRef, n);
                lHdr = Arrays.copyOf(lHdr, n);
                lAnchor = Arrays.copyOf(lAnchor, n);
            }
            if (lKey[c] == null) {
                reservation.take(leafChunkBytes);
                lKey[c] = new long[CHUNK_NODES * leafCap];
                lVerRef[c] = new long[CHUNK_NODES * leafCap];
                lHdr[c] = new int[CHUNK_NODES * LEAF_HEADER_INTS];
                lAnchor[c] = new int[CHUNK_NODES];
            }
        }
        int[] hdr = lHdr[h >>> CHUNK_SHIFT];
        int at = (h & CHUNK_MASK) * LEAF_HEADER_INTS;
        hdr[at + H_COUNT] = 0;
        hdr[at + H_NEXT] = NIL;
        hdr[at + H_PREV] = NIL;
        hdr[at + H_MAX] = GAP;
        lAnchor[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = freshLeafStamp;
        leavesInUse++;
        return h;
    }

    /**
     * {@link #allocLeaf} for the threads that apply a batch's write partitions at once. Only the pool is
     * shared, for the few nanoseconds of a pop (one leaf per split); {@link #ensureLeafChunkSlots} must have
     * made room in the chunk tables first, so that no table is replaced while other threads read it. The
     * counts (leaves in use, the high water) end the same whatever the threads' order.
     */
    int allocLeafConcurrently() {
        synchronized (leafPoolLock) {
            return allocLeaf();
        }
    }

    /** Grows the leaf chunk tables so that {@code extra} more leaves can be allocated without replacing them. */
    void ensureLeafChunkSlots(long extra) {
        long last = Math.min((long) maxLeaves, leafHighWater + extra) - 1;
        int chunks = (int) (last >>> CHUNK_SHIFT) + 1;
        if (chunks > lKey.length) {
            // Geometrically, so that a growing tree does not copy the tables every few batches.
            chunks = (int) Math.min(Math.max(chunks, 2L * lKey.length), ((long) maxLeaves + CHUNK_NODES - 1) >>> CHUNK_SHIFT);
            lKey = Arrays.copyOf(lKey, chunks);
            lVerRef = Arrays.copyOf(lVerRef, chunks);
            lHdr = Arrays.copyOf(lHdr, chunks);
            lAnchor = Arrays.copyOf(lAnchor, chunks);
        }
    }

    void freeLeaf(int h) {
        lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = leafFree;
        lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = 0;
        leafFree = h;
        leavesInUse--;
    }

    int allocInner() {
        int h;
        if (innerFree != NIL) {
            h = innerFree;
            innerFree = iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
        } else {
            if (innerHighWater >= maxInners) {
                throw new IllegalStateException("inner pool is full: the budget check let too much in");
            }
            h = innerHighWater++;
            int c = h >>> CHUNK_SHIFT;
            if (c == iKey.length) {
                int n = c + 1;
                iKey = Arrays.copyOf(iKey, n);
                iRef = Arrays.copyOf(iRef, n);
                iChild = Arrays.copyOf(iChild, n);
                iMax = Arrays.copyOf(iMax, n);
                iCount = Arrays.copyOf(iCount, n);
                iSkip = Arrays.copyOf(iSkip, n);
            }
            if (iKey[c] == null) {
                reservation.take(innerChunkBytes);
                iKey[c] = new long[CHUNK_NODES * innerCap];
                iRef[c] = new int[CHUNK_NODES * innerCap];
                iChild[c] = new int[CHUNK_NODES * innerCap];
                iMax[c] = new int[CHUNK_NODES * innerCap];
                iCount[c] = new int[CHUNK_NODES];
                iSkip[c] = new int[CHUNK_NODES];
            }
        }
        iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = 0;
        iSkip[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = 0;
        innersInUse++;
        return h;
    }

    void freeInner(int h) {
        iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = innerFree;
        innerFree = h;
        innersInUse--;
    }

    @Override
    public void retainChunk(int unit) {
        arena.retain(unit);
    }

    @Override
    public void releaseChunk(int unit) {
        arena.release(unit);
    }

    @Override
    public int suffixFloor() {
        return Integer.MAX_VALUE;
    }

    @Override
    public void madeSuffixKey(int len) {
        if (len > longestSuffixKey) {
            longestSuffixKey = len;
        }
    }

    /**
     * The longest suffix key ({@link KeyRefs#isSuffix}) made since the tree was cleared, 0 for none: what lowering a
     * leaf can give chunks to is bounded by it ({@link LeafPrefixes#loweringBytesBound}). Up to date between phases
     * (the partitions' are added after theirs).
     */
    int longestSuffixKey() {
        return longestSuffixKey;
    }

    /** Whether a leaf went local since the tree was cleared (set by any thread; read between phases). */
    boolean localLeafSeen() {
        return localLeafSeen;
    }

    void sawLocalLeaf() {
        localLeafSeen = true;
    }

    @Override
    public int storeSuffixKey(byte[] p, int pOff, int s, long inline, int len) {
        byte[] k = suffixScratch.length >= len ? suffixScratch : (suffixScratch = new byte[Math.max(len, 2 * suffixScratch.length)]);
        System.arraycopy(p, pOff, k, 0, s);
        LeafPrefixes.suffixBytes(inline, len, s, k);
        return KeyRefs.arenaRef(arena.allocate(k, 0, len), false);
    }

    /** Leaf {@code h}'s anchor chunk (meaningful while it has a prefix of its own, {@link LeafPrefixes}). */
    /**
     * What a new leaf's anchor slot holds ({@link KeyLayout#stamp}): a global leaf's anchor slot says which prefix its
     * longs were last encoded for, and a new leaf's (empty) are the current one's.
     */
    int freshLeafStamp;

    int leafAnchor(int h) {
        return lAnchor[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
    }

    void setLeafAnchor(int h, int unit) {
        lAnchor[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = unit;
    }

    /** Drops a node's reference to a key chunk (inline references hold none). */
    void releaseRef(int ref) {
        if (ref >= 0) {
            arena.release(ref >>> 1);
        }
    }

    // ---- leaf headers ----

    int leafCount(int h) {
        return (lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK);
    }

    /**
     * Sets leaf {@code h}'s entry count; an empty leaf has no prefix of its own ({@link LeafPrefixes}: a caller that
     * empties a local leaf has released its anchor first).
     */
    void setLeafCount(int h, int n) {
        int[] hdr = lHdr[h >>> CHUNK_SHIFT];
        int at = (h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT;
        hdr[at] = n == 0 ? 0 : (hdr[at] & ~COUNT_MASK) | n;
    }

    /** Leaf {@code h}'s own prefix length ({@link LeafPrefixes}; 0: the tree's). */
    int leafSkip(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] >>> SKIP_SHIFT;
    }

    /** Sets leaf {@code h}'s own prefix length, at most {@link #MAX_LEAF_SKIP} (0: the tree's). */
    void setLeafSkip(int h, int skip) {
        int[] hdr = lHdr[h >>> CHUNK_SHIFT];
        int at = (h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT;
        hdr[at] = (hdr[at] & COUNT_MASK) | skip << SKIP_SHIFT;
    }

    int leafNext(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT];
    }

    int leafPrev(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV];
    }

    int leafMax(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX];
    }

    void setLeafMax(int h, int max) {
        lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = max;
    }

    /** The exact max version of leaf {@code h}'s entries. */
    int maxOfLeaf(int h) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        long[] lvr = lVerRef[c];
        int m = GAP;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, ver(lvr[base + i]));
        }
        return m;
    }

    /** Takes {@code leaf} out of the leaf chain (its own links are left as they were). */
    void unlinkLeaf(int leaf) {
        int prev = leafPrev(leaf);
        int next = leafNext(leaf);
        if (prev != NIL) {
            lHdr[prev >>> CHUNK_SHIFT][(prev & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = next;
        }
        if (next != NIL) {
            lHdr[next >>> CHUNK_SHIFT][(next & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV] = prev;
        }
    }

    /** Links new leaf {@code right} into the chain right after {@code leaf}. */
    void linkAfter(int leaf, int right) {
        int next = leafNext(leaf);
        int[] rh = lHdr[right >>> CHUNK_SHIFT];
        int ra = (right & CHUNK_MASK) * LEAF_HEADER_INTS;
        rh[ra + H_NEXT] = next;
        rh[ra + H_PREV] = leaf;
        lHdr[leaf >>> CHUNK_SHIFT][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = right;
        if (next != NIL) {
            lHdr[next >>> CHUNK_SHIFT][(next & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV] = right;
        }
    }

    int leftmostLeaf() {
        int node = root;
        for (int level = height; level > 0; level--) {
            node = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap];
        }
        return node;
    }

    // ---- inner slots ----

    int innerCount(int h) {
        return iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
    }

    void setInnerCount(int h, int n) {
        iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = n;
    }

    int child(int h, int slot) {
        return iChild[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * innerCap + slot];
    }

    void setInnerSlot(int h, int slot, long key, int ref, int child, int max) {
        int c = h >>> CHUNK_SHIFT;
        int at = (h & CHUNK_MASK) * innerCap + slot;
        iKey[c][at] = key;
        iRef[c][at] = ref;
        iChild[c][at] = child;
        iMax[c][at] = max;
    }

    void insertInnerSlot(int h, int slot, long key, int ref, int child, int max) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        if (n >= innerCap) {
            throw new IllegalStateException("inner node overflow: proactive split missed");
        }
        int move = n - slot;
        System.arraycopy(iKey[c], base + slot, iKey[c], base + slot + 1, move);
        System.arraycopy(iRef[c], base + slot, iRef[c], base + slot + 1, move);
        System.arraycopy(iChild[c], base + slot, iChild[c], base + slot + 1, move);
        System.arraycopy(iMax[c], base + slot, iMax[c], base + slot + 1, move);
        setInnerSlot(h, slot, key, ref, child, max);
        iCount[c][h & CHUNK_MASK] = n + 1;
    }

    /** Removes slot {@code i} of inner node {@code h}, freeing its separator. */
    void removeInnerSlot(int h, int i) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        releaseRef(iRef[c][base + i]);
        int move = n - i - 1;
        System.arraycopy(iKey[c], base + i + 1, iKey[c], base + i, move);
        System.arraycopy(iRef[c], base + i + 1, iRef[c], base + i, move);
        System.arraycopy(iChild[c], base + i + 1, iChild[c], base + i, move);
        System.arraycopy(iMax[c], base + i + 1, iMax[c], base + i, move);
        n--;
        iCount[c][h & CHUNK_MASK] = n;
        if (n < 2) {
            iSkip[c][h & CHUNK_MASK] = 0; // no separator left to have a prefix (InnerPrefixes)
        }
        if (i == 0 && n > 0) {
            // Slot 0's separator is never used: free the one that moved there.
            releaseRef(iRef[c][base]);
            iRef[c][base] = KeyRefs.EMPTY;
            iKey[c][base] = 0;
        }
    }

    /** The max of inner node {@code h}'s slot maxima. */
    int maxOfInner(int h) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        int[] im = iMax[c];
        int m = GAP;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, im[base + i]);
        }
        return m;
    }
}
