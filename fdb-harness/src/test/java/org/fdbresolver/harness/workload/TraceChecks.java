package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/** Helpers shared by the generator tests: run a workload, serialize it, check validity (docs/formats.md). */
final class TraceChecks {
    private TraceChecks() {
    }

    static WorkloadParams params(long seed, long batches, Map<String, String> options) {
        return new WorkloadParams(OptionalLong.of(seed), OptionalLong.of(batches), options);
    }

    static Workload create(String name, long seed, long batches, Map<String, String> options) {
        return Workloads.get(name).create(params(seed, batches, options));
    }

    /** Every batch of the run, checking that the run ends exactly after {@code batchCount()} batches. */
    static List<Batch> drain(Workload w) {
        List<Batch> out = new ArrayList<>();
        for (Batch b = w.nextBatch(); b != null; b = w.nextBatch()) {
            out.add(b);
        }
        assertEquals(w.batchCount(), out.size(), "batchCount() must match the batches produced");
        assertEquals(null, w.nextBatch(), "a finished run stays finished");
        return out;
    }

    /** The trace bytes as a file would hold them: delimited header then delimited batches. */
    static byte[] bytes(Workload w) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            w.header().writeDelimitedTo(out);
            for (Batch b = w.nextBatch(); b != null; b = w.nextBatch()) {
                b.writeDelimitedTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static int compare(ByteString a, ByteString b) {
        return ByteString.unsignedLexicographicalComparator().compare(a, b);
    }

    /** The validity rules of docs/formats.md over a whole run. */
    static void assertValid(List<Batch> batches) {
        long prevVersion = Long.MIN_VALUE;
        long prevOldest = 0;
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            String where = "batch " + i;
            assertTrue(b.getVersion() >= 0, where + ": version >= 0");
            assertTrue(b.getNewOldestVersion() >= 0, where + ": new_oldest_version >= 0");
            assertTrue(b.getVersion() > prevVersion, where + ": version strictly increasing");
            assertTrue(b.getNewOldestVersion() >= prevOldest, where + ": oldest non-decreasing");
            assertTrue(b.getNewOldestVersion() <= b.getVersion(), where + ": oldest <= version");
            prevVersion = b.getVersion();
            prevOldest = b.getNewOldestVersion();
            for (int t = 0; t < b.getTransactionsCount(); t++) {
                Transaction tx = b.getTransactions(t);
                for (KeyRange r : tx.getReadsList()) {
                    assertTrue(compare(r.getBegin(), r.getEnd()) <= 0, where + " tx " + t + ": read begin <= end");
                }
                for (KeyRange r : tx.getWritesList()) {
                    assertTrue(compare(r.getBegin(), r.getEnd()) <= 0, where + " tx " + t + ": write begin <= end");
                }
            }
        }
    }

    /** The key's big-endian unsigned integer value (for keys of at most 8 bytes). */
    static long bigEndian(ByteString k) {
        long v = 0;
        for (int i = 0; i < k.size(); i++) {
            v = (v << 8) | (k.byteAt(i) & 0xff);
        }
        return v;
    }

    static boolean isPoint(KeyRange r) {
        return r.getEnd().size() == r.getBegin().size() + 1 && r.getEnd().startsWith(r.getBegin())
                && r.getEnd().byteAt(r.getBegin().size()) == 0;
    }
}
