package org.fdbresolver.tree;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * How a node refers to a key: an inline prefix (the first 8 bytes, big-endian, zero-padded, with the
 * sign bit flipped so that signed {@code long} order is unsigned byte order) plus an int reference.
 *
 * <p>Reference encoding: a negative reference {@code ~len} is a key of {@code len <= 8} bytes held
 * entirely by its prefix. A non-negative reference is {@code unit << 1 | dropLast}: the key bytes live
 * in {@link KeyArena} chunk {@code unit}, and {@code dropLast == 1} means the key is the chunk's bytes
 * without their last byte (how {@code k} shares the chunk of {@code k\0}).
 *
 * <p>Two keys with equal prefixes compare by length when either is at most 8 bytes long (the shorter
 * is then a prefix of the longer), otherwise by their bytes from offset 8 on.
 */
final class KeyRefs {
    static final int INLINE_BYTES = 8;
    /** The reference of the empty key; also used for the unused separator of an inner node's slot 0. */
    static final int EMPTY = ~0;
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private KeyRefs() {
    }

    /** The order-preserving prefix of {@code key[off, off + len)}. */
    static long prefix(byte[] key, int off, int len) {
        long p;
        if (len >= 8) {
            p = (long) LONG_BE.get(key, off);
        } else {
            p = 0;
            for (int i = 0; i < len; i++) {
                p |= (key[off + i] & 0xFFL) << (56 - 8 * i);
            }
        }
        return p ^ Long.MIN_VALUE;
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

    /** Writes the key's bytes into {@code out} (at least its length long) and returns the length. */
    static int materialize(long prefix, int ref, KeyArena arena, byte[] out) {
        int len = length(ref, arena);
        long p = prefix ^ Long.MIN_VALUE;
        if (ref < 0) {
            for (int i = 0; i < len; i++) {
                out[i] = (byte) (p >>> (56 - 8 * i));
            }
        } else {
            System.arraycopy(arena.block(ref >>> 1), arena.offset(ref >>> 1), out, 0, len);
        }
        return len;
    }

    /**
     * Compares the search key {@code (kp, key[off, off + len))} with a stored key {@code (prefix, ref)}.
     */
    static int compare(long kp, byte[] key, int off, int len, long prefix, int ref, KeyArena arena) {
        if (kp != prefix) {
            return kp < prefix ? -1 : 1;
        }
        return compareTail(key, off, len, ref, arena);
    }

    /** The comparison once the prefixes are known to be equal. */
    static int compareTail(byte[] key, int off, int len, int ref, KeyArena arena) {
        if (ref < 0) {
            return Integer.compare(len, ~ref);
        }
        int unit = ref >>> 1;
        int slen = arena.length(unit) - (ref & 1);
        if (len <= INLINE_BYTES) {
            return Integer.compare(len, slen);
        }
        int so = arena.offset(unit);
        return java.util.Arrays.compareUnsigned(key, off + INLINE_BYTES, off + len,
                arena.block(unit), so + INLINE_BYTES, so + slen);
    }
}
