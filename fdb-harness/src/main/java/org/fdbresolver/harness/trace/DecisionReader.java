package org.fdbresolver.harness.trace;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
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
    private DelimitedInput input;
    private final DecisionHeader header;
    private long batches;
    /** A capture folder's decision segments, read one after the other; null for one file. */
    private final List<Path> segments;
    private int segment;
    private String batchLabel = "batch";
    private long storedBefore;

    private DecisionReader(DelimitedInput input) throws IOException {
        this.input = input;
        this.header = readHeader(input, "");
        this.segments = null;
    }

    private DecisionReader(Path folder, List<Path> segments) throws IOException {
        this.segments = segments;
        List<Path> traces = CaptureChain.traceSegments(folder);
        if (traces.size() != segments.size() || CaptureChain.number(traces.getFirst()) != CaptureChain.number(segments.getFirst())) {
            throw new TraceFormatException("capture " + folder + ": its decision segments (" + span(segments)
                    + ") are not its trace segments (" + span(traces) + ")");
        }
        // Each decision segment names its trace segment by hash (all zero: the last, never closed); the chain's
        // header names the chain's offered hash.
        MessageDigest chain = Hashes.sha256();
        byte[] buf = new byte[1 << 16];
        DecisionHeader first = null;
        for (int i = 0; i < segments.size(); i++) {
            MessageDigest one = Hashes.sha256();
            try (InputStream in = Files.newInputStream(traces.get(i))) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    chain.update(buf, 0, n);
                    one.update(buf, 0, n);
                }
            }
            DecisionHeader h;
            try (DelimitedInput in = DelimitedInput.open(segments.get(i), "decision file")) {
                h = readHeader(in, segments.get(i).getFileName() + ": ");
            }
            byte[] named = h.getTraceSha256().toByteArray();
            boolean unfinished = i == segments.size() - 1 && Arrays.equals(named, new byte[32]);
            if (!unfinished && !Arrays.equals(named, one.digest())) {
                throw new TraceFormatException(segments.get(i).getFileName() + ": decision header names trace "
                        + Hashes.hex(named) + ", not " + traces.get(i).getFileName() + " beside it");
            }
            first = first == null ? h : first;
        }
        this.header = first.toBuilder().setTraceSha256(ByteString.copyFrom(chain.digest())).build();
        Path at = segments.getFirst();
        this.input = DelimitedInput.open(at, "decision file");
        try {
            readHeader(input, at.getFileName() + ": ");
        } catch (IOException | RuntimeException e) {
            input.close();
            throw e;
        }
        this.batchLabel = at.getFileName() + ": batch";
    }

    /**
     * Opens a decision file, or a capture's folder (docs/capture.md), whose decision segments are then read in order
     * as one file: its {@link #header()} is the first segment's, naming the chain's offered hash
     * ({@link CaptureChain#offeredSha256}); each segment's own header must name its trace segment.
     */
    public static DecisionReader open(Path path) throws IOException {
        if (Files.isDirectory(path) && CaptureChain.isCapture(path)) {
            return new DecisionReader(path, CaptureChain.decisionSegments(path));
        }
        return opened(DelimitedInput.open(path, "decision file"));
    }

    private static String span(List<Path> segments) {
        return segments.getFirst().getFileName() + (segments.size() == 1 ? "" : " to " + segments.getLast().getFileName());
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

    private static DecisionHeader readHeader(DelimitedInput in, String where) throws IOException {
        int len;
        try {
            len = in.next(where + "decision header", -1);
        } catch (TraceFormatException e) {
            throw e.getMessage().contains("gzip") ? e : new TraceFormatException(e.getMessage() + " (not a decision file?)", e);
        }
        if (len < 0) {
            throw new TraceFormatException(where + "empty file: not a decision file (no decision header)");
        }
        DecisionHeader header;
        try {
            header = DecisionHeader.parser().parseFrom(in.message(), 0, len);
        } catch (InvalidProtocolBufferException e) {
            throw new TraceFormatException(MalformedMessages.malformed(where + "decision header", "DecisionHeader",
                    in.message(), len, e).getMessage() + " (not a decision file?)", e);
        }
        if (!TraceFormats.DECISIONS.equals(header.getFormat())) {
            String hint = TraceFormats.TRACE.equals(header.getFormat()) ? " (this is a trace, not a decision file)" : "";
            throw new TraceFormatException(where + "decision header: format is '" + header.getFormat() + "', expected '"
                    + TraceFormats.DECISIONS + "'" + hint);
        }
        return header;
    }

    public DecisionHeader header() {
        return header;
    }

    /** The next batch's decisions, or {@code null} when the file ends cleanly. */
    public BatchDecisions next() throws IOException {
        int len;
        while ((len = input.next(batchLabel, batches)) < 0) {
            if (segments == null || segment + 1 == segments.size()) {
                return null;
            }
            storedBefore += input.storedBytesRead();
            input.close();
            Path next = segments.get(++segment);
            input = DelimitedInput.open(next, "decision file");
            readHeader(input, next.getFileName() + ": ");
            batchLabel = next.getFileName() + ": batch";
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
        return storedBefore + input.storedBytesRead();
    }

    @Override
    public void close() throws IOException {
        input.close();
    }
}
