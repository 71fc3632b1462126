package org.fdbresolver.bridge.capture;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;

/**
 * The capture's writer thread: takes records off the {@link RecordRing}, compresses them into the segment's trace
 * and decision files and rolls segments over by size, deleting the oldest once the chain passes its bound.
 *
 * <p>Each file is written as whole gzip members ({@link GzipMember}), one ending every {@link #MEMBER_INPUT_BYTES} of
 * trace or {@link #MEMBER_NANOS} after its first batch, whichever comes first, and both files end a member at the
 * same batch: so at every moment both are valid gzip files ending at the same batch, and a process that dies
 * mid-segment loses at most the last second. A decision file begins with its header as a member of its own, stored
 * uncompressed with the trace's hash all zero. Closing the segment syncs the trace file, writes the decision file
 * anew beside it ({@code .tmp}) with the hash of the trace file as stored, syncs it and renames it over the old one,
 * then syncs the folder: a reader, or a crash, sees the old whole file or the new whole file, never a torn header.
 * Before each new segment the chain keeps within {@code capture_max_bytes} (its oldest segments deleted) and the
 * whole folder within {@code capture_folder_max_bytes} (the oldest finished chains deleted, {@link CaptureFolder}).
 */
final class SegmentWriter {
    static final String TRACE_FORMAT = "fdb-resolver-trace/1";
    static final String DECISION_FORMAT = "fdb-resolver-decisions/1";
    static final int MEMBER_INPUT_BYTES = 1 << 20;
    /** How often the writer looks at the ring while records come, and at least while none do. */
    static final long MIN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(64);
    static final long MEMBER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Deflate level: the fastest, measured to cost a fraction of level 6's time for a few percent more bytes (docs/capture.md). */
    static final int GZIP_LEVEL = Deflater.BEST_SPEED;

    private final Capture capture;
    private final Runnable beforeEachRecord;
    private final CaptureFolder.ChainLock lock;
    /** Run before a closing segment's new decision file replaces the old (tests look at the folder then). */
    volatile Runnable beforeHeaderRename = () -> { };
    private final CaptureSettings settings;
    private final Path chainFolder;
    private final String chain;
    private final String engine;
    private final GzipMember traceMember = new GzipMember(GZIP_LEVEL);
    private final GzipMember decisionMember = new GzipMember(GZIP_LEVEL);
    private final MessageDigest traceDigest = sha256();
    /** Finished segments still on disk, oldest first: {index, bytes}. */
    private final ArrayDeque<long[]> finished = new ArrayDeque<>();
    private long finishedBytes;
    private boolean rotated;
    /** The record being written, copied out of the ring (see {@link #take}). */
    private byte[] staging = new byte[1 << 16];

    // The segment being written (trace == null: none).
    private int nextIndex;
    private int index;
    private FileChannel trace;
    private FileChannel decisions;
    private Path tracePath;
    private Path decisionsPath;
    private byte[] decisionHeader;
    /** Bytes of each file that hold whole members: where a failed write is cut back to. */
    private long traceBytes;
    private long decisionBytes;
    private long memberStartNanos;
    private long pollNanos = MIN_POLL_NANOS;
    private long batchesWritten;
    private long lastVersion;
    /** Batches (and the last one's version) in whole gzip members on disk: what a failure leaves. */
    private long batchesKept;
    private long versionKept;

    SegmentWriter(Capture capture, CaptureSettings settings, Path chainFolder, String chain, String engine,
                  Runnable beforeEachRecord, CaptureFolder.ChainLock lock) {
        this.beforeEachRecord = beforeEachRecord;
        this.lock = lock;
        this.capture = capture;
        this.settings = settings;
        this.chainFolder = chainFolder;
        this.chain = chain;
        this.engine = engine;
    }

    static String traceName(int index) {
        return String.format("segment-%06d.trace.gz", index);
    }

    static String decisionsName(int index) {
        return String.format("segment-%06d.decisions.gz", index);
    }

    void run() {
        RecordRing ring = capture.ring();
        BatchScheduling.applyToCurrentThread();
        try {
            for (;;) {
                int at = ring.peek();
                if (at >= 0) {
                    take(ring, at);
                    continue;
                }
                if (capture.producerDone()) {
                    // The producer's last records were published before it said so: drain them, then finish.
                    for (int last; (last = ring.peek()) >= 0; ) {
                        take(ring, last);
                    }
                    closeSegment();
                    lock.release();
                    if (nextIndex == 0) {
                        Files.deleteIfExists(chainFolder); // no batch came: leave no empty chain behind
                    }
                    return;
                }
                long idle = memberIdleNanos();
                if (idle <= 0) {
                    endMembers();
                    idle = MEMBER_NANOS;
                }
                // Poll: soon after records came, less often the longer none come (the ring holds what arrives).
                ring.awaitRecord(Math.min(idle, pollNanos));
                pollNanos = ring.isEmpty() ? Math.min(2 * pollNanos, MAX_POLL_NANOS) : MIN_POLL_NANOS;
            }
        } catch (Throwable e) {
            String where = tracePath != null ? " writing " + tracePath : " in " + chainFolder;
            abandonSegment();
            capture.writerFailed("the capture's writer failed" + where + ": " + e + "; " + chainFolder + " holds the "
                    + batchesKept + " batches before" + (batchesKept > 0 ? " (up to version " + versionKept + ")" : ""));
            drainDiscarding(ring);
        } finally {
            lock.release();
            traceMember.end();
            decisionMember.end();
        }
    }

    /** After a failure: frees the ring until the producer, told to stop, stops (so it never waits on us). */
    private void drainDiscarding(RecordRing ring) {
        for (int at; (at = ring.peek()) >= 0; ) {
            ring.release(at);
        }
    }

    /** Nanoseconds until the open members are due to end; at most {@link #MEMBER_NANOS}, or that when none is open. */
    private long memberIdleNanos() {
        if (!traceMember.isOpen()) {
            return MEMBER_NANOS;
        }
        return MEMBER_NANOS - (System.nanoTime() - memberStartNanos);
    }

    /**
     * Copies the record at {@code at} out of the ring, frees its room for the resolver and writes it. Never hands the
     * ring itself to the deflater: java.util.zip's native code takes its input with GetPrimitiveArrayCritical, which
     * may copy the whole array and write it back on release (it does under -Xcheck:jni), over the resolver's newer
     * records; the staging copy is this thread's alone.
     */
    private void take(RecordRing ring, int at) throws IOException {
        int length = ring.recordLength(at);
        if (staging.length < length) {
            staging = new byte[Math.max(length, 2 * staging.length)];
        }
        System.arraycopy(ring.array(), at, staging, 0, length);
        ring.release(at);
        append(staging, 0);
    }

    private void append(byte[] record, int at) throws IOException {
        beforeEachRecord.run();
        int traceLength = Capture.traceLength(record, at);
        int decisionsLength = Capture.decisionsLength(record, at);
        long version = Capture.version(record, at);
        if (trace == null) {
            openSegment(version);
        }
        if (!traceMember.isOpen()) {
            memberStartNanos = System.nanoTime();
        }
        int body = at + Capture.RECORD_HEADER_BYTES;
        traceMember.write(record, body, traceLength);
        decisionMember.write(record, body + traceLength, decisionsLength);
        batchesWritten++;
        lastVersion = version;
        if (traceMember.inputBytes() >= MEMBER_INPUT_BYTES || System.nanoTime() - memberStartNanos >= MEMBER_NANOS) {
            endMembers();
        }
        if (segmentBytes() >= settings.segmentBytes()) {
            closeSegment();
        }
    }

    private long segmentBytes() {
        return traceBytes + decisionBytes + traceMember.pendingBytes() + decisionMember.pendingBytes();
    }

    private void openSegment(long firstVersion) throws IOException {
        // Keep the chain within its bound with this segment grown to full size.
        while (!finished.isEmpty() && finishedBytes + settings.segmentBytes() > settings.maxBytes()) {
            long[] oldest = finished.removeFirst();
            finishedBytes -= oldest[1];
            Files.deleteIfExists(chainFolder.resolve(traceName((int) oldest[0])));
            Files.deleteIfExists(chainFolder.resolve(decisionsName((int) oldest[0])));
            if (!rotated) {
                rotated = true;
                capture.warn("capture " + chainFolder + " reached capture_max_bytes=" + settings.maxBytes()
                        + " and deleted its oldest segment, " + traceName((int) oldest[0]) + ": from now on it holds a "
                        + "later part of the resolver's life, which replays without the history before it");
            }
        }
        // And the folder within its bound, this segment grown to full size counted.
        CaptureFolder.prune(chainFolder.getParent(), settings.folderMaxBytes(), settings.segmentBytes(), capture::warn);
        index = nextIndex++;
        tracePath = chainFolder.resolve(traceName(index));
        decisionsPath = chainFolder.resolve(decisionsName(index));
        trace = FileChannel.open(tracePath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        decisions = FileChannel.open(decisionsPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.READ); // read back into the renamed copy at close
        traceBytes = 0;
        decisionBytes = 0;
        traceDigest.reset();

        decisionHeader = decisionHeader(new byte[32]);
        decisionBytes = writeFully(decisions, GzipMember.stored(decisionHeader), decisionBytes, null);
        byte[] header = traceHeader(firstVersion);
        memberStartNanos = System.nanoTime();
        traceMember.write(header, 0, header.length);
    }

    /** Ends the open members and writes them: both files then end at the same batch. */
    private void endMembers() throws IOException {
        if (!traceMember.isOpen()) {
            return;
        }
        traceMember.finish();
        decisionMember.finish();
        traceBytes = writeFully(trace, ByteBuffer.wrap(traceMember.bytes(), 0, traceMember.length()), traceBytes, traceDigest);
        decisionBytes = writeFully(decisions, ByteBuffer.wrap(decisionMember.bytes(), 0, decisionMember.length()),
                decisionBytes, null);
        batchesKept = batchesWritten;
        versionKept = lastVersion;
    }

    private void closeSegment() throws IOException {
        if (trace == null) {
            return;
        }
        endMembers();
        trace.force(true);
        trace.close();
        trace = null;
        // The decision file anew with the trace's hash in its header, then renamed over the old: never torn.
        byte[] hashed = GzipMember.stored(decisionHeader(traceDigest.digest()));
        Path renamed = decisionsPath.resolveSibling(decisionsPath.getFileName() + ".tmp");
        try (FileChannel whole = FileChannel.open(renamed, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            whole.position(writeFully(whole, hashed, 0, null)); // writeFully writes at positions; transferTo appends
            for (long from = hashed.length; from < decisionBytes; ) {
                long n = decisions.transferTo(from, decisionBytes - from, whole);
                if (n <= 0) {
                    throw new IOException(decisionsPath + " ended at " + from + " of " + decisionBytes + " bytes");
                }
                from += n;
            }
            whole.force(true);
        }
        decisions.close();
        decisions = null;
        beforeHeaderRename.run();
        Files.move(renamed, decisionsPath, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncFolder(chainFolder);
        finished.addLast(new long[] {index, traceBytes + decisionBytes});
        finishedBytes += traceBytes + decisionBytes;
        tracePath = null;
        decisionsPath = null;
    }

    /**
     * After a failed write: cuts both files back to their whole members and closes them; a segment without a whole
     * member of batches is deleted (a file that is no trace would break the chain's reading).
     */
    private void abandonSegment() {
        traceMember.reset();
        decisionMember.reset();
        for (FileChannel channel : new FileChannel[] {trace, decisions}) {
            if (channel == null) {
                continue;
            }
            try {
                channel.truncate(channel == trace ? traceBytes : decisionBytes);
            } catch (IOException | RuntimeException e) {
                // the warning already names the failure; the file keeps what it has
            }
            try {
                channel.close();
            } catch (IOException e) {
                // as above
            }
        }
        if (tracePath != null && traceBytes == 0) {
            try {
                Files.deleteIfExists(tracePath);
                Files.deleteIfExists(decisionsPath);
            } catch (IOException | RuntimeException e) {
                // as above
            }
        }
        trace = null;
        decisions = null;
    }

    /** Makes the folder's entries (a rename, a new file) durable; a file system that cannot sync a folder is left be. */
    private static void syncFolder(Path folder) {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            // the files themselves are synced
        }
    }

    private static long writeFully(FileChannel channel, byte[] bytes, long position, MessageDigest digest) throws IOException {
        return writeFully(channel, ByteBuffer.wrap(bytes), position, digest);
    }

    private static long writeFully(FileChannel channel, ByteBuffer buffer, long position, MessageDigest digest)
            throws IOException {
        if (digest != null) {
            digest.update(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        }
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
        return position;
    }

    /** The segment's {@code TraceHeader}, length first: a capture's, naming the chain, the segment and its place. */
    private byte[] traceHeader(long firstVersion) throws IOException {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("capture_chain", chain);
        params.put("segment", Integer.toString(index));
        params.put("previous_segment", index == 0 ? "" : traceName(index - 1));
        params.put("first_version", Long.toString(firstVersion));
        params.put("engine", engine);
        params.put("config", settings.config());
        params.put("started", Instant.now().toString());
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(body);
        out.writeString(1, TRACE_FORMAT);
        out.writeString(2, Capture.WORKLOAD);
        for (Map.Entry<String, String> p : params.entrySet()) {
            int size = CodedOutputStream.computeStringSize(1, p.getKey()) + CodedOutputStream.computeStringSize(2, p.getValue());
            out.writeTag(4, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(size);
            out.writeString(1, p.getKey());
            out.writeString(2, p.getValue());
        }
        out.flush();
        return delimited(body.toByteArray());
    }

    /** The segment's {@code DecisionHeader}, length first, naming the trace by {@code traceSha256} (32 bytes). */
    private byte[] decisionHeader(byte[] traceSha256) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(body);
        out.writeString(1, DECISION_FORMAT);
        out.writeString(2, engine);
        out.writeByteArray(3, traceSha256);
        out.flush();
        return delimited(body.toByteArray());
    }

    private static byte[] delimited(byte[] message) throws IOException {
        ByteArrayOutputStream framed = new ByteArrayOutputStream(message.length + 5);
        CodedOutputStream out = CodedOutputStream.newInstance(framed);
        out.writeUInt32NoTag(message.length);
        out.writeRawBytes(message);
        out.flush();
        return framed.toByteArray();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
