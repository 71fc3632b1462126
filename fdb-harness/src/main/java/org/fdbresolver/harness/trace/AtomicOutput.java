package org.fdbresolver.harness.trace;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPOutputStream;

/**
 * An output file that appears only when complete: bytes go to {@code FILE.tmp} beside it, {@link #commit()}
 * renames the temp file over {@code FILE} atomically, and {@link #close()} without a commit deletes it. So a
 * run that fails half-way never leaves a trace or decision file that looks whole. Gzip when the name ends in
 * {@code .gz}.
 */
final class AtomicOutput implements AutoCloseable {
    private static final int BUFFER = 1 << 16;

    private final Path target;
    private final Path temp;
    private final OutputStream out;
    private boolean committed;
    private boolean closed;

    AtomicOutput(Path target) throws IOException {
        this.target = target;
        this.temp = target.resolveSibling(target.getFileName() + ".tmp");
        Path parent = target.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new NoSuchFileException(target.toString(), null, "cannot write it: directory " + parent + " does not exist");
        }
        if (Files.isDirectory(target)) {
            throw new FileSystemException(target.toString(), null, "is a directory");
        }
        OutputStream file = Files.newOutputStream(temp);
        // Interrupted runs (Ctrl-C) do not reach close(); the JVM's exit hook still removes the partial file.
        temp.toFile().deleteOnExit();
        try {
            this.out = isGzipName(target)
                    ? new BufferedOutputStream(new GZIPOutputStream(file, BUFFER), BUFFER)
                    : new BufferedOutputStream(file, BUFFER);
        } catch (IOException | RuntimeException e) {
            file.close();
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    static boolean isGzipName(Path path) {
        return path.getFileName().toString().endsWith(".gz");
    }

    OutputStream stream() {
        return out;
    }

    Path target() {
        return target;
    }

    /** Finishes the file and moves it into place. */
    void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException("already closed");
        }
        closed = true;
        try {
            out.close();
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            committed = true;
        } finally {
            if (!committed) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** Without a commit: discards everything written. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException ignored) {
            // the partial file is deleted below either way
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
