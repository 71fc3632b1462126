package org.fdbresolver.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The one key order used everywhere: unsigned bytes, lexicographic, a prefix before its extensions.
 * Also formats keys for error messages.
 */
public final class Keys {
    /** Longest key prefix printed in an error message. */
    private static final int MAX_PRINTED = 64;
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Keys() {
    }

    /**
     * The sign says the order ({@code < 0}: {@code a} first); its size means nothing. Keys of up to
     * {@value #WORD_COMPARE_BYTES} bytes in common go by 8-byte words ({@link Arrays#compareUnsigned} sets up a
     * vectorized mismatch first, most of the time of a small batch's checks), longer ones by
     * {@code Arrays.compareUnsigned}.
     */
    public static int compare(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        int n = Math.min(aLen, bLen);
        if (n > WORD_COMPARE_BYTES) {
            return Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
        }
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long x = (long) LONG_BE.get(a, aOff + i);
            long y = (long) LONG_BE.get(b, bOff + i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        if (i < n) {
            long x = orderedPrefix(a, aOff + i, n - i);
            long y = orderedPrefix(b, bOff + i, n - i);
            if (x != y) {
                return x < y ? -1 : 1;
            }
        }
        return Integer.compare(aLen, bLen);
    }

    /** Keys compared by words, not by {@link Arrays#compareUnsigned}, up to this many bytes in common. */
    static final int WORD_COMPARE_BYTES = 32;

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /**
     * The first 8 bytes of {@code key[off, off + len)}, big-endian, zero-padded, sign bit flipped: a
     * signed {@code long} compare of two prefixes is the unsigned byte order of the keys' first 8 bytes
     * (equal prefixes leave the rest, and the lengths, to decide).
     */
    public static long orderedPrefix(byte[] key, int off, int len) {
        long p;
        if (len >= 8) {
            p = (long) LONG_BE.get(key, off);
        } else if (len <= 0) {
            p = 0;
        } else if (off + 8 <= key.length) {
            // One load of the 8 bytes at off, the ones past the key masked off (a loop over 1..7 bytes
            // costs a branch per byte).
            p = (long) LONG_BE.get(key, off) & (-1L << ((8 - len) << 3));
        } else {
            p = 0;
            for (int i = 0; i < len; i++) {
                p |= (key[off + i] & 0xFFL) << (56 - 8 * i);
            }
        }
        return p ^ Long.MIN_VALUE;
    }

    /** A quoted, escaped rendering: printable ASCII as is, other bytes as \xNN; long keys are cut. */
    public static String format(byte[] key, int off, int len) {
        StringBuilder sb = new StringBuilder(Math.min(len, MAX_PRINTED) + 8).append('"');
        int shown = Math.min(len, MAX_PRINTED);
        for (int i = 0; i < shown; i++) {
            int b = key[off + i] & 0xFF;
            if (b >= 0x20 && b < 0x7F && b != '"' && b != '\\') {
                sb.append((char) b);
            } else {
                sb.append(String.format("\\x%02x", b));
            }
        }
        sb.append('"');
        if (shown < len) {
            sb.append("... (").append(len).append(" bytes)");
        }
        return sb.toString();
    }

    public static String format(byte[] key) {
        return format(key, 0, key.length);
    }
}
