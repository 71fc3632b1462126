package org.fdbresolver.harness.trace;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * The framing shared by trace and decision files: a stream of messages, each a base-128 varint byte length
 * followed by exactly that many bytes, optionally inside gzip (detected by the magic {@code 1f 8b}).
 *
 * <p>Frames are read here rather than with protobuf's {@code parseDelimitedFrom} so that a file ending
 * inside a length or a message is reported precisely ("wanted 176 bytes, got 88") instead of as a generic
 * parse error. The stored bytes are hashed as they are read (the offered hash costs no second pass), and
 * counted for progress display. One message buffer is reused for the whole file.
 */
final class DelimitedInput implements AutoCloseable {
    /** Protobuf's own limit for one message. */
    static final int MAX_MESSAGE_BYTES = Integer.MAX_VALUE - 8;
    /** The buffer grows by at most this much ahead of the bytes actually read, so a bogus length cannot exhaust memory. */
    private static final int GROWTH_CHUNK = 64 << 20;
    private static final int IO_BUFFER = 1 << 16;
    private static final int LOOKAHEAD = 16;

    private final StoredBytes stored;
    private final InputStream in;
    private final boolean gzip;

    /**
     * A small look-ahead for length varints. Message bodies are read straight into the message buffer, asking
     * the (buffered or gzip) stream for exactly the bytes the message needs: so a damaged gzip stream fails
     * while reading the message that the damage is in, not up to 64 KiB of output earlier.
     */
    private final byte[] lookahead = new byte[LOOKAHEAD];
    private int ioPos;
    private int ioLimit;

    private byte[] message = new byte[1 << 12];

    private String whereLabel = "";
    private long whereIndex = -1;

    private DelimitedInput(StoredBytes stored, InputStream in, boolean gzip) {
        this.stored = stored;
        this.in = in;
        this.gzip = gzip;
    }

    /** Opens a file; {@code what} ("trace", "decision file") is used in the error for a missing file. */
    static DelimitedInput open(Path path, String what) throws IOException {
        return open(path, what, Hashes.sha256());
    }

    /**
     * Opens a file whose stored bytes are hashed into {@code digest}, which may already hold earlier files'
     * (a capture's segments, hashed as one stream).
     */
    static DelimitedInput open(Path path, String what, MessageDigest digest) throws IOException {
        InputStream file;
        try {
            file = Files.newInputStream(path);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(what + " " + path + " does not exist");
        }
        if (Files.isDirectory(path)) {
            file.close();
            throw new TraceFormatException(what + " " + path + " is a directory");
        }
        try {
            return of(file, digest);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** Reads from a stream of stored bytes (possibly gzip); closing this closes the stream. */
    static DelimitedInput of(InputStream storedStream) throws IOException {
        return of(storedStream, Hashes.sha256());
    }

    private static DelimitedInput of(InputStream storedStream, MessageDigest digest) throws IOException {
        StoredBytes stored = new StoredBytes(storedStream, digest);
        byte[] magic = new byte[2];
        int n = stored.readNBytes(magic, 0, 2);
        boolean gzip = n == 2 && (magic[0] & 0xFF) == 0x1f && (magic[1] & 0xFF) == 0x8b;
        stored.unread(magic, n);
        InputStream in = new BufferedInputStream(stored, IO_BUFFER);
        if (gzip) {
            try {
                in = new GZIPInputStream(stored, IO_BUFFER);
            } catch (EOFException e) {
                throw new TraceFormatException("truncated gzip header");
            } catch (ZipException e) {
                throw new TraceFormatException("corrupt gzip header: " + e.getMessage());
            }
        }
        return new DelimitedInput(stored, in, gzip);
    }

    boolean isGzip() {
        return gzip;
    }

    /** Bytes of the file consumed so far, as stored (compressed when gzip). */
    long storedBytesRead() {
        return stored.count;
    }

    /** The buffer holding the last message read; valid until the next read. */
    byte[] message() {
        return message;
    }

    /**
     * Reads the next frame into {@link #message()} and returns its length, or -1 when the stream ends
     * cleanly between frames.
     *
     * @param label names the message in errors, with {@code index} when that is not negative:
     *              {@code ("batch", 3)} is "batch 3", {@code ("trace header", -1)} is "trace header"
     */
    int next(String label, long index) throws IOException {
        whereLabel = label;
        whereIndex = index;
        int first = readByte();
        if (first < 0) {
            return -1;
        }
        long length = first & 0x7F;
        int shift = 7;
        int b = first;
        int lengthBytes = 1;
        while ((b & 0x80) != 0) {
            b = readByte();
            if (b < 0) {
                throw new TraceFormatException(where() + ": truncated length varint (the file ends after "
                        + lengthBytes + " of its bytes)");
            }
            lengthBytes++;
            if (shift > 63 - 7 || lengthBytes > 10) {
                throw new TraceFormatException(where() + ": malformed length varint (over 10 bytes)");
            }
            length |= (long) (b & 0x7F) << shift;
            shift += 7;
        }
        if (length > MAX_MESSAGE_BYTES || length < 0) {
            throw new TraceFormatException(where() + ": message length " + Long.toUnsignedString(length)
                    + " exceeds the 2 GiB protobuf limit");
        }
        int len = (int) length;
        int got = readExactly(len);
        if (got < len) {
            throw new TraceFormatException(where() + ": truncated message: wanted " + len + " bytes, got " + got);
        }
        return len;
    }

    /**
     * The SHA-256 of the stored bytes, reading whatever the framing left unread (a gzip trailer, trailing
     * bytes) so that the hash covers the whole file.
     */
    byte[] drainAndDigest() throws IOException {
        drain();
        return stored.digest.digest();
    }

    /** Reads whatever the framing left unread, so that the digest has seen the whole file. */
    void drain() throws IOException {
        byte[] skip = new byte[IO_BUFFER];
        while (stored.read(skip, 0, skip.length) > 0) {
            // hashed by StoredBytes as it passes
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** The message being read, for an error (built only then: reading allocates nothing). */
    String where() {
        return whereIndex < 0 ? whereLabel : whereLabel + " " + whereIndex;
    }

    private int readByte() throws IOException {
        if (ioPos == ioLimit && !fill()) {
            return -1;
        }
        return lookahead[ioPos++] & 0xFF;
    }

    /** Reads up to len bytes into the message buffer, growing it as the bytes arrive; returns how many arrived. */
    private int readExactly(int len) throws IOException {
        ensureCapacity(Math.min(len, GROWTH_CHUNK));
        int got = Math.min(len, ioLimit - ioPos);
        System.arraycopy(lookahead, ioPos, message, 0, got);
        ioPos += got;
        while (got < len) {
            if (got == message.length) {
                ensureCapacity((int) Math.min(len, (long) got + GROWTH_CHUNK));
            }
            int n = read(message, got, Math.min(len, message.length) - got);
            if (n <= 0) {
                break;
            }
            got += n;
        }
        return got;
    }

    private void ensureCapacity(int needed) {
        if (message.length < needed) {
            long doubled = Math.min(2L * message.length, MAX_MESSAGE_BYTES);
            message = Arrays.copyOf(message, (int) Math.max(needed, doubled));
        }
    }

    private boolean fill() throws IOException {
        int n = read(lookahead, 0, lookahead.length);
        if (n <= 0) {
            return false;
        }
        ioPos = 0;
        ioLimit = n;
        return true;
    }

    private int read(byte[] into, int off, int len) throws IOException {
        try {
            return in.read(into, off, len);
        } catch (EOFException e) {
            throw new TraceFormatException(where() + ": truncated gzip data (the compressed file is cut short)", e);
        } catch (ZipException e) {
            throw new TraceFormatException(where() + ": corrupt gzip data: " + e.getMessage(), e);
        }
    }

    /** The file's stored bytes: hashed and counted as they pass, with a two-byte push-back for the magic. */
    private static final class StoredBytes extends FilterInputStream {
        final MessageDigest digest;
        long count;
        private byte[] pushedBack = new byte[0];
        private int pushedPos;

        StoredBytes(InputStream in, MessageDigest digest) {
            super(in);
            this.digest = digest;
        }

        void unread(byte[] bytes, int n) {
            pushedBack = Arrays.copyOf(bytes, n);
            pushedPos = 0;
            count -= n;
            // they were hashed when first read and must not be hashed again
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pushedPos < pushedBack.length) {
                int n = Math.min(len, pushedBack.length - pushedPos);
                System.arraycopy(pushedBack, pushedPos, b, off, n);
                pushedPos += n;
                count += n;
                return n;
            }
            int n = in.read(b, off, len);
            if (n > 0) {
                digest.update(b, off, n);
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] buf = new byte[(int) Math.min(n, 8192)];
            int r = read(buf, 0, buf.length);
            return Math.max(r, 0);
        }

        @Override
        public int available() throws IOException {
            return (pushedBack.length - pushedPos) + in.available();
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
