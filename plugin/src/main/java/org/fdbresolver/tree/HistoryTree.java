package org.fdbresolver.tree;

import java.util.Arrays;
import org.fdbresolver.pipeline.History;

/**
 * The write history as a B+ tree: a step function over keys. Each leaf entry {@code (key, version)}
 * begins an interval that runs up to the next entry's key; its version is the commit version of the
 * latest write covering it, or {@link #GAP} where no retained write does. Entries are sorted by key
 * across the linked leaves; the first interval (before any entry) is a gap.
 *
 * <h2>Layout</h2>
 * Nodes are fixed-size blocks in chunked primitive arrays, addressed by int handles (leaves and inner
 * nodes have separate pools). Offsets are slot indices {@code base + i} with
 * {@code base = (handle & CHUNK_MASK) * capacity} in chunk {@code handle >>> CHUNK_SHIFT}.
 * <ul>
 * <li>Leaf slot (16 bytes): {@code LEAF_KEY} long — the key's order-preserving 8 bytes after the
 * shared prefix ({@link KeyRefs}, below); {@code LEAF_VERSION} int — version minus {@link #base}, or GAP; {@code LEAF_REF} int
 * — the key reference (inline length, or a {@link KeyArena} chunk).</li>
 * <li>Leaf header (16 bytes): count, next leaf, previous leaf, max version of its entries (an upper
 * bound).</li>
 * <li>Inner slot (20 bytes): separator prefix long and reference int (slot 0's separator is unused:
 * it routes everything below slot 1's), child handle int, child's max version int (an upper bound of
 * every version in the child's subtree).</li>
 * <li>Inner header (4 bytes): count.</li>
 * </ul>
 * A leaf or inner block counts {@code nodeBytes} towards {@link #historyBytes()}; capacities are what
 * fits ({@code (nodeBytes - 16) / 16} entries, {@code (nodeBytes - 4) / 20} children).
 *
 * <h2>Shared prefix</h2>
 * Every key in the tree begins with the same {@code skip} bytes (kept once, in {@code shared}): the
 * inline longs of entries and separators hold the 8 bytes after them, so keys that all begin alike
 * (FoundationDB's {@code skiplisttest}: twelve dots, then 4 bytes) still compare in one {@code long}
 * compare, without reading key blocks. The first written key sets the prefix; a written key without
 * it shortens the prefix to what they share and re-encodes every inline long in one pass (so at most
 * once per byte of the first key's length, and in practice a few times while the tree is small); it
 * grows back only when the tree is cleared. A read key without it orders before or after every key
 * in the tree and is searched as such (a sentinel length), so reads never change the prefix. Key
 * storage does not depend on it: keys of at most 8 bytes, and 9-byte keys ending in 0x00 (the end
 * {@code k\0} of a point write on an 8-byte key), are inline whatever the prefix is
 * ({@link KeyRefs#fitsInline}); all other keys are in key blocks, so re-encoding never allocates.
 *
 * <h2>Reads</h2>
 * {@link #conflicts} descends once (recording the path), finds the interval holding the read's begin
 * (skipping the leaf's binary search when the leaf's max version shows nothing newer than the
 * snapshot), then walks on through the recorded parents: a slot whose separator is at or above the
 * read's end stops the walk, a slot whose max version is not above the snapshot is skipped without
 * touching its subtree.
 *
 * <h2>Writes</h2>
 * {@link #merge} sets {@code [b, e)} to {@code now}: an entry at {@code e} keeps the version that was in
 * force there (the outer fragment), the entry at {@code b} takes {@code now}, entries strictly between
 * go — in one pass over one leaf in the common case. Inner nodes are split on the way down when full
 * (proactive split preparation), so a leaf split always finds room in its parent and no split cascades
 * upwards. A full leaf first shifts entries to its right sibling when that has room. Deletions may
 * leave leaves empty; the sweeper unlinks them.
 *
 * <h2>Reclamation</h2>
 * {@link #removeBefore} runs a sweeper over the leaves in key order, resuming where it stopped: expired
 * entries (version below the oldest checkable version) become gaps, entries equal to their
 * predecessor go, empty leaves are unlinked and small neighbours merged. Under budget pressure
 * {@link #prepareMerge} raises the retained boundary and sweeps the whole tree.
 */
public final class HistoryTree implements History {
    /** Version of an interval no retained write covers. */
    static final int GAP = Integer.MIN_VALUE;
    static final int NIL = -1;
    static final int LEAF_HEADER_BYTES = 16;
    static final int LEAF_SLOT_BYTES = 16;
    static final int LEAF_HEADER_INTS = 4;
    static final int H_COUNT = 0;
    static final int H_NEXT = 1;
    static final int H_PREV = 2;
    static final int H_MAX = 3;
    static final int INNER_HEADER_BYTES = 4;
    static final int INNER_SLOT_BYTES = 20;
    private static final int CHUNK_SHIFT = 6;
    private static final int CHUNK_NODES = 1 << CHUNK_SHIFT;
    private static final int CHUNK_MASK = CHUNK_NODES - 1;
    private static final int MAX_HEIGHT = 48;
    /** Relative versions stay below this; beyond it the base moves (see {@link #rebase}). */
    static final long REBASE_LIMIT = Integer.MAX_VALUE - 1;

    private final int nodeBytes;
    private final int leafCap;
    private final int innerCap;
    private final long budget;
    /** A history that draws on the same budget (the engine's uncertain writes), or null. */
    private History budgetSharer;
    private final int maxLeaves;
    private final int maxInners;
    private final KeyArena arena;

    // ---- leaf pool ----
    private long[][] lKey = new long[0][];
    private int[][] lVer = new int[0][];
    private int[][] lRef = new int[0][];
    /** Leaf headers, {@link #LEAF_HEADER_INTS} ints per leaf: count, next, previous, max version. */
    private int[][] lHdr = new int[0][];
    private int leafHighWater;
    private int leafFree = NIL;
    private int leavesInUse;

    // ---- inner pool ----
    private long[][] iKey = new long[0][];
    private int[][] iRef = new int[0][];
    private int[][] iChild = new int[0][];
    private int[][] iMax = new int[0][];
    private int[][] iCount = new int[0][];
    private int innerHighWater;
    private int innerFree = NIL;
    private int innersInUse;

    private int root;
    /** Inner levels above the leaves; 0 when the root is a leaf. */
    private int height;
    /** Versions are stored as {@code version - base} in an int. */
    private long base;
    private long retained;
    /** Relative versions below this are expired (treated as gaps). */
    private int expiredBelow = GAP;
    private int maxKeyLength;
    private boolean dropBatchWrites;

    // ---- scratch, reused ----
    private final int[] pathNode = new int[MAX_HEIGHT];
    private final int[] pathIdx = new int[MAX_HEIGHT];
    private final byte[] scratchA;
    private final byte[] scratchB;
    private final byte[] cursorKey;
    private int cursorLen = -1;
    private long cursorPrefix;
    private final long[] histogram = new long[64];

    // ---- the shared prefix (see "Shared prefix" in the class javadoc) ----
    /** Bytes {@code [0, skip)} of every key in the tree and of every key searched for. */
    private final byte[] shared;
    private int skip;
    /** Search lengths of read keys without the shared prefix (see {@link #searchLength}). */
    private static final int BELOW = -1;
    private static final int ABOVE = -2;
    /** No key has been admitted since the tree was (re)created: the next one sets the shared prefix. */
    private boolean skipUnset = true;

    // sweeper state during one call
    private long sweepWork;
    private boolean sweepStopped;
    private boolean sweepPrevKnown;
    private int sweepPrevVer;

    public HistoryTree(int nodeBytes, int keyBlockBytes, long budgetBytes, int maxKeyBytes) {
        if (nodeBytes < 128 || nodeBytes > 1 << 20) {
            throw new IllegalArgumentException("nodeBytes must be within [128, 1048576]: " + nodeBytes);
        }
        if (budgetBytes < 16L * nodeBytes) {
            throw new IllegalArgumentException("memory budget " + budgetBytes + " is below 16 nodes of " + nodeBytes + " bytes");
        }
        this.nodeBytes = nodeBytes;
        this.leafCap = (nodeBytes - LEAF_HEADER_BYTES) / LEAF_SLOT_BYTES;
        this.innerCap = (nodeBytes - INNER_HEADER_BYTES) / INNER_SLOT_BYTES;
        this.budget = budgetBytes;
        this.maxLeaves = (int) Math.min(Integer.MAX_VALUE - CHUNK_NODES, budgetBytes / nodeBytes);
        this.maxInners = maxLeaves;
        this.arena = new KeyArena(keyBlockBytes, budgetBytes, maxKeyBytes);
        this.scratchA = new byte[maxKeyBytes + 1];
        this.scratchB = new byte[maxKeyBytes + 1];
        this.cursorKey = new byte[maxKeyBytes + 1];
        this.shared = new byte[maxKeyBytes + 1];
        this.root = allocLeaf();
    }

    // =====================================================================================
    // Accounting
    // =====================================================================================

    @Override
    public long historyBytes() {
        return (long) (leavesInUse + innersInUse) * nodeBytes + arena.bytesInUse();
    }

    @Override
    public long retainedVersion() {
        return retained;
    }

    public int leafCapacity() {
        return leafCap;
    }

    public int innerCapacity() {
        return innerCap;
    }

    public int leavesInUse() {
        return leavesInUse;
    }

    public int innersInUse() {
        return innersInUse;
    }

    public long keyBytesInUse() {
        return arena.bytesInUse();
    }

    /** Memory held by the pools' backing arrays, in use or free. */
    public long reservedBytes() {
        return ((long) leafHighWater + innerHighWater) * nodeBytes + arena.reservedBytes();
    }

    public int height() {
        return height;
    }

    /** Entries in the leaves (a walk over the leaf chain: for reports, not the hot path). */
    @Override
    public boolean isEmpty() {
        return height == 0 && leafCount(root) == 0;
    }

    public long entryCount() {
        long n = 0;
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            n += leafCount(leaf);
        }
        return n;
    }

    // =====================================================================================
    // Pools
    // =====================================================================================

    private int allocLeaf() {
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
                lVer = Arrays.copyOf(lVer, n);
                lRef = Arrays.copyOf(lRef, n);
                lHdr = Arrays.copyOf(lHdr, n);
            }
            if (lKey[c] == null) {
                lKey[c] = new long[CHUNK_NODES * leafCap];
                lVer[c] = new int[CHUNK_NODES * leafCap];
                lRef[c] = new int[CHUNK_NODES * leafCap];
                lHdr[c] = new int[CHUNK_NODES * LEAF_HEADER_INTS];
            }
        }
        int c = h >>> CHUNK_SHIFT;
        int i = h & CHUNK_MASK;
        lHdr[c][(i) * LEAF_HEADER_INTS + H_COUNT] = 0;
        lHdr[c][(i) * LEAF_HEADER_INTS + H_NEXT] = NIL;
        lHdr[c][(i) * LEAF_HEADER_INTS + H_PREV] = NIL;
        lHdr[c][(i) * LEAF_HEADER_INTS + H_MAX] = GAP;
        leavesInUse++;
        return h;
    }

    private void freeLeaf(int h) {
        lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = leafFree;
        lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = 0;
        leafFree = h;
        leavesInUse--;
    }

    private int allocInner() {
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
            }
            if (iKey[c] == null) {
                iKey[c] = new long[CHUNK_NODES * innerCap];
                iRef[c] = new int[CHUNK_NODES * innerCap];
                iChild[c] = new int[CHUNK_NODES * innerCap];
                iMax[c] = new int[CHUNK_NODES * innerCap];
                iCount[c] = new int[CHUNK_NODES];
            }
        }
        iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = 0;
        innersInUse++;
        return h;
    }

    private void freeInner(int h) {
        iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = innerFree;
        innerFree = h;
        innersInUse--;
    }

    private void releaseRef(int ref) {
        if (ref >= 0) {
            arena.release(ref >>> 1);
        }
    }

    /** A reference to {@code key[off, off + len)}: inline ({@link KeyRefs#fitsInline}), or a new arena chunk. */
    private int storeKey(byte[] key, int off, int len) {
        if (KeyRefs.fitsInline(key, off, len)) {
            return KeyRefs.inline(len);
        }
        return KeyRefs.arenaRef(arena.allocate(key, off, len), false);
    }

    private int leafCount(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
    }

    private int leafNext(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT];
    }

    private int leafPrev(int h) {
        return lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV];
    }

    private int innerCount(int h) {
        return iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
    }

    // =====================================================================================
    // Shared prefix
    // =====================================================================================

    /** The length of the prefix every key in the tree shares (the inline longs hold the 8 bytes after it). */
    public int sharedPrefixLength() {
        return skip;
    }

    /**
     * Makes sure {@code key} has the shared prefix, shortening the prefix (and re-encoding every inline
     * long in the tree) when it does not. Once per key per call: a vectorized compare of skip bytes.
     */
    private void admit(byte[] key, int off, int len) {
        int g = skip;
        if (len >= g && Arrays.equals(key, off, off + g, shared, 0, g)) {
            if (skipUnset) {
                // The first key: the whole key is shared so far (the tree holds nothing to re-encode).
                System.arraycopy(key, off, shared, 0, len);
                skip = len;
                skipUnset = false;
            }
            return;
        }
        int m = Arrays.mismatch(key, off, off + len, shared, 0, g);
        reencode(m);
    }

    /** Re-encodes every inline long (leaves, separators, the sweep cursor) for a shorter shared prefix. */
    private void reencode(int newSkip) {
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * leafCap;
            for (int j = 0, n = leafCount(leaf); j < n; j++) {
                int len = materialize(lKey[c][b + j], lRef[c][b + j], scratchA);
                lKey[c][b + j] = KeyRefs.prefix(scratchA, newSkip, len - newSkip);
            }
        }
        if (height > 0) {
            reencodeSeparators(root, height, newSkip);
        }
        if (cursorLen >= 0) {
            cursorPrefix = KeyRefs.prefix(cursorKey, newSkip, cursorLen - newSkip);
        }
        skip = newSkip;
    }

    private void reencodeSeparators(int h, int level, int newSkip) {
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                int len = materialize(iKey[c][b + i], iRef[c][b + i], scratchA);
                iKey[c][b + i] = KeyRefs.prefix(scratchA, newSkip, len - newSkip);
            }
            if (level > 1) {
                reencodeSeparators(iChild[c][b + i], level - 1, newSkip);
            }
        }
    }

    /**
     * The length to search with for a read's key: its own when it has the shared prefix, else
     * {@link #BELOW} or {@link #ABOVE} (every key in the tree has the prefix, so such a key orders
     * before, or after, all of them).
     */
    private int searchLength(byte[] key, int off, int len) {
        int g = skip;
        if (len >= g && Arrays.equals(key, off, off + g, shared, 0, g)) {
            return len;
        }
        int m = Arrays.mismatch(key, off, off + len, shared, 0, g);
        return m == len || (key[off + m] & 0xFF) < (shared[m] & 0xFF) ? BELOW : ABOVE;
    }

    private long searchInline(byte[] key, int off, int len) {
        return len >= 0 ? inlineOf(key, off, len) : len == BELOW ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** The inline long of {@code key} (which has the shared prefix). */
    private long inlineOf(byte[] key, int off, int len) {
        return KeyRefs.prefix(key, off + skip, len - skip);
    }

    /** Compares a search key with a stored key whose inline long is equal to the search key's. */
    private int tail(byte[] key, int off, int len, int ref) {
        if (len < 0) {
            return len == BELOW ? -1 : 1;
        }
        return KeyRefs.compareTail(key, off, len, ref, arena, skip);
    }

    private int materialize(long inline, int ref, byte[] out) {
        return KeyRefs.materialize(inline, ref, arena, out, shared, skip);
    }

    // =====================================================================================
    // Search
    // =====================================================================================

    /** The child slot of inner node {@code h} whose subtree holds {@code key}: the last slot whose separator is {@code <= key}. */
    private int childSlot(int h, long kp, byte[] key, int off, int len) {
        long[] keys = iKey[h >>> CHUNK_SHIFT];
        int[] refs = iRef[h >>> CHUNK_SHIFT];
        int base = (h & CHUNK_MASK) * innerCap;
        int lo = 1;
        int hi = iCount[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long p = keys[base + mid];
            int c = kp != p ? (kp < p ? -1 : 1) : tail(key, off, len, refs[base + mid]);
            if (c >= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** In leaf {@code h}: the first slot whose key is {@code >= key} ({@code strict == false}) or {@code > key}. */
    private int leafSearch(int h, long kp, byte[] key, int off, int len, boolean strict) {
        long[] keys = lKey[h >>> CHUNK_SHIFT];
        int[] refs = lRef[h >>> CHUNK_SHIFT];
        int base = (h & CHUNK_MASK) * leafCap;
        int lo = 0;
        int hi = lHdr[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long p = keys[base + mid];
            int c = kp != p ? (kp < p ? -1 : 1) : tail(key, off, len, refs[base + mid]);
            if (c > 0 || (strict && c == 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private int findLeaf(long kp, byte[] key, int off, int len) {
        int node = root;
        for (int level = height; level > 0; level--) {
            int slot = childSlot(node, kp, key, off, len);
            node = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap + slot];
        }
        return node;
    }

    /** Like {@link #findLeaf} but records the path (node and slot per level) for a scan that climbs. */
    private int findLeafRecordingPath(long kp, byte[] key, int off, int len) {
        int node = root;
        for (int level = 0; level < height; level++) {
            int slot = childSlot(node, kp, key, off, len);
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap + slot];
        }
        return node;
    }

    /** The version of the last entry of the first non-empty leaf at or before {@code h}, or GAP. */
    private int lastVersionFrom(int h) {
        while (h != NIL) {
            int n = leafCount(h);
            if (n > 0) {
                return lVer[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * leafCap + n - 1];
            }
            h = leafPrev(h);
        }
        return GAP;
    }

    private int relative(long version) {
        long r = version - base;
        return r > REBASE_LIMIT ? Integer.MAX_VALUE : r < -REBASE_LIMIT ? GAP + 1 : (int) r;
    }

    // =====================================================================================
    // Read check: one descent, predecessor, forward scan pruned by leaf max versions
    // =====================================================================================

    @Override
    public boolean conflicts(byte[] keys, int bOff, int bLen, int eOff, int eLen, long snapshot) {
        boolean empty = Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + eLen);
        int s = relative(snapshot);
        // A read never changes the shared prefix: a key without it orders before or after every key
        // in the tree, and its length becomes BELOW or ABOVE, which tail() answers without bytes.
        bLen = searchLength(keys, bOff, bLen);
        eLen = searchLength(keys, eOff, eLen);
        long bp = searchInline(keys, bOff, bLen);
        long ep = searchInline(keys, eOff, eLen);
        int leaf = findLeafRecordingPath(bp, keys, bOff, bLen);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int[] hdr = lHdr[c];
        int h = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS;
        int n = hdr[h + H_COUNT];
        boolean leafIsOld = hdr[h + H_MAX] <= s;
        if (leafIsOld && n > 0) {
            // Nothing in this leaf is newer than the snapshot: if the interval holding begin starts in
            // this leaf (its first key is at or below begin), no binary search is needed.
            long p = lKey[c][base];
            int cf = bp != p ? (bp < p ? -1 : 1) : tail(keys, bOff, bLen, lRef[c][base]);
            if (cf > 0 || (cf == 0 && !empty)) {
                if (empty) {
                    return false;
                }
            } else if (lastVersionFrom(leafPrev(leaf)) > s) {
                return true;
            } else if (empty) {
                return false;
            }
        } else {
            int i = leafSearch(leaf, bp, keys, bOff, bLen, !empty);
            // The interval holding begin (or, for an empty read, the point just below it).
            int predVer = i > 0 ? lVer[c][base + i - 1] : lastVersionFrom(leafPrev(leaf));
            if (predVer > s) {
                return true;
            }
            if (empty) {
                return false;
            }
            // Intervals that begin strictly inside (begin, end): the rest of this leaf, then the
            // following subtrees in key order, skipping every subtree whose max version is not above
            // the snapshot and stopping at the first separator at or above end (read from the cached
            // parents, so skipped leaves are never touched).
            if (!leafIsOld) {
                int r = scanLeaf(leaf, i, s, ep, keys, eOff, eLen);
                if (r >= 0) {
                    return r == 1;
                }
            }
        }
        int level = height - 1;
        while (level >= 0) {
            int node = pathNode[level];
            int slot = pathIdx[level] + 1;
            int nc = node >>> CHUNK_SHIFT;
            int nb = (node & CHUNK_MASK) * innerCap;
            if (slot >= iCount[nc][node & CHUNK_MASK]) {
                level--;
                continue;
            }
            if (slot > 0) {
                long p = iKey[nc][nb + slot];
                if (p > ep || (p == ep && tail(keys, eOff, eLen, iRef[nc][nb + slot]) <= 0)) {
                    return false;
                }
            }
            pathIdx[level] = slot;
            if (iMax[nc][nb + slot] <= s) {
                continue;
            }
            int child = iChild[nc][nb + slot];
            if (level + 1 < height) {
                level++;
                pathNode[level] = child;
                pathIdx[level] = -1;
                continue;
            }
            int r = scanLeaf(child, 0, s, ep, keys, eOff, eLen);
            if (r >= 0) {
                return r == 1;
            }
        }
        return false;
    }

    /**
     * Scans {@code leaf} from slot {@code i}: 1 if an entry below end is newer than the snapshot, 0 if an
     * entry at or above end comes first, -1 if the leaf ends first.
     */
    private int scanLeaf(int leaf, int i, int s, long ep, byte[] keys, int eOff, int eLen) {
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        long[] lk = lKey[c];
        int[] lv = lVer[c];
        int[] lr = lRef[c];
        for (int j = base + i, end = base + n; j < end; j++) {
            long p = lk[j];
            if (p > ep || (p == ep && tail(keys, eOff, eLen, lr[j]) <= 0)) {
                return 0;
            }
            if (lv[j] > s) {
                return 1;
            }
        }
        return -1;
    }

    // =====================================================================================
    // Writes
    // =====================================================================================

    @Override
    public void prepareMerge(long now, int ranges, long longKeyBytes, int maxKeyLength) {
        dropBatchWrites = false;
        this.maxKeyLength = Math.max(this.maxKeyLength, maxKeyLength);
        if (now - base > REBASE_LIMIT) {
            rebase(now);
        }
        // Worst case: every inserted entry splits a leaf; inner splits above them; a separator per split.
        long entries = 2L * ranges;
        long innerSplits = 2 * (entries / Math.max(1, innerCap / 2) + height + 2);
        long nodes = entries + innerSplits + 1;
        long sepBytes = this.maxKeyLength > KeyRefs.INLINE_BYTES ? nodes * KeyArena.chunkBytes(this.maxKeyLength) : 0;
        long keyReserve = longKeyBytes + sepBytes;
        long reserve = nodes * nodeBytes + keyReserve;
        if (fits(reserve, keyReserve, nodes)) {
            return;
        }
        // Drop the oldest history until the batch fits, leaving some headroom so this is not paid every batch.
        for (int attempt = 0; attempt < 8 && !fits(reserve, keyReserve, nodes); attempt++) {
            long room = budgetNow() - reserve;
            long target = Math.max(0, room - room / 4);
            if (!dropOldest(now, target)) {
                break;
            }
        }
        if (!fits(reserve, keyReserve, nodes)) {
            // Not even an empty history holds this batch: forget everything, including the batch's
            // writes, and make every snapshot that could conflict with them TOO_OLD.
            clearAll();
            dropBatchWrites = !fits(reserve, keyReserve, nodes);
            retained = Math.max(retained, dropBatchWrites ? now + 1 : now);
            expiredBelow = Math.max(expiredBelow, relative(retained));
        }
    }

    /** Lets {@code other} draw on this history's budget too: what it holds is not available here. */
    public void shareBudgetWith(History other) {
        this.budgetSharer = other;
    }

    /** The budget less what a sharing history holds now. */
    private long budgetNow() {
        return budgetSharer == null ? budget : budget - budgetSharer.historyBytes();
    }

    private boolean fits(long reserve, long keyReserve, long nodes) {
        return historyBytes() + reserve <= budgetNow()
                && arena.guaranteedFreeBytes() >= keyReserve
                && leavesInUse + nodes <= maxLeaves && innersInUse + nodes <= maxInners;
    }

    @Override
    public void merge(byte[] keys, int bOff, int bLen, int eOff, int eLen, long now) {
        if (dropBatchWrites) {
            return;
        }
        admit(keys, bOff, bLen);
        admit(keys, eOff, eLen);
        int v = relative(now);
        long bp = inlineOf(keys, bOff, bLen);
        long ep = inlineOf(keys, eOff, eLen);
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
        int i = leafSearch(leaf, bp, keys, bOff, bLen, false);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (i < n && lKey[c][base + i] == bp && tail(keys, bOff, bLen, lRef[c][base + i]) == 0) {
            lVer[c][base + i] = v;
        } else {
            if (bRef != NIL) {
                arena.retain(bRef >>> 1);
            } else {
                bRef = storeKey(keys, bOff, bLen);
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
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        long[] lk = lKey[c];
        int[] lv = lVer[c];
        int[] lr = lRef[c];
        int i = leafSearch(leaf, bp, keys, bOff, bLen, false);
        int j = i;
        int cmpE = 1;
        while (j < n) {
            long p = lk[base + j];
            cmpE = ep != p ? (ep < p ? -1 : 1) : tail(keys, eOff, eLen, lr[base + j]);
            if (cmpE <= 0) {
                break;
            }
            j++;
        }
        if (j == n) {
            return false;
        }
        boolean exactE = cmpE == 0;
        boolean exactB = i < j && lk[base + i] == bp && tail(keys, bOff, bLen, lr[base + i]) == 0;
        int newCount = i + (exactE ? 1 : 2) + (n - j);
        if (newCount > leafCap) {
            return false;
        }
        int vE = 0;
        if (!exactE) {
            vE = j > 0 ? lv[base + j - 1] : lastVersionFrom(lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV]);
            if (vE < expiredBelow) {
                vE = GAP;
            }
        }
        int bRef = exactB ? lr[base + i] : NIL;
        for (int k = exactB ? i + 1 : i; k < j; k++) {
            releaseRef(lr[base + k]);
        }
        int eRef = 0;
        if (!exactE) {
            eRef = storeKey(keys, eOff, eLen);
        }
        if (bRef == NIL) {
            if (!exactE && eRef >= 0 && eLen == bLen + 1 && keys[eOff + bLen] == 0
                    && Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + bLen)) {
                arena.retain(eRef >>> 1);
                bRef = eRef | 1;
            } else {
                bRef = storeKey(keys, bOff, bLen);
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
        lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = newCount;
        raiseMax(leaf, v);
        return true;
    }

    /**
     * Makes sure an entry exists at {@code key}, inserting one with the version in force there;
     * returns its key reference.
     */
    private int ensureEntry(long kp, byte[] key, int off, int len) {
        int leaf = descendForInsert(kp, key, off, len);
        int i = leafSearch(leaf, kp, key, off, len, false);
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (i < n && lKey[c][base + i] == kp && tail(key, off, len, lRef[c][base + i]) == 0) {
            return lRef[c][base + i];
        }
        int v = i > 0 ? lVer[c][base + i - 1] : lastVersionFrom(leafPrev(leaf));
        if (v < expiredBelow) {
            v = GAP;
        }
        int ref = storeKey(key, off, len);
        long pos = insertEntry(leaf, i, kp, key, off, len, ref, v);
        raiseMax((int) (pos >>> 32), v);
        return ref;
    }

    /** Raises the max version of {@code leaf} and of its slot along the recorded descent path. */
    private void raiseMax(int leaf, int v) {
        int[] m = lHdr[leaf >>> CHUNK_SHIFT];
        int at = (leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX;
        if (m[at] < v) {
            m[at] = v;
        }
        for (int level = 0; level < height; level++) {
            int node = pathNode[level];
            int[] im = iMax[node >>> CHUNK_SHIFT];
            int slot = (node & CHUNK_MASK) * innerCap + pathIdx[level];
            if (im[slot] < v) {
                im[slot] = v;
            }
        }
    }

    /**
     * Descends to the leaf for {@code key}, splitting every full inner node on the way (the root
     * first) so that the leaf's parent has room for a split. Records the path.
     */
    private int descendForInsert(long kp, byte[] key, int off, int len) {
        if (height > 0 && innerCount(root) == innerCap) {
            int old = root;
            int r = allocInner();
            setInnerSlot(r, 0, 0, KeyRefs.EMPTY, old, maxOfInner(old));
            iCount[r >>> CHUNK_SHIFT][r & CHUNK_MASK] = 1;
            root = r;
            height++;
            splitInnerChild(r, 0);
        }
        int node = root;
        for (int level = 0; level < height; level++) {
            int slot = childSlot(node, kp, key, off, len);
            if (level + 1 < height) {
                int child = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap + slot];
                if (innerCount(child) == innerCap) {
                    splitInnerChild(node, slot);
                    slot = childSlot(node, kp, key, off, len);
                }
            }
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap + slot];
        }
        return node;
    }

    private void setInnerSlot(int h, int slot, long key, int ref, int child, int max) {
        int c = h >>> CHUNK_SHIFT;
        int at = (h & CHUNK_MASK) * innerCap + slot;
        iKey[c][at] = key;
        iRef[c][at] = ref;
        iChild[c][at] = child;
        iMax[c][at] = max;
    }

    private int maxOfInner(int h) {
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

    private int maxOfLeaf(int h) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        int[] lv = lVer[c];
        int m = GAP;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, lv[base + i]);
        }
        return m;
    }

    /** Splits the full inner child at {@code slot} of {@code parent} (which has room) into two halves. */
    private void splitInnerChild(int parent, int slot) {
        int left = iChild[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slot];
        int right = allocInner();
        int n = innerCount(left);
        int mid = n / 2;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * innerCap;
        int rb = (right & CHUNK_MASK) * innerCap;
        // Slot mid's separator moves up; it becomes the right node's (unused) slot-0 separator.
        long upKey = iKey[lc][lb + mid];
        int upRef = iRef[lc][lb + mid];
        System.arraycopy(iKey[lc], lb + mid, iKey[rc], rb, n - mid);
        System.arraycopy(iRef[lc], lb + mid, iRef[rc], rb, n - mid);
        System.arraycopy(iChild[lc], lb + mid, iChild[rc], rb, n - mid);
        System.arraycopy(iMax[lc], lb + mid, iMax[rc], rb, n - mid);
        iRef[rc][rb] = KeyRefs.EMPTY;
        iKey[rc][rb] = 0;
        iCount[lc][left & CHUNK_MASK] = mid;
        iCount[rc][right & CHUNK_MASK] = n - mid;
        insertInnerSlot(parent, slot + 1, upKey, upRef, right, maxOfInner(right));
        iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slot] = maxOfInner(left);
    }

    private void insertInnerSlot(int h, int slot, long key, int ref, int child, int max) {
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

    /**
     * Inserts an entry at slot {@code i} of {@code leaf} (the last descent's leaf), splitting the leaf if
     * full. Returns {@code leaf << 32 | slot} of where the entry went.
     */
    private long insertEntry(int leaf, int i, long kp, byte[] key, int off, int len, int ref, int v) {
        int c = leaf >>> CHUNK_SHIFT;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (n == leafCap) {
            // A full leaf first hands entries to its right sibling (fuller leaves, less memory) and
            // splits only when the sibling is nearly full too.
            int right = height > 0 ? shiftToRightSibling(leaf) : NIL;
            if (right == NIL) {
                right = splitLeaf(leaf);
            }
            int mid = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            boolean goRight;
            if (i != mid) {
                goRight = i > mid;
            } else {
                // Between the halves: the separator (possibly shorter than the right's first key) decides.
                int parent = pathNode[height - 1];
                int at = (parent & CHUNK_MASK) * innerCap + pathIdx[height - 1] + 1;
                goRight = KeyRefs.compare(kp, key, off, len, iKey[parent >>> CHUNK_SHIFT][at], iRef[parent >>> CHUNK_SHIFT][at], arena, skip) >= 0;
            }
            if (goRight) {
                leaf = right;
                i -= mid;
                pathIdx[height - 1]++;
            }
            c = leaf >>> CHUNK_SHIFT;
            n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        }
        int base = (leaf & CHUNK_MASK) * leafCap;
        int move = n - i;
        System.arraycopy(lKey[c], base + i, lKey[c], base + i + 1, move);
        System.arraycopy(lVer[c], base + i, lVer[c], base + i + 1, move);
        System.arraycopy(lRef[c], base + i, lRef[c], base + i + 1, move);
        lKey[c][base + i] = kp;
        lVer[c][base + i] = v;
        lRef[c][base + i] = ref;
        lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = n + 1;
        return (long) leaf << 32 | i;
    }

    /**
     * Splits full {@code leaf} (the last descent's leaf) in two; the right half goes into a new leaf
     * linked after it and registered in the parent (making a new root if the leaf was the root).
     */
    private int splitLeaf(int leaf) {
        int right = allocLeaf();
        int lc = leaf >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * leafCap;
        int rb = (right & CHUNK_MASK) * leafCap;
        int n = lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        int mid = n / 2;
        System.arraycopy(lKey[lc], lb + mid, lKey[rc], rb, n - mid);
        System.arraycopy(lVer[lc], lb + mid, lVer[rc], rb, n - mid);
        System.arraycopy(lRef[lc], lb + mid, lRef[rc], rb, n - mid);
        lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = mid;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = n - mid;
        int next = lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT];
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = next;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV] = leaf;
        lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = right;
        if (next != NIL) {
            lHdr[next >>> CHUNK_SHIFT][(next & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV] = right;
        }
        int leftMax = maxOfLeaf(leaf);
        int rightMax = maxOfLeaf(right);
        lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = leftMax;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = rightMax;
        separatorBetween(leaf, right);
        long sepKey = sepKeyOut;
        int sepRef = sepRefOut;
        if (height == 0) {
            int r = allocInner();
            setInnerSlot(r, 0, 0, KeyRefs.EMPTY, leaf, leftMax);
            setInnerSlot(r, 1, sepKey, sepRef, right, rightMax);
            iCount[r >>> CHUNK_SHIFT][r & CHUNK_MASK] = 2;
            root = r;
            height = 1;
            pathNode[0] = r;
            pathIdx[0] = 0;
        } else {
            int parent = pathNode[height - 1];
            int slot = pathIdx[height - 1];
            insertInnerSlot(parent, slot + 1, sepKey, sepRef, right, rightMax);
            iMax[parent >>> CHUNK_SHIFT][(parent & CHUNK_MASK) * innerCap + slot] = leftMax;
        }
        return right;
    }

    /**
     * Moves the last entries of full {@code leaf} (the last descent's leaf) to the front of its right
     * sibling under the same parent when that has room, and fixes the separator between them.
     * Returns the sibling, or NIL when there is none with room.
     */
    private int shiftToRightSibling(int leaf) {
        int parent = pathNode[height - 1];
        int slot = pathIdx[height - 1];
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * innerCap;
        if (slot + 1 >= iCount[pc][parent & CHUNK_MASK]) {
            return NIL;
        }
        int right = iChild[pc][pb + slot + 1];
        int rc = right >>> CHUNK_SHIFT;
        int rb = (right & CHUNK_MASK) * leafCap;
        int rn = lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        int move = (leafCap - rn) / 2;
        if (move < Math.max(2, leafCap / 16)) {
            return NIL;
        }
        int lc = leaf >>> CHUNK_SHIFT;
        int lb = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        System.arraycopy(lKey[rc], rb, lKey[rc], rb + move, rn);
        System.arraycopy(lVer[rc], rb, lVer[rc], rb + move, rn);
        System.arraycopy(lRef[rc], rb, lRef[rc], rb + move, rn);
        System.arraycopy(lKey[lc], lb + n - move, lKey[rc], rb, move);
        System.arraycopy(lVer[lc], lb + n - move, lVer[rc], rb, move);
        System.arraycopy(lRef[lc], lb + n - move, lRef[rc], rb, move);
        lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = n - move;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = rn + move;
        int leftMax = maxOfLeaf(leaf);
        int rightMax = maxOfLeaf(right);
        lHdr[lc][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = leftMax;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = rightMax;
        iMax[pc][pb + slot] = leftMax;
        iMax[pc][pb + slot + 1] = rightMax;
        releaseRef(iRef[pc][pb + slot + 1]);
        separatorBetween(leaf, right);
        iKey[pc][pb + slot + 1] = sepKeyOut;
        iRef[pc][pb + slot + 1] = sepRefOut;
        return right;
    }

    private long sepKeyOut;
    private int sepRefOut;

    /** The shortest prefix of {@code right}'s first key above {@code left}'s last key, stored; into sepKeyOut/sepRefOut. */
    private void separatorBetween(int left, int right) {
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int last = (left & CHUNK_MASK) * leafCap + lHdr[lc][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] - 1;
        int first = (right & CHUNK_MASK) * leafCap;
        int lastLen = materialize(lKey[lc][last], lRef[lc][last], scratchA);
        int firstLen = materialize(lKey[rc][first], lRef[rc][first], scratchB);
        int common = Arrays.mismatch(scratchA, 0, lastLen, scratchB, 0, firstLen);
        int sepLen = Math.min(firstLen, common + 1);
        sepKeyOut = inlineOf(scratchB, 0, sepLen);
        sepRefOut = storeKey(scratchB, 0, sepLen);
    }

    /** Removes entries from slot {@code i} of {@code leaf} on, across leaves, while their key is below {@code end}. */
    private void removeUntil(int leaf, int i, long ep, byte[] key, int off, int len) {
        while (leaf != NIL) {
            int c = leaf >>> CHUNK_SHIFT;
            int base = (leaf & CHUNK_MASK) * leafCap;
            int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            long[] lk = lKey[c];
            int[] lr = lRef[c];
            int j = i;
            while (j < n) {
                long p = lk[base + j];
                if (p > ep || (p == ep && tail(key, off, len, lr[base + j]) <= 0)) {
                    break;
                }
                releaseRef(lr[base + j]);
                j++;
            }
            if (j > i) {
                int move = n - j;
                System.arraycopy(lk, base + j, lk, base + i, move);
                System.arraycopy(lVer[c], base + j, lVer[c], base + i, move);
                System.arraycopy(lr, base + j, lr, base + i, move);
                lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = n - (j - i);
            }
            if (j < n) {
                return;
            }
            leaf = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT];
            i = 0;
        }
    }

    // =====================================================================================
    // Reclamation
    // =====================================================================================

    @Override
    public void removeBefore(long oldestVersion, int mergedRanges) {
        long oldest = Math.max(oldestVersion, retained);
        retained = oldest;
        expiredBelow = Math.max(expiredBelow, relative(oldest));
        long work = 2L * leafCap + 8L * mergedRanges;
        sweep(work);
    }

    /** Sweeps about {@code work} entries from the cursor on, wrapping to the start after the last leaf. */
    private void sweep(long work) {
        sweepWork = work;
        sweepStopped = false;
        boolean seek = cursorLen >= 0;
        sweepPrevKnown = !seek;
        sweepPrevVer = GAP;
        if (height == 0) {
            sweepLeafOnly();
            cursorLen = -1;
            return;
        }
        sweepInner(root, height, seek);
        if (!sweepStopped) {
            cursorLen = -1;
        }
        collapseRoot();
    }

    private void sweepLeafOnly() {
        compactLeaf(root);
    }

    /** Sweeps the subtree of inner node {@code h} at {@code level} (1 = parent of leaves). */
    private void sweepInner(int h, int level, boolean seek) {
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * innerCap;
        int i = seek ? childSlot(h, cursorPrefix, cursorKey, 0, cursorLen) : 0;
        while (i < iCount[c][h & CHUNK_MASK]) {
            if (sweepWork <= 0) {
                sweepStopped = true;
                return;
            }
            int child = iChild[c][base + i];
            if (level == 1) {
                int n = compactLeaf(child);
                sweepWork -= n + 1;
                iMax[c][base + i] = lHdr[child >>> CHUNK_SHIFT][(child & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX];
                if (n == 0) {
                    unlinkLeaf(child);
                    removeInnerSlot(h, i);
                    freeLeaf(child);
                    continue;
                }
                if (i > 0) {
                    int left = iChild[c][base + i - 1];
                    if (leafCount(left) + n <= leafCap * 3 / 4) {
                        mergeLeafInto(left, child);
                        iMax[c][base + i - 1] = lHdr[left >>> CHUNK_SHIFT][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX];
                        unlinkLeaf(child);
                        removeInnerSlot(h, i);
                        freeLeaf(child);
                        continue;
                    }
                }
                rememberCursor(child);
            } else {
                sweepInner(child, level - 1, seek);
                if (innerCount(child) == 0) {
                    removeInnerSlot(h, i);
                    freeInner(child);
                    if (sweepStopped) {
                        return;
                    }
                    seek = false;
                    continue;
                }
                iMax[c][base + i] = maxOfInner(child);
                if (i > 0) {
                    int left = iChild[c][base + i - 1];
                    if (innerCount(left) + innerCount(child) <= innerCap * 3 / 4) {
                        mergeInnerInto(h, i, left, child);
                        if (sweepStopped) {
                            return;
                        }
                        seek = false;
                        continue;
                    }
                }
                if (sweepStopped) {
                    return;
                }
            }
            seek = false;
            i++;
        }
    }

    /** Remembers the first key of {@code leaf} as where the next sweep resumes. */
    private void rememberCursor(int leaf) {
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        if (n > 0) {
            cursorLen = materialize(lKey[c][base + n - 1], lRef[c][base + n - 1], cursorKey);
            cursorPrefix = lKey[c][base + n - 1];
        }
    }

    /**
     * Drops expired and redundant entries of {@code leaf} (an entry equal to its predecessor's version,
     * expired meaning GAP) and recomputes its max version; returns the new count.
     */
    private int compactLeaf(int leaf) {
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * leafCap;
        int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        long[] lk = lKey[c];
        int[] lv = lVer[c];
        int[] lr = lRef[c];
        int expired = expiredBelow;
        boolean known = sweepPrevKnown;
        int prev = sweepPrevVer;
        int out = 0;
        int max = GAP;
        for (int j = 0; j < n; j++) {
            int v = lv[base + j];
            if (v < expired) {
                v = GAP;
            }
            if (known && v == prev) {
                releaseRef(lr[base + j]);
                continue;
            }
            lk[base + out] = lk[base + j];
            lv[base + out] = v;
            lr[base + out] = lr[base + j];
            out++;
            known = true;
            prev = v;
            if (v > max) {
                max = v;
            }
        }
        sweepPrevKnown = known;
        sweepPrevVer = prev;
        lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = out;
        lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = max;
        return out;
    }

    private void mergeLeafInto(int left, int right) {
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * leafCap;
        int rb = (right & CHUNK_MASK) * leafCap;
        int ln = lHdr[lc][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        int rn = lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
        System.arraycopy(lKey[rc], rb, lKey[lc], lb + ln, rn);
        System.arraycopy(lVer[rc], rb, lVer[lc], lb + ln, rn);
        System.arraycopy(lRef[rc], rb, lRef[lc], lb + ln, rn);
        lHdr[lc][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = ln + rn;
        lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] = 0;
        lHdr[lc][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = Math.max(lHdr[lc][(left & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX], lHdr[rc][(right & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX]);
    }

    /**
     * Appends inner node {@code right} (slot {@code i} of {@code parent}) to its left sibling: the
     * parent's separator for {@code right} moves down as the separator of right's first child.
     */
    private void mergeInnerInto(int parent, int i, int left, int right) {
        int pc = parent >>> CHUNK_SHIFT;
        int pb = (parent & CHUNK_MASK) * innerCap;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lb = (left & CHUNK_MASK) * innerCap;
        int rb = (right & CHUNK_MASK) * innerCap;
        int ln = innerCount(left);
        int rn = innerCount(right);
        System.arraycopy(iKey[rc], rb, iKey[lc], lb + ln, rn);
        System.arraycopy(iRef[rc], rb, iRef[lc], lb + ln, rn);
        System.arraycopy(iChild[rc], rb, iChild[lc], lb + ln, rn);
        System.arraycopy(iMax[rc], rb, iMax[lc], lb + ln, rn);
        iKey[lc][lb + ln] = iKey[pc][pb + i];
        iRef[lc][lb + ln] = iRef[pc][pb + i];
        iCount[lc][left & CHUNK_MASK] = ln + rn;
        iMax[pc][pb + i - 1] = Math.max(iMax[pc][pb + i - 1], iMax[pc][pb + i]);
        // The separator now belongs to the merged node: remove the slot without freeing it.
        iRef[pc][pb + i] = KeyRefs.EMPTY;
        removeInnerSlot(parent, i);
        freeInner(right);
    }

    private void unlinkLeaf(int leaf) {
        int prev = leafPrev(leaf);
        int next = leafNext(leaf);
        if (prev != NIL) {
            lHdr[prev >>> CHUNK_SHIFT][(prev & CHUNK_MASK) * LEAF_HEADER_INTS + H_NEXT] = next;
        }
        if (next != NIL) {
            lHdr[next >>> CHUNK_SHIFT][(next & CHUNK_MASK) * LEAF_HEADER_INTS + H_PREV] = prev;
        }
    }

    /** Removes slot {@code i} of inner node {@code h}, freeing its separator. */
    private void removeInnerSlot(int h, int i) {
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
        if (i == 0 && n > 0) {
            // Slot 0's separator is never used: free the one that moved there.
            releaseRef(iRef[c][base]);
            iRef[c][base] = KeyRefs.EMPTY;
            iKey[c][base] = 0;
        }
    }

    private void collapseRoot() {
        while (height > 0 && innerCount(root) <= 1) {
            int old = root;
            if (innerCount(old) == 0) {
                root = allocLeaf();
                height = 0;
            } else {
                root = iChild[old >>> CHUNK_SHIFT][(old & CHUNK_MASK) * innerCap];
                height--;
            }
            freeInner(old);
        }
    }

    // =====================================================================================
    // Budget: drop the oldest history
    // =====================================================================================

    /**
     * Raises the retained boundary so that about {@code targetBytes} remain, and sweeps the whole tree.
     * Returns false when nothing more can be dropped.
     */
    private boolean dropOldest(long now, long targetBytes) {
        long bytes = historyBytes();
        if (bytes <= targetBytes) {
            return true;
        }
        long lo = Math.max(retained, base);
        long hi = now;
        if (lo >= hi) {
            if (leavesInUse <= 1 && innersInUse == 0 && arena.bytesInUse() == 0) {
                return false;
            }
            clearAll();
            retained = Math.max(retained, now);
            return true;
        }
        // Histogram of entries by version over [lo, hi): each entry stands for its share of the bytes.
        Arrays.fill(histogram, 0);
        long total = 0;
        long span = hi - lo;
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * leafCap;
            int n = lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            for (int j = 0; j < n; j++) {
                int v = lVer[c][b + j];
                if (v == GAP || v < expiredBelow) {
                    continue;
                }
                long abs = base + v;
                int bucket = (int) Math.min(histogram.length - 1, Math.max(0, (abs - lo) * histogram.length / span));
                histogram[bucket]++;
                total++;
            }
        }
        double drop = 1.0 - (double) targetBytes / bytes;
        long need = (long) Math.ceil(drop * total);
        long acc = 0;
        int bucket = 0;
        while (bucket < histogram.length && acc < need) {
            acc += histogram[bucket++];
        }
        long boundary = lo + (span * bucket + histogram.length - 1) / histogram.length;
        boundary = Math.max(boundary, retained + 1);
        boundary = Math.min(boundary, now);
        retained = Math.max(retained, boundary);
        expiredBelow = Math.max(expiredBelow, relative(retained));
        cursorLen = -1;
        sweep(Long.MAX_VALUE);
        return true;
    }

    private int leftmostLeaf() {
        int node = root;
        for (int level = height; level > 0; level--) {
            node = iChild[node >>> CHUNK_SHIFT][(node & CHUNK_MASK) * innerCap];
        }
        return node;
    }

    /** Moves the version base up to the oldest checkable version (raising it if the window is too wide). */
    private void rebase(long now) {
        long newBase = Math.max(retained, base);
        if (now - newBase > REBASE_LIMIT / 2) {
            newBase = now - REBASE_LIMIT / 2;
            retained = Math.max(retained, newBase);
        }
        long shift = newBase - base;
        int below = (int) Math.min(Integer.MAX_VALUE, shift);
        rebaseSubtree(root, height, below);
        base = newBase;
        expiredBelow = relative(retained);
    }

    private int rebaseVersion(int v, int below) {
        return v == GAP || v < below ? GAP : v - below;
    }

    private void rebaseSubtree(int h, int level, int below) {
        if (level == 0) {
            int c = h >>> CHUNK_SHIFT;
            int b = (h & CHUNK_MASK) * leafCap;
            int n = lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            for (int j = 0; j < n; j++) {
                lVer[c][b + j] = rebaseVersion(lVer[c][b + j], below);
            }
            lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX] = rebaseVersion(lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX], below);
            return;
        }
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        for (int i = 0; i < n; i++) {
            iMax[c][b + i] = rebaseVersion(iMax[c][b + i], below);
            rebaseSubtree(iChild[c][b + i], level - 1, below);
        }
    }

    @Override
    public void clear(long version) {
        clearAll();
        retained = Math.max(retained, version);
        expiredBelow = Math.max(expiredBelow, relative(retained));
    }

    private void clearAll() {
        lKey = new long[0][];
        lVer = new int[0][];
        lRef = new int[0][];
        lHdr = new int[0][];
        leafHighWater = 0;
        leafFree = NIL;
        leavesInUse = 0;
        iKey = new long[0][];
        iRef = new int[0][];
        iChild = new int[0][];
        iMax = new int[0][];
        iCount = new int[0][];
        innerHighWater = 0;
        innerFree = NIL;
        innersInUse = 0;
        arena.clear();
        height = 0;
        cursorLen = -1;
        skip = 0;
        skipUnset = true;
        root = allocLeaf();
    }

    // =====================================================================================
    // Invariants (tests and assertions)
    // =====================================================================================

    /**
     * Checks every structural invariant and throws {@link AssertionError} naming the first broken one:
     * keys strictly increasing across the leaf chain, separators routing correctly, max versions
     * bounding their subtrees, links consistent, and the byte accounting equal to a recount.
     */
    public void checkInvariants() {
        int[] leaves = {0};
        int[] inners = {0};
        long[] keyBytes = {0};
        checkSubtree(root, height, null, 0, null, 0, Integer.MAX_VALUE, leaves, inners, keyBytes);
        if (leaves[0] != leavesInUse || inners[0] != innersInUse) {
            throw new AssertionError("node count " + leaves[0] + "/" + inners[0] + " != accounted " + leavesInUse + "/" + innersInUse);
        }
        // The leaf chain visits the same leaves in key order.
        int count = 0;
        int prev = NIL;
        byte[] last = null;
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            if (leafPrev(leaf) != prev) {
                throw new AssertionError("prev link of leaf " + leaf + " is " + leafPrev(leaf) + ", expected " + prev);
            }
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * leafCap;
            for (int j = 0; j < lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT]; j++) {
                byte[] k = keyOf(lKey[c][b + j], lRef[c][b + j]);
                if (last != null && Arrays.compareUnsigned(last, k) >= 0) {
                    throw new AssertionError("leaf keys not strictly increasing at leaf " + leaf + " slot " + j);
                }
                last = k;
            }
            prev = leaf;
            count++;
        }
        if (count != leavesInUse) {
            throw new AssertionError("leaf chain has " + count + " leaves, " + leavesInUse + " in use");
        }
        // Arena: references recounted. (Chunks shared by a point pair count once.)
        long recount = recountKeyBytes();
        if (recount != arena.bytesInUse()) {
            throw new AssertionError("arena bytes in use " + arena.bytesInUse() + " != recount " + recount);
        }
    }

    private long recountKeyBytes() {
        java.util.Map<Integer, Integer> refs = new java.util.HashMap<>();
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * leafCap;
            for (int j = 0; j < lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT]; j++) {
                int r = lRef[c][b + j];
                if (r >= 0) {
                    refs.merge(r >>> 1, 1, Integer::sum);
                }
            }
        }
        countInnerRefs(root, height, refs);
        long bytes = 0;
        for (var e : refs.entrySet()) {
            if (arena.refs(e.getKey()) != e.getValue()) {
                throw new AssertionError("chunk " + e.getKey() + " has " + arena.refs(e.getKey()) + " refs, found " + e.getValue());
            }
            bytes += KeyArena.chunkBytes(arena.length(e.getKey()));
        }
        return bytes;
    }

    private void countInnerRefs(int h, int level, java.util.Map<Integer, Integer> refs) {
        if (level == 0) {
            return;
        }
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * innerCap;
        for (int i = 0; i < iCount[c][h & CHUNK_MASK]; i++) {
            int r = iRef[c][b + i];
            if (i == 0 && r != KeyRefs.EMPTY) {
                throw new AssertionError("inner " + h + " slot 0 holds a separator");
            }
            if (r >= 0) {
                refs.merge(r >>> 1, 1, Integer::sum);
            }
            countInnerRefs(iChild[c][b + i], level - 1, refs);
        }
    }

    private byte[] keyOf(long prefix, int ref) {
        int len = materialize(prefix, ref, scratchA);
        byte[] k = Arrays.copyOf(scratchA, len);
        if (len < skip || !Arrays.equals(k, 0, skip, shared, 0, skip)) {
            throw new AssertionError("key " + Arrays.toString(k) + " lacks the shared prefix of " + skip + " bytes");
        }
        if (inlineOf(k, 0, len) != prefix) {
            throw new AssertionError("stored prefix does not match the key bytes");
        }
        // One encoding per key: inline exactly when it fits, except k sharing the chunk of k\0.
        if (ref < 0 ? !KeyRefs.fitsInline(k, 0, len) : (ref & 1) == 0 && KeyRefs.fitsInline(k, 0, len)) {
            throw new AssertionError("key of " + len + " bytes " + (ref < 0 ? "inline" : "in a key block"));
        }
        return k;
    }

    /** Checks the subtree at {@code h}: keys within [lo, hi) (null = unbounded), versions <= maxBound. */
    private void checkSubtree(int h, int level, byte[] lo, int unusedLo, byte[] hi, int unusedHi, int maxBound,
                              int[] leaves, int[] inners, long[] keyBytes) {
        if (level == 0) {
            leaves[0]++;
            int c = h >>> CHUNK_SHIFT;
            int b = (h & CHUNK_MASK) * leafCap;
            int n = lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT];
            int lm = lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_MAX];
            if (lm > maxBound) {
                throw new AssertionError("leaf " + h + " max " + lm + " above its parent's bound " + maxBound);
            }
            for (int j = 0; j < n; j++) {
                byte[] k = keyOf(lKey[c][b + j], lRef[c][b + j]);
                if (lo != null && Arrays.compareUnsigned(k, lo) < 0 || hi != null && Arrays.compareUnsigned(k, hi) >= 0) {
                    throw new AssertionError("leaf " + h + " key outside its separators");
                }
                if (lVer[c][b + j] > lm) {
                    throw new AssertionError("leaf " + h + " entry version above the leaf max");
                }
            }
            return;
        }
        inners[0]++;
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * innerCap;
        int n = iCount[c][h & CHUNK_MASK];
        if (n == 0 || (h == root && n < 2)) {
            throw new AssertionError("inner " + h + " has " + n + " children");
        }
        for (int i = 0; i < n; i++) {
            byte[] clo = i == 0 ? lo : keyOf(iKey[c][b + i], iRef[c][b + i]);
            byte[] chi = i + 1 < n ? keyOf(iKey[c][b + i + 1], iRef[c][b + i + 1]) : hi;
            if (i > 0 && lo != null && Arrays.compareUnsigned(clo, lo) < 0) {
                throw new AssertionError("inner " + h + " separator below its lower bound");
            }
            if (clo != null && chi != null && Arrays.compareUnsigned(clo, chi) >= 0) {
                throw new AssertionError("inner " + h + " separators not increasing at slot " + i);
            }
            int m = iMax[c][b + i];
            if (m > maxBound) {
                throw new AssertionError("inner " + h + " slot max above its parent's bound");
            }
            checkSubtree(iChild[c][b + i], level - 1, clo, 0, chi, 0, m, leaves, inners, keyBytes);
        }
    }

    /** Every entry as (key, version or null for a gap), in key order: for tests. */
    public java.util.List<java.util.Map.Entry<byte[], Long>> entries() {
        java.util.List<java.util.Map.Entry<byte[], Long>> out = new java.util.ArrayList<>();
        for (int leaf = leftmostLeaf(); leaf != NIL; leaf = leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * leafCap;
            for (int j = 0; j < lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT]; j++) {
                int v = lVer[c][b + j];
                out.add(new java.util.AbstractMap.SimpleEntry<>(keyOf(lKey[c][b + j], lRef[c][b + j]),
                        v == GAP || v < expiredBelow ? null : base + v));
            }
        }
        return out;
    }
}
