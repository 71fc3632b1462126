package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The fast wire decoder gives exactly what protobuf's parser plus TraceBatches give. */
class BatchWireDecoderTest {

    /** Everything an engine can see of a batch, as text. */
    static String describe(ConflictBatch b) {
        HexFormat hex = HexFormat.of();
        StringBuilder sb = new StringBuilder();
        for (int t = 0; t < b.transactionCount(); t++) {
            sb.append("tx ").append(b.readSnapshot(t)).append(' ').append(b.reportConflictingKeys(t)).append('\n');
            for (int r = b.readStart(t); r < b.readEnd(t); r++) {
                sb.append("  r ").append(hex.formatHex(b.readBegin(r))).append(' ').append(hex.formatHex(b.readEndKey(r))).append('\n');
            }
            for (int w = b.writeStart(t); w < b.writeEnd(t); w++) {
                sb.append("  w ").append(hex.formatHex(b.writeBegin(w))).append(' ').append(hex.formatHex(b.writeEndKey(w))).append('\n');
            }
        }
        return sb.toString();
    }

    static String viaProtobuf(byte[] message) throws IOException {
        Batch batch = Batch.parseFrom(message);
        ConflictBatch cb = ConflictBatch.detached();
        new TraceBatches().load(batch, cb);
        return batch.getVersion() + "/" + batch.getNewOldestVersion() + "\n" + describe(cb);
    }

    static String viaDecoder(byte[] message, boolean expectFastPath) {
        BatchWireDecoder d = new BatchWireDecoder();
        ConflictBatch cb = ConflictBatch.detached();
        // Decode into a batch that already holds something, as a reused batch does.
        cb.addTransaction(1, true);
        cb.addRead(new byte[] {1}, new byte[] {2});
        byte[] padded = java.util.Arrays.copyOf(message, message.length + 7); // bytes past len must be ignored
        boolean fast = d.decode(padded, message.length, cb);
        assertEquals(expectFastPath, fast, "fast path taken");
        return d.version() + "/" + d.newOldestVersion() + "\n" + describe(cb);
    }

    static Stream<Arguments> goldenTraces() throws IOException {
        return GoldenFiles.goldenManifest().stream()
                .filter(r -> Long.parseLong(r.get("transactions")) <= 160_000)
                .map(r -> Arguments.of(r.get("name")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenTraces")
    void goldenTracesDecodeIdentically(String name) throws IOException {
        Path trace = GoldenFiles.dir().resolve(name + ".trace.gz");
        ConflictBatch fast = ConflictBatch.detached();
        ConflictBatch slow = ConflictBatch.detached();
        TraceBatches converter = new TraceBatches();
        try (TraceReader a = TraceReader.open(trace); TraceReader b = TraceReader.open(trace)) {
            while (a.nextInto(fast)) {
                Batch batch = b.next();
                converter.load(batch, slow);
                assertEquals(batch.getVersion(), a.version());
                assertEquals(batch.getNewOldestVersion(), a.newOldestVersion());
                assertEquals(describe(slow), describe(fast), "batch " + (a.batchesRead() - 1));
            }
            assertEquals(null, b.next());
            assertEquals(Hashes.hex(a.offeredSha256()), Hashes.hex(b.offeredSha256()));
        }
    }

    @Test
    void randomBatchesDecodeIdentically() throws IOException {
        for (Batch b : TraceRoundTripTest.batches(99, 300)) {
            byte[] m = b.toByteArray();
            assertEquals(viaProtobuf(m), viaDecoder(m, true));
        }
    }

    /** Hand-made encodings protobuf accepts but its own writer never produces. */
    static Stream<Arguments> craftedEncodings() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        cases.add(Arguments.of("scalars after ranges, last value wins, end field before begin field", craft(true), true));
        cases.add(Arguments.of("unknown fields of every wire type, known numbers with the wrong wire type", craft(false), true));
        cases.add(Arguments.of("a group (left to protobuf)", encode(o -> {
            o.writeInt64(1, 7);
            o.writeTag(9, WireFormat.WIRETYPE_START_GROUP);
            o.writeInt32(1, 3);
            o.writeTag(9, WireFormat.WIRETYPE_END_GROUP);
            o.writeInt64(2, 6);
        }), false));
        cases.add(Arguments.of("negative versions and snapshot", Batch.newBuilder().setVersion(-5).setNewOldestVersion(-9)
                .addTransactions(org.fdbresolver.trace.v1.Transaction.newBuilder().setReadSnapshot(Long.MIN_VALUE)
                        .addWrites(org.fdbresolver.trace.v1.KeyRange.getDefaultInstance()))
                .build().toByteArray(), true));
        cases.add(Arguments.of("empty batch", new byte[0], true));
        return cases.stream();
    }

    interface Body {
        void write(CodedOutputStream o) throws IOException;
    }

    static byte[] encode(Body body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream o = CodedOutputStream.newInstance(bytes);
        body.write(o);
        o.flush();
        return bytes.toByteArray();
    }

    static byte[] craft(boolean reordered) throws IOException {
        byte[] range = encode(o -> {
            if (reordered) {
                o.writeBytes(2, ByteString.copyFromUtf8("zz"));
                o.writeBytes(1, ByteString.copyFromUtf8("first-begin"));
                o.writeBytes(1, ByteString.copyFromUtf8("aa")); // last begin wins
            } else {
                o.writeBytes(1, ByteString.copyFromUtf8("b"));
                o.writeFixed32(7, 1);
                o.writeInt64(1, 99); // field 1 as a varint: an unknown field, skipped
                o.writeBytes(2, ByteString.copyFromUtf8("c"));
                o.writeFixed64(8, 2);
            }
        });
        byte[] tx = encode(o -> {
            o.writeByteArray(2, range);
            o.writeByteArray(3, range);
            if (reordered) {
                o.writeInt64(1, 10);
                o.writeBool(4, true);
                o.writeInt64(1, 42); // last snapshot wins
                o.writeBytes(3, ByteString.EMPTY); // an empty KeyRange message: [, )
            } else {
                o.writeInt64(1, 42);
                o.writeBytes(1, ByteString.copyFromUtf8("x")); // snapshot as bytes: unknown, skipped
                o.writeByteArray(11, range);
                o.writeInt64(4, 2); // bool from a varint other than 1
            }
        });
        return encode(o -> {
            if (reordered) {
                o.writeByteArray(3, tx);
                o.writeInt64(1, 3000);
                o.writeInt64(2, 100);
                o.writeInt64(1, 4000);
                o.writeByteArray(3, tx);
            } else {
                o.writeFixed64(12, 5);
                o.writeInt64(1, 4000);
                o.writeInt64(3, 8); // transactions as a varint: unknown, skipped
                o.writeByteArray(3, tx);
                o.writeFixed32(2, 9); // oldest as fixed32: unknown, skipped
                o.writeInt64(2, 100);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("craftedEncodings")
    void craftedEncodingsDecodeAsProtobufDoes(String what, byte[] message, boolean fastPath) throws IOException {
        String expected = viaProtobuf(message);
        String decoded = viaDecoder(message, fastPath);
        if (fastPath) {
            assertEquals(expected, decoded);
        }
        assertEquals(expected, viaReader(message), "TraceReader.nextInto, falling back to protobuf when needed");
    }

    /** The message as the one batch of a trace, read with nextInto. */
    static String viaReader(byte[] message) throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(file);
        CodedOutputStream o = CodedOutputStream.newInstance(file);
        o.writeUInt32NoTag(message.length);
        o.writeRawBytes(message);
        o.flush();
        try (TraceReader r = TraceReader.open(new java.io.ByteArrayInputStream(file.toByteArray()))) {
            ConflictBatch cb = ConflictBatch.detached();
            assertTrue(r.nextInto(cb));
            assertFalse(r.nextInto(cb));
            return r.version() + "/" + r.newOldestVersion() + "\n" + describe(cb);
        }
    }

    @Test
    void malformedMessagesFallBackAndGiveProtobufsError(@TempDir Path dir) throws IOException {
        byte[] good = Batch.newBuilder().setVersion(5)
                .addTransactions(org.fdbresolver.trace.v1.Transaction.newBuilder().setReadSnapshot(1)
                        .addReads(org.fdbresolver.trace.v1.KeyRange.newBuilder().setBegin(ByteString.copyFromUtf8("a"))))
                .build().toByteArray();
        // Cut the nested length short: the outer frame is intact, the transaction's inner length overruns it.
        byte[] bad = java.util.Arrays.copyOf(good, good.length - 1);
        BatchWireDecoder d = new BatchWireDecoder();
        assertFalse(d.decode(bad, bad.length, ConflictBatch.detached()));

        ByteArrayOutputStream file = new ByteArrayOutputStream();
        TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).build().writeDelimitedTo(file);
        CodedOutputStream o = CodedOutputStream.newInstance(file);
        o.writeUInt32NoTag(bad.length);
        o.writeRawBytes(bad);
        o.flush();
        Path f = Files.write(dir.resolve("bad.trace"), file.toByteArray());
        try (TraceReader r = TraceReader.open(f)) {
            TraceFormatException e = org.junit.jupiter.api.Assertions.assertThrows(TraceFormatException.class,
                    () -> r.nextInto(ConflictBatch.detached()));
            assertTrue(e.getMessage().startsWith("batch 0: malformed Batch message: "), e.getMessage());
        }
    }
}
