package org.fdbresolver.harness.trace;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.zip.GZIPOutputStream;

/**
 * An output file that appears only when complete, wherever the name leads:
 * <ul>
 *   <li>a regular file, or a name not taken yet: bytes go to {@code FILE.tmp} beside it, {@link #commit()}
 *       renames the temp file over {@code FILE} atomically, and {@link #close()} without a commit deletes it.
 *       So a run that fails half-way never leaves a trace or decision file that looks whole, and an earlier
 *       file stays as it was;</li>
 *   <li>a symbolic link: followed (link after link); the file it leads to is written as above, in its own
 *       directory, and the link stays a link;</li>
 *   <li>anything else that exists (a device such as {@code /dev/null}, a FIFO): written through. A rename
 *       would replace the device or pipe with a plain file (as root, {@code /dev/null} itself), so these are
 *       opened and written in place; what a failed run wrote has already gone to them;</li>
 *   <li>a directory: an error naming it.</li>
 * </ul>
 * Every write error names the file ({@code /dev/full: cannot write: No space left on device}) rather than the
 * JDK's bare reason. The SHA-256 of the bytes as stored is computed while writing, so the offered hash of a
 * file written into a pipe is known without reading it back. Gzip when the name ends in {@code .gz}.
 */
public final class AtomicOutput implements AutoCloseable {
    private static final int BUFFER = 1 << 16;
    /** As Linux's limit on symbolic links followed in one lookup (ELOOP). */
    private static final int MAX_LINKS = 40;

    private final Path target;
    /** The temp file renamed over the resolved target on commit, or {@code null} when written through. */
    private final Path temp;
    private final Path resolved;
    private final MessageDigest digest = Hashes.sha256();
    private final OutputStream out;
    private byte[] storedSha256;
    private boolean committed;
    private boolean closed;

    public AtomicOutput(Path target) throws IOException {
        this.target = target;
        Path resolved = followLinks(target);
        this.resolved = resolved;
        BasicFileAttributes existing = attributes(resolved);
        if (existing != null && existing.isDirectory()) {
            throw new FileSystemException(target.toString(), null, "is a directory");
        }
        boolean writeThrough = existing != null && !existing.isRegularFile();
        OutputStream file;
        if (writeThrough) {
            this.temp = null;
            file = open(target, () -> Files.newOutputStream(resolved, StandardOpenOption.WRITE));
        } else {
            Path parent = resolved.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new NoSuchFileException(target.toString(), null, "cannot write it: " + (Files.exists(parent)
                        ? parent + " is a file, not a directory" : "directory " + parent + " does not exist"));
            }
            Path temp = resolved.resolveSibling(resolved.getFileName() + ".tmp");
            this.temp = temp;
            file = open(target, () -> Files.newOutputStream(temp));
            // Interrupted runs (Ctrl-C) do not reach close(); the JVM's exit hook still removes the partial file.
            temp.toFile().deleteOnExit();
        }
        try {
            OutputStream stored = new DigestOutputStream(new NamedOutput(file, target), digest);
            this.out = isGzipName(target)
                    ? new BufferedOutputStream(new GZIPOutputStream(stored, BUFFER), BUFFER)
                    : new BufferedOutputStream(stored, BUFFER);
        } catch (IOException | RuntimeException e) {
            file.close();
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
            throw e;
        }
    }

    static boolean isGzipName(Path path) {
        return path.getFileName().toString().endsWith(".gz");
    }

    /** The path a chain of symbolic links ends at (which may not exist yet); {@code path} itself if it is no link. */
    static Path followLinks(Path path) throws IOException {
        Path p = path;
        for (int links = 0; Files.isSymbolicLink(p); links++) {
            if (links == MAX_LINKS) {
                throw new FileSystemException(path.toString(), null, "too many levels of symbolic links");
            }
            Path parent = p.toAbsolutePath().getParent();
            Path link = Files.readSymbolicLink(p);
            p = parent == null ? link : parent.resolve(link);
        }
        return p;
    }

    private static BasicFileAttributes attributes(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null; // not there (yet); creating it will say what is wrong, if anything
        }
    }

    private interface Opener {
        OutputStream open() throws IOException;
    }

    /**
     * Opens the temp file (or the target written through); an error names the target as the user gave it, never
     * {@code FILE.tmp}, which the user did not ask for (issue 33: {@code rofs/x.trace.tmp: Read-only file system}).
     */
    private static OutputStream open(Path target, Opener opener) throws IOException {
        try {
            return opener.open();
        } catch (IOException e) {
            throw named(e, target);
        }
    }

    /** Where to write the bytes (buffered; gzip-compressed when the name ends in .gz). */
    public OutputStream stream() {
        return out;
    }

    Path target() {
        return target;
    }

    /** Whether the bytes go straight to the target (a device or FIFO), with no temp file and no rename. */
    boolean writesThrough() {
        return temp == null;
    }

    /** SHA-256 of the bytes as stored (compressed when gzip); known after {@link #commit()}. */
    byte[] storedSha256() {
        if (storedSha256 == null) {
            throw new IllegalStateException("not committed");
        }
        return storedSha256.clone();
    }

    /** Finishes the file and moves it into place (or, written through, just closes it). */
    public void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException("already closed");
        }
        closed = true;
        try {
            out.close();
            storedSha256 = digest.digest();
            if (temp != null) {
                try {
                    try {
                        Files.move(temp, resolved, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(temp, resolved, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw named(e, target);
                }
            }
            committed = true;
        } finally {
            if (!committed && temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** Without a commit: discards everything written (what went through to a device or FIFO is gone already). */
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
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /**
     * {@code FILE: cannot write: REASON}, the reason as the system says it ({@code No space left on device}); a
     * {@link FileSystemException}'s own message would name the file it was about, here the temp file.
     */
    private static FileSystemException named(IOException e, Path file) {
        String reason = e instanceof FileSystemException f ? reason(f) : e.getMessage();
        FileSystemException named = new FileSystemException(file.toString(), null, "cannot write: " + reason);
        named.initCause(e);
        return named;
    }

    private static String reason(FileSystemException e) {
        if (e.getReason() != null) {
            return e.getReason();
        }
        return switch (e) {
            case NoSuchFileException _ -> "No such file or directory";
            case java.nio.file.AccessDeniedException _ -> "Permission denied";
            case java.nio.file.FileAlreadyExistsException _ -> "File exists";
            default -> e.getClass().getSimpleName();
        };
    }

    /** Gives every write error the file's name: the JDK's says only "No space left on device". */
    private static final class NamedOutput extends FilterOutputStream {
        private final Path file;

        NamedOutput(OutputStream out, Path file) {
            super(out);
            this.file = file;
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw named(e, file);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw named(e, file);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw named(e, file);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } catch (IOException e) {
                throw named(e, file);
            }
        }
    }
}
