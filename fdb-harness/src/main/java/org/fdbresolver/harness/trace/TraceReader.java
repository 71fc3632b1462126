package org.fdbresolver.harness.trace;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
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
    private final DelimitedInput input;
    private final TraceHeader header;
    private long batches;
    private boolean ended;
    private byte[] offeredSha256;
    private final BatchWireDecoder decoder = new BatchWireDecoder();
    private final TraceBatches converter = new TraceBatches();
    private long version;
    private long newOldestVersion;

    private TraceReader(DelimitedInput input) throws IOException {
        this.input = input;
        this.header = readHeader(input);
    }

    public static TraceReader open(Path path) throws IOException {
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

    private static TraceHeader readHeader(DelimitedInput in) throws IOException {
        int len;
        try {
            len = in.next("trace header", -1);
        } catch (TraceFormatException e) {
            throw e.getMessage().contains("gzip") ? e : new TraceFormatException(e.getMessage() + " (not a trace file?)", e);
        }
        if (len < 0) {
            throw new TraceFormatException("empty file: not a trace (no trace header)");
        }
        TraceHeader header;
        try {
            header = TraceHeader.parser().parseFrom(in.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw new TraceFormatException(MalformedMessages.malformed("trace header", "TraceHeader", in.message(), len, e)
                    .getMessage() + " (not a trace file?)", e);
        }
        if (!TraceFormats.TRACE.equals(header.getFormat())) {
            String hint = TraceFormats.DECISIONS.equals(header.getFormat()) ? " (this is a decision file, not a trace)" : "";
            throw new TraceFormatException("trace header: format is '" + header.getFormat() + "', expected '"
                    + TraceFormats.TRACE + "'" + hint);
        }
        return header;
    }

    public TraceHeader header() {
        return header;
    }

    /** The next batch, or {@code null} when the trace ends cleanly. */
    public Batch next() throws IOException {
        if (ended) {
            return null;
        }
        int len = input.next("batch", batches);
        if (len < 0) {
            ended = true;
            offeredSha256 = input.drainAndDigest();
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
        int len = input.next("batch", batches);
        if (len < 0) {
            ended = true;
            offeredSha256 = input.drainAndDigest();
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
        return input.storedBytesRead();
    }

    public boolean isGzip() {
        return input.isGzip();
    }

    /**
     * The offered hash: SHA-256 of the file's bytes as stored. Known once {@link #next()} has returned
     * {@code null}.
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
