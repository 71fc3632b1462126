package org.fdbresolver.harness.trace;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;
import org.fdbresolver.trace.v1.DecisionHeader;

/**
 * Streams a decision file: the {@link #header()} is read and checked on open, then {@link #next()} returns
 * one {@link BatchDecisions} per batch and {@code null} at a clean end. Plain or gzip. Each batch is checked
 * as it is read: every decision byte is a decision code, and conflicting-reads entries name transactions of
 * the batch in ascending order.
 */
public final class DecisionReader implements AutoCloseable {
    private final DelimitedInput input;
    private final DecisionHeader header;
    private long batches;

    private DecisionReader(DelimitedInput input) throws IOException {
        this.input = input;
        this.header = readHeader(input);
    }

    public static DecisionReader open(Path path) throws IOException {
        return opened(DelimitedInput.open(path, "decision file"));
    }

    public static DecisionReader open(InputStream stored) throws IOException {
        return opened(DelimitedInput.of(stored));
    }

    private static DecisionReader opened(DelimitedInput in) throws IOException {
        try {
            return new DecisionReader(in);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    private static DecisionHeader readHeader(DelimitedInput in) throws IOException {
        int len;
        try {
            len = in.next("decision header", -1);
        } catch (TraceFormatException e) {
            throw e.getMessage().contains("gzip") ? e : new TraceFormatException(e.getMessage() + " (not a decision file?)", e);
        }
        if (len < 0) {
            throw new TraceFormatException("empty file: not a decision file (no decision header)");
        }
        DecisionHeader header;
        try {
            header = DecisionHeader.parser().parseFrom(in.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw new TraceFormatException(MalformedMessages.malformed("decision header", "DecisionHeader", in.message(),
                    len, e).getMessage() + " (not a decision file?)", e);
        }
        if (!TraceFormats.DECISIONS.equals(header.getFormat())) {
            String hint = TraceFormats.TRACE.equals(header.getFormat()) ? " (this is a trace, not a decision file)" : "";
            throw new TraceFormatException("decision header: format is '" + header.getFormat() + "', expected '"
                    + TraceFormats.DECISIONS + "'" + hint);
        }
        return header;
    }

    public DecisionHeader header() {
        return header;
    }

    /** The next batch's decisions, or {@code null} when the file ends cleanly. */
    public BatchDecisions next() throws IOException {
        int len = input.next("batch", batches);
        if (len < 0) {
            return null;
        }
        BatchDecisions d;
        try {
            d = BatchDecisions.parser().parseFrom(input.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw MalformedMessages.malformed(input.where(), "BatchDecisions", input.message(), len, e);
        }
        check(d);
        batches++;
        return d;
    }

    private void check(BatchDecisions d) throws TraceFormatException {
        int n = d.getDecisions().size();
        for (int t = 0; t < n; t++) {
            int code = d.getDecisions().byteAt(t) & 0xFF;
            if (code > 2) {
                throw new TraceFormatException(input.where() + ": transaction " + t + " has decision byte " + code
                        + ", not 0 (COMMIT), 1 (CONFLICT) or 2 (TOO_OLD)");
            }
        }
        long previous = -1;
        for (int i = 0; i < d.getConflictingReadsCount(); i++) {
            ConflictingReads c = d.getConflictingReads(i);
            long t = Integer.toUnsignedLong(c.getTransaction());
            if (t >= n) {
                throw new TraceFormatException(input.where() + ": conflicting reads name transaction " + t + " of a batch of " + n);
            }
            if (t <= previous) {
                throw new TraceFormatException(input.where() + ": conflicting reads of transaction " + t
                        + " are out of order (after transaction " + previous + ")");
            }
            previous = t;
        }
    }

    public long batchesRead() {
        return batches;
    }

    public long storedBytesRead() {
        return input.storedBytesRead();
    }

    @Override
    public void close() throws IOException {
        input.close();
    }
}
