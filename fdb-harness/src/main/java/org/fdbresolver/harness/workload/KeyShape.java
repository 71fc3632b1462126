package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;

/**
 * How an integer key becomes bytes when the key length is an option ({@code longtrace --key-length K
 * --key-prefix P}): {@code P} bytes of {@code '.'} that every key shares, then the integer big-endian in
 * {@code min(8, K - P)} bytes, then {@code '.'} up to {@code K} bytes. Integer order is key order, so a range
 * of integers {@code [b, e)} is the key range {@code [key(b), key(e))}; the end of a point write is the key and
 * a {@code 0x00}, {@code K + 1} bytes. The default, {@code K = 8, P = 0}, is the plain 8-byte big-endian key.
 */
final class KeyShape {
    static final String KEY_LENGTH = "key-length";
    static final String KEY_PREFIX = "key-prefix";
    /** The filler of the prefix and the tail, as skiplist-layouts has it. */
    private static final byte FILL = '.';
    /** FoundationDB's largest key is 10,000 bytes (its system keys 10 more). */
    static final int MAX_KEY_LENGTH = 10_000;

    private final int length;
    private final int prefix;
    private final int width;

    KeyShape(int length, int prefix) {
        if (length < 1 || prefix < 0 || prefix >= length) {
            throw new IllegalArgumentException("key length " + length + " and prefix " + prefix + ": wanted 0 <= prefix < length");
        }
        this.length = length;
        this.prefix = prefix;
        this.width = Math.min(8, length - prefix);
    }

    /**
     * Reads {@code key-length} and {@code key-prefix}, checking that every integer below {@code keyspace + span}
     * (the largest range end drawn) has its own key.
     */
    static KeyShape read(OptionReader o, long keyspace, long span) {
        int length = o.intValue(KEY_LENGTH, 1, MAX_KEY_LENGTH);
        int prefix = o.intValue(KEY_PREFIX, 0, MAX_KEY_LENGTH - 1);
        if (prefix >= length) {
            throw o.invalid(KEY_PREFIX, "the prefix must be shorter than --key-length " + length + ", got " + prefix);
        }
        String tooSmall = keyspaceProblem(length, prefix, keyspace, span);
        if (tooSmall != null) {
            throw o.invalid("keyspace", tooSmall);
        }
        return new KeyShape(length, prefix);
    }

    /**
     * Why {@code keyspace} integers (and ranges up to {@code span} past them) cannot each have their own key of
     * this length and prefix, or null when they can.
     */
    static String keyspaceProblem(int length, int prefix, long keyspace, long span) {
        int width = Math.min(8, length - prefix);
        if (width < 8 && keyspace + span > 1L << (8 * width)) {
            return keyspace + " keys (and ranges up to " + span + " past them) do not fit in the " + width
                    + " bytes that a key of " + length + " bytes leaves after a prefix of " + prefix;
        }
        return null;
    }

    /** For the trace header: {@code big-endian-8}, or e.g. {@code prefix-4+big-endian-8+fill-20}. */
    String encoding() {
        String core = "big-endian-" + width;
        int fill = length - prefix - width;
        return (prefix > 0 ? "prefix-" + prefix + "+" : "") + core + (fill > 0 ? "+fill-" + fill : "");
    }

    ByteString key(long value) {
        return KeyCodec.wrap(bytes(value, 0));
    }

    /** The end of the point write on {@code value}'s key: the key and a {@code 0x00}. */
    ByteString successor(long value) {
        return KeyCodec.wrap(bytes(value, 1));
    }

    private byte[] bytes(long value, int extra) {
        byte[] b = new byte[length + extra];
        java.util.Arrays.fill(b, 0, prefix, FILL);
        for (int i = prefix + width - 1; i >= prefix; i--) {
            b[i] = (byte) value;
            value >>>= 8;
        }
        java.util.Arrays.fill(b, prefix + width, length, FILL);
        return b;
    }
}
