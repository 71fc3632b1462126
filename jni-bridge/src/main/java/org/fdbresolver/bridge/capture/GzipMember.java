package org.fdbresolver.bridge.capture;

import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Compresses into one gzip member (RFC 1952: a 10-byte header, deflate data, CRC-32 and length) held in memory
 * until {@link #finish}: the capture writes a segment as a sequence of whole members, so the file on disk is a
 * valid gzip stream at every moment — every reader of the project, {@code zcat} and zlib read concatenated members
 * as one stream — and a resolver's process that dies mid-segment leaves a trace that ends at a batch. One
 * {@link Deflater} and one buffer serve every member (reset, not remade).
 */
final class GzipMember {
    /** The header {@code java.util.zip.GZIPOutputStream} writes: deflate, no flags, no time, unknown OS. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 0};
    private static final int TRAILER_BYTES = 8;

    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[1 << 16];
    private int length;
    private long input;
    private boolean open;

    GzipMember(int level) {
        this.deflater = new Deflater(level, true);
    }

    /** Bytes fed into the member being built. */
    long inputBytes() {
        return input;
    }

    /** Whether a member is being built (something was written since the last finish). */
    boolean isOpen() {
        return open;
    }

    /** Compressed bytes of the member so far (a lower bound until {@link #finish}: the deflater holds some back). */
    int pendingBytes() {
        return length;
    }

    void write(byte[] bytes, int offset, int count) {
        begin();
        crc.update(bytes, offset, count);
        input += count;
        deflater.setInput(bytes, offset, count);
        while (!deflater.needsInput()) {
            deflateInto(Deflater.NO_FLUSH);
        }
    }

    /** Ends the member; its bytes are {@link #bytes()}{@code [0, }{@link #length()}{@code )} until the next write. */
    void finish() {
        begin();
        deflater.finish();
        while (!deflater.finished()) {
            deflateInto(Deflater.NO_FLUSH);
        }
        ensure(TRAILER_BYTES);
        putIntLe(out, length, (int) crc.getValue());
        putIntLe(out, length + 4, (int) input); // ISIZE: the input's length modulo 2^32
        length += TRAILER_BYTES;
        deflater.reset();
        crc.reset();
        input = 0;
        open = false;
    }

    /** Drops the member being built. */
    void reset() {
        deflater.reset();
        crc.reset();
        input = 0;
        length = 0;
        open = false;
    }

    private void begin() {
        if (!open) {
            System.arraycopy(HEADER, 0, out, 0, HEADER.length);
            length = HEADER.length;
            open = true;
        }
    }

    byte[] bytes() {
        return out;
    }

    int length() {
        return length;
    }

    void end() {
        deflater.end();
    }

    private void deflateInto(int flush) {
        ensure(1 << 12);
        length += deflater.deflate(out, length, out.length - length, flush);
    }

    private void ensure(int room) {
        if (out.length - length < room) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, length + room));
        }
    }

    /**
     * A whole member holding {@code content} uncompressed (one stored deflate block, so at most 65,535 bytes): its
     * length depends on the content's length alone, so a file can start with it and have it rewritten in place
     * later with other content of the same length (the decision header, once the trace's hash is known).
     */
    static byte[] stored(byte[] content) {
        int n = content.length;
        if (n > 0xFFFF) {
            throw new IllegalArgumentException("a stored member holds at most 65535 bytes, not " + n);
        }
        byte[] member = new byte[HEADER.length + 5 + n + TRAILER_BYTES];
        System.arraycopy(HEADER, 0, member, 0, HEADER.length);
        int at = HEADER.length;
        member[at] = 1; // BFINAL, BTYPE 00 (stored)
        member[at + 1] = (byte) n;
        member[at + 2] = (byte) (n >>> 8);
        member[at + 3] = (byte) ~n;
        member[at + 4] = (byte) (~n >>> 8);
        System.arraycopy(content, 0, member, at + 5, n);
        CRC32 crc = new CRC32();
        crc.update(content);
        putIntLe(member, at + 5 + n, (int) crc.getValue());
        putIntLe(member, at + 9 + n, n);
        return member;
    }

    private static void putIntLe(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}
