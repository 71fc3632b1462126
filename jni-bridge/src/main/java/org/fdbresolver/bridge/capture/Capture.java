package org.fdbresolver.bridge.capture;

import com.google.protobuf.CodedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;

/**
 * Records every batch a resolver decides, with its decisions, as a chain of trace and decision segments
 * (docs/capture.md): {@code capture=PATH} in the configuration text.
 *
 * <p>The resolver's thread only encodes ({@link #record}): the batch's wire bytes, straight from the engine's
 * {@link ConflictBatch}, and its decisions go into a {@link RecordRing} allocated at open, with one reused
 * {@link CodedOutputStream} — nothing is allocated per batch. One writer thread, started at open, compresses and
 * writes ({@link SegmentWriter}). When the writer falls a whole ring behind, the resolver waits at most
 * {@link #WAIT_NANOS} for room and then stops capturing, with a warning, rather than block or leave a hole: what
 * was captured up to then is a whole chain. A batch the engine rejects never reaches {@link #record} (it changed
 * nothing, so a replay must not see it either).
 *
 * <p>Not thread-safe on the producer side: the native library serializes a resolver's calls.
 */
public final class Capture implements AutoCloseable {
    /** The workload named in every segment's trace header. */
    public static final String WORKLOAD = "capture";
    /** How long the resolver waits for the writer to free room before giving up on the capture. */
    static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** How long {@link #close} (tests and tools; the resolver's close never waits) waits for the writer to finish. */
    static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** A record: the trace message's length, the decision message's, the batch's version, then both messages. */
    static final int RECORD_TRACE_LENGTH = 0;
    static final int RECORD_DECISIONS_LENGTH = 4;
    static final int RECORD_VERSION = 8;
    static final int RECORD_HEADER_BYTES = 16;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final DateTimeFormatter CHAIN_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    /** Resolvers captured by this process, so that two opened in one second get two chains. */
    private static final AtomicInteger OPENED = new AtomicInteger();

    private final CaptureSettings settings;
    private final Path chainFolder;
    private final Consumer<String> warnings;
    private final RecordRing ring;
    private final RingSink sink;
    private final CodedOutputStream coded;
    private final BatchEncoder encoder = new BatchEncoder();
    private final SegmentWriter writer;
    private final Thread writerThread;

    /** Set once no more batches are recorded: by the resolver's thread (stop, close) or by the writer (I/O error). */
    private volatile boolean stopped;
    private volatile boolean closing;
    private long batchesRecorded;
    private long lastVersion;

    private Capture(CaptureSettings settings, Path chainFolder, String chain, String engine, Consumer<String> warnings,
                    Runnable beforeEachRecord, CaptureFolder.ChainLock lock) {
        this.settings = settings;
        this.chainFolder = chainFolder;
        this.warnings = warnings;
        this.ring = new RecordRing(settings.queueBytes());
        this.sink = new RingSink(ring.array());
        this.coded = CodedOutputStream.newInstance(sink, 1 << 12);
        this.writer = new SegmentWriter(this, settings, chainFolder, chain, engine, beforeEachRecord, lock);
        this.writerThread = new Thread(writer::run, "fdbresolver-capture-" + chain);
        writerThread.setDaemon(true);
        ring.consumer(writerThread);
    }

    /**
     * Starts capturing into a new chain folder inside {@code settings.folder()} (created if missing) and starts the
     * writer thread. Segments are written only once batches come.
     *
     * @param engine   the engine's name, for the headers
     * @param warnings where the capture's warnings go (the resolver's, for {@code fdbr_take_warnings}); called from
     *                 the resolver's thread and the writer's
     * @throws IllegalArgumentException when the folder cannot be made
     */
    public static Capture open(CaptureSettings settings, String engine, Consumer<String> warnings) {
        return open(settings, engine, warnings, () -> { });
    }

    /** {@link #open}, the writer running {@code beforeEachRecord} before it writes each record (tests hold or slow it there). */
    public static Capture open(CaptureSettings settings, String engine, Consumer<String> warnings, Runnable beforeEachRecord) {
        Path folder = settings.folder();
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(CHAIN_TIME) + "-p" + ProcessHandle.current().pid();
        Path chainFolder;
        String chain;
        CaptureFolder.ChainLock lock;
        try {
            Files.createDirectories(folder);
            // Room for this chain's first segment within the folder's bound, the oldest finished chains deleted.
            CaptureFolder.prune(folder, settings.folderMaxBytes(), settings.segmentBytes(), warnings);
            for (;;) {
                chain = stamp + "-r" + OPENED.incrementAndGet();
                chainFolder = folder.resolve(chain);
                try {
                    Files.createDirectory(chainFolder);
                    break;
                } catch (FileAlreadyExistsException e) {
                    // another process with this pid in the same second (a container's pid 1): the next number
                }
            }
            lock = CaptureFolder.lock(chainFolder);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("capture=" + folder + ": cannot create the capture's folder: " + e, e);
        }
        Capture capture;
        try {
            capture = new Capture(settings, chainFolder, chain, engine, warnings, beforeEachRecord, lock);
        } catch (RuntimeException | Error e) { // the ring's heap, say: leave no chain marked as written
            lock.release();
            try {
                Files.deleteIfExists(chainFolder);
            } catch (IOException ignored) {
                // an empty folder left behind
            }
            throw e;
        }
        capture.writerThread.start();
        return capture;
    }

    /** The chain's folder: its segments are {@code segment-NNNNNN.trace.gz} and {@code segment-NNNNNN.decisions.gz}. */
    public Path folder() {
        return chainFolder;
    }

    /** Whether batches are still being recorded. */
    public boolean isCapturing() {
        return !stopped;
    }

    /**
     * Records a batch the engine decided: its wire encoding goes to the writer, and this returns. Never throws: a
     * capture that cannot go on stops, with a warning, and the resolver decides on.
     */
    public void record(ConflictBatch batch, BatchResult result, long version, long newOldestVersion) {
        if (stopped) {
            return;
        }
        try {
            int traceSize = encoder.batchSize(batch, version, newOldestVersion);
            int decisionsSize = BatchEncoder.decisionsSize(result, version);
            long size = (long) RECORD_HEADER_BYTES + traceSize + decisionsSize;
            if (size > ring.maxRecordBytes()) {
                stop("batch " + batchesRecorded + " (version " + version + ") takes " + size + " bytes encoded, over half "
                        + "of capture_queue_bytes=" + settings.queueBytes() + ": raise it to capture batches this large");
                return;
            }
            int at = ring.reserve((int) size, System.nanoTime() + WAIT_NANOS);
            if (at < 0) {
                stop("the capture's writer fell " + ring.queuedBytes() + " bytes behind (capture_queue_bytes="
                        + settings.queueBytes() + ") and freed no room within " + TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS)
                        + " ms (a slow disk?)");
                return;
            }
            byte[] bytes = ring.array();
            INT.set(bytes, at + RECORD_TRACE_LENGTH, traceSize);
            INT.set(bytes, at + RECORD_DECISIONS_LENGTH, decisionsSize);
            LONG.set(bytes, at + RECORD_VERSION, version);
            sink.position = at + RECORD_HEADER_BYTES;
            encoder.writeBatch(coded, batch, version, newOldestVersion, traceSize);
            BatchEncoder.writeDecisions(coded, result, version, decisionsSize);
            coded.flush();
            if (sink.position != at + size) {
                throw new IllegalStateException("encoded " + (sink.position - at) + " bytes, measured " + size + " (bridge bug)");
            }
            ring.publish();
            batchesRecorded++;
            lastVersion = version;
        } catch (Throwable e) {
            stop("capturing batch " + batchesRecorded + " (version " + version + ") failed: " + e);
        }
    }

    /**
     * Stops recording (the resolver's thread): the writer writes what was queued, finishes the segment and ends.
     * The capture is then a whole chain of the batches before this point.
     */
    public void stop(String why) {
        if (stopped) {
            return;
        }
        stopped = true;
        LockSupport.unpark(writerThread);
        warnings.accept("capture stopped: " + why + "; " + chainFolder + " holds the " + batchesRecorded
                + " batches before" + (batchesRecorded > 0 ? " (up to version " + lastVersion + ")" : ""));
    }

    /**
     * Tells the writer to write what is queued, finish the segment and end, and returns at once: the resolver's
     * close never waits for a disk (fdbserver's network thread calls it). {@link #awaitFinished} waits for the end.
     */
    public void finish() {
        closing = true;
        LockSupport.unpark(writerThread);
    }

    /**
     * Waits until the writer has ended (everything queued written, the segment finished), at most {@code nanos};
     * returns whether it has.
     */
    public boolean awaitFinished(long nanos) throws InterruptedException {
        writerThread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        return !writerThread.isAlive();
    }

    /** {@link #finish}, then waits for the writer (at most {@link #CLOSE_NANOS}): for tests and tools, not the host. */
    @Override
    public void close() throws IOException {
        finish();
        try {
            if (!awaitFinished(CLOSE_NANOS)) {
                throw new IOException("the capture's writer did not finish " + chainFolder + " within "
                        + TimeUnit.NANOSECONDS.toSeconds(CLOSE_NANOS) + " s (a stuck disk?)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the capture's writer finished " + chainFolder, e);
        }
    }

    /** Runs {@code hook} after a segment's whole new decision file is written and before it is renamed over the old (tests). */
    void beforeHeaderRename(Runnable hook) {
        writer.beforeHeaderRename = hook;
    }

    // ---- for the writer thread ----

    RecordRing ring() {
        return ring;
    }

    /** Whether the producer is done: the writer then drains the ring and finishes. */
    boolean producerDone() {
        return stopped || closing;
    }

    /** The writer cannot go on (an I/O error): recording stops. */
    void writerFailed(String why) {
        stopped = true;
        warnings.accept("capture stopped: " + why);
    }

    void warn(String text) {
        warnings.accept(text);
    }

    /** The record layout's reads, for the writer. */
    static int traceLength(byte[] ring, int at) {
        return (int) INT.get(ring, at + RECORD_TRACE_LENGTH);
    }

    static int decisionsLength(byte[] ring, int at) {
        return (int) INT.get(ring, at + RECORD_DECISIONS_LENGTH);
    }

    static long version(byte[] ring, int at) {
        return (long) LONG.get(ring, at + RECORD_VERSION);
    }

    /** Where {@link #coded} puts its bytes: the ring, from the record being written on. */
    private static final class RingSink extends OutputStream {
        private final byte[] ring;
        int position;

        RingSink(byte[] ring) {
            this.ring = ring;
        }

        @Override
        public void write(int b) {
            ring[position++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            System.arraycopy(b, off, ring, position, len);
            position += len;
        }
    }
}
