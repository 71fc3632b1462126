package org.fdbresolver.harness.trace;

import com.google.protobuf.InvalidProtocolBufferException;

/**
 * Turns a protobuf parse failure into one short, specific reason by walking the message's top-level fields
 * (protobuf's own messages, such as "Protocol message contained an invalid tag (zero)", do not say where).
 */
final class MalformedMessages {
    private MalformedMessages() {
    }

    /** {@code where + ": malformed " + type + " message: " + reason}. */
    static TraceFormatException malformed(String where, String type, byte[] buf, int len,
                                          InvalidProtocolBufferException cause) {
        return new TraceFormatException(where + ": malformed " + type + " message: " + reason(buf, len, cause), cause);
    }

    static String reason(byte[] buf, int len, InvalidProtocolBufferException cause) {
        int pos = 0;
        while (pos < len) {
            long[] tag = varint(buf, pos, len);
            if (tag == null) {
                return "truncated tag at byte " + pos;
            }
            long field = tag[0] >>> 3;
            int wireType = (int) (tag[0] & 7);
            int at = pos;
            pos = (int) tag[1];
            if (field == 0) {
                return "field number 0";
            }
            switch (wireType) {
                case 0 -> {
                    long[] v = varint(buf, pos, len);
                    if (v == null) {
                        return "field " + field + ": truncated varint at byte " + pos;
                    }
                    pos = (int) v[1];
                }
                case 1 -> {
                    if (len - pos < 8) {
                        return "field " + field + ": truncated 8-byte value at byte " + pos;
                    }
                    pos += 8;
                }
                case 2 -> {
                    long[] v = varint(buf, pos, len);
                    if (v == null) {
                        return "field " + field + ": truncated length at byte " + pos;
                    }
                    pos = (int) v[1];
                    if (v[0] < 0 || v[0] > len - pos) {
                        return "field " + field + ": length " + v[0] + " at byte " + at + " runs past the end of the message";
                    }
                    pos += (int) v[0];
                }
                case 5 -> {
                    if (len - pos < 4) {
                        return "field " + field + ": truncated 4-byte value at byte " + pos;
                    }
                    pos += 4;
                }
                default -> {
                    return "field " + field + ": invalid wire type " + wireType + " at byte " + at;
                }
            }
        }
        // The top level is well framed: the problem is inside a nested message or a value.
        String m = cause.getMessage();
        return m == null ? "unparseable" : m;
    }

    /** {value, next position}, or null when the varint runs past {@code len} or over 10 bytes. */
    private static long[] varint(byte[] buf, int pos, int len) {
        long value = 0;
        for (int shift = 0, i = pos; i < len && shift < 70; shift += 7, i++) {
            int b = buf[i];
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return new long[] {value, i + 1};
            }
        }
        return null;
    }
}
