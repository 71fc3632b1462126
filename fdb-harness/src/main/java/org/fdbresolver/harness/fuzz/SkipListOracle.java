package org.fdbresolver.harness.fuzz;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.harness.trace.TraceFormats;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.DecisionHeader;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * FoundationDB's own skip list as the oracle: one {@code fdbresolver_fdb_skiplist --stream} process for the whole
 * run (jni-bridge/fdb/skiplist), fed traces on its stdin and answering each batch on its stdout as decision-file
 * messages as soon as it has decided it (docs/formats.md, "Streams"). A thread reads the answers, so the process
 * never waits on a full pipe while this side is still writing the next batch; answers are decoded into reused
 * {@link BatchAnswer}s.
 */
public final class SkipListOracle implements Oracle {
    static final String STREAM = "--stream";
    private static final int ANSWERS = MAX_AHEAD + 4;
    private static final int STDERR_KEPT = 4000;
    /** Put in the queue when the comparator's output ends, so a waiting {@link #take} wakes up. */
    private static final BatchAnswer END = new BatchAnswer();

    private final Path comparator;
    private final Process process;
    private final OutputStream toProcess;
    private final CodedOutputStream coded;
    private final BlockingQueue<BatchAnswer> answers = new ArrayBlockingQueue<>(ANSWERS + 1);
    private final BlockingQueue<BatchAnswer> spare = new ArrayBlockingQueue<>(ANSWERS);
    private final StringBuilder stderr = new StringBuilder();
    private final Thread reader;
    private final Thread stderrReader;
    private volatile String readProblem;
    private boolean ended;

    private SkipListOracle(Path comparator, Process process) {
        this.comparator = comparator;
        this.process = process;
        this.toProcess = process.getOutputStream();
        this.coded = CodedOutputStream.newInstance(toProcess, 1 << 16);
        for (int i = 0; i < ANSWERS; i++) {
            spare.add(new BatchAnswer());
        }
        this.reader = Thread.ofPlatform().daemon().name("fdb-skiplist answers").start(this::readAnswers);
        this.stderrReader = Thread.ofPlatform().daemon().name("fdb-skiplist stderr").start(this::readStderr);
    }

    /** Starts {@code comparator --stream}. */
    public static SkipListOracle start(Path comparator) throws IOException {
        Process p = new ProcessBuilder(List.of(comparator.toString(), STREAM)).start();
        return new SkipListOracle(comparator, p);
    }

    /**
     * Null when {@code comparator} has the {@code --stream} mode, else why not: a comparator built before the mode
     * existed says so only in its {@code --help}.
     */
    public static String lacksStreaming(Path comparator) {
        try {
            Process p = new ProcessBuilder(List.of(comparator.toString(), "--help")).redirectErrorStream(true).start();
            String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return comparator + " --help did not answer within 30 s";
            }
            return help.contains(STREAM) ? null : comparator + " has no " + STREAM + " mode (built from an older "
                    + "jni-bridge/fdb/skiplist/fdb_skiplist_main.cpp; rebuild it with scripts/build-fdb or"
                    + " scripts/build-skiplist)";
        } catch (IOException e) {
            return "cannot run " + comparator + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while asking " + comparator + " --help";
        }
    }

    @Override
    public String name() {
        return "fdb-skiplist";
    }

    @Override
    public String description() {
        return "fdb-skiplist (FoundationDB's skip list, " + comparator + " " + STREAM + ")";
    }

    @Override
    public void beginTrace(TraceHeader header) throws IOException {
        // The comparator tells a header from a batch by its first byte (field 1, length-delimited): the format
        // must be set, and protobuf writes fields in number order.
        TraceHeader h = header.getFormat().isEmpty() ? header.toBuilder().setFormat(TraceFormats.TRACE).build() : header;
        send(h.getSerializedSize(), h::writeTo);
    }

    @Override
    public void submit(Batch batch) throws IOException {
        send(batch.getSerializedSize(), batch::writeTo);
    }

    private interface Body {
        void writeTo(CodedOutputStream out) throws IOException;
    }

    private void send(int size, Body body) throws IOException {
        try {
            coded.writeUInt32NoTag(size);
            body.writeTo(coded);
            coded.flush();
            toProcess.flush();
        } catch (IOException e) {
            throw failure("cannot write to it (" + e.getMessage() + ")");
        }
    }

    @Override
    public BatchAnswer take() throws IOException {
        if (ended) {
            throw failure(null);
        }
        BatchAnswer a;
        try {
            a = answers.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + name());
        }
        if (a == END) {
            ended = true;
            throw failure(null);
        }
        return a;
    }

    @Override
    public void release(BatchAnswer answer) {
        spare.offer(answer);
    }

    /** Reads the comparator's stdout: a DecisionHeader per trace, then one BatchDecisions per batch. */
    private void readAnswers() {
        try (InputStream in = new BufferedInputStream(process.getInputStream(), 1 << 16)) {
            byte[] message = new byte[1 << 12];
            int[] reads = new int[64];
            for (long n; (n = readLength(in)) >= 0; ) {
                if (n > Integer.MAX_VALUE - 8) {
                    throw new IOException("an answer of " + n + " bytes");
                }
                int len = (int) n;
                if (message.length < len) {
                    message = new byte[Math.max(len, message.length * 2)];
                }
                if (in.readNBytes(message, 0, len) < len) {
                    throw new IOException("its output ends inside an answer");
                }
                if (len > 0 && message[0] == 0x0A) { // a DecisionHeader (field 1, length-delimited) starts a trace
                    DecisionHeader h = DecisionHeader.parseFrom(CodedInputStream.newInstance(message, 0, len));
                    if (!TraceFormats.DECISIONS.equals(h.getFormat())) {
                        throw new IOException("it answered with format '" + h.getFormat() + "'");
                    }
                    continue;
                }
                BatchAnswer a = spare.take();
                reads = decode(message, len, a, reads);
                answers.put(a);
            }
        } catch (IOException e) {
            readProblem = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            answers.offer(END);
        }
    }

    /** The next length varint, or -1 at a clean end of the stream. */
    private static long readLength(InputStream in) throws IOException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (shift == 0) {
                    return -1;
                }
                throw new IOException("its output ends inside a length");
            }
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("a malformed length in its output");
    }

    /** A BatchDecisions message into {@code a}; returns the scratch array for read indices (grown if needed). */
    static int[] decode(byte[] message, int len, BatchAnswer a, int[] reads) throws IOException {
        a.clear(0);
        CodedInputStream in = CodedInputStream.newInstance(message, 0, len);
        for (int tag; (tag = in.readTag()) != 0; ) {
            switch (tag) {
                case 1 << 3 | WireFormat.WIRETYPE_VARINT -> a.version = in.readInt64();
                case 2 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                    int n = in.readRawVarint32();
                    if (n < 0 || n > len - in.getTotalBytesRead()) {
                        throw new IOException("an answer whose decisions run past its end");
                    }
                    a.ensureDecisions(n);
                    System.arraycopy(message, in.getTotalBytesRead(), a.decisions, 0, n); // no array per batch
                    in.skipRawBytes(n);
                    a.transactions = n;
                }
                case 3 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                    int limit = in.pushLimit(in.readRawVarint32());
                    int transaction = 0;
                    int count = 0;
                    for (int t; (t = in.readTag()) != 0; ) {
                        if (t == (1 << 3 | WireFormat.WIRETYPE_VARINT)) {
                            transaction = in.readUInt32();
                        } else if (t == (2 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
                            int packed = in.pushLimit(in.readRawVarint32());
                            while (in.getBytesUntilLimit() > 0) {
                                if (count == reads.length) {
                                    reads = java.util.Arrays.copyOf(reads, count * 2);
                                }
                                reads[count++] = in.readUInt32();
                            }
                            in.popLimit(packed);
                        } else if (!in.skipField(t)) {
                            break;
                        }
                    }
                    in.popLimit(limit);
                    a.addConflicting(transaction);
                    a.addConflicting(count);
                    for (int j = 0; j < count; j++) {
                        a.addConflicting(reads[j]);
                    }
                }
                default -> {
                    if (!in.skipField(tag)) {
                        return reads;
                    }
                }
            }
        }
        return reads;
    }

    private void readStderr() {
        try (InputStream err = process.getErrorStream()) {
            byte[] buf = new byte[4096];
            for (int n; (n = err.read(buf)) > 0; ) {
                synchronized (stderr) {
                    stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (stderr.length() > STDERR_KEPT) {
                        stderr.delete(0, stderr.length() - STDERR_KEPT);
                    }
                }
            }
        } catch (IOException e) {
            // the process has gone; what it said is kept
        }
    }

    /** What went wrong with the comparator, with its exit status and its last words on stderr. */
    private IOException failure(String what) {
        String status;
        try {
            status = process.waitFor(10, TimeUnit.SECONDS) ? "exited with status " + process.exitValue() : "still running";
            stderrReader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = "interrupted";
        }
        String said;
        synchronized (stderr) {
            said = stderr.toString().strip().replace('\n', ' ');
        }
        String problem = what != null ? what : readProblem != null ? readProblem : "its output ended";
        return new IOException(description() + ": " + problem + ", " + status + (said.isEmpty() ? "" : ": " + said));
    }

    @Override
    public void close() throws IOException {
        try {
            toProcess.close(); // end of input: the comparator finishes and exits
        } catch (IOException e) {
            // it has gone already
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(5000);
            stderrReader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
