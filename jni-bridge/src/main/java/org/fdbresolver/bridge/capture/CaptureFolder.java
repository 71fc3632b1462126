package org.fdbresolver.bridge.capture;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The bound over a whole capture folder ({@code capture_folder_max_bytes}): every resolver opened with a capture starts a
 * chain of its own, so without it the folder would grow by {@code capture_max_bytes} at every recovery. Once the folder
 * passes the bound, the oldest chains are deleted — never one a resolver is still writing, in this process or another.
 *
 * <p>A chain being written holds an exclusive lock on its {@link #LOCK_NAME} file (an {@code fcntl} lock, which the kernel
 * drops when the process ends, so a chain whose process died counts as finished); the writer deletes the file when it
 * ends. Chains of this process are known without touching their lock files: on Linux, closing any descriptor of a
 * file drops every lock the process holds on it, so a probe must never open a lock file this process holds.
 */
final class CaptureFolder {
    static final String LOCK_NAME = "writing.lock";
    /** A chain folder's name ({@link Capture}): only such folders are ever deleted, never an operator's own files. */
    static final Pattern CHAIN_NAME = Pattern.compile("\\d{8}-\\d{6}-p\\d+-r\\d+");

    /** Chains this process is writing. */
    private static final Set<Path> WRITING = ConcurrentHashMap.newKeySet();

    private CaptureFolder() {
    }

    /** The lock a chain holds while it is written. */
    static final class ChainLock {
        private final Path chain;
        private final FileChannel channel;
        private final FileLock lock;

        private ChainLock(Path chain, FileChannel channel, FileLock lock) {
            this.chain = chain;
            this.channel = channel;
            this.lock = lock;
        }

        /** Deletes the lock file and drops the lock: the chain is finished. Idempotent. */
        synchronized void release() {
            if (!channel.isOpen()) {
                return;
            }
            try {
                Files.deleteIfExists(chain.resolve(LOCK_NAME));
            } catch (IOException | RuntimeException e) {
                // a lock file left behind with no lock on it reads as a finished chain
            }
            try {
                lock.release();
                channel.close();
            } catch (IOException e) {
                // closed either way
            }
            WRITING.remove(chain.toAbsolutePath().normalize());
        }
    }

    /** Marks {@code chain} (just made) as being written. */
    static ChainLock lock(Path chain) throws IOException {
        WRITING.add(chain.toAbsolutePath().normalize());
        FileChannel channel = FileChannel.open(chain.resolve(LOCK_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new IOException(chain.resolve(LOCK_NAME) + " is locked by another process");
            }
            return new ChainLock(chain, channel, lock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            WRITING.remove(chain.toAbsolutePath().normalize());
            throw e;
        }
    }

    /** Whether a resolver, of this process or another, is writing {@code chain}. */
    static boolean isBeingWritten(Path chain) {
        if (WRITING.contains(chain.toAbsolutePath().normalize())) {
            return true;
        }
        try (FileChannel channel = FileChannel.open(chain.resolve(LOCK_NAME), StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (NoSuchFileException e) {
            return false; // finished (or never begun: a chain folder with no lock file holds no writer)
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return true; // cannot tell: keep it
        }
    }

    /**
     * Deletes the oldest chains that no resolver is writing until the folder, with {@code roomBytes} more, is within
     * {@code boundBytes}; returns how many bytes it deleted. Each deletion is told to {@code warnings}. Best effort: a
     * file it cannot delete stays (and is counted).
     */
    static long prune(Path folder, long boundBytes, long roomBytes, Consumer<String> warnings) throws IOException {
        List<Path> chains = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry) && CHAIN_NAME.matcher(entry.getFileName().toString()).matches()) {
                    chains.add(entry);
                }
            }
        }
        // Oldest first: the name starts with its UTC time, then the process and the resolver's number.
        chains.sort(Comparator.comparing((Path p) -> p.getFileName().toString().substring(0, 15))
                .thenComparingLong(CaptureFolder::resolverNumber));
        long[] sizes = new long[chains.size()];
        long total = roomBytes;
        for (int i = 0; i < chains.size(); i++) {
            sizes[i] = size(chains.get(i));
            total += sizes[i];
        }
        long deleted = 0;
        for (int i = 0; i < chains.size() && total > boundBytes; i++) {
            Path chain = chains.get(i);
            if (isBeingWritten(chain)) {
                continue;
            }
            long freed = delete(chain);
            total -= freed;
            deleted += freed;
            warnings.accept("capture folder " + folder + " passed capture_folder_max_bytes=" + boundBytes
                    + ": deleted its oldest finished chain, " + chain.getFileName() + " (" + freed + " bytes)");
        }
        return deleted;
    }

    private static long resolverNumber(Path chain) {
        String name = chain.getFileName().toString();
        return Long.parseLong(name.substring(name.lastIndexOf("-r") + 2));
    }

    /** The bytes of a chain's files (one level: segments and the lock). */
    static long size(Path chain) {
        long bytes = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(chain)) {
            for (Path f : files) {
                try {
                    bytes += Files.size(f);
                } catch (IOException e) {
                    // deleted meanwhile
                }
            }
        } catch (IOException e) {
            // deleted meanwhile
        }
        return bytes;
    }

    /** Deletes a chain's files and its folder; returns the bytes freed. */
    private static long delete(Path chain) {
        long freed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(chain)) {
            for (Path f : files) {
                try {
                    long bytes = Files.size(f);
                    Files.delete(f);
                    freed += bytes;
                } catch (IOException | RuntimeException e) {
                    // another process pruning at the same time, or a file not ours to delete
                }
            }
        } catch (IOException e) {
            return freed;
        }
        try {
            Files.deleteIfExists(chain);
        } catch (IOException e) {
            // not empty (a file we could not delete): it stays
        }
        return freed;
    }
}
