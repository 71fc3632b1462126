package org.fdbresolver.harness.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;
import org.fdbresolver.trace.v1.DecisionHeader;

/**
 * A stand-in for {@code fdbresolver_fdb_skiplist --stream} (jni-bridge/fdb/skiplist), speaking its protocol
 * (docs/formats.md, "Streams") with the reference engine deciding, so that the fuzzer's side of the protocol is
 * tested where FoundationDB is not built. {@code FAKE_COMPARATOR=commit-all} answers COMMIT for everything (a
 * comparator that disagrees), {@code die-after=N} exits with status 2 and an error line after N batches, and
 * {@code no-stream} has a --help without --stream (an old comparator).
 */
public final class FakeStreamComparator {
    private FakeStreamComparator() {
    }

    /** An executable script in {@code dir} that runs this class with {@code mode}, on this JVM's class path. */
    public static Path script(Path dir, String mode) throws IOException {
        Path script = dir.resolve("fake-skiplist-" + mode);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(script, "#!/bin/sh\nFAKE_COMPARATOR='" + mode + "' exec '" + java + "' -cp '"
                + System.getProperty("java.class.path") + "' " + FakeStreamComparator.class.getName() + " \"$@\"\n");
        script.toFile().setExecutable(true);
        return script;
    }

    public static void main(String[] args) throws IOException {
        String mode = System.getenv().getOrDefault("FAKE_COMPARATOR", "");
        if (args.length == 1 && args[0].equals("--help")) {
            System.out.println("usage: fake TRACE" + (mode.equals("no-stream") ? "" : "\n       fake --stream"));
            return;
        }
        if (args.length != 1 || !args[0].equals("--stream")) {
            System.err.println("error: unknown option " + String.join(" ", args));
            System.exit(2);
        }
        long dieAfter = mode.startsWith("die-after=") ? Long.parseLong(mode.substring("die-after=".length())) : -1;
        InputStream in = new BufferedInputStream(System.in);
        OutputStream out = new BufferedOutputStream(System.out);
        ConflictSet cs = null;
        ConflictBatch batch = null;
        TraceBatches converter = new TraceBatches();
        long batches = 0;
        for (byte[] message; (message = frame(in)) != null; ) {
            if (message.length > 0 && message[0] == 0x0A) {
                cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build());
                batch = cs.newBatch();
                DecisionHeader.newBuilder().setFormat("fdb-resolver-decisions/1").setEngine("fake").build().writeDelimitedTo(out);
                out.flush();
                continue;
            }
            if (batches++ == dieAfter) {
                out.flush();
                System.err.println("error: stdin: trace 1: batch " + dieAfter + ": dying as asked");
                System.exit(2);
            }
            Batch b = Batch.parseFrom(CodedInputStream.newInstance(message));
            converter.load(b, batch);
            BatchResult r = batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
            byte[] decisions = new byte[r.transactionCount()];
            List<ConflictingReads> reads = new ArrayList<>();
            if (!mode.equals("commit-all")) {
                System.arraycopy(r.decisionBytes(), 0, decisions, 0, decisions.length);
                for (int i = 0; i < r.conflictingTransactionCount(); i++) {
                    ConflictingReads.Builder c = ConflictingReads.newBuilder().setTransaction(r.conflictingTransaction(i));
                    for (int j = 0; j < r.conflictingReadCount(i); j++) {
                        c.addReadRanges(r.conflictingRead(i, j));
                    }
                    reads.add(c.build());
                }
            }
            BatchDecisions.newBuilder().setVersion(b.getVersion()).setDecisions(ByteString.copyFrom(decisions))
                    .addAllConflictingReads(reads).build().writeDelimitedTo(out);
            out.flush(); // answered before the next batch is read, as the comparator does
        }
        out.flush();
    }

    private static byte[] frame(InputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        long length = first & 0x7F;
        for (int shift = 7, b = first; (b & 0x80) != 0; shift += 7) {
            b = in.read();
            length |= (long) (b & 0x7F) << shift;
        }
        return in.readNBytes((int) length);
    }
}
