package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;

import java.util.Arrays;

/**
 * Inner nodes with a prefix of their own (issue 29). The tree-wide shared prefix ({@link KeyLayout}) is a
 * byte or two when keys come from several of the tuple layer's subspaces, so an inner node below the
 * subspace boundaries holds separators whose inline longs are all the subspace's bytes: every probe of a
 * search ties on the long and compares key blocks. Such a node keeps the length {@code s} of the prefix its
 * separators share ({@code iSkip}) and stores each separator's inline long of bytes {@code [s, s + 8)}
 * instead of {@code [skip, skip + 8)}; a search key is re-encoded for it on the way down.
 *
 * <p>The rules. A node is <em>local</em> when {@code iSkip != 0}; then it has at least two children, its
 * separators (slots {@code 1 .. n-1}) are all in key blocks (none inline), they all begin with the same
 * {@code iSkip} bytes, and {@code iSkip} exceeds the tree's shared prefix by at least {@link #MIN_GAIN}. Its
 * prefix bytes are read from slot 1's key block (the <em>anchor</em>). Every other node is <em>global</em>
 * ({@code iSkip == 0}): its longs follow the tree's shared prefix, as leaves do, and move with it.
 *
 * <p>A search key has a node's prefix, or orders below or above every separator in it (the separators are
 * sorted, and all have the prefix): {@link #localLength} answers which with one compare of the prefix
 * bytes, and the search then runs on in-node longs, or on the sentinels {@link KeyLayout#BELOW} and
 * {@link KeyLayout#ABOVE} that every comparison settles without bytes. Lowering a node's prefix (a new
 * separator without it) and raising it ({@link #tighten}, after a split or a rewrite) re-encode the node's
 * longs from their key blocks: at most {@code innerCap} keys, once per change of the node.
 *
 * <p>Code outside this class passes separators around in the tree's encoding: {@link #globalOf} reads one,
 * {@link #insert} and {@link #replace} store one, {@link #flatten} makes a whole node global before it is
 * copied slot by slot, and {@link #tighten} makes it local again where that pays.
 */
final class InnerPrefixes {
    /**
     * Shared bytes beyond the tree's prefix from which a node goes local: the tree's inline long then holds
     * none of the bytes in which the node's separators differ, and every probe of a search would tie on it.
     * With fewer the long still tells most separators apart (12-digit decimal keys: the lower nodes share 3–4
     * digits past the tree's prefix), and the re-encoding would cost a prefix compare per visit for nothing.
     */
    static final int MIN_GAIN = 8;

    private final NodeStore store;
    private final KeyArena arena;
    private final KeyLayout layout;

    InnerPrefixes(NodeStore store, KeyLayout layout) {
        this.store = store;
        this.arena = store.arena;
        this.layout = layout;
    }

    /** The node's own prefix length, or 0 when it follows the tree's shared prefix. */
    int localSkip(int h) {
        return store.iSkip[h >>> CHUNK_SHIFT][h & CHUNK_MASK];
    }

    /** The length of the prefix node {@code h}'s longs skip. */
    int skipOf(int h) {
        int s = localSkip(h);
        return s != 0 ? s : layout.skip();
    }

    /**
     * The search length of {@code key[off, off + len)} in local node {@code h} (prefix length {@code s}):
     * {@code len} when the key has the node's prefix, else {@link KeyLayout#BELOW} or {@link KeyLayout#ABOVE}.
     * The key has the tree's shared prefix ({@code len >= 0}).
     */
    int localLength(int h, int s, byte[] key, int off, int len) {
        int anchor = anchorRef(h);
        byte[] block = arena.block(anchor >>> 1);
        int o = arena.offset(anchor >>> 1);
        int g = layout.skip();
        int end = Math.min(len, s);
        int m = Arrays.mismatch(key, off + g, off + end, block, o + g, o + s);
        if (m < 0) {
            return len;
        }
        if (g + m == end) {
            return KeyLayout.BELOW; // the key ends inside the prefix: a prefix of every separator
        }
        return (key[off + g + m] & 0xFF) < (block[o + g + m] & 0xFF) ? KeyLayout.BELOW : KeyLayout.ABOVE;
    }

    /** The inline long a search key of search length {@code len} in local node {@code h} compares with. */
    static long localInline(byte[] key, int off, int len, int s) {
        return len >= 0 ? KeyRefs.prefix(key, off + s, len - s) : len == KeyLayout.BELOW ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /**
     * Compares a search key given in the tree's encoding (inline long {@code kp}, search length {@code len}) with
     * the separator at {@code slot} (at least 1) of {@code h}: negative, zero or positive as the key is below,
     * equal to or above it.
     */
    int compare(int h, int slot, long kp, byte[] key, int off, int len) {
        int at = (h & CHUNK_MASK) * store.innerCap + slot;
        long p = store.iKey[h >>> CHUNK_SHIFT][at];
        int ref = store.iRef[h >>> CHUNK_SHIFT][at];
        int s = localSkip(h);
        if (s == 0) {
            return layout.compare(kp, key, off, len, p, ref);
        }
        if (len >= 0) {
            len = localLength(h, s, key, off, len);
            kp = localInline(key, off, len, s);
        }
        return kp != p ? (kp < p ? -1 : 1) : layout.tailAt(s, key, off, len, ref);
    }

    /** The separator at {@code slot} (at least 1) of {@code h} in the tree's encoding. */
    long globalOf(int h, int slot) {
        int at = (h & CHUNK_MASK) * store.innerCap + slot;
        long key = store.iKey[h >>> CHUNK_SHIFT][at];
        if (localSkip(h) == 0) {
            return key;
        }
        return globalOfRef(store.iRef[h >>> CHUNK_SHIFT][at]);
    }

    /** The separator of key block reference {@code ref} in the tree's encoding (as {@link #globalOf} reads a slot's). */
    long globalOfRef(int ref) {
        return longAt(ref, layout.skip());
    }

    /**
     * Whether separator {@code ref} may join local node {@code h} (prefix length {@code s}) without lowering it: it is in
     * a key block and begins with the node's prefix. Reads its key block and the node's anchor.
     */
    boolean hasPrefix(int h, int s, int ref) {
        if (ref < 0) {
            return false;
        }
        int unit = ref >>> 1;
        int len = KeyRefs.length(ref, arena);
        return localLength(h, s, arena.block(unit), arena.offset(unit), len) == len;
    }

    /** The inline long of separator {@code ref} in a local node of prefix length {@code s} (see {@link #hasPrefix}). */
    long localOf(int ref, int s) {
        return longAt(ref, s);
    }

    /**
     * Makes {@code h}, whose longs were written skipping {@code s} bytes (0: the tree's encoding), local at {@code s},
     * then {@link #tighten}s it. Its separators must all be in key blocks and have that prefix when {@code s != 0}.
     */
    void encodedAt(int h, int s) {
        store.iSkip[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = s;
        tighten(h);
    }

    /** Inserts a separator given in the tree's encoding (see {@link NodeStore#insertInnerSlot}). */
    void insert(int h, int slot, long globalKey, int ref, int child, int max) {
        int s = admit(h, ref, -1);
        store.insertInnerSlot(h, slot, s == 0 ? globalKey : longAt(ref, s), ref, child, max);
    }

    /**
     * Sets the separator at {@code slot} (at least 1) of {@code h}. The key block of the one it replaces is not
     * read (the caller may have released it already).
     */
    void replace(int h, int slot, long globalKey, int ref) {
        int s = admit(h, ref, slot);
        int at = (h & CHUNK_MASK) * store.innerCap + slot;
        store.iKey[h >>> CHUNK_SHIFT][at] = s == 0 ? globalKey : longAt(ref, s);
        store.iRef[h >>> CHUNK_SHIFT][at] = ref;
    }

    /**
     * Makes {@code h}'s prefix one that separator {@code ref} has too (lowering it, or making the node global),
     * and returns the node's local prefix length after (0: global). Slot {@code replaced} (-1: none) is about to
     * be overwritten and is left alone.
     */
    private int admit(int h, int ref, int replaced) {
        int s = localSkip(h);
        if (s == 0) {
            return 0;
        }
        int n = store.innerCount(h);
        if (n < 2 || n == 2 && replaced == 1) {
            // No other separator to keep encoded.
            store.iSkip[h >>> CHUNK_SHIFT][h & CHUNK_MASK] = 0;
            return 0;
        }
        if (ref < 0) {
            reencode(h, layout.skip(), replaced);
            return 0;
        }
        int unit = ref >>> 1;
        int len = KeyRefs.length(ref, arena);
        int g = layout.skip();
        int anchor = store.iRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * store.innerCap + (replaced == 1 ? 2 : 1)];
        int end = Math.min(len, s);
        int m = Arrays.mismatch(arena.block(unit), arena.offset(unit) + g, arena.offset(unit) + end,
                arena.block(anchor >>> 1), arena.offset(anchor >>> 1) + g, arena.offset(anchor >>> 1) + s);
        if (m < 0) {
            return s;
        }
        int lowered = g + m;
        if (lowered - g < MIN_GAIN) {
            reencode(h, g, replaced);
            return 0;
        }
        reencode(h, lowered, replaced);
        return lowered;
    }

    /** Makes {@code h} global: its longs in the tree's encoding, re-read from their key blocks. */
    void flatten(int h) {
        if (localSkip(h) != 0) {
            reencode(h, layout.skip(), -1);
        }
    }

    /**
     * Makes {@code h} local with the longest prefix its separators share, when that is at least
     * {@link #MIN_GAIN} bytes beyond the tree's and none of them is inline; global otherwise. Its longs must be
     * valid in its current encoding.
     */
    void tighten(int h) {
        NodeStore s = store;
        int n = s.innerCount(h);
        int g = layout.skip();
        int target = g;
        if (n >= 3) {
            int c = h >>> CHUNK_SHIFT;
            int base = (h & CHUNK_MASK) * s.innerCap;
            int[] refs = s.iRef[c];
            boolean allInBlocks = true;
            for (int i = 1; i < n; i++) {
                allInBlocks &= refs[base + i] >= 0;
            }
            if (allInBlocks) {
                int first = refs[base + 1] >>> 1;
                int last = refs[base + n - 1] >>> 1;
                int fl = KeyRefs.length(refs[base + 1], arena);
                int ll = KeyRefs.length(refs[base + n - 1], arena);
                int end = Math.min(fl, ll);
                int m = Arrays.mismatch(arena.block(first), arena.offset(first) + g, arena.offset(first) + end,
                        arena.block(last), arena.offset(last) + g, arena.offset(last) + end);
                // Sorted separators share what the first and the last share.
                int shared = g + (m < 0 ? end - g : m);
                if (shared - g >= MIN_GAIN) {
                    target = shared;
                }
            }
        }
        int now = skipOf(h);
        if (target != now) {
            reencode(h, target, -1);
        }
    }

    /** Re-encodes {@code h}'s separators but slot {@code except} at prefix length {@code skip} from their key blocks. */
    private void reencode(int h, int skip, int except) {
        NodeStore s = store;
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * s.innerCap;
        int n = s.innerCount(h);
        long[] keys = s.iKey[c];
        int[] refs = s.iRef[c];
        for (int i = 1; i < n; i++) {
            if (i != except) {
                keys[base + i] = longAt(refs[base + i], skip);
            }
        }
        s.iSkip[c][h & CHUNK_MASK] = skip == layout.skip() ? 0 : skip;
    }

    /** The inline long of bytes {@code [skip, skip + 8)} of the key in key block reference {@code ref}. */
    private long longAt(int ref, int skip) {
        int unit = ref >>> 1;
        return KeyRefs.prefix(arena.block(unit), arena.offset(unit) + skip, KeyRefs.length(ref, arena) - skip);
    }

    private int anchorRef(int h) {
        return store.iRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * store.innerCap + 1];
    }

    /** Whether {@code h}'s encoding follows the rules above and its longs match its keys (invariant checks). */
    String violation(int h) {
        int s = localSkip(h);
        if (s == 0) {
            return null;
        }
        NodeStore st = store;
        int n = st.innerCount(h);
        if (n < 2) {
            return "local inner " + h + " has " + n + " children";
        }
        if (s - layout.skip() < MIN_GAIN) {
            return "local inner " + h + " skips " + s + " bytes, the tree " + layout.skip();
        }
        int c = h >>> CHUNK_SHIFT;
        int base = (h & CHUNK_MASK) * st.innerCap;
        int anchor = anchorRef(h);
        for (int i = 1; i < n; i++) {
            int ref = st.iRef[c][base + i];
            if (ref < 0) {
                return "local inner " + h + " holds an inline separator at slot " + i;
            }
            int unit = ref >>> 1;
            if (KeyRefs.length(ref, arena) < s || !Arrays.equals(arena.block(unit), arena.offset(unit),
                    arena.offset(unit) + s, arena.block(anchor >>> 1), arena.offset(anchor >>> 1),
                    arena.offset(anchor >>> 1) + s)) {
                return "local inner " + h + " separator " + i + " lacks the node's " + s + "-byte prefix";
            }
            if (st.iKey[c][base + i] != longAt(ref, s)) {
                return "local inner " + h + " separator " + i + " has a stale inline long";
            }
        }
        return null;
    }
}
