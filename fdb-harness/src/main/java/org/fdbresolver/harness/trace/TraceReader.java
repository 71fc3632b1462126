package org.fdbresolver.harness.trace;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * Streams a trace file: the {@link #header()} is read and checked on open, then {@link #next()} returns one
 * {@link Batch} at a time and {@code null} at a clean end. Plain or gzip, detected by the magic bytes. Only
 * the current message is in memory.
 *
 * <pre>{@code
 * try (TraceReader trace = TraceReader.open(path)) {
 *     for (Batch b; (b = trace.next()) != null; ) { ... }
 *     byte[] offered = trace.offeredSha256();
 * }
 * }</pre>
 *
 * <p>{@link #nextInto(ConflictBatch)} is the fast path for running an engine: it decodes the wire bytes
 * straight into a reusable {@link ConflictBatch}, with the same result as {@code next()} followed by
 * {@link TraceBatches#load}.
 *
 * <p>Every framing or parse problem is a {@link TraceFormatException} naming the message: {@code trace header}
 * or {@code batch N} (batches counted from 0). Semantic validity (versions, inverted ranges) is not checked
 * here: {@link org.fdbresolver.api.ConflictSet} checks it before any engine sees a batch.
 */
public final class TraceReader implements AutoCloseable {
    private DelimitedInput input;
    private final TraceHeader header;
    private long batches;
    private boolean ended;
    private byte[] offeredSha256;
    private final BatchWireDecoder decoder = new BatchWireDecoder();
    private final TraceBatches converter = new TraceBatches();
    private long version;
    private long newOldestVersion;

    /** A capture folder's trace segments, read one after the other; null for one file. */
    private final List<Path> segments;
    private int segment;
    private TraceHeader segmentHeader;
    /** How errors name a batch: "batch", or "segment-000003.trace.gz: batch" in a capture folder. */
    private String batchLabel = "batch";
    /** The chain's offered hash, over every segment's stored bytes. */
    private final MessageDigest chainDigest;
    /** Stored bytes of the segments before the one being read. */
    private long storedBefore;

    private TraceReader(DelimitedInput input) throws IOException {
        this.input = input;
        this.header = readHeader(input, "");
        this.segments = null;
        this.chainDigest = null;
    }

    private TraceReader(List<Path> segments, MessageDigest digest) throws IOException {
        this.segments = segments;
        this.chainDigest = digest;
        Path first = segments.getFirst();
        this.input = DelimitedInput.open(first, "trace", digest);
        try {
            this.header = readHeader(input, first.getFileName() + ": ");
            CaptureChain.checkContinues(first, header, null);
        } catch (IOException | RuntimeException e) {
            input.close();
            throw e;
        }
        this.segmentHeader = header;
        this.batchLabel = first.getFileName() + ": batch";
    }

    /**
     * Opens a trace file, or a capture's folder (docs/capture.md), whose trace segments are then read in order as one
     * trace: {@link #header()} is the first segment's, and each later segment's header is checked to continue the
     * chain. Batches are counted across the whole chain; errors name the segment.
     */
    public static TraceReader open(Path path) throws IOException {
        if (Files.isDirectory(path) && CaptureChain.isCapture(path)) {
            return new TraceReader(CaptureChain.traceSegments(path), Hashes.sha256());
        }
        DelimitedInput in = DelimitedInput.open(path, "trace");
        return opened(in);
    }

    /** Reads a trace from a stream of its stored bytes (closing the reader closes the stream). */
    public static TraceReader open(InputStream stored) throws IOException {
        return opened(DelimitedInput.of(stored));
    }

    private static TraceReader opened(DelimitedInput in) throws IOException {
        try {
            return new TraceReader(in);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** @param where "" for a file; "NAME: " naming a capture's segment */
    private static TraceHeader readHeader(DelimitedInput in, String where) throws IOException {
        int len;
        try {
            len = in.next(where + "trace header", -1);
        } catch (TraceFormatException e) {
            throw e.getMessage().contains("gzip") ? e : new TraceFormatException(e.getMessage() + " (not a trace file?)", e);
        }
        if (len < 0) {
            throw new TraceFormatException(where + "empty file: not a trace (no trace header)");
        }
        TraceHeader header;
        try {
            header = TraceHeader.parser().parseFrom(in.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw new TraceFormatException(MalformedMessages.malformed(where + "trace header", "TraceHeader", in.message(),
                    len, e).getMessage() + " (not a trace file?)", e);
        }
        if (!TraceFormats.TRACE.equals(header.getFormat())) {
            String hint = TraceFormats.DECISIONS.equals(header.getFormat()) ? " (this is a decision file, not a trace)" : "";
            throw new TraceFormatException(where + "trace header: format is '" + header.getFormat() + "', expected '"
                    + TraceFormats.TRACE + "'" + hint);
        }
        return header;
    }

    /**
     * The next batch's frame: its length, or -1 at the end of the trace (of the last segment of a capture, the
     * next segments' headers read and checked on the way).
     */
    private int nextFrame() throws IOException {
        for (;;) {
            int len = input.next(batchLabel, batches);
            if (len >= 0 || segments == null || segment + 1 == segments.size()) {
                return len;
            }
            input.drain();
            storedBefore += input.storedBytesRead();
            input.close();
            Path next = segments.get(++segment);
            input = DelimitedInput.open(next, "trace", chainDigest);
            TraceHeader h = readHeader(input, next.getFileName() + ": ");
            CaptureChain.checkContinues(next, h, segmentHeader);
            segmentHeader = h;
            batchLabel = next.getFileName() + ": batch";
        }
    }

    /** The offered hash, once the last frame was read: of the file, or of the chain's segments one after the other. */
    private byte[] digestAtEnd() throws IOException {
        if (segments == null) {
            return input.drainAndDigest();
        }
        input.drain();
        return chainDigest.digest();
    }

    /** For a capture folder: the number of its first segment (above 0 when rotation deleted the oldest); else -1. */
    public int firstSegment() {
        return segments == null ? -1 : CaptureChain.number(segments.getFirst());
    }

    public TraceHeader header() {
        return header;
    }

    /** The next batch, or {@code null} when the trace ends cleanly. */
    public Batch next() throws IOException {
        if (ended) {
            return null;
        }
        int len = nextFrame();
        if (len < 0) {
            ended = true;
            offeredSha256 = digestAtEnd();
            return null;
        }
        Batch batch;
        try {
            batch = Batch.parser().parseFrom(input.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw MalformedMessages.malformed(input.where(), "Batch", input.message(), len, e);
        }
        batches++;
        return batch;
    }

    /**
     * Reads the next batch straight into {@code target} (cleared first), without making protobuf objects:
     * the fast path for running engines. Its version and oldest version are then {@link #version()} and
     * {@link #newOldestVersion()}.
     *
     * @return false when the trace ends cleanly
     */
    public boolean nextInto(ConflictBatch target) throws IOException {
        if (ended) {
            return false;
        }
        int len = nextFrame();
        if (len < 0) {
            ended = true;
            offeredSha256 = digestAtEnd();
            return false;
        }
        if (decoder.decode(input.message(), len, target)) {
            version = decoder.version();
            newOldestVersion = decoder.newOldestVersion();
        } else {
            // An encoding the fast path leaves to protobuf, or a malformed message: protobuf says which.
            Batch batch;
            try {
                batch = Batch.parser().parseFrom(input.message(), 0, len);
            } catch (InvalidProtocolBufferException e) {
                throw MalformedMessages.malformed(input.where(), "Batch", input.message(), len, e);
            }
            converter.load(batch, target);
            version = batch.getVersion();
            newOldestVersion = batch.getNewOldestVersion();
        }
        batches++;
        return true;
    }

    /** The version of the batch last read by {@link #nextInto}. */
    public long version() {
        return version;
    }

    /** The new oldest version of the batch last read by {@link #nextInto}. */
    public long newOldestVersion() {
        return newOldestVersion;
    }

    /** Batches returned so far. */
    public long batchesRead() {
        return batches;
    }

    /** Bytes of the file consumed so far as stored, for progress against the file size. */
    public long storedBytesRead() {
        return storedBefore + input.storedBytesRead();
    }

    public boolean isGzip() {
        return input.isGzip();
    }

    /**
     * The offered hash: SHA-256 of the file's bytes as stored (of a capture folder's trace segments' stored bytes
     * one after the other). Known once {@link #next()} has returned {@code null}.
     *
     * @throws IllegalStateException before the end of the trace
     */
    public byte[] offeredSha256() {
        if (offeredSha256 == null) {
            throw new IllegalStateException("the offered hash is known only after the whole trace was read");
        }
        return offeredSha256.clone();
    }

    @Override
    public void close() throws IOException {
        input.close();
    }
}
