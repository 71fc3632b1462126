package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Peak skip-list bytes at a window, measured by FoundationDB itself: runs the native comparator
 * {@code fdbresolver_fdb_skiplist TRACE --window W --max-history-every N} (built by {@code scripts/build-fdb})
 * and reads its {@code max-history-bytes} line: the largest node bytes of the skip list seen after every
 * N-th batch (and the last).
 */
public final class NativeMeter implements FdbWindowSearch.Meter {
    private final Path comparator;
    private final Path trace;
    private final int every;

    /** @param every how often the comparator walks the skip list to count its bytes (1: after every batch) */
    public NativeMeter(Path comparator, Path trace, int every) {
        this.comparator = comparator;
        this.trace = trace;
        this.every = every;
    }

    @Override
    public long peakBytes(long windowVersions) throws IOException {
        List<String> command = List.of(comparator.toString(), trace.toString(), "--window", Long.toString(windowVersions),
                "--max-history-every", Integer.toString(every));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        String out = read(p.getInputStream());
        int code;
        try {
            code = p.waitFor();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(comparator + ": interrupted", e);
        }
        if (code != 0) {
            throw new IOException(comparator + " exited with " + code + ": " + err.join().strip());
        }
        for (String line : out.split("\n")) {
            if (line.startsWith("max-history-bytes: ")) {
                return Long.parseLong(line.substring("max-history-bytes: ".length()).strip());
            }
        }
        throw new IOException(comparator + " printed no max-history-bytes line (an older build? rebuild it with scripts/build-fdb or"
                + " scripts/build-skiplist)");
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public String description() {
        return "native comparator " + comparator + ": FoundationDB's skip list, node bytes after every "
                + (every == 1 ? "batch" : every + " batches");
    }
}
