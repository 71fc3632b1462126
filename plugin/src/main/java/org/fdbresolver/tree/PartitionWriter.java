package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;

/**
 * Applies one partition of a batch's writes ({@link PartitionedApply}) while other partitions are applied
 * by other threads. A partition is the writes below a run of leaf parents that no other partition's writes
 * reach, so it owns those parents' leaves; the inner nodes above are shared and nobody changes them during
 * the phase.
 *
 * <p><b>B-link splits.</b> A leaf that overflows splits at once: the new right leaf is linked into the leaf
 * chain after it (the right link) and its separator, the left leaf's new high key, is recorded in the
 * partition's <i>chain</i> of the original leaf — the incomplete-split marker. The parent's pointer is
 * installed after the phase, by one thread, in key order ({@link #installs}). Until then every write that
 * lands in the original leaf's range moves right along the chain while its key is at or above a member's
 * high key, as a B-link search does; writes come sorted, so the chain is walked once, left to right. No
 * partition ever waits for another: the only shared step is taking a leaf from the pool (one short lock per
 * split). A full leaf first hands entries to its right neighbour, as single writes do ({@link TreeWriter}): to the
 * next member of its chain, or to the original right sibling under the same parent when no write of the batch
 * is routed there (that sibling then joins the chain, and the parent's separator for it is updated after the
 * phase).
 *
 * <p><b>What does not depend on the threads.</b> Every step depends only on the writes and the leaves of the
 * partition, never on where the partitions were cut: a lookup of the version in force before the partition's
 * first leaf reads a value taken before the phase ({@link #boundaryVersion}), which is the value a single thread
 * would read there (no write of another partition covers it). Key chunks are made before the phase (one per
 * new key, {@link PartitionedApply}), a separator that needs bytes shares the chunk of the first key to its
 * right, and every reference count change is logged and applied after the phase in key order. So the tree
 * after a batch is the same whether one thread or sixteen applied it, and the budget sees the same bytes.
 *
 * <p><b>Budget.</b> {@link PartitionedApply} reserves, before the phase, room for the most leaves each original
 * leaf's chain can need ({@link #splitBound}); the chain counts its splits against that bound.
 */
final class PartitionWriter implements AnchorRefs {
    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final PartitionedApply batch;

    // ---- the partition: writes [from, to), the version they take, the boundary on the left ----
    private int from;
    private int to;
    private int v;
    /** The first leaf of the partition's first parent (NIL for the first partition: nothing before it changes). */
    private int boundaryLeaf = NIL;
    /** The version of the last entry before {@link #boundaryLeaf}, taken before the phase. */
    private int boundaryVersion;

    // ---- the chain of the original leaf being written (B-link: members in key order, with low keys) ----
    private int segmentLeaf = NIL;
    private int segmentParent;
    private int segmentSlot;
    private int[] chainLeaf = new int[8];
    /** Member k's low key (k >= 1): the separator between members k - 1 and k (inline long and reference). */
    private long[] chainLowKey = new long[8];
    private int[] chainLowRef = new int[8];
    private int chainLength;
    /** The member the previous write ended in: later writes are at or to the right of it. */
    private int cursor;
    /** Index of the member that is the original right sibling (entries were handed to it), or -1. */
    private int siblingMember;
    /** The original right sibling under the same parent, which may take entries from the chain, or NIL. */
    private int sibling;
    private int splits;
    private int splitLimit;
    /**
     * The chain's floor for suffix keys ({@link KeyRefs#isSuffix}; 0: none is made): the original leaf's own prefix
     * length when every endpoint routed to it has that prefix. Every member then holds only keys with it or (once the
     * sibling joined) keys every endpoint that lands there shares its prefix with, so no endpoint lowers a member below
     * it; a hand-on is checked on its own ({@link LeafPrefixes#canUnify}). A key that fits a suffix reference after
     * the floor (and its leaf's prefix) fits one after whatever prefix its leaf has in the phase.
     */
    private int suffixFloor;
    /** Endpoints routed to the original right sibling, which join the chain if it takes entries. */
    private int siblingWrites;
    /** The longest suffix key this part made in the phase (added to the tree's after it). */
    int longestSuffixMade;

    // ---- results, applied after the phase by PartitionedApply, in key order ----
    /** Splits to register in the parents: the parent, the slot they follow, the right leaf, its separator. */
    int installs;
    int[] installParent = new int[16];
    int[] installAfter = new int[16];
    int[] installRight = new int[16];
    long[] installKey = new long[16];
    int[] installRef = new int[16];
    /** Original right siblings that received entries: parent, slot, leaf, new separator. */
    int siblingUpdates;
    int[] updateParent = new int[4];
    int[] updateSlot = new int[4];
    int[] updateLeaf = new int[4];
    long[] updateKey = new long[4];
    int[] updateRef = new int[4];
    /** Key chunk references dropped (released after the phase) and chunks newly referenced (retained). */
    int releases;
    int[] released = new int[64];
    int retains;
    int[] retained = new int[16];
    /**
     * Separators cut from a suffix key ({@link KeyRefs#isSuffix}), which has no chunk to share: their bytes, kept here
     * until {@link PartitionedApply} makes their chunks after the phase, in key order. A low key, install or sibling
     * update refers to one by {@link #pendingRef}.
     */
    byte[] pendingBytes = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    int pendingBytesUsed;
    int[] pendingOff = new int[4];
    int[] pendingLen = new int[4];
    int pendings;
    /** The first pending separator's reference (below every key reference, suffix ones included). */
    static final int PENDING = Integer.MIN_VALUE;

    // ---- scratch ----
    private final LeafEntries entries;
    /** One member's run of writes merged with its entries in one pass. */
    private final RunMerge merge;
    /** This writer's side of a merge: chunks made before the phase, references logged. */
    private final RunMerge.Keys mergeKeys = new MergeKeys();
    /** Key buffers that grow to the longest key they meet ({@link KeyLayout#fit}), once. */
    private byte[] scratchA = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    private byte[] scratchB = new byte[KeyLayout.INITIAL_KEY_BUFFER];
    /** Loads ahead the lines of a block of writes ({@link #ways} of them). */
    private final WriteAhead ahead;
    private final int ways;

    PartitionWriter(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, LeafEntries entries,
                    PartitionedApply batch, int ways) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.batch = batch;
        this.entries = entries;
        this.merge = new RunMerge(store, layout, search, versions, entries);
        this.ways = ways;
        this.ahead = new WriteAhead(store);
    }

    /**
     * The most splits the chain of a leaf of {@code n} entries receiving {@code inserts} endpoints can make, when
     * it may hand entries to a right sibling receiving {@code siblingInserts} ({@code withSibling}; the sibling
     * then joins the chain, and so do its writes). With {@code h = cap / 2} and the potential "entries above h,
     * summed over the chain": every split lowers it by h, handing entries on never raises it, an insert raises it
     * by one; it starts at most at {@code n - h} plus the sibling's {@code cap - h}. A leaf that cannot overflow
     * ({@code n + inserts <= cap}) never splits nor hands entries on (the sibling then has a chain of its own).
     */
    static long splitBound(int n, int inserts, int cap, boolean withSibling, int siblingInserts) {
        if (n + inserts <= cap) {
            return 0;
        }
        int h = cap / 2;
        return (Math.max(0, n - h) + (withSibling ? cap - h + (long) siblingInserts : 0) + inserts) / h;
    }

    /** The right sibling under the same parent of the leaf at {@code slot} of {@code parent}, or NIL. */
    static int rightSibling(NodeStore s, int parent, int slot) {
        return slot + 1 < s.innerCount(parent) ? s.child(parent, slot + 1) : NIL;
    }

    /** Prepares for writes {@code [from, to)} at relative version {@code v}. */
    void start(int from, int to, int v, int boundaryLeaf, int boundaryVersion) {
        this.from = from;
        this.to = to;
        this.v = v;
        this.boundaryLeaf = boundaryLeaf;
        this.boundaryVersion = boundaryVersion;
        segmentLeaf = NIL;
        chainLength = 0;
        siblingMember = -1;
        installs = 0;
        siblingUpdates = 0;
        releases = 0;
        retains = 0;
        pendings = 0;
        pendingBytesUsed = 0;
        longestSuffixMade = 0;
    }

    /** Whether {@code ref} is a pending separator's (see {@link #pendingBytes}); its index is {@code ref - PENDING}. */
    static boolean isPending(int ref) {
        return ref < PENDING + (1 << 30);
    }

    /** Keeps {@code key[0, len)} as a pending separator; returns its reference. */
    private int pendingRef(byte[] key, int len) {
        if (pendings == pendingOff.length) {
            pendingOff = Arrays.copyOf(pendingOff, pendings * 2);
            pendingLen = Arrays.copyOf(pendingLen, pendings * 2);
        }
        if (pendingBytesUsed + len > pendingBytes.length) {
            pendingBytes = Arrays.copyOf(pendingBytes, Math.max(pendingBytesUsed + len, 2 * pendingBytes.length));
        }
        System.arraycopy(key, 0, pendingBytes, pendingBytesUsed, len);
        pendingOff[pendings] = pendingBytesUsed;
        pendingLen[pendings] = len;
        pendingBytesUsed += len;
        return PENDING + pendings++;
    }

    /** Applies the partition's writes, in key order (see the class comment). */
    void run() {
        batch.fillKeys(from, to);
        int[] leafOf = batch.endpointLeaf;
        int m = to;
        int prefetched = from;
        for (int x = from; x < m; ) {
            if (ways > 1 && x >= prefetched) {
                prefetched = Math.min(m, x + ways);
                ahead.load(x, prefetched, batch.endpointLeaf, batch.endpointParent, batch.endpointSlot);
            }
            int bl = leafOf[2 * x];
            if (!inChain(bl)) {
                endSegment();
                startSegment(bl, 2 * x);
            }
            cursor = locate(cursor, 2 * x);
            int member = chainLeaf[cursor];
            boolean bounded = cursor + 1 < chainLength;
            if (inChain(leafOf[2 * x + 1]) && (!bounded || belowLow(2 * x + 1, cursor + 1))) {
                int n = store.leafCount(member);
                int cap = store.leafCap;
                int j = x + 1;
                while (j < m && n + 2 * (j - x + 1) <= 2 * cap && inChain(leafOf[2 * j]) && inChain(leafOf[2 * j + 1])
                        && (!bounded || belowLow(2 * j + 1, cursor + 1))) {
                    j++;
                }
                applyRun(cursor, x, j);
                x = j;
            } else {
                writeAcross(x);
                x++;
            }
        }
        endSegment();
    }

    // ---- the chain ----

    private void startSegment(int leaf, int endpoint) {
        segmentLeaf = leaf;
        segmentParent = batch.endpointParent[endpoint];
        segmentSlot = batch.endpointSlot[endpoint];
        chainLeaf[0] = leaf;
        chainLength = 1;
        cursor = 0;
        siblingMember = -1;
        splits = 0;
        int[] leafOf = batch.endpointLeaf;
        int e = endpoint;
        int end = 2 * batch.writeTo;
        while (e < end && leafOf[e] == leaf) {
            e++;
        }
        sibling = rightSibling(store, segmentParent, segmentSlot);
        int siblingInserts = 0;
        for (int f = e; f < end && leafOf[f] == sibling; f++) {
            siblingInserts++;
        }
        splitLimit = (int) splitBound(store.leafCount(leaf), e - endpoint, store.leafCap, sibling != NIL, siblingInserts);
        siblingWrites = siblingInserts;
        PartitionedApply pa = batch;
        suffixFloor = layout.leaf.floorFor(leaf, pa.keys, pa.endpointOff[endpoint], pa.endpointLen[endpoint],
                pa.endpointOff[e - 1], pa.endpointLen[e - 1]);
    }

    /** Hands the chain's splits (and the sibling's new separator) to the results, in key order. */
    private void endSegment() {
        if (segmentLeaf == NIL) {
            return;
        }
        for (int k = 1; k < chainLength; k++) {
            if (k == siblingMember) {
                addSiblingUpdate(chainLeaf[k], chainLowKey[k], chainLowRef[k]);
            } else {
                // Members before the sibling follow the original leaf's slot, those after it the sibling's.
                addInstall(siblingMember >= 0 && k > siblingMember ? segmentSlot + 1 : segmentSlot, chainLeaf[k],
                        chainLowKey[k], chainLowRef[k]);
            }
        }
        segmentLeaf = NIL;
        chainLength = 0;
        siblingMember = -1;
    }

    /**
     * Whether original leaf {@code leaf} is covered by the chain: the chain's own leaf, or the right sibling once
     * it took entries (its writes then continue the chain: its range begins at a member's low key).
     */
    private boolean inChain(int leaf) {
        return leaf == segmentLeaf || siblingMember >= 0 && leaf == chainLeaf[siblingMember];
    }

    /** The member at or after {@code k} holding endpoint {@code x}: moves right while the key is at or above the next low key. */
    private int locate(int k, int x) {
        while (k + 1 < chainLength && !belowLow(x, k + 1)) {
            k++;
        }
        return k;
    }

    /** Whether endpoint {@code x} is below member {@code k}'s low key. */
    private boolean belowLow(int x, int k) {
        long p = batch.endpointKey[x];
        long low = chainLowKey[k];
        if (p != low) {
            return p < low;
        }
        int ref = chainLowRef[k];
        if (isPending(ref)) {
            int i = ref - PENDING;
            int off = batch.endpointOff[x];
            return Arrays.compareUnsigned(batch.keys, off, off + batch.endpointLen[x], pendingBytes, pendingOff[i],
                    pendingOff[i] + pendingLen[i]) < 0;
        }
        return layout.tail(batch.keys, batch.endpointOff[x], batch.endpointLen[x], ref) < 0;
    }

    /** Inserts member {@code leaf} at chain index {@code k} with low key {@code (key, ref)}. */
    private void insertMember(int k, int leaf, long key, int ref) {
        if (chainLength == chainLeaf.length) {
            int n = chainLength * 2;
            chainLeaf = Arrays.copyOf(chainLeaf, n);
            chainLowKey = Arrays.copyOf(chainLowKey, n);
            chainLowRef = Arrays.copyOf(chainLowRef, n);
        }
        int move = chainLength - k;
        System.arraycopy(chainLeaf, k, chainLeaf, k + 1, move);
        System.arraycopy(chainLowKey, k, chainLowKey, k + 1, move);
        System.arraycopy(chainLowRef, k, chainLowRef, k + 1, move);
        chainLeaf[k] = leaf;
        chainLowKey[k] = key;
        chainLowRef[k] = ref;
        chainLength++;
        if (siblingMember >= k) {
            siblingMember++;
        }
    }

    /**
     * The member right of {@code k} that may take entries from it: the next member, or the original right sibling
     * (for the last member before the sibling joined), or NIL.
     */
    private int rightNeighbour(int k) {
        if (k + 1 < chainLength) {
            return chainLeaf[k + 1];
        }
        return siblingMember < 0 ? sibling : NIL;
    }

    /**
     * The chain's floor ({@link #suffixFloor}) once right neighbour {@code right} of member {@code k} has taken entries
     * from it without a key chunk, or -1 when it may not take them. Another member may (the caller checks the move,
     * {@link LeafPrefixes#canUnify}); so may the original sibling when it holds no suffix key and its own writes (which
     * join the chain with it, and may lower any member) do not meet suffix keys: the chain makes none and holds none
     * (its floor is 0). A sibling that holds suffix keys and has no writes in the batch may take them when its suffix
     * keys fit a leaf lowered to the lower of the floor and the prefix the two share
     * ({@link LeafPrefixes#floorWithSibling}): only the chain's endpoints reach it then, and each has the floor's
     * bytes, so none lowers it further once the floor is that. Tuple keys need it: their leaves hold suffix keys,
     * and refusing such siblings left the partitions' trees 4 % larger than the run writer's of the time (docs/tree.md).
     */
    private int floorIfTaken(int k, int right) {
        if (k + 1 < chainLength) {
            return suffixFloor;
        }
        if (!layout.leaf.holdsSuffixKey(right)) {
            return siblingWrites == 0 || suffixFloor == 0 ? suffixFloor : -1;
        }
        if (siblingWrites != 0 || suffixFloor == 0) {
            return -1;
        }
        int floor = layout.leaf.floorWithSibling(chainLeaf[k], right, suffixFloor);
        return floor != 0 ? floor : -1;
    }

    /** Member {@code k} handed its last entries to its right neighbour: the neighbour's low key is now {@code (key, ref)}. */
    private void neighbourTook(int k, long key, int ref) {
        if (k + 1 < chainLength) {
            release(chainLowRef[k + 1]);
            chainLowKey[k + 1] = key;
            chainLowRef[k + 1] = ref;
            return;
        }
        // The original sibling joins the chain; its separator in the parent is replaced after the phase.
        NodeStore s = store;
        int at = (segmentParent & CHUNK_MASK) * s.innerCap + segmentSlot + 1;
        release(s.iRef[segmentParent >>> CHUNK_SHIFT][at]);
        insertMember(k + 1, sibling, key, ref);
        siblingMember = k + 1;
    }

    /** A new leaf right of member {@code k}, holding entries from it, with low key {@code (key, ref)}. */
    private void splitAdded(int k, int right, long key, int ref) {
        splits++;
        assert splits <= splitLimit : "the chain of leaf " + segmentLeaf + " split more often than its bound allows ("
                + splitLimit + ")";
        insertMember(k + 1, right, key, ref);
    }

    // ---- one run: writes [i, j) all inside member k ----

    /** Writes {@code [i, j)} merged with member {@code k}'s entries in one pass ({@link RunMerge}); an overflow spilled. */
    private void applyRun(int k, int i, int j) {
        PartitionedApply pa = batch;
        int leaf = chainLeaf[k];
        if (merge.apply(leaf, pa.keys, pa.endpointKey, pa.endpointOff, pa.endpointLen, i, j, v, this, mergeKeys)) {
            raiseLeafMax(leaf, v);
            return;
        }
        overflow(k, merge.first, merge.outLen);
    }

    /** {@link RunMerge}'s keys for a part: the chunks made before the phase (or suffix references), releases logged. */
    private final class MergeKeys implements RunMerge.Keys {
        @Override
        public int endRef(int x, int local, byte[] keys) {
            return endpointRef(2 * x + 1, local);
        }

        @Override
        public int beginRef(int x, int local, int endRef, byte[] keys) {
            return endpointRef(2 * x, local);
        }

        @Override
        public void release(int ref) {
            PartitionWriter.this.release(ref);
        }

        @Override
        public int versionBefore(int leaf) {
            return PartitionWriter.this.versionBefore(leaf);
        }
    }

    /**
     * A run left member {@code k} with more entries than fit: its first {@code first} entries in place, then
     * {@code out[0, outLen)}. Hands the last entries to the right neighbour when that has room, else splits.
     */
    private void overflow(int k, int first, int outLen) {
        NodeStore s = store;
        int cap = s.leafCap;
        int leaf = chainLeaf[k];
        int total = first + outLen;
        int right = rightNeighbour(k);
        if (right != NIL) {
            int rn = s.leafCount(right);
            int move = (cap - rn) / 2;
            int floor;
            if (move >= Math.max(2, cap / 16) && total - move <= cap && (floor = floorIfTaken(k, right)) >= 0
                    && (rn == 0 || layout.leaf.canUnifyRun(leaf, first, merge.out.key, merge.out.verRef, outLen, right))) {
                suffixFloor = floor; // before the move: its tightening makes suffix keys only above it
                entries.spillToSibling(leaf, first, merge.out, outLen, right, move, this);
                separatorBetween(leaf, right);
                neighbourTook(k, sepKey, sepRef);
                return;
            }
        }
        right = s.allocLeafConcurrently();
        entries.spillToNew(leaf, first, merge.out, outLen, right, this);
        s.linkAfter(leaf, right);
        separatorBetween(leaf, right);
        splitAdded(k, right, sepKey, sepRef);
    }

    // ---- one write that reaches past its member ----

    /**
     * Write {@code x}, whose end lies beyond the member holding its begin (in a later member, or in a later
     * original leaf): the version in force at its end is read first, then the begin takes the batch's version,
     * the entries in between go, and the end takes the version read.
     */
    private void writeAcross(int x) {
        NodeStore s = store;
        KeyLayout kl = layout;
        PartitionedApply pa = batch;
        byte[] keys = pa.keys;
        int bx = 2 * x;
        int ex = 2 * x + 1;
        int el = pa.endpointLeaf[ex];
        boolean endInChain = inChain(el);
        // 1. The end's leaf and the version in force just below the end, before anything changes.
        int endLeaf = endInChain ? chainLeaf[locate(cursor, ex)] : el;
        int ie = search.leafSearch(endLeaf, pa.endpointKey[ex], keys, pa.endpointOff[ex], pa.endpointLen[ex], false);
        boolean exactE = isAt(endLeaf, ie, ex);
        int vE = 0;
        if (!exactE) {
            vE = ie > 0 ? NodeStore.ver(s.lVerRef[endLeaf >>> CHUNK_SHIFT][(endLeaf & CHUNK_MASK) * s.leafCap + ie - 1])
                    : versionBefore(endLeaf);
            if (vE < versions.expiredBelow) {
                vE = GAP;
            }
        }
        // 2. The begin.
        int k = cursor;
        int leaf = chainLeaf[k];
        int ib = search.leafSearch(leaf, pa.endpointKey[bx], keys, pa.endpointOff[bx], pa.endpointLen[bx], false);
        if (isAt(leaf, ib, bx)) {
            s.setLeafVersion(leaf, ib, v);
        } else {
            long pos = insert(k, ib, bx, v);
            k = (int) (pos >>> 32);
            ib = (int) pos;
            leaf = chainLeaf[k];
        }
        raiseLeafMax(leaf, v);
        // 3. Entries strictly inside (begin, end) go, up to the end's leaf.
        if (endInChain) {
            endLeaf = chainLeaf[locate(k, ex)];
        }
        removeUntil(leaf, ib + 1, endLeaf, ex);
        // 4. The end: in a later original leaf, whose chain starts here.
        if (!endInChain) {
            endSegment();
            startSegment(el, ex);
        }
        int ke = locate(endInChain ? k : 0, ex);
        if (!exactE) {
            int target = chainLeaf[ke];
            int at = search.leafSearch(target, pa.endpointKey[ex], keys, pa.endpointOff[ex], pa.endpointLen[ex], false);
            long pos = insert(ke, at, ex, vE);
            ke = (int) (pos >>> 32);
            raiseLeafMax(chainLeaf[ke], vE);
        }
        cursor = ke;
    }

    /** Whether slot {@code i} of {@code leaf} holds exactly endpoint {@code x}'s key. */
    private boolean isAt(int leaf, int i, int x) {
        NodeStore s = store;
        int c = leaf >>> CHUNK_SHIFT;
        int at = (leaf & CHUNK_MASK) * s.leafCap + i;
        PartitionedApply pa = batch;
        return i < s.leafCount(leaf)
                && layout.leaf.compare(leaf, i, pa.endpointKey[x], pa.keys, pa.endpointOff[x], pa.endpointLen[x]) == 0;
    }

    /**
     * Inserts endpoint {@code x}'s key ({@link #endpointRef}) with version {@code ver} at slot {@code i} of
     * member {@code k}; a full member first hands entries to its right neighbour, else splits. Returns
     * {@code member << 32 | slot} of where the entry went.
     */
    private long insert(int k, int i, int x, int ver) {
        NodeStore s = store;
        int cap = s.leafCap;
        int leaf = chainLeaf[k];
        int n = s.leafCount(leaf);
        if (n == cap) {
            int mid;
            if (!shiftRight(k)) {
                int right = s.allocLeafConcurrently();
                entries.split(leaf, right, this);
                s.linkAfter(leaf, right);
                separatorBetween(leaf, right);
                splitAdded(k, right, sepKey, sepRef);
            }
            mid = s.leafCount(leaf);
            // Between the halves the new low key (possibly shorter than the right's first key) decides.
            boolean goRight = i != mid ? i > mid : !belowLow(x, k + 1);
            if (goRight) {
                k++;
                i -= mid;
                leaf = chainLeaf[k];
            }
        }
        PartitionedApply pa = batch;
        long inline = layout.leaf.admit(leaf, pa.endpointKey[x], pa.keys, pa.endpointOff[x], pa.endpointLen[x], this);
        entries.insert(leaf, i, inline, ver, endpointRef(x, layout.leaf.localSkip(leaf)));
        return (long) k << 32 | i;
    }

    /**
     * The reference endpoint {@code e} (a write's begin at {@code 2x}, its end at {@code 2x + 1}) takes in a member whose
     * own prefix is {@code local} bytes long ({@link #keyRef}), recording whether that is the chunk made for it before
     * the phase (one that is not is released after it).
     */
    private int endpointRef(int e, int local) {
        PartitionedApply pa = batch;
        int x = e >>> 1;
        boolean begin = (e & 1) == 0;
        int chunkRef = begin ? pa.beginRef[x] : pa.endRef[x];
        int ref = keyRef(local, pa.endpointOff[e], pa.endpointLen[e], chunkRef);
        if (begin) {
            pa.beginUsed[x] = ref == chunkRef;
        } else {
            pa.endUsed[x] = ref == chunkRef;
        }
        return ref;
    }

    /**
     * The reference a written key {@code keys[off, off + len)} takes in a member whose own prefix is {@code local}
     * bytes long (0: global), which the key has: a suffix reference when it fits one after the chain's floor too (its
     * chunk, made before the phase, is then released after it), else {@code chunkRef}.
     */
    private int keyRef(int local, int off, int len, int chunkRef) {
        int floor = suffixFloor;
        return floor != 0 && local != 0 && KeyRefs.fitsAfter(batch.keys, off, len, Math.min(local, floor))
                ? LeafPrefixes.suffixRef(len, this) : chunkRef;
    }

    /** A full member {@code k} hands its last entries to the right neighbour when that has room (as single writes do). */
    private boolean shiftRight(int k) {
        NodeStore s = store;
        int cap = s.leafCap;
        int right = rightNeighbour(k);
        if (right == NIL) {
            return false;
        }
        int rn = s.leafCount(right);
        int move = (cap - rn) / 2;
        int leaf = chainLeaf[k];
        int floor;
        if (move < Math.max(2, cap / 16) || (floor = floorIfTaken(k, right)) < 0
                || rn > 0 && !layout.leaf.canUnify(leaf, right)) {
            return false;
        }
        suffixFloor = floor;
        entries.moveTail(leaf, right, move, this);
        separatorBetween(leaf, right);
        neighbourTook(k, sepKey, sepRef);
        return true;
    }

    /** Removes entries from slot {@code i} of {@code leaf} on, across leaves up to {@code last}, while below endpoint {@code x}. */
    private void removeUntil(int leaf, int i, int last, int x) {
        NodeStore s = store;
        PartitionedApply pa = batch;
        while (true) {
            int j = search.endOfRemoval(leaf, i, pa.endpointKey[x], pa.keys, pa.endpointOff[x], pa.endpointLen[x]);
            long[] lvr = s.lVerRef[leaf >>> CHUNK_SHIFT];
            int base = (leaf & CHUNK_MASK) * s.leafCap;
            for (int r = i; r < j; r++) {
                release(NodeStore.ref(lvr[base + r]));
            }
            int n = s.leafCount(leaf);
            entries.remove(leaf, i, j, this);
            if (j < n || leaf == last) {
                return;
            }
            leaf = s.leafNext(leaf);
            i = 0;
        }
    }

    // ---- shared helpers ----

    /** The version of the last entry before {@code leaf} (GAP if none), the partition's left boundary taken before the phase. */
    private int versionBefore(int leaf) {
        NodeStore s = store;
        int h = leaf;
        while (true) {
            if (h == boundaryLeaf) {
                return boundaryVersion;
            }
            h = s.leafPrev(h);
            if (h == NIL) {
                return GAP;
            }
            int n = s.leafCount(h);
            if (n > 0) {
                return NodeStore.ver(s.lVerRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * s.leafCap + n - 1]);
            }
        }
    }

    private void raiseLeafMax(int leaf, int version) {
        if (store.leafMax(leaf) < version) {
            store.setLeafMax(leaf, version);
        }
    }

    private long sepKey;
    private int sepRef;

    /**
     * The separator between {@code left} and {@code right} into {@link #sepKey}/{@link #sepRef}: the shortest
     * prefix of right's first key above left's last key when that is inline, else right's first key itself,
     * sharing its chunk (no chunk is made during the phase; the retain is logged); a suffix key has none to share,
     * and a key whose chunk is more than twice the shortest prefix's would hold that much after its entry went:
     * the shortest prefix is then kept pending, its chunk made after the phase.
     */
    private void separatorBetween(int left, int right) {
        NodeStore s = store;
        int lc = left >>> CHUNK_SHIFT;
        int rc = right >>> CHUNK_SHIFT;
        int lastSlot = s.leafCount(left) - 1;
        int last = (left & CHUNK_MASK) * s.leafCap + lastSlot;
        int first = (right & CHUNK_MASK) * s.leafCap;
        scratchA = layout.fit(scratchA, NodeStore.ref(s.lVerRef[lc][last]));
        scratchB = layout.fit(scratchB, NodeStore.ref(s.lVerRef[rc][first]));
        int lastLen = layout.leaf.materialize(left, lastSlot, scratchA);
        int firstLen = layout.leaf.materialize(right, 0, scratchB);
        int common = Arrays.mismatch(scratchA, 0, lastLen, scratchB, 0, firstLen);
        int sepLen = Math.min(firstLen, common + 1);
        if (KeyRefs.fitsInline(scratchB, 0, sepLen)) {
            sepKey = layout.inlineOf(scratchB, 0, sepLen);
            sepRef = KeyRefs.inline(sepLen);
        } else if (KeyRefs.isSuffix(NodeStore.ref(s.lVerRef[rc][first]))
                || KeyArena.chunkBytes(firstLen) > 2 * KeyArena.chunkBytes(sepLen)) {
            // A suffix key has no chunk to share; a key far longer than the separator would be held by the inner node
            // after its entry goes (long keys sharing a short head: LargeKeysTest). Both take a chunk of their own.
            sepKey = layout.inlineOf(scratchB, 0, sepLen);
            sepRef = pendingRef(scratchB, sepLen);
        } else {
            // In the tree's encoding (the leaf's long may skip a prefix of its own).
            sepKey = layout.inlineOf(scratchB, 0, firstLen);
            sepRef = NodeStore.ref(s.lVerRef[rc][first]);
            retain(sepRef);
        }
    }

    @Override
    public void retainChunk(int unit) {
        retain(KeyRefs.arenaRef(unit, false));
    }

    @Override
    public void releaseChunk(int unit) {
        release(KeyRefs.arenaRef(unit, false));
    }

    @Override
    public int suffixFloor() {
        return suffixFloor;
    }

    @Override
    public void madeSuffixKey(int len) {
        if (len > longestSuffixMade) {
            longestSuffixMade = len;
        }
    }

    @Override
    public int storeSuffixKey(byte[] p, int pOff, int s, long inline, int len) {
        throw new IllegalStateException("the partitions lowered a leaf past a suffix key");
    }

    private void release(int ref) {
        if (ref >= 0) {
            if (releases == released.length) {
                released = Arrays.copyOf(released, releases * 2);
            }
            released[releases++] = ref;
        }
    }

    private void retain(int ref) {
        if (retains == retained.length) {
            retained = Arrays.copyOf(retained, retains * 2);
        }
        retained[retains++] = ref;
    }

    private void addInstall(int after, int right, long key, int ref) {
        if (installs == installRight.length) {
            int n = installs * 2;
            installParent = Arrays.copyOf(installParent, n);
            installAfter = Arrays.copyOf(installAfter, n);
            installRight = Arrays.copyOf(installRight, n);
            installKey = Arrays.copyOf(installKey, n);
            installRef = Arrays.copyOf(installRef, n);
        }
        installParent[installs] = segmentParent;
        installAfter[installs] = after;
        installRight[installs] = right;
        installKey[installs] = key;
        installRef[installs] = ref;
        installs++;
    }

    private void addSiblingUpdate(int leaf, long key, int ref) {
        if (siblingUpdates == updateLeaf.length) {
            int n = siblingUpdates * 2;
            updateParent = Arrays.copyOf(updateParent, n);
            updateSlot = Arrays.copyOf(updateSlot, n);
            updateLeaf = Arrays.copyOf(updateLeaf, n);
            updateKey = Arrays.copyOf(updateKey, n);
            updateRef = Arrays.copyOf(updateRef, n);
        }
        updateParent[siblingUpdates] = segmentParent;
        updateSlot[siblingUpdates] = segmentSlot + 1;
        updateLeaf[siblingUpdates] = leaf;
        updateKey[siblingUpdates] = key;
        updateRef[siblingUpdates] = ref;
        siblingUpdates++;
    }

    long sink() {
        return ahead.sink();
    }
}
