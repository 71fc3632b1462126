package org.fdbresolver.tree;

import org.fdbresolver.api.Keys;

/**
 * How a node refers to a key: an inline {@code long} plus an int reference. The inline long holds the
 * 8 key bytes that follow the tree's shared prefix of {@code skip} bytes (a prefix every key in the
 * tree has, see {@link HistoryTree}; 0 when keys differ in their first byte): bytes
 * {@code [skip, skip + 8)}, big-endian, zero-padded, with the sign bit flipped so that signed
 * {@code long} order is unsigned byte order.
 *
 * <p>Reference encoding: a negative reference {@code ~len} is a key held entirely by the shared prefix,
 * its inline long and its length: {@code len <= 8} bytes (so {@code skip <= len}), or 9 bytes whose
 * last byte is 0x00 ({@link #fitsInline}) — the end {@code k\0} of a point write on an 8-byte key
 * {@code k}, whose 9th byte is implied (it lies within the inline long when {@code skip >= 1}, and is
 * 0x00 by definition when {@code skip == 0}). Either way the key does not depend on {@code skip}, so
 * re-encoding never moves a key between inline and a key block. A non-negative
 * reference is {@code unit << 1 | dropLast}: the key bytes live in {@link KeyArena} chunk
 * {@code unit}, and {@code dropLast == 1} means the key is the chunk's bytes without their last byte
 * (how {@code k} shares the chunk of {@code k\0}).
 *
 * <p>A <em>suffix reference</em> {@code ~len} with {@code len > MAX_INLINE_LENGTH} ({@link #isSuffix}) is a key of a
 * leaf with a prefix of its own ({@link LeafPrefixes}) that ends at most 8 bytes past that prefix of {@code s} bytes, or
 * 9 ending in 0x00 ({@link #fitsAfter}): the leaf's prefix (held by its anchor chunk), then the bytes of its inline long,
 * which skips {@code s}. It holds no chunk. Since {@code s} is at least {@code MAX_INLINE_LENGTH + 1}, {@code len} tells
 * it from an inline key, and {@link #length} and {@link #compareTail} (given {@code s}) treat both alike.
 *
 * <p>Two keys that share the skipped prefix and have equal inline longs compare by length when either
 * is at most {@code skip + 8} bytes long (the shorter is then a prefix of the longer), otherwise by
 * their bytes from offset {@code skip + 8} on.
 */
final class KeyRefs {
    static final int INLINE_BYTES = 8;
    /** The longest inline key: 8 bytes, or 8 bytes and a 0x00 (see {@link #fitsInline}). */
    static final int MAX_INLINE_LENGTH = INLINE_BYTES + 1;
    /** The reference of the empty key; also used for the unused separator of an inner node's slot 0. */
    static final int EMPTY = ~0;

    private KeyRefs() {
    }

    /** The order-preserving prefix of {@code key[off, off + len)}. */
    static long prefix(byte[] key, int off, int len) {
        return Keys.orderedPrefix(key, off, len);
    }

    /**
     * Whether {@code key[off, off + len)} is stored inline: at most 8 bytes, or 9 bytes ending in 0x00.
     * (Only these: any other byte beyond the inline long would have to be stored somewhere.)
     */
    static boolean fitsInline(byte[] key, int off, int len) {
        return len <= INLINE_BYTES || len == MAX_INLINE_LENGTH && key[off + INLINE_BYTES] == 0;
    }

    /** Whether {@code key[off, off + len)}, whose first {@code s} bytes are a leaf's prefix, fits a suffix reference. */
    static boolean fitsAfter(byte[] key, int off, int len, int s) {
        int d = len - s;
        return d <= INLINE_BYTES || d == MAX_INLINE_LENGTH && key[off + len - 1] == 0;
    }

    /** Whether {@code ref} is a suffix reference: a key held by its leaf's prefix and its long (see above). */
    static boolean isSuffix(int ref) {
        return ref < ~MAX_INLINE_LENGTH;
    }

    static boolean isInline(int ref) {
        return ref < 0;
    }

    static int inline(int len) {
        return ~len;
    }

    static int unit(int ref) {
        return ref >>> 1;
    }

    static int arenaRef(int unit, boolean dropLast) {
        return unit << 1 | (dropLast ? 1 : 0);
    }

    static int length(int ref, KeyArena arena) {
        return ref < 0 ? ~ref : arena.length(ref >>> 1) - (ref & 1);
    }

    /**
     * Writes the key's bytes into {@code out} (at least its length long) and returns the length; an
     * inline key takes its first {@code skip} bytes from {@code shared}.
     */
    static int materialize(long prefix, int ref, KeyArena arena, byte[] out, byte[] shared, int skip) {
        int len = length(ref, arena);
        long p = prefix ^ Long.MIN_VALUE;
        if (ref < 0) {
            System.arraycopy(shared, 0, out, 0, skip);
            int inlineEnd = Math.min(len, skip + INLINE_BYTES);
            for (int i = skip; i < inlineEnd; i++) {
                out[i] = (byte) (p >>> (56 - 8 * (i - skip)));
            }
            for (int i = inlineEnd; i < len; i++) {
                out[i] = 0; // the 0x00 of a 9-byte inline key when skip == 0
            }
        } else {
            System.arraycopy(arena.block(ref >>> 1), arena.offset(ref >>> 1), out, 0, len);
        }
        return len;
    }

    /**
     * Compares the search key {@code (kp, key[off, off + len))} with a stored key {@code (prefix, ref)};
     * both share the first {@code skip} bytes.
     */
    static int compare(long kp, byte[] key, int off, int len, long prefix, int ref, KeyArena arena, int skip) {
        if (kp != prefix) {
            return kp < prefix ? -1 : 1;
        }
        return compareTail(key, off, len, ref, arena, skip);
    }

    /**
     * The comparison once the inline longs are known to be equal (both keys share the first
     * {@code skip} bytes, so they agree on their first {@code skip + 8}, zero-padded).
     */
    static int compareTail(byte[] key, int off, int len, int ref, KeyArena arena, int skip) {
        if (ref < 0) {
            // An inline key has only 0x00 bytes past its inline long (at most one: a 9-byte key with
            // skip == 0). A search key that is longer than the inline long and has another byte there
            // is above it; otherwise one key is a prefix of the other.
            int slen = ~ref;
            int from = skip + INLINE_BYTES;
            if (len > from && slen > from && key[off + from] != 0) {
                return 1;
            }
            return Integer.compare(len, slen);
        }
        int unit = ref >>> 1;
        int slen = arena.length(unit) - (ref & 1);
        int from = skip + INLINE_BYTES;
        if (len <= from || slen <= from) {
            return Integer.compare(len, slen);
        }
        int so = arena.offset(unit);
        // By words for short tails (Keys.compare): Arrays.compareUnsigned's set-up costs more than a 16-byte key.
        return Keys.compare(key, off + from, len - from, arena.block(unit), so + from, slen - from);
    }
}
