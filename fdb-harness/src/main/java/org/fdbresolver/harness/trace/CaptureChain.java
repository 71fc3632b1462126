package org.fdbresolver.harness.trace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * A capture's folder (docs/capture.md): the segments one resolver wrote, {@code segment-NNNNNN.trace.gz} and
 * {@code segment-NNNNNN.decisions.gz}, numbered from 0 in the order written. Every tool reads such a folder as one
 * trace (its trace segments in order) and one decision file (its decision segments); a segment alone is an
 * ordinary trace or decision file.
 *
 * <p>The chain's offered hash is SHA-256 of its trace segments' stored bytes one after the other (what
 * {@code cat DIR/segment-*.trace.gz | sha256sum} prints), so a decision file written from a folder names it the
 * way a file's names its trace.
 */
public final class CaptureChain {
    /** The workload of a capture's trace header. */
    public static final String WORKLOAD = "capture";
    /** Header params a capture's segments carry (see docs/capture.md for all). */
    public static final String CHAIN = "capture_chain";
    public static final String SEGMENT = "segment";
    public static final String PREVIOUS_SEGMENT = "previous_segment";

    private static final Pattern TRACE = Pattern.compile("segment-(\\d{6,9})\\.trace\\.gz");
    private static final Pattern DECISIONS = Pattern.compile("segment-(\\d{6,9})\\.decisions\\.gz");

    private CaptureChain() {
    }

    /** Whether {@code path} is a folder holding capture segments. */
    public static boolean isCapture(Path path) throws IOException {
        return Files.isDirectory(path) && !segments(path, TRACE).isEmpty();
    }

    /** The folder's trace segments in order, checked to be numbered without a gap. */
    public static List<Path> traceSegments(Path folder) throws IOException {
        return checked(folder, segments(folder, TRACE), "trace");
    }

    /** The folder's decision segments in order, checked to be numbered without a gap. */
    public static List<Path> decisionSegments(Path folder) throws IOException {
        return checked(folder, segments(folder, DECISIONS), "decision");
    }

    /** The segment number in a segment file's name. */
    public static int number(Path segment) {
        Matcher m = TRACE.matcher(segment.getFileName().toString());
        if (!m.matches()) {
            m = DECISIONS.matcher(segment.getFileName().toString());
            if (!m.matches()) {
                throw new IllegalArgumentException(segment + " is not a capture segment");
            }
        }
        return Integer.parseInt(m.group(1));
    }

    /** The trace segment's file name for segment {@code n}. */
    public static String traceName(int n) {
        return String.format("segment-%06d.trace.gz", n);
    }

    /**
     * The offered hash of a trace: of a file's stored bytes, or of a capture folder's trace segments' stored bytes
     * one after the other.
     */
    public static byte[] offeredSha256(Path trace) throws IOException {
        if (!isCapture(trace)) {
            return Hashes.sha256(trace);
        }
        MessageDigest digest = Hashes.sha256();
        byte[] buf = new byte[1 << 16];
        for (Path segment : traceSegments(trace)) {
            try (InputStream in = Files.newInputStream(segment)) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    digest.update(buf, 0, n);
                }
            }
        }
        return digest.digest();
    }

    /** The bytes a trace takes as stored: a file's size, or a capture folder's trace segments' in all. */
    public static long storedBytes(Path trace) throws IOException {
        if (!isCapture(trace)) {
            return Files.size(trace);
        }
        long bytes = 0;
        for (Path segment : traceSegments(trace)) {
            bytes += Files.size(segment);
        }
        return bytes;
    }

    /**
     * Checks that {@code header}, read from {@code segment}, continues the chain whose previous segment's header was
     * {@code previous} (null for the first segment read): a capture of the same chain, numbered as its file, naming
     * the previous segment.
     */
    static void checkContinues(Path segment, TraceHeader header, TraceHeader previous) throws TraceFormatException {
        String name = segment.getFileName().toString();
        if (!WORKLOAD.equals(header.getWorkload())) {
            throw new TraceFormatException(name + ": trace header: workload is '" + header.getWorkload()
                    + "', not a capture's ('" + WORKLOAD + "')");
        }
        String number = Integer.toString(number(segment));
        if (!number.equals(header.getParamsOrDefault(SEGMENT, ""))) {
            throw new TraceFormatException(name + ": trace header: segment is '" + header.getParamsOrDefault(SEGMENT, "")
                    + "', not " + number + " as the file is named");
        }
        if (previous == null) {
            return;
        }
        String chain = previous.getParamsOrDefault(CHAIN, "");
        if (!chain.equals(header.getParamsOrDefault(CHAIN, ""))) {
            throw new TraceFormatException(name + ": trace header: capture_chain is '" + header.getParamsOrDefault(CHAIN, "")
                    + "', not the folder's first segment's '" + chain + "'");
        }
        String expected = traceName(Integer.parseInt(previous.getParamsOrDefault(SEGMENT, "0")));
        if (!expected.equals(header.getParamsOrDefault(PREVIOUS_SEGMENT, ""))) {
            throw new TraceFormatException(name + ": trace header: previous_segment is '"
                    + header.getParamsOrDefault(PREVIOUS_SEGMENT, "") + "', not " + expected);
        }
    }

    private static List<Path> segments(Path folder, Pattern pattern) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path p : entries) {
                if (pattern.matcher(p.getFileName().toString()).matches()) {
                    found.add(p);
                }
            }
        } catch (NoSuchFileException e) {
            throw new TraceFormatException("capture " + folder + " does not exist");
        }
        found.sort(Comparator.comparingInt(CaptureChain::number));
        return found;
    }

    private static List<Path> checked(Path folder, List<Path> segments, String kind) throws TraceFormatException {
        if (segments.isEmpty()) {
            throw new TraceFormatException("capture " + folder + " holds no " + kind + " segments (segment-NNNNNN."
                    + (kind.equals("trace") ? "trace" : "decisions") + ".gz)");
        }
        for (int i = 1; i < segments.size(); i++) {
            int before = number(segments.get(i - 1));
            int at = number(segments.get(i));
            if (at != before + 1) {
                throw new TraceFormatException("capture " + folder + ": " + kind + " segments " + (before + 1)
                        + (at - 1 > before + 1 ? " to " + (at - 1) : "") + " are missing (between "
                        + segments.get(i - 1).getFileName() + " and " + segments.get(i).getFileName() + ")");
            }
        }
        return segments;
    }
}
