package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * How the tree stores and compares keys: the shared prefix, the inline long of the 8 bytes after it,
 * the key reference ({@link KeyRefs}), and the comparisons of a search key with a stored key.
 *
 * <p>Every key in the tree begins with the same {@code skip} bytes (kept once, in {@code shared}): the
 * inline longs of entries and separators hold the 8 bytes after them, so keys that all begin alike
 * (FoundationDB's {@code skiplisttest}: twelve dots, then 4 bytes) still compare in one {@code long}
 * compare, without reading key blocks. The first written key sets the prefix; a written key without it
 * shortens the prefix to what they share (so at most once per byte of the first key's length, and in practice
 * a few times while the tree is small): the separators are re-encoded at once, the leaves in steps over the
 * batches that follow ({@link #reencode}); it grows back only when the tree is cleared. A read key without it
 * orders before or after every key in the tree and is searched as such (a sentinel length, {@link #BELOW} or
 * {@link #ABOVE}), so reads never change the prefix. Key storage does not depend on it: keys of at most 8 bytes, and 9-byte keys ending
 * in 0x00 (the end {@code k\0} of a point write on an 8-byte key), are inline whatever the prefix is
 * ({@link KeyRefs#fitsInline}); all other keys are in key blocks, so re-encoding never allocates.
 */
final class KeyLayout {
    /** Search lengths of read keys without the shared prefix (see {@link #searchLength}). */
    static final int BELOW = -1;
    static final int ABOVE = -2;
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final NodeStore store;
    private final KeyArena arena;
    /** Bytes {@code [0, skip)} of every key in the tree and of every key searched for. */
    private byte[] shared;
    private int skip;
    /**
     * The shared prefix's first 16 bytes as two big-endian words, and masks of the bytes of each that
     * belong to it: a key of at least 16 bytes is checked with two loads (see {@link #hasSharedPrefix}).
     */
    private long sharedWord0;
    private long sharedWord1;
    private long sharedMask0;
    private long sharedMask1;
    /** No key has been admitted since the tree was (re)created: the next one sets the shared prefix. */
    private boolean skipUnset = true;
    /** Changes whenever inline longs change meaning (the prefix shrank or was reset): encodings made before are stale. */
    private int epoch;

    // ---- lowering the leaves in steps after the prefix shrank ({@link #reencode}) ----
    /** Some global leaves may still follow a longer prefix than {@link #skip}. */
    private boolean lowering;
    /** Times the prefix shrank since the layout was made; a stamp {@code ~seq} marks a leaf lowered after the seq-th. */
    private int seq;
    /** The first shortening of the pass under way, and the prefix every leaf not stamped since followed. */
    private int passFirstSeq;
    private int passBase;
    /** {@code skipAfter[k]}: the prefix's length after shortening {@code passFirstSeq + k}. */
    private int[] skipAfter = new int[8];
    /** The next leaf {@link #lowerSome} looks at. */
    private int lowerCursor;
    /** Leaves whose longs were lowered so far (tests: how much of that work one batch did; exact on one thread). */
    long leavesLowered;

    /** Key buffers start this long and grow to the longest key they meet (keys have no length limit). */
    static final int INITIAL_KEY_BUFFER = 256;

    /** Inner nodes' own prefixes (stateless but for the store: shared by every thread). */
    final InnerPrefixes inner;
    /** Leaves' own prefixes (the same). */
    final LeafPrefixes leaf;

    KeyLayout(NodeStore store) {
        this.store = store;
        this.arena = store.arena;
        this.shared = new byte[INITIAL_KEY_BUFFER];
        this.inner = new InnerPrefixes(store, this);
        this.leaf = new LeafPrefixes(store, this);
    }

    /**
     * {@code buffer} when the stored key {@code ref} fits in it, else a new buffer that does (twice as long at
     * least): key buffers grow to the longest key met, once, so the steady state allocates nothing.
     */
    byte[] fit(byte[] buffer, int ref) {
        int len = KeyRefs.length(ref, arena);
        return len <= buffer.length ? buffer : new byte[Math.max(len, 2 * buffer.length)];
    }

    /** The length of the prefix every key in the tree shares (the inline longs hold the 8 bytes after it). */
    int skip() {
        return skip;
    }

    /** Forgets the shared prefix (the tree was cleared): the next admitted key sets it. */
    void reset() {
        skip = 0;
        skipUnset = true;
        lowering = false; // the tree was cleared: no leaf holds an old encoding
        epoch++;
        prefixChanged();
    }

    /** Recomputes the words {@link #hasSharedPrefix} compares with. */
    private void prefixChanged() {
        int g = skip;
        sharedWord0 = g > 0 ? (long) LONG_BE.get(shared, 0) : 0;
        sharedWord1 = g > 8 ? (long) LONG_BE.get(shared, 8) : 0;
        sharedMask0 = g >= 8 ? -1L : g <= 0 ? 0 : -1L << ((8 - g) << 3);
        sharedMask1 = g >= 16 ? -1L : g <= 8 ? 0 : -1L << ((16 - g) << 3);
    }

    /** Whether {@code key[off, off + len)}, {@code len >= skip}, begins with the shared prefix. */
    private boolean hasSharedPrefix(byte[] key, int off) {
        int g = skip;
        if (g <= 16 && off + 16 <= key.length) {
            return ((((long) LONG_BE.get(key, off) ^ sharedWord0) & sharedMask0)
                    | (((long) LONG_BE.get(key, off + 8) ^ sharedWord1) & sharedMask1)) == 0;
        }
        return Arrays.equals(key, off, off + g, shared, 0, g);
    }

    /** See {@link #epoch}: equal values mean inline longs computed in between are still valid. */
    int epoch() {
        return epoch;
    }

    /**
     * Makes sure {@code key} has the shared prefix, shortening the prefix ({@link #reencode}) when it does not. Once
     * per written key: a vectorized compare of skip bytes.
     */
    void admit(byte[] key, int off, int len) {
        int g = skip;
        int m = sharedWith(key, off, len, g);
        if (m < g) {
            reencode(m);
        } else if (skipUnset) {
            // The first key: the whole key is shared so far (the tree holds nothing to re-encode).
            if (shared.length < len) {
                shared = new byte[Math.max(len, 2 * shared.length)];
            }
            System.arraycopy(key, off, shared, 0, len);
            skip = len;
            skipUnset = false;
            epoch++;
            prefixChanged();
        }
    }

    /**
     * {@link #admit} for two keys of {@code key}, {@code a} no greater than {@code b}, such as a batch's lowest and
     * highest endpoints: a prefix either lacks is shortened once, to what both share with it, where admitting them one
     * after the other re-encoded the tree twice when the lower key shortened it first and the higher further (a write
     * below the tree's keys and one above them). Every key between the two then has the prefix.
     */
    void admitBoth(byte[] key, int aOff, int aLen, int bOff, int bLen) {
        if (skipUnset) {
            admit(key, aOff, aLen); // the first key sets the prefix: there is no history yet to re-encode
            admit(key, bOff, bLen);
            return;
        }
        int g = skip;
        int m = Math.min(sharedWith(key, aOff, aLen, g), sharedWith(key, bOff, bLen, g));
        if (m < g) {
            reencode(m);
        }
    }

    /** How many of the shared prefix's first {@code g} bytes {@code key[off, off + len)} begins with. */
    private int sharedWith(byte[] key, int off, int len, int g) {
        if (len >= g && hasSharedPrefix(key, off)) {
            return g;
        }
        int m = Arrays.mismatch(key, off, off + len, shared, 0, g);
        return m < 0 ? g : m;
    }

    /**
     * Shortens the shared prefix to {@code newSkip} bytes. Every key has the old prefix, so a key's long at the shorter
     * one is the prefix's bytes in between followed by its old long's first bytes ({@link LeafPrefixes#lowerLongs}):
     * arithmetic on the longs, no key block read. The separators are lowered here, all of them (about one inner node
     * per 60 leaves); the leaves are not: they become <em>stale</em> and are lowered in steps ({@link #lowerSome}, a
     * bounded number per batch) or when a write or a move reaches one first ({@link #ensureCurrent}). Until then a search
     * in a stale leaf reads it as a leaf with a prefix of its own whose bytes are the tree's old prefix
     * ({@link #globalSkipOf}, {@link LeafPrefixes#localLength}). (Lowering every leaf here held the batch in proportion to
     * the history: 125 ms at a gigabyte of it along the leaf chain, 57 ms in memory order; docs/latency.md.)
     *
     * <p>Which prefix a global leaf's longs follow is told by its anchor slot, unused while it is global
     * ({@link NodeStore#lAnchor}): {@link #stamp} writes {@code ~seq} there whenever the leaf's longs are made to follow
     * the current prefix. A leaf without a stamp of the pass under way follows the prefix the pass began from
     * ({@link #passBase}), one stamped by shortening {@code k} of the pass the prefix that shortening left.
     */
    private void reencode(int newSkip) {
        NodeStore s = store;
        int oldSkip = skip;
        if (s.height > 0) {
            reencodeSeparators(s.root, s.height, oldSkip, newSkip);
        }
        if (!lowering) {
            lowering = true;
            passBase = oldSkip;
            passFirstSeq = seq + 1;
        }
        seq++;
        int k = seq - passFirstSeq;
        if (k == skipAfter.length) {
            skipAfter = Arrays.copyOf(skipAfter, 2 * k); // once per byte the prefix loses within one pass, at most
        }
        skipAfter[k] = newSkip;
        lowerCursor = 0; // leaves lowered before this shortening are stale again
        skip = newSkip;
        s.freshLeafStamp = ~seq;
        epoch++;
        prefixChanged();
    }

    /**
     * The length of the prefix global leaf {@code h}'s longs skip: the tree's, or while a pass of lowering is under way
     * ({@link #reencode}) and the leaf has not been lowered yet, the longer prefix they were encoded for.
     */
    int globalSkipOf(int h) {
        // Below the walk's cursor every global leaf follows the current prefix: the walk lowered it since the last
        // shortening, or it went global or was allocated since, stamped. No stamp to load there.
        return lowering && h >= lowerCursor ? encodedSkip(h) : skip;
    }

    private int encodedSkip(int h) {
        NodeStore s = store;
        if (s.leafCount(h) == 0) {
            return skip;
        }
        int stamp = s.leafAnchor(h);
        if (stamp < 0) {
            int k = ~stamp - passFirstSeq;
            if (k >= 0) {
                return skipAfter[k];
            }
        }
        return passBase;
    }

    /** Whether some global leaves may still follow a longer prefix than the tree's ({@link #reencode}). */
    boolean lowering() {
        return lowering;
    }

    /** The tree's prefix bytes (a stale leaf's prefix is their first {@link #globalSkipOf} bytes). */
    byte[] sharedBytes() {
        return shared;
    }

    /**
     * Makes global leaf {@code h}'s longs follow the tree's prefix, if a pass of lowering left them at a longer one
     * (a leaf's worth of arithmetic); what every code that writes into a leaf or moves its entries does first. Local
     * leaves are left as they are. Threads of a phase call it only on leaves of their own.
     */
    void ensureCurrent(int h) {
        if (!lowering || h < lowerCursor || store.leafSkip(h) != 0) {
            return; // (below the walk's cursor: current, see globalSkipOf)
        }
        lower(h);
    }

    private void lower(int h) {
        NodeStore s = store;
        int n = s.leafCount(h);
        if (n > 0) {
            int e = encodedSkip(h);
            if (e != skip) {
                int b = (h & CHUNK_MASK) * s.leafCap;
                LeafPrefixes.lowerLongs(s.lKey[h >>> CHUNK_SHIFT], b, b + n, e, skip, shared, 0);
                leavesLowered++;
            }
        }
        stamp(h);
    }

    /** Records that global leaf {@code h}'s longs follow the current prefix (see {@link #reencode}). */
    void stamp(int h) {
        store.setLeafAnchor(h, ~seq);
    }

    /**
     * Lowers up to {@code leaves} more leaves of the pass under way, in the order they lie in memory (free and local
     * ones count too, so the step is bounded whatever they hold); the pass ends when every leaf below the pool's high
     * water has been seen since the last shortening. Once per batch, between phases.
     */
    void lowerSome(int leaves) {
        if (!lowering) {
            return;
        }
        NodeStore s = store;
        int high = s.leafHighWater();
        int end = (int) Math.min(high, (long) lowerCursor + leaves);
        for (int h = lowerCursor; h < end; h++) {
            if (s.leafSkip(h) == 0) {
                lower(h);
            }
        }
        lowerCursor = end;
        if (end >= high) {
            lowering = false;
        }
    }

    private void reencodeSeparators(int h, int level, int oldSkip, int newSkip) {
        NodeStore s = store;
        int c = h >>> CHUNK_SHIFT;
        int b = (h & CHUNK_MASK) * s.innerCap;
        int n = s.iCount[c][h & CHUNK_MASK];
        // A node with a prefix of its own (InnerPrefixes) keeps its longs: its prefix is longer than either. Slot 0
        // holds no separator.
        if (s.iSkip[c][h & CHUNK_MASK] == 0) {
            LeafPrefixes.lowerLongs(s.iKey[c], b + 1, b + n, oldSkip, newSkip, shared, 0);
        }
        if (level > 1) {
            for (int i = 0; i < n; i++) {
                reencodeSeparators(s.iChild[c][b + i], level - 1, oldSkip, newSkip);
            }
        }
    }

    /**
     * The length to search with for a read's key: its own when it has the shared prefix, else
     * {@link #BELOW} or {@link #ABOVE} (every key in the tree has the prefix, so such a key orders
     * before, or after, all of them).
     */
    int searchLength(byte[] key, int off, int len) {
        int g = skip;
        if (len >= g && hasSharedPrefix(key, off)) {
            return len;
        }
        int m = Arrays.mismatch(key, off, off + len, shared, 0, g);
        return m == len || (key[off + m] & 0xFF) < (shared[m] & 0xFF) ? BELOW : ABOVE;
    }

    /** The inline long to search with for a key of search length {@code len} ({@link #searchLength}). */
    long searchInline(byte[] key, int off, int len) {
        return len >= 0 ? inlineOf(key, off, len) : len == BELOW ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** The inline long of {@code key} (which has the shared prefix). */
    long inlineOf(byte[] key, int off, int len) {
        return KeyRefs.prefix(key, off + skip, len - skip);
    }

    /** Compares a search key with a stored key whose inline long is equal to the search key's. */
    int tail(byte[] key, int off, int len, int ref) {
        if (len < 0) {
            return len == BELOW ? -1 : 1;
        }
        return KeyRefs.compareTail(key, off, len, ref, arena, skip);
    }

    /** {@link #tail} in a node whose longs skip {@code skip} bytes ({@link InnerPrefixes}). */
    int tailAt(int skip, byte[] key, int off, int len, int ref) {
        if (len < 0) {
            return len == BELOW ? -1 : 1;
        }
        return KeyRefs.compareTail(key, off, len, ref, arena, skip);
    }

    /** Compares a search key (inline long {@code kp}) with a stored key. */
    int compare(long kp, byte[] key, int off, int len, long stored, int ref) {
        return kp != stored ? (kp < stored ? -1 : 1) : tail(key, off, len, ref);
    }

    /** Writes a stored key's bytes into {@code out} and returns its length. */
    int materialize(long inline, int ref, byte[] out) {
        return KeyRefs.materialize(inline, ref, arena, out, shared, skip);
    }

    /** A reference to {@code key[off, off + len)}: inline ({@link KeyRefs#fitsInline}), or a new arena chunk. */
    int storeKey(byte[] key, int off, int len) {
        if (KeyRefs.fitsInline(key, off, len)) {
            return KeyRefs.inline(len);
        }
        return KeyRefs.arenaRef(arena.allocate(key, off, len), false);
    }

    /** Whether a stored key has the shared prefix and the inline long its bytes give (for invariant checks). */
    boolean encodedCorrectly(byte[] key, long inline) {
        return encodedCorrectly(key, inline, skip);
    }

    /** The same in a node whose longs skip {@code nodeSkip} bytes (a leaf with a prefix of its own). */
    boolean encodedCorrectly(byte[] key, long inline, int nodeSkip) {
        int len = key.length;
        return len >= nodeSkip && Arrays.equals(key, 0, skip, shared, 0, skip)
                && KeyRefs.prefix(key, nodeSkip, len - nodeSkip) == inline;
    }
}
