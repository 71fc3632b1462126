package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where {@code --out} leads: a FIFO stands for any existing path that is not a regular file (a device such as
 * {@code /dev/null}); no test touches the real {@code /dev} nodes.
 */
class OutputFilesTest {

    @Test
    void genWritesThroughAFifoInsteadOfReplacingIt(@TempDir Path dir) throws Exception {
        Path fifo = mkfifo(dir.resolve("trace.fifo"));
        try (FifoReader reader = new FifoReader(fifo, Long.MAX_VALUE)) {
            CliRun run = CliRun.of("gen", "random", "--batches", "20", "--out", fifo.toString());
            assertEquals(0, run.code(), run::toString);
            byte[] written = reader.bytes();
            assertEquals(run.value("offered-hash"), sha256(written), "offered-hash is the hash of the bytes that went through");
            assertEquals(20, batches(written));
        }
        assertTrue(isFifo(fifo), "still a FIFO, not replaced by a file");
        assertEquals(List.of(fifo), CliTest.list(dir), "no temp file beside it");
    }

    @Test
    void resolveWritesItsDecisionsThroughAFifo(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("t.trace");
        assertEquals(0, CliRun.of("gen", "random", "--batches", "30", "--out", trace.toString()).code());
        Path fifo = mkfifo(dir.resolve("decisions.fifo"));
        CliRun resolve;
        byte[] decisions;
        try (FifoReader reader = new FifoReader(fifo, Long.MAX_VALUE)) {
            resolve = CliRun.of("resolve", trace.toString(), "--engine", "reference", "--out", fifo.toString());
            assertEquals(0, resolve.code(), resolve::toString);
            decisions = reader.bytes();
        }
        Path copy = Files.write(dir.resolve("copy.decisions"), decisions);
        CliRun hash = CliRun.of("hash", copy.toString());
        assertEquals(0, hash.code(), hash::toString);
        assertEquals(resolve.value("decision-hash"), hash.value("decision-hash"));
        assertEquals(resolve.value("offered-hash"), hash.value("trace-sha256"));
        assertTrue(isFifo(fifo));
        assertEquals(Set.of(trace, fifo, copy), Set.copyOf(CliTest.list(dir)));
    }

    /**
     * Stands for a full device ({@code /dev/full}): once the FIFO's reader has gone, every write fails with
     * EPIPE, as every write to a full device fails with ENOSPC.
     */
    @Test
    void aWriteErrorIsOneLineNamingTheFileAndExitTwo(@TempDir Path dir) throws Exception {
        Path fifo = mkfifo(dir.resolve("full.fifo"));
        CliRun run;
        try (FifoReader reader = new FifoReader(fifo, 100)) {
            // several MB, far more than a pipe buffers: the writer is still writing when the reader leaves
            run = CliRun.of("gen", "conflictset-point", "--batches", "300", "--out", fifo.toString());
            assertEquals(100, reader.bytes().length);
        }
        assertEquals(2, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.errLines().getFirst().startsWith("error: " + fifo + ": cannot write: "), run::toString);
        assertEquals("", run.out());
        assertTrue(isFifo(fifo));
    }

    /**
     * Issue 33: an error opening the temporary file named it ({@code error: rofs/x.trace.tmp: Read-only file
     * system}), a name the user never gave. A directory in the temp file's place, and a folder of /proc where
     * nothing can be created, stand for a read-only file system.
     */
    @Test
    void anErrorCreatingTheFileNamesTheUsersPathNotTheTempFile(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("x.trace");
        Files.createDirectory(dir.resolve("x.trace.tmp"));
        CliRun run = CliRun.of("gen", "random", "--batches", "3", "--out", out.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: " + out + ": cannot write: Is a directory"), run.errLines());

        CliRun proc = CliRun.of("gen", "random", "--batches", "3", "--out", "/proc/x.trace");
        assertEquals(2, proc.code(), proc::toString);
        assertEquals(List.of("error: /proc/x.trace: cannot write: No such file or directory"), proc.errLines());
    }

    @Test
    void aSymbolicLinkIsFollowedAndStaysALink(@TempDir Path dir) throws Exception {
        Path real = Files.writeString(dir.resolve("real.trace"), "an earlier file");
        Path link = Files.createSymbolicLink(dir.resolve("link.trace"), Path.of("real.trace"));
        CliRun run = CliRun.of("gen", "random", "--batches", "3", "--out", link.toString());
        assertEquals(0, run.code(), run::toString);
        assertTrue(Files.isSymbolicLink(link), "the link stays a link");
        assertEquals(Path.of("real.trace"), Files.readSymbolicLink(link));
        assertEquals(run.value("offered-hash"), sha256(Files.readAllBytes(real)), "the file it names was replaced");
        assertEquals(Set.of(real, link), Set.copyOf(CliTest.list(dir)), "no temp file left");

        // a link (to a link) to a name not taken yet: the file is created in the directory the link points into
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Path dangling = Files.createSymbolicLink(dir.resolve("new.trace"), sub.resolve("made.trace"));
        Path chain = Files.createSymbolicLink(dir.resolve("chain.trace"), dangling);
        CliRun made = CliRun.of("gen", "random", "--batches", "3", "--out", chain.toString());
        assertEquals(0, made.code(), made::toString);
        assertTrue(Files.isSymbolicLink(chain) && Files.isSymbolicLink(dangling));
        assertEquals(made.value("offered-hash"), sha256(Files.readAllBytes(sub.resolve("made.trace"))));
        assertEquals(List.of(sub.resolve("made.trace")), CliTest.list(sub));
    }

    @Test
    void aLinkToADirectoryIsAnErrorNamingTheLink(@TempDir Path dir) throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Path link = Files.createSymbolicLink(dir.resolve("to-dir"), sub);
        CliRun run = CliRun.of("gen", "random", "--batches", "3", "--out", link.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: " + link + ": is a directory"), run.errLines());
        assertEquals(List.of(), CliTest.list(sub));
        assertTrue(Files.isSymbolicLink(link));
    }

    static Path mkfifo(Path path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0,
                () -> "mkfifo failed: " + new String(readAll(p.getInputStream())));
        assertTrue(isFifo(path));
        return path;
    }

    static boolean isFifo(Path path) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.isOther();
    }

    private static byte[] readAll(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }

    static String sha256(byte[] bytes) {
        MessageDigest d = Hashes.sha256();
        return Hashes.hex(d.digest(bytes));
    }

    private static int batches(byte[] trace) throws IOException {
        int n = 0;
        try (TraceReader r = TraceReader.open(new ByteArrayInputStream(trace))) {
            for (Batch b; (b = r.next()) != null; ) {
                n++;
            }
        }
        return n;
    }

    /**
     * Reads a FIFO on another thread, like a consumer at the other end of a pipe: up to {@code limit} bytes,
     * then it closes its end. Closing this unblocks a reader still waiting for a writer, so a test that
     * fails never hangs.
     */
    static final class FifoReader implements AutoCloseable {
        private final Path fifo;
        private final CompletableFuture<byte[]> read;

        FifoReader(Path fifo, long limit) {
            this.fifo = fifo;
            this.read = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = Files.newInputStream(fifo)) {
                    return in.readNBytes((int) Math.min(limit, Integer.MAX_VALUE - 8));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, runnable -> {
                Thread t = new Thread(runnable, "fifo-reader");
                t.setDaemon(true);
                t.start();
            });
        }

        byte[] bytes() throws Exception {
            return read.get(20, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            if (!read.isDone()) {
                // the reader waits in open() for a writer that never came: be that writer, on a thread of its own
                Thread t = new Thread(() -> {
                    try (OutputStream out = Files.newOutputStream(fifo)) {
                        out.flush();
                    } catch (IOException ignored) {
                        // nothing more to unblock
                    }
                }, "fifo-unblock");
                t.setDaemon(true);
                t.start();
            }
        }
    }
}
