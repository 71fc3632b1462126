package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.SKIP_SHIFT;

import java.util.Arrays;

/**
 * Leaves with a prefix of their own (issue 29), as {@link InnerPrefixes} gives inner nodes theirs. Under the tuple
 * layer's subspaces the tree-wide shared prefix ({@link KeyLayout}) is a byte or two, and a leaf below a subspace
 * boundary holds keys whose inline longs are all the subspace's bytes: every probe of a leaf search ties on the long
 * and reads a key block. Such a leaf keeps the length {@code s} of a prefix all its keys share (in its header's count
 * word, {@link NodeStore#SKIP_SHIFT}) and stores each key's bytes {@code [s, s + 8)} in its long instead of {@code [skip, skip + 8)}.
 *
 * <p>The rules. A leaf is <em>local</em> when that length is not 0; then it holds at least one entry, every key in it
 * begins with the same {@code s} bytes, {@code s} exceeds the tree's prefix by at least {@link #minGain} and is at
 * least {@link #MIN_SKIP} (so no key of it is inline: each is in a key block or is a suffix key), and its prefix bytes are read from
 * its <em>anchor</em>: a key chunk whose first {@code s} bytes are the prefix, on which the leaf holds a reference
 * of its own ({@link NodeStore#lAnchor}), so that the prefix does not depend on which keys the leaf holds. The anchor
 * is the chunk of slot 0's key when the leaf goes local and after every move of entries ({@link #tighten}); lowering
 * keeps it (a shorter prefix of the same bytes); going global or empty drops its reference. References are taken
 * and dropped through {@link AnchorRefs}: at once by one thread, logged by the parts of a phase. A leaf whose slot 0
 * holds a suffix key (no chunk) keeps the anchor it had, and a split's new leaf starts with its leaf's: under one long
 * shared prefix, where every key is a suffix key, thousands of leaves are anchored on one chunk, more references than
 * a chunk's header counts ({@link KeyArena#HEADER_REFS_MAX}; the arena counts the rest beside it). Every other leaf
 * is <em>global</em>: its longs follow the tree's prefix and move with it — in steps: after the tree's prefix shrank,
 * a global leaf may follow a longer prefix of the tree's until it is lowered ({@link KeyLayout#reencode}), and reads
 * take it then as a leaf with a prefix of its own whose bytes are the tree's ({@link #skipOf}, {@link #localLength});
 * every method here that writes into a leaf or moves entries lowers it first.
 *
 * <p><b>Suffix keys.</b> A key of a local leaf that ends at most 8 bytes past the leaf's prefix (or 9 ending in 0x00)
 * holds no chunk: its reference is {@code ~len} ({@link KeyRefs#isSuffix}), its bytes the anchor's first {@code s}
 * then its long's. Such keys are made when a key is written into a local leaf ({@link #storeKey}) and when a leaf is
 * raised by {@link #tighten} (its fitting block keys give their chunks up). Raising a leaf shifts their longs; lowering it past one
 * (to {@code t} with {@code len > t + 8}, or global) needs a chunk for it, made in the move ({@link #lower},
 * {@link #unifyRun}) on one thread only: the parts of a phase cannot take chunks, so the partitions make suffix keys
 * only above a floor no move of theirs lowers a leaf below ({@link #floorFor}, {@link PartitionWriter}), refuse a
 * batch whose writes would lower one ({@link #partsCanWrite}) and check each hand-on ({@link #canUnifyRun}), and the
 * sweepers merge only leaves that {@link #canUnify}.
 *
 * <p>How keys meet a local leaf:
 * <ul>
 * <li>A search key has the leaf's prefix or orders below or above every key in it: {@link #localLength} answers
 * which with one compare of the prefix bytes, and the search runs on in-leaf longs, or on the sentinels
 * {@link KeyLayout#BELOW} and {@link KeyLayout#ABOVE} that every comparison settles without bytes.</li>
 * <li>A key to be stored in the leaf is admitted first ({@link #admit}, {@link #admitRun}): one without the prefix
 * lowers the leaf's prefix to what they share, or makes the leaf global. Lowering needs only the prefix's bytes:
 * the new long of a key is the prefix bytes it gains, then the old long's top bytes ({@link #lower}).</li>
 * <li>Entries moved between leaves ({@link LeafEntries}) are first brought to one encoding: a split's new leaf
 * takes its leaf's; a leaf and a sibling that trade entries are both lowered to the prefix they share
 * ({@link #unify}). After the move each leaf may take a longer prefix ({@link #tighten}): when its first and last
 * keys share {@link #minGain} bytes beyond what it skips, its longs are re-read from their key blocks.</li>
 * </ul>
 * Code outside this class and {@link LeafEntries} never moves a leaf's longs to another leaf; it encodes a key for a
 * leaf through the methods here, and reads a leaf's keys by their bytes ({@link #materialize}), which does not depend
 * on the encoding.
 */
final class LeafPrefixes {
    /**
     * The default of {@link #minGain}: one byte. Where keys end a few bytes past a long shared prefix (skiplisttest's
     * keys, one tuple-layer subspace) a leaf's keys share only a byte or two more than the tree's prefix, and only a
     * prefix of its own lets them be stored without a chunk (docs/tree.md, "Leaves' prefixes from one byte of gain").
     * Inner nodes keep 8 ({@link InnerPrefixes#MIN_GAIN}): there a prefix only saves tied comparisons.
     */
    static final int DEFAULT_MIN_GAIN = 1;
    /** The shortest local prefix: a key that has it is longer than any inline key, so it is in a key block. */
    static final int MIN_SKIP = KeyRefs.MAX_INLINE_LENGTH + 1;

    private final NodeStore store;
    private final KeyArena arena;
    private final KeyLayout layout;
    /**
     * The fewest bytes beyond the tree's prefix a leaf's own prefix has (the engine option {@code leafPrefixMinGain});
     * set before the first key is stored.
     */
    private int minGain = DEFAULT_MIN_GAIN;

    LeafPrefixes(NodeStore store, KeyLayout layout) {
        this.store = store;
        this.arena = store.arena;
        this.layout = layout;
    }

    /**
     * The most key-chunk bytes one single write ({@link TreeWriter}) can take by lowering leaves that hold suffix keys
     * (it lowers at most four leaves' worth of entries, {@link #lower}): what its budget check adds.
     */
    long loweringBytesBound() {
        int longest = store.longestSuffixKey();
        return longest == 0 ? 0 : 4L * store.leafCap * KeyArena.chunkBytes(longest);
    }

    /** Whether a suffix key may be in the tree: one was made since it was cleared (up to date between phases). */
    boolean mayHoldSuffixKeys() {
        return store.longestSuffixKey() != 0;
    }

    /**
     * The reference of {@code key[off, off + len)} stored on one thread into a leaf whose own prefix is {@code local}
     * bytes long (0: a global leaf) and which the key has: a suffix reference when it fits one, else as the tree
     * stores keys ({@link KeyLayout#storeKey}).
     */
    int storeKey(int local, byte[] key, int off, int len) {
        if (local != 0 && KeyRefs.fitsAfter(key, off, len, local)) {
            return suffixRef(len, store);
        }
        return layout.storeKey(key, off, len);
    }

    /** The suffix reference of a key of {@code len} bytes, made here ({@link AnchorRefs#madeSuffixKey}). */
    static int suffixRef(int len, AnchorRefs refs) {
        refs.madeSuffixKey(len);
        return KeyRefs.inline(len);
    }

    /** Writes the key at {@code slot} of leaf {@code h} into {@code out} (at least its length long); returns its length. */
    int materialize(int h, int slot, byte[] out) {
        NodeStore st = store;
        int at = (h & CHUNK_MASK) * st.leafCap + slot;
        long p = st.lKey[h >>> CHUNK_SHIFT][at];
        int ref = NodeStore.ref(st.lVerRef[h >>> CHUNK_SHIFT][at]);
        if (!KeyRefs.isSuffix(ref)) {
            // An inline key's first bytes are the tree's prefix as far as the leaf's longs skip (a stale leaf's longer).
            return KeyRefs.materialize(p, ref, arena, out, layout.sharedBytes(), skipOf(h));
        }
        int s = localSkip(h);
        int unit = anchor(h);
        System.arraycopy(arena.block(unit), arena.offset(unit), out, 0, s);
        return suffixBytes(p, ~ref, s, out);
    }

    /** Writes bytes {@code [s, len)} of a suffix key (long {@code p}, skipping {@code s}) into {@code out}; returns len. */
    static int suffixBytes(long p, int len, int s, byte[] out) {
        long u = p ^ Long.MIN_VALUE;
        for (int i = s; i < len; i++) {
            out[i] = i - s < KeyRefs.INLINE_BYTES ? (byte) (u >>> (56 - 8 * (i - s))) : 0;
        }
        return len;
    }

    /**
     * Whether a suffix key of {@code len} bytes, long {@code p} skipping {@code s}, still fits one in a leaf lowered to
     * {@code t < s} bytes of its own (0: the leaf goes global, where no key longer than an inline one is without a
     * chunk).
     */
    private static boolean suffixFitsAt(long p, int len, int s, int t) {
        if (t == 0) {
            return false;
        }
        int d = len - t;
        if (d != KeyRefs.MAX_INLINE_LENGTH) {
            return d <= KeyRefs.INLINE_BYTES;
        }
        // The 9th byte past t is the key's last: 0x00 past the long (len == s + 9), else the long's byte len - 1 - s.
        return len - s == KeyRefs.MAX_INLINE_LENGTH || (((p ^ Long.MIN_VALUE) >>> (56 - 8 * (len - 1 - s))) & 0xFF) == 0;
    }

    /**
     * Gives the suffix keys among entries {@code [from, to)} (longs {@code keys}, references {@code refs}, skipping
     * {@code s} bytes of prefix {@code p[pOff, pOff + s)}) that do not fit a leaf lowered to {@code t} (0: global) a key
     * chunk of their own, through {@code r}: on one thread, the only one to lower a leaf that holds such keys (the
     * parts of a phase never lower such keys: the partitions refuse batches that could,
     * {@link #partsCanWrite}, the sweeper's groups merge only leaves that {@link #canUnify}).
     */
    private void unsuffix(long[] keys, long[] verRefs, int from, int to, int s, int t, byte[] p, int pOff, AnchorRefs r) {
        for (int j = from; j < to; j++) {
            int ref = NodeStore.ref(verRefs[j]);
            if (KeyRefs.isSuffix(ref) && !suffixFitsAt(keys[j], ~ref, s, t)) {
                verRefs[j] = NodeStore.withRef(verRefs[j], r.storeSuffixKey(p, pOff, s, keys[j], ~ref));
            }
        }
    }

    /** Whether every suffix key of leaf {@code h} (local at {@code s}) fits when it is lowered to {@code t} (0: global). */
    private boolean fitsLowered(int h, int s, int t) {
        if (t == s) {
            return true;
        }
        NodeStore st = store;
        int base = (h & CHUNK_MASK) * st.leafCap;
        return fitAt(st.lKey[h >>> CHUNK_SHIFT], st.lVerRef[h >>> CHUNK_SHIFT], base, base + st.leafCount(h), s, t);
    }

    /**
     * Whether the partitions can apply the endpoints routed to leaf {@code h}, the first {@code key[aOff, aOff + aLen)}
     * and the last {@code key[zOff, zOff + zLen)} (sorted), without a key chunk (they make none during the phase): the
     * suffix keys the leaf holds fit its chain's floor ({@link #floorFor}), below which no endpoint lowers a member
     * (hand-ons check their own moves). Otherwise the batch is the one thread's.
     */
    boolean partsCanWrite(int h, byte[] key, int aOff, int aLen, int zOff, int zLen) {
        if (!mayHoldSuffixKeys()) {
            return true;
        }
        // The floor first: it reads the anchor's bytes, which the partition's writer loads anyway, where a scan for
        // suffix keys reads every reference of the leaf; with endpoints under the leaf's whole prefix (the common
        // case) nothing is lowered and fitsLowered answers without a scan. A global leaf's floor is 0 and it holds no
        // suffix key.
        int f = floorFor(h, key, aOff, aLen, zOff, zLen);
        return f != 0 ? fitsLowered(h, localSkip(h), f) : !holdsSuffixKey(h);
    }

    /**
     * A partition chain's floor for suffix keys ({@link PartitionWriter}): how much of leaf {@code h}'s own prefix the
     * first and the last endpoint routed to it ({@code key[aOff, aOff + aLen)}, {@code key[zOff, zOff + zLen)}, sorted)
     * have, and so every endpoint between: no endpoint lowers the leaf, nor a leaf made of its keys, below that. 0 when
     * the leaf is global or that is too short for a prefix of its own (the chain then makes no suffix key).
     */
    int floorFor(int h, byte[] key, int aOff, int aLen, int zOff, int zLen) {
        int s = localSkip(h);
        if (s == 0) {
            return 0;
        }
        int f = Math.min(sharedWith(h, s, key, aOff, aLen), sharedWith(h, s, key, zOff, zLen));
        return f == s || eligible(f) ? f : 0;
    }

    /** How much of local leaf {@code h}'s prefix ({@code s} bytes) {@code key[off, off + len)} has. */
    private int sharedWith(int h, int s, byte[] key, int off, int len) {
        int anchor = anchor(h);
        byte[] block = arena.block(anchor);
        int o = arena.offset(anchor);
        int g = layout.skip();
        int end = Math.min(len, s);
        int m = Arrays.mismatch(key, off + g, off + end, block, o + g, o + end);
        return m < 0 ? end : g + m;
    }

    /** Whether leaf {@code h} holds a suffix key (a scan of its references). */
    boolean holdsSuffixKey(int h) {
        if (localSkip(h) == 0) {
            return false;
        }
        NodeStore st = store;
        long[] lvr = st.lVerRef[h >>> CHUNK_SHIFT];
        int base = (h & CHUNK_MASK) * st.leafCap;
        for (int j = base, end = base + st.leafCount(h); j < end; j++) {
            if (KeyRefs.isSuffix(NodeStore.ref(lvr[j]))) {
                return true;
            }
        }
        return false;
    }

    /**
     * As {@link #canUnify} for {@link #unifyRun}'s leaf {@code leaf} (its first {@code first} entries, then the run's
     * {@code outLen}) and sibling {@code b}.
     */
    boolean canUnifyRun(int leaf, int first, long[] run, long[] runVerRefs, int outLen, int b) {
        int sa = localSkip(leaf);
        int sb = localSkip(b);
        if (sa == 0 && sb == 0) {
            return true;
        }
        int to = unifiedSkip(leaf, sa, b, sb);
        if (sa != 0 && to != sa) {
            NodeStore st = store;
            int base = (leaf & CHUNK_MASK) * st.leafCap;
            if (!fitAt(st.lKey[leaf >>> CHUNK_SHIFT], st.lVerRef[leaf >>> CHUNK_SHIFT], base, base + first, sa, to)
                    || !fitAt(run, runVerRefs, 0, outLen, sa, to)) {
                return false;
            }
        }
        return sb == 0 || fitsLowered(b, sb, to);
    }

    /** Whether the suffix keys among entries {@code [from, to)} (at {@code s}) fit a leaf lowered to {@code t}. */
    private static boolean fitAt(long[] keys, long[] verRefs, int from, int to, int s, int t) {
        for (int j = from; j < to; j++) {
            int ref = NodeStore.ref(verRefs[j]);
            if (KeyRefs.isSuffix(ref) && !suffixFitsAt(keys[j], ~ref, s, t)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A partition chain's floor once its member {@code a} hands entries to the original right sibling {@code b}, which
     * holds suffix keys and has no writes of its own in the batch ({@link PartitionWriter}), when the chain's floor was
     * {@code floor} (not 0): the lower of it and the prefix the two leaves share once they trade entries, when
     * {@code b}'s suffix keys fit a leaf lowered that far; else 0 (it may not take them). The chain's endpoints that
     * reach {@code b} have the floor's bytes of the chain's prefix, and {@code b}'s keys that shared prefix's, so none
     * lowers it below the result; the moves themselves are checked on their own ({@link #canUnifyRun}).
     */
    int floorWithSibling(int a, int b, int floor) {
        int sa = localSkip(a);
        int sb = localSkip(b);
        if (sa == 0 || sb == 0) {
            return 0;
        }
        int to = unifiedSkip(a, sa, b, sb);
        if (to == 0) {
            return 0;
        }
        int lowered = Math.min(floor, to);
        return fitsLowered(b, sb, lowered) ? lowered : 0;
    }

    /**
     * Whether leaves {@code a} and {@code b} can trade entries ({@link #unify}) without a key chunk: the sweeper merges
     * them only then (its parallel groups cannot allocate; the one-thread sweeper frees rather than takes).
     */
    boolean canUnify(int a, int b) {
        int sa = localSkip(a);
        int sb = localSkip(b);
        if (sa == 0 && sb == 0) {
            return true;
        }
        int to = unifiedSkip(a, sa, b, sb);
        return (sa == 0 || fitsLowered(a, sa, to)) && (sb == 0 || fitsLowered(b, sb, to));
    }

    /**
     * The prefix length two leaves with own prefixes {@code sa} and {@code sb} (0: the tree's) have once they trade
     * entries: the prefix both anchors share when it is long enough to keep, else 0 (the tree's).
     */
    private int unifiedSkip(int a, int sa, int b, int sb) {
        if (sa == 0 || sb == 0) {
            return 0;
        }
        int target = shared(anchor(a), anchor(b), Math.min(sa, sb));
        return eligible(target) ? target : 0;
    }

    /** The leaf's own prefix length, or 0 when it follows the tree's shared prefix. */
    int localSkip(int h) {
        return store.leafSkip(h);
    }

    /**
     * The length of the prefix leaf {@code h}'s longs skip: its own, or a global leaf's (the tree's, or a longer one the
     * leaf still follows while the tree's shrinks in steps, {@link KeyLayout#globalSkipOf}). A search key is re-encoded
     * for the leaf when this differs from the tree's ({@link #localLength}).
     */
    int skipOf(int h) {
        int s = localSkip(h);
        return s != 0 ? s : layout.globalSkipOf(h);
    }

    /** The unit of local leaf {@code h}'s anchor chunk. */
    private int anchor(int h) {
        return store.leafAnchor(h);
    }

    /** Makes global leaf {@code h} local at {@code s} bytes, anchored on chunk {@code unit} (a reference is taken). */
    private void makeLocal(int h, int s, int unit, AnchorRefs refs) {
        store.sawLocalLeaf();
        refs.retainChunk(unit);
        store.setLeafAnchor(h, unit);
        store.setLeafSkip(h, s);
    }

    /** Makes local leaf {@code h} global (its longs already follow the tree's prefix): its anchor is released. */
    private void makeGlobal(int h, AnchorRefs refs) {
        refs.releaseChunk(anchor(h));
        store.setLeafSkip(h, 0);
        layout.stamp(h);
    }

    /** Releases the anchor of leaf {@code h} when it is local: it is about to be emptied (an empty leaf is global). */
    void emptied(int h, AnchorRefs refs) {
        if (localSkip(h) != 0) {
            makeGlobal(h, refs);
        }
    }

    /**
     * The search length of {@code key[off, off + len)} in local leaf {@code h} (prefix length {@code s}): {@code len}
     * when the key has the leaf's prefix, else {@link KeyLayout#BELOW} or {@link KeyLayout#ABOVE}. The key has the
     * tree's shared prefix ({@code len >= 0}).
     */
    int localLength(int h, int s, byte[] key, int off, int len) {
        byte[] block;
        int o;
        if (localSkip(h) != 0) {
            int anchor = anchor(h);
            block = arena.block(anchor);
            o = arena.offset(anchor);
        } else {
            block = layout.sharedBytes(); // a global leaf still at a longer prefix of the tree's (KeyLayout#reencode)
            o = 0;
        }
        int g = layout.skip();
        int end = Math.min(len, s);
        int m = Arrays.mismatch(key, off + g, off + end, block, o + g, o + end);
        if (m < 0) {
            return len >= s ? len : KeyLayout.BELOW; // a key ending inside the prefix is a prefix of every key
        }
        return (key[off + g + m] & 0xFF) < (block[o + g + m] & 0xFF) ? KeyLayout.BELOW : KeyLayout.ABOVE;
    }

    /** The inline long a search key of search length {@code len} compares with in a leaf that skips {@code s} bytes. */
    static long localInline(byte[] key, int off, int len, int s) {
        return InnerPrefixes.localInline(key, off, len, s);
    }

    /**
     * Compares a search key in the tree's encoding (inline long {@code kp}, search length {@code len}) with slot
     * {@code slot} of leaf {@code h}: negative, zero or positive as the key is below, equal to or above it.
     */
    int compare(int h, int slot, long kp, byte[] key, int off, int len) {
        NodeStore st = store;
        int at = (h & CHUNK_MASK) * st.leafCap + slot;
        long p = st.lKey[h >>> CHUNK_SHIFT][at];
        int ref = NodeStore.ref(st.lVerRef[h >>> CHUNK_SHIFT][at]);
        int s = skipOf(h);
        if (s == layout.skip()) {
            return layout.compare(kp, key, off, len, p, ref);
        }
        if (len >= 0) {
            len = localLength(h, s, key, off, len);
            kp = localInline(key, off, len, s);
        }
        return kp != p ? (kp < p ? -1 : 1) : layout.tailAt(s, key, off, len, ref);
    }

    /**
     * Makes leaf {@code h}'s prefix one that {@code key} (which has the tree's prefix; {@code kp}, its long in the tree's
     * encoding) has too, lowering it or making the leaf global, and returns the key's long in the leaf's encoding: how a
     * key is stored into a leaf.
     */
    long admit(int h, long kp, byte[] key, int off, int len, AnchorRefs refs) {
        layout.ensureCurrent(h);
        int s = localSkip(h);
        if (s != 0) {
            s = lowerFor(h, s, key, off, len, refs);
        }
        return s == 0 ? kp : KeyRefs.prefix(key, off + s, len - s);
    }

    /**
     * Admits a run of sorted keys from its first ({@code key[aOff, aOff + aLen)}) to its last
     * ({@code key[zOff, zOff + zLen)}) to leaf {@code h}: every key between two that have a prefix has it too. Returns
     * the length of the prefix the leaf's longs then skip (the tree's when it is global).
     */
    int admitRun(int h, byte[] key, int aOff, int aLen, int zOff, int zLen, AnchorRefs refs) {
        layout.ensureCurrent(h);
        int s = localSkip(h);
        if (s != 0) {
            s = lowerFor(h, s, key, aOff, aLen, refs);
            if (s != 0) {
                s = lowerFor(h, s, key, zOff, zLen, refs);
            }
        }
        return s != 0 ? s : layout.skip();
    }

    /** The local prefix length of {@code h} (at {@code s}) once lowered for {@code key}; 0 when it went global. */
    private int lowerFor(int h, int s, byte[] key, int off, int len, AnchorRefs refs) {
        int anchor = anchor(h);
        byte[] block = arena.block(anchor);
        int o = arena.offset(anchor);
        int g = layout.skip();
        int end = Math.min(len, s);
        int m = Arrays.mismatch(key, off + g, off + end, block, o + g, o + end);
        if (m < 0 && len >= s) {
            return s;
        }
        int shared = m < 0 ? end : g + m;
        return lower(h, shared, block, o, refs);
    }

    /**
     * Lowers local leaf {@code h}'s prefix to {@code target} bytes (less than its own), or makes it global when that
     * is too short to be local; {@code p[pOff, pOff + s)} holds the leaf's prefix. Returns the new local prefix
     * length, 0 when global (its anchor then released). Reads no key block: the longs gain the prefix bytes between
     * the two lengths; a leaf that stays local keeps its anchor (whose first bytes are the shorter prefix too).
     */
    int lower(int h, int target, byte[] p, int pOff, AnchorRefs refs) {
        NodeStore st = store;
        int s = localSkip(h);
        int to = eligible(target) ? target : layout.skip();
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * st.leafCap;
        int n = st.lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        int local = to == layout.skip() ? 0 : to;
        unsuffix(st.lKey[c], st.lVerRef[c], base, base + n, s, local, p, pOff, refs);
        lowerLongs(st.lKey[c], base, base + n, s, to, p, pOff);
        if (local == 0) {
            makeGlobal(h, refs);
        } else {
            st.setLeafSkip(h, local);
        }
        return local;
    }

    /** Sets {@link #minGain} (before any key is stored: it changes which leaves may be local). */
    void minGain(int bytes) {
        if (bytes < 1 || bytes > KeyRefs.INLINE_BYTES) {
            throw new IllegalArgumentException("leafPrefixMinGain must be 1 to " + KeyRefs.INLINE_BYTES + ": " + bytes);
        }
        this.minGain = bytes;
    }

    /** Whether a prefix of {@code s} bytes may be a leaf's own: long enough to be worth it, and beyond inline keys. */
    boolean eligible(int s) {
        return s - layout.skip() >= minGain && s >= MIN_SKIP && s <= NodeStore.MAX_LEAF_SKIP;
    }

    /**
     * Re-encodes longs {@code keys[from, to)} from skipping {@code s} bytes to skipping {@code t < s}, every key having
     * the prefix {@code p[pOff, pOff + s)}: bytes {@code [t, t + 8)} of a key are the prefix's {@code [t, s)}, then the
     * first bytes of its old long.
     */
    static void lowerLongs(long[] keys, int from, int to, int s, int t, byte[] p, int pOff) {
        int d = s - t;
        if (d <= 0 || from >= to) {
            return;
        }
        if (d >= KeyRefs.INLINE_BYTES) {
            long all = KeyRefs.prefix(p, pOff + t, KeyRefs.INLINE_BYTES);
            Arrays.fill(keys, from, to, all);
            return;
        }
        long head = KeyRefs.prefix(p, pOff + t, d) ^ Long.MIN_VALUE;
        int shift = d << 3;
        for (int j = from; j < to; j++) {
            keys[j] = (head | ((keys[j] ^ Long.MIN_VALUE) >>> shift)) ^ Long.MIN_VALUE;
        }
    }

    /**
     * Brings leaves {@code a} and {@code b}, about to trade entries, to one encoding: both local with the prefix both
     * share, or both global. Returns the common encoding's local prefix length (0: global).
     */
    int unify(int a, int b, AnchorRefs refs) {
        layout.ensureCurrent(a);
        layout.ensureCurrent(b);
        int sa = localSkip(a);
        int sb = localSkip(b);
        if (sa == 0 && sb == 0) {
            return 0;
        }
        int target = 0;
        if (sa != 0 && sb != 0) {
            target = shared(anchor(a), anchor(b), Math.min(sa, sb));
        }
        if (sa != 0) {
            sa = lowerAnchored(a, target, refs);
        }
        if (sb != 0) {
            sb = lowerAnchored(b, target, refs);
        }
        return sa;
    }

    /**
     * As {@link #unify}, for a leaf whose new sequence is its first {@code first} entries then {@code run[0, outLen)}
     * (a run that overflowed it, longs and references, in its encoding at {@code s}, 0: global), and the sibling
     * {@code b} that takes some of them: the leaf's part, the run and the sibling are brought to one encoding, whose
     * local prefix length is returned (0: global) and set on the leaf and the sibling.
     */
    int unifyRun(int leaf, int first, long[] run, long[] runVerRefs, int outLen, AnchorRefs refs, int b) {
        layout.ensureCurrent(b); // the leaf and the run follow its encoding already (admitRun)
        int sa = localSkip(leaf);
        int sb = localSkip(b);
        if (sa == 0 && sb == 0) {
            return 0;
        }
        int target = 0;
        if (sa != 0 && sb != 0) {
            target = shared(anchor(leaf), anchor(b), Math.min(sa, sb));
        }
        int to = target != 0 && eligible(target) ? target : layout.skip();
        if (sa != 0) {
            int unit = anchor(leaf);
            byte[] p = arena.block(unit);
            int pOff = arena.offset(unit);
            NodeStore st = store;
            int c = leaf >>> CHUNK_SHIFT;
            int base = (leaf & CHUNK_MASK) * st.leafCap;
            int local = to == layout.skip() ? 0 : to;
            unsuffix(st.lKey[c], st.lVerRef[c], base, base + first, sa, local, p, pOff, refs);
            unsuffix(run, runVerRefs, 0, outLen, sa, local, p, pOff, refs);
            lowerLongs(st.lKey[c], base, base + first, sa, to, p, pOff);
            lowerLongs(run, 0, outLen, sa, to, p, pOff);
            if (to == layout.skip()) {
                makeGlobal(leaf, refs);
            } else {
                st.setLeafSkip(leaf, to);
            }
        }
        if (sb != 0) {
            lowerAnchored(b, to == layout.skip() ? 0 : to, refs);
        }
        return to == layout.skip() ? 0 : to;
    }

    /** Lowers local leaf {@code h} to {@code target} (0 or too short: global) with its anchor's bytes; the new local length. */
    private int lowerAnchored(int h, int target, AnchorRefs refs) {
        int unit = anchor(h);
        int s = localSkip(h);
        if (target == s) {
            return s;
        }
        return lower(h, target == 0 ? layout.skip() : target, arena.block(unit), arena.offset(unit), refs);
    }

    /** The length of the prefix the keys of chunks {@code ux} and {@code uy} share, at most {@code max}. */
    private int shared(int ux, int uy, int max) {
        int g = layout.skip();
        int m = Arrays.mismatch(arena.block(ux), arena.offset(ux) + g, arena.offset(ux) + max,
                arena.block(uy), arena.offset(uy) + g, arena.offset(uy) + max);
        return m < 0 ? max : g + m;
    }

    /**
     * Makes {@code b} take leaf {@code a}'s encoding: {@code b} is empty and about to receive entries from {@code a}
     * (its anchor too, until the move's {@link #tighten} anchors it on its own first key).
     */
    void copyEncoding(int a, int b, AnchorRefs refs) {
        layout.ensureCurrent(a);
        int s = localSkip(a);
        if (s != 0) {
            makeLocal(b, s, anchor(a), refs);
        } else {
            layout.stamp(b);
        }
    }

    /**
     * {@link #tighten} for a leaf a run was just merged into, when its first and last longs equal the run's first begin
     * ({@code written}, in the leaf's encoding): every key of it then shares at least 8 bytes more than the leaf
     * skips, and every search in it would tie on its longs and read the keys' bytes. Moves between leaves tighten both;
     * a leaf can also come to share more when the entries that did not share it expire and are swept
     * ({@link LeafCompaction} keeps the prefix), and a leaf of hot keys that never splits again would keep the short
     * prefix for good (the golden bank capture's account leaves: docs/tree.md). The last long is first: the run's
     * shift of the leaf's tail has just loaded its line, and a tight leaf's last long rarely equals a written key's;
     * a tight leaf's first and last longs differ in their first byte. The keys keep their chunks (no suffix keys are
     * made here), so that the leaf takes a batch's partitions as before ({@link #partsCanWrite}).
     */
    void tightenIfTied(int h, long written, AnchorRefs refs) {
        NodeStore st = store;
        int c = h >>> CHUNK_SHIFT;
        int n = st.lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        int base = (h & CHUNK_MASK) * st.leafCap;
        long[] lk = st.lKey[c];
        if (n >= 2 && lk[base + n - 1] == written && lk[base] == written) {
            tighten(h, refs, false);
        }
    }

    /**
     * Gives leaf {@code h} a longer prefix when its keys share at least {@link #minGain} bytes beyond what its longs
     * skip now (and it is eligible, and holds no inline key): its longs are then re-read from their key blocks. The
     * sorted keys share what the first and the last share, so only those two are compared: their longs tell a gain of
     * fewer than 8 bytes, their key blocks are read only when the longs are equal. A leaf local after
     * it is anchored on its first key's chunk (so a chunk anchors only the leaves that held it first at their last
     * move).
     */
    void tighten(int h, AnchorRefs refs) {
        tighten(h, refs, true);
    }

    /**
     * {@link #tighten}, and with {@code dropChunks} false leaving every key in the chunk it has: no suffix key is made
     * (a leaf that holds some may refuse a batch's partitions, {@link #partsCanWrite}), the leaf's own prefix and longs
     * are raised all the same.
     */
    private void tighten(int h, AnchorRefs refs, boolean dropChunks) {
        layout.ensureCurrent(h);
        boolean raised = raise(h, refs);
        if (localSkip(h) != 0) {
            NodeStore st = store;
            int firstRef = NodeStore.ref(st.lVerRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * st.leafCap]);
            int first = firstRef >>> 1;
            int old = anchor(h);
            if (firstRef >= 0 && first != old) {
                refs.retainChunk(first);
                st.setLeafAnchor(h, first);
                refs.releaseChunk(old);
            }
            // Block keys that fit a suffix reference appear when the prefix grows (keys written into a local leaf are
            // stored as suffix keys at once): only then are the chunks' lengths read.
            int floor = refs.suffixFloor();
            if (raised && dropChunks && floor != 0) {
                dropChunks(h, Math.min(floor, localSkip(h)), refs);
            }
        }
    }

    /**
     * Stores as suffix references the keys of local leaf {@code h} that fit one after {@code s} bytes (its prefix, or a
     * partition chain's floor below it, {@link AnchorRefs#suffixFloor}), their chunks released.
     */
    private void dropChunks(int h, int s, AnchorRefs anchorRefs) {
        NodeStore st = store;
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * st.leafCap;
        long[] lvr = st.lVerRef[c];
        for (int j = base, end = base + st.leafCount(h); j < end; j++) {
            int ref = NodeStore.ref(lvr[j]);
            if (ref >= 0) {
                int unit = ref >>> 1;
                int len = arena.length(unit) - (ref & 1);
                if (KeyRefs.fitsAfter(arena.block(unit), arena.offset(unit), len, s)) {
                    anchorRefs.releaseChunk(unit);
                    lvr[j] = NodeStore.withRef(lvr[j], suffixRef(len, anchorRefs));
                }
            }
        }
    }

    /**
     * {@link #tighten}'s longer prefix, when the keys have one (a leaf going local is anchored on its first key); whether
     * it took one.
     */
    private boolean raise(int h, AnchorRefs refs) {
        NodeStore st = store;
        int c = h >>> CHUNK_SHIFT;
        int n = st.lHdr[c][(h & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        if (n < 2) {
            return false;
        }
        int base = (h & CHUNK_MASK) * st.leafCap;
        long[] keys = st.lKey[c];
        // The bytes after what the leaf skips that its first and last keys share, as far as their longs tell (zero
        // padding of a short key counts: the keys' lengths bound the gain below).
        long differ = keys[base] ^ keys[base + n - 1];
        int sameBytes = differ == 0 ? KeyRefs.INLINE_BYTES : Long.numberOfLeadingZeros(differ) >>> 3;
        if (sameBytes < minGain) {
            return false; // the first and last keys differ too soon after what the leaf skips: no gain
        }
        int now = skipOf(h);
        if (sameBytes < KeyRefs.INLINE_BYTES && !eligible(now + sameBytes)) {
            return false; // the most the longs allow is no prefix of its own (too short): no key block read for it
        }
        long[] lvr = st.lVerRef[c];
        int firstRef = NodeStore.ref(lvr[base]);
        int lastRef = NodeStore.ref(lvr[base + n - 1]);
        if (firstRef < 0 || lastRef < 0) {
            return false;
        }
        int fl = KeyRefs.length(firstRef, arena);
        int ll = KeyRefs.length(lastRef, arena);
        int end = Math.min(fl, ll);
        if (end - now < minGain) {
            return false;
        }
        if (sameBytes < KeyRefs.INLINE_BYTES && end - (now + sameBytes) > KeyRefs.MAX_INLINE_LENGTH) {
            // A gain of under 8 bytes pays only by making suffix keys (in comparisons the longs tell the keys apart
            // already); when even the shorter end key would not be one, re-reading every key block is for nothing.
            return false;
        }
        int target = sameBytes < KeyRefs.INLINE_BYTES ? Math.min(end, now + sameBytes)
                : shared(firstRef >>> 1, lastRef >>> 1, Math.min(end, NodeStore.MAX_LEAF_SKIP));
        if (target - now < minGain || !eligible(target)) {
            return false;
        }
        boolean global = localSkip(h) == 0;
        if (global) {
            for (int j = 1; j < n - 1; j++) {
                if (NodeStore.ref(lvr[base + j]) < 0) {
                    return false; // an inline key: the leaf stays global
                }
            }
        }
        int gain = target - now;
        for (int j = 0; j < n; j++) {
            int ref = NodeStore.ref(lvr[base + j]);
            if (KeyRefs.isSuffix(ref)) {
                // No bytes past its long but a 0x00: the long's bytes after the gain, zero-padded.
                long u = keys[base + j] ^ Long.MIN_VALUE;
                keys[base + j] = (gain >= KeyRefs.INLINE_BYTES ? 0 : u << (gain << 3)) ^ Long.MIN_VALUE;
                continue;
            }
            int unit = ref >>> 1;
            keys[base + j] = KeyRefs.prefix(arena.block(unit), arena.offset(unit) + target, KeyRefs.length(ref, arena) - target);
        }
        if (global) {
            makeLocal(h, target, firstRef >>> 1, refs);
        } else {
            st.setLeafSkip(h, target); // tighten anchors it on its first key next
        }
        return true;
    }

    /** Why leaf {@code h}'s encoding breaks the rules above, or null (invariant checks). */
    String violation(int h) {
        int s = localSkip(h);
        if (s == 0) {
            return null;
        }
        NodeStore st = store;
        int n = st.leafCount(h);
        if (n < 1) {
            return "local leaf " + h + " is empty";
        }
        if (!eligible(s)) {
            return "local leaf " + h + " skips " + s + " bytes, the tree " + layout.skip();
        }
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * st.leafCap;
        int anchor = anchor(h);
        if (arena.length(anchor) < s) {
            return "local leaf " + h + " has an anchor of " + arena.length(anchor) + " bytes, shorter than its prefix";
        }
        for (int j = 0; j < n; j++) {
            int ref = NodeStore.ref(st.lVerRef[c][base + j]);
            if (KeyRefs.isSuffix(ref)) {
                int len = ~ref;
                if (len < s || len - s > KeyRefs.MAX_INLINE_LENGTH) {
                    return "local leaf " + h + " holds a suffix key of " + len + " bytes at slot " + j;
                }
                continue;
            }
            if (ref < 0) {
                return "local leaf " + h + " holds an inline key at slot " + j;
            }
            int unit = ref >>> 1;
            int len = KeyRefs.length(ref, arena);
            if (len < s || !Arrays.equals(arena.block(unit), arena.offset(unit), arena.offset(unit) + s,
                    arena.block(anchor), arena.offset(anchor), arena.offset(anchor) + s)) {
                return "local leaf " + h + " key " + j + " lacks the leaf's " + s + "-byte prefix";
            }
            if (st.lKey[c][base + j] != KeyRefs.prefix(arena.block(unit), arena.offset(unit) + s, len - s)) {
                return "local leaf " + h + " key " + j + " has a stale inline long";
            }
        }
        return null;
    }
}
