package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import org.fdbresolver.trace.v1.KeyRange;

/**
 * Key encodings shared by the generators. Every key is written once into a fresh array that is then
 * wrapped without a copy ({@link UnsafeByteOperations#unsafeWrap}); the arrays are never touched again,
 * which is what makes the wrap safe.
 *
 * <p>Both integer encodings preserve order: integer {@code a < b} gives key {@code a < b} as unsigned
 * bytes, so a range of integers {@code [b, e)} is the key range {@code [enc(b), enc(e))}.
 */
final class KeyCodec {
    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private KeyCodec() {
    }

    /** {@code value} as {@code width} big-endian bytes (width 1..8; value must fit). */
    static ByteString bigEndian(long value, int width) {
        return UnsafeByteOperations.unsafeWrap(bigEndianBytes(value, width, 0));
    }

    /** The point-range end for {@link #bigEndian}: the same bytes followed by {@code 0x00}. */
    static ByteString bigEndianSuccessor(long value, int width) {
        return UnsafeByteOperations.unsafeWrap(bigEndianBytes(value, width, 1));
    }

    private static byte[] bigEndianBytes(long value, int width, int extra) {
        byte[] b = new byte[width + extra];
        for (int i = width - 1; i >= 0; i--) {
            b[i] = (byte) value;
            value >>>= 8;
        }
        return b;
    }

    /** {@code value} as {@code width} zero-padded ASCII decimal digits (value in [0, 10^width)). */
    static ByteString decimal(long value, int width) {
        return UnsafeByteOperations.unsafeWrap(decimalBytes(value, width, 0));
    }

    /** The point-range end for {@link #decimal}: the same digits followed by {@code 0x00}. */
    static ByteString decimalSuccessor(long value, int width) {
        return UnsafeByteOperations.unsafeWrap(decimalBytes(value, width, 1));
    }

    private static byte[] decimalBytes(long value, int width, int extra) {
        if (value < 0 || (width < POW10.length && value >= POW10[width])) {
            throw new IllegalArgumentException(value + " does not fit in " + width + " decimal digits");
        }
        byte[] b = new byte[width + extra];
        for (int i = width - 1; i >= 0; i--) {
            b[i] = (byte) ('0' + (int) (value % 10));
            value /= 10;
        }
        return b;
    }

    /** Largest value (exclusive) that {@code width} decimal digits hold, capped at Long.MAX_VALUE. */
    static long decimalLimit(int width) {
        return width < POW10.length ? POW10[width] : Long.MAX_VALUE;
    }

    /** {@code key + 0x00}: the end of the point range of {@code key}. */
    static ByteString successor(ByteString key) {
        byte[] b = new byte[key.size() + 1];
        key.copyTo(b, 0);
        return UnsafeByteOperations.unsafeWrap(b);
    }

    static ByteString wrap(byte[] owned) {
        return UnsafeByteOperations.unsafeWrap(owned);
    }

    static KeyRange range(ByteString begin, ByteString end) {
        return KeyRange.newBuilder().setBegin(begin).setEnd(end).build();
    }

    /** The point range {@code [key, key + 0x00)}. */
    static KeyRange point(ByteString key) {
        return range(key, successor(key));
    }
}
