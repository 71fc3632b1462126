package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.fdbresolver.harness.trace.CaptureChain;

/** The raw messages of trace and decision files, each with its length prefix, for byte-for-byte comparisons. */
public final class Frames {
    private Frames() {
    }

    /** Every message of a file (plain or gzip, any number of gzip members), header first, each with its length in front. */
    public static List<byte[]> of(Path file) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file))) {
            raw.mark(2);
            boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            CodedInputStream in = CodedInputStream.newInstance(gzip ? new GZIPInputStream(raw) : raw);
            in.setSizeLimit(Integer.MAX_VALUE);
            while (!in.isAtEnd()) {
                int length = in.readRawVarint32();
                byte[] body = in.readRawBytes(length);
                frames.add(framed(body));
                in.resetSizeCounter();
            }
        }
        return frames;
    }

    /** The batch messages of a trace file, or of a capture folder's trace segments in order (headers left out). */
    public static List<byte[]> batches(Path trace) throws IOException {
        return withoutHeaders(Files.isDirectory(trace) ? CaptureChain.traceSegments(trace) : List.of(trace));
    }

    /** The batch messages of a decision file, or of a capture folder's decision segments in order. */
    public static List<byte[]> decisions(Path decisions) throws IOException {
        return withoutHeaders(Files.isDirectory(decisions) ? CaptureChain.decisionSegments(decisions) : List.of(decisions));
    }

    private static List<byte[]> withoutHeaders(List<Path> files) throws IOException {
        List<byte[]> all = new ArrayList<>();
        for (Path f : files) {
            List<byte[]> frames = of(f);
            all.addAll(frames.subList(Math.min(1, frames.size()), frames.size()));
        }
        return all;
    }

    static byte[] framed(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 5);
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        coded.writeUInt32NoTag(body.length);
        coded.writeRawBytes(body);
        coded.flush();
        return out.toByteArray();
    }

    /** The one chain folder a capture made inside {@code folder}. */
    public static Path chain(Path folder) throws IOException {
        try (Stream<Path> entries = Files.list(folder)) {
            List<Path> chains = entries.filter(Files::isDirectory).toList();
            assertEquals(1, chains.size(), "chains in " + folder + ": " + chains);
            return chains.getFirst();
        }
    }
}
