package org.fdbresolver.harness.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * Writes a trace file: the header on creation, then one {@link #write(Batch)} per batch, then
 * {@link #commit()}. A file (or a symbolic link's target) is written as {@code FILE.tmp} and renamed into
 * place on commit; closing without a commit deletes it. A device or FIFO is written through
 * ({@link AtomicOutput}). Gzip when the file name ends in {@code .gz}.
 */
public final class TraceWriter implements AutoCloseable {
    private final AtomicOutput output;
    private final OutputStream out;
    private long batches;

    private TraceWriter(AtomicOutput output, TraceHeader header) throws IOException {
        this.output = output;
        this.out = output.stream();
        header.writeDelimitedTo(out);
    }

    /**
     * Starts a trace at {@code path}. An empty header format is filled in; any other format than
     * {@value TraceFormats#TRACE} is refused.
     */
    public static TraceWriter create(Path path, TraceHeader header) throws IOException {
        TraceHeader h = checkedHeader(header);
        AtomicOutput output = new AtomicOutput(path);
        try {
            return new TraceWriter(output, h);
        } catch (IOException | RuntimeException e) {
            output.close();
            throw e;
        }
    }

    static TraceHeader checkedHeader(TraceHeader header) {
        if (header.getFormat().isEmpty()) {
            return header.toBuilder().setFormat(TraceFormats.TRACE).build();
        }
        if (!TraceFormats.TRACE.equals(header.getFormat())) {
            throw new IllegalArgumentException("trace header format must be '" + TraceFormats.TRACE + "', not '"
                    + header.getFormat() + "'");
        }
        return header;
    }

    public void write(Batch batch) throws IOException {
        batch.writeDelimitedTo(out);
        batches++;
    }

    public long batchesWritten() {
        return batches;
    }

    /** Finishes the file and moves it into place. */
    public void commit() throws IOException {
        output.commit();
    }

    /** The offered hash: SHA-256 of the bytes written, as stored; known after {@link #commit()}. */
    public byte[] offeredSha256() {
        return output.storedSha256();
    }

    /** Deletes the file unless it was committed. */
    @Override
    public void close() throws IOException {
        output.close();
    }
}
