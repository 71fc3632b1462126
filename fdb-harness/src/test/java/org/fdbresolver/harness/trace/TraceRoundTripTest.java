package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceRoundTripTest {

    static TraceHeader header() {
        return TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).setWorkload("test").setSeed(42)
                .putParams("batches", "50").build();
    }

    /** Random batches with point, range and empty ranges, some keys long enough to need a bigger scratch array. */
    static List<Batch> batches(long seed, int count) {
        Random random = new Random(seed);
        List<Batch> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Batch.Builder b = Batch.newBuilder().setVersion(1000L * (i + 1)).setNewOldestVersion(Math.max(0, 1000L * (i - 5)));
            for (int t = random.nextInt(6); t > 0; t--) {
                Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(1000L * i - random.nextInt(3000))
                        .setReportConflictingKeys(random.nextBoolean());
                for (int r = random.nextInt(4); r > 0; r--) {
                    tx.addReads(range(random));
                }
                for (int w = random.nextInt(3); w > 0; w--) {
                    tx.addWrites(range(random));
                }
                b.addTransactions(tx);
            }
            out.add(b.build());
        }
        return out;
    }

    static KeyRange range(Random random) {
        byte[] begin = new byte[random.nextInt(3) == 0 ? 300 + random.nextInt(200) : random.nextInt(12)];
        random.nextBytes(begin);
        byte[] end;
        switch (random.nextInt(3)) {
            case 0 -> { // point [k, k\0)
                end = java.util.Arrays.copyOf(begin, begin.length + 1);
            }
            case 1 -> end = begin.clone(); // empty
            default -> {
                end = java.util.Arrays.copyOf(begin, begin.length + 1);
                end[begin.length] = (byte) 0xff;
            }
        }
        return KeyRange.newBuilder().setBegin(ByteString.copyFrom(begin)).setEnd(ByteString.copyFrom(end)).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"t.trace", "t.trace.gz"})
    void roundTrip(String name, @TempDir Path dir) throws IOException {
        Path file = dir.resolve(name);
        List<Batch> written = batches(7, 50);
        try (TraceWriter w = TraceWriter.create(file, header())) {
            for (Batch b : written) {
                w.write(b);
            }
            assertFalse(Files.exists(file), "nothing at the target before commit");
            w.commit();
        }
        assertTrue(Files.exists(file));
        assertFalse(Files.exists(dir.resolve(name + ".tmp")));
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(2);
            assertEquals(name.endsWith(".gz"), (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b);
        }
        List<Batch> read = new ArrayList<>();
        try (TraceReader r = TraceReader.open(file)) {
            assertEquals(header(), r.header());
            assertEquals(name.endsWith(".gz"), r.isGzip());
            for (Batch b; (b = r.next()) != null; ) {
                read.add(b);
            }
            assertEquals(50, r.batchesRead());
            assertArrayEquals(Hashes.sha256(file), r.offeredSha256());
            assertEquals(Files.size(file), r.storedBytesRead());
        }
        assertEquals(written, read);
    }

    @Test
    void gzipIsDetectedByMagicNotName(@TempDir Path dir) throws IOException {
        Path gz = dir.resolve("a.trace.gz");
        try (TraceWriter w = TraceWriter.create(gz, header())) {
            w.write(batches(1, 1).getFirst());
            w.commit();
        }
        Path renamed = Files.move(gz, dir.resolve("a.bin"));
        try (TraceReader r = TraceReader.open(renamed)) {
            assertTrue(r.isGzip());
            assertEquals(batches(1, 1).getFirst(), r.next());
            assertNull(r.next());
        }
    }

    @Test
    void uncommittedWriterLeavesNothing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.trace.gz");
        try (TraceWriter w = TraceWriter.create(file, header())) {
            w.write(batches(1, 1).getFirst());
        }
        assertFalse(Files.exists(file));
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "the temp file is deleted too");
        }
    }

    @Test
    void writerRefusesAnotherFormatAndFillsAnEmptyOne(@TempDir Path dir) throws IOException {
        assertThrows(IllegalArgumentException.class,
                () -> TraceWriter.create(dir.resolve("x.trace"), header().toBuilder().setFormat("fdb-resolver-trace/2").build()));
        Path file = dir.resolve("y.trace");
        try (TraceWriter w = TraceWriter.create(file, TraceHeader.newBuilder().setWorkload("w").build())) {
            w.commit();
        }
        try (TraceReader r = TraceReader.open(file)) {
            assertEquals(TraceFormats.TRACE, r.header().getFormat());
            assertNull(r.next());
        }
    }

    @Test
    void traceBatchesFillsAConflictBatchExactly() {
        List<Batch> batches = batches(3, 30);
        TraceBatches converter = new TraceBatches();
        ConflictBatch cb = ConflictBatch.detached();
        for (Batch b : batches) {
            converter.load(b, cb);
            assertEquals(b.getTransactionsCount(), cb.transactionCount());
            for (int t = 0; t < cb.transactionCount(); t++) {
                Transaction tx = b.getTransactions(t);
                assertEquals(tx.getReadSnapshot(), cb.readSnapshot(t));
                assertEquals(tx.getReportConflictingKeys(), cb.reportConflictingKeys(t));
                assertEquals(tx.getReadsCount(), cb.readEnd(t) - cb.readStart(t));
                assertEquals(tx.getWritesCount(), cb.writeEnd(t) - cb.writeStart(t));
                for (int i = 0; i < tx.getReadsCount(); i++) {
                    assertArrayEquals(tx.getReads(i).getBegin().toByteArray(), cb.readBegin(cb.readStart(t) + i));
                    assertArrayEquals(tx.getReads(i).getEnd().toByteArray(), cb.readEndKey(cb.readStart(t) + i));
                }
                for (int i = 0; i < tx.getWritesCount(); i++) {
                    assertArrayEquals(tx.getWrites(i).getBegin().toByteArray(), cb.writeBegin(cb.writeStart(t) + i));
                    assertArrayEquals(tx.getWrites(i).getEnd().toByteArray(), cb.writeEndKey(cb.writeStart(t) + i));
                }
            }
        }
    }

    @Test
    void loadedTraceHoldsEveryBatch(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.trace.gz");
        List<Batch> written = batches(11, 100);
        try (TraceWriter w = TraceWriter.create(file, header())) {
            for (Batch b : written) {
                w.write(b);
            }
            w.commit();
        }
        LoadedTrace loaded = LoadedTrace.load(file);
        assertEquals(100, loaded.batchCount());
        assertArrayEquals(Hashes.sha256(file), loaded.offeredSha256());
        long transactions = 0;
        for (int i = 0; i < 100; i++) {
            Batch b = written.get(i);
            assertEquals(b.getVersion(), loaded.version(i));
            assertEquals(b.getNewOldestVersion(), loaded.newOldestVersion(i));
            assertEquals(b.getTransactionsCount(), loaded.batch(i).transactionCount());
            transactions += b.getTransactionsCount();
        }
        assertEquals(transactions, loaded.transactionCount());
        assertEquals(transactions, loaded.transactionCount(0, 100));
    }
}
