package org.fdbresolver.harness.fuzz;

import com.google.protobuf.ByteString;

/**
 * Keys as a person reads them in a listing: quoted bytes, printable ASCII as it is, {@code \"} and {@code \\}
 * escaped, every other byte as {@code \xNN}, and a run of eight or more equal bytes as that byte quoted with a
 * count, {@code "a"*10240}; the parts of one key follow each other with a space: {@code "k" "\xff"*300 "\x00"}.
 */
final class KeyText {
    private static final int RUN = 8;

    private KeyText() {
    }

    static String of(ByteString key) {
        int n = key.size();
        if (n == 0) {
            return "\"\"";
        }
        StringBuilder out = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < n) {
            byte b = key.byteAt(i);
            int run = 1;
            while (i + run < n && key.byteAt(i + run) == b) {
                run++;
            }
            if (run >= RUN) {
                flush(out, literal);
                separate(out).append('"');
                escape(out, b);
                out.append("\"*").append(run);
                i += run;
            } else {
                escape(literal, b);
                i++;
            }
        }
        flush(out, literal);
        return out.toString();
    }

    /** {@code [begin, end)} with both keys as {@link #of} writes them. */
    static String range(ByteString begin, ByteString end) {
        return "[" + of(begin) + ", " + of(end) + ")";
    }

    private static void flush(StringBuilder out, StringBuilder literal) {
        if (!literal.isEmpty()) {
            separate(out).append('"').append(literal).append('"');
            literal.setLength(0);
        }
    }

    private static StringBuilder separate(StringBuilder out) {
        return out.isEmpty() ? out : out.append(' ');
    }

    private static void escape(StringBuilder sb, byte b) {
        int c = b & 0xFF;
        if (c == '"' || c == '\\') {
            sb.append('\\').append((char) c);
        } else if (c >= 0x20 && c < 0x7F) {
            sb.append((char) c);
        } else {
            sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
        }
    }
}
