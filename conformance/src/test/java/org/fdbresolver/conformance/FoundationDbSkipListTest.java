package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.cli.Main;
import org.fdbresolver.harness.fuzz.BatchAnswer;
import org.fdbresolver.harness.fuzz.SkipListOracle;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The engines against FoundationDB itself, live: FoundationDB's skip list (built by scripts/build-fdb, or from its
 * ConflictSet.cpp alone by scripts/build-skiplist) decides every golden trace — it must reproduce the stored
 * hashes, which shows the comparator drives it as the Resolver does — and every generated differential case, fixed and randomized; every engine must
 * then give the skip list's decision and conflicting-keys hashes. Without a FoundationDB build these
 * tests are reported as not run (see {@link FoundationDbSkipList}).
 */
class FoundationDbSkipListTest {

    @TestFactory
    Stream<DynamicTest> skipListReproducesTheGoldenDecisions() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Golden.Entry entry : Golden.manifest()) {
            tests.add(DynamicTest.dynamicTest("fdb-skiplist on golden " + entry.name(), () -> {
                Map<String, String> fdb = FoundationDbSkipList.decide(FoundationDbSkipList.require(), entry.trace());
                assertEquals(String.valueOf(entry.batches()), fdb.get("batches"), "batches");
                assertEquals(String.valueOf(entry.transactions()), fdb.get("transactions"), "transactions");
                assertEquals(entry.decisionHash(), fdb.get("decision-hash"), "decision hash");
                assertEquals(entry.conflictingKeysHash(), fdb.get("conflicting-keys-hash"), "conflicting-keys hash");
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> enginesDecideLikeTheSkipListOnGeneratedTraces() {
        List<DifferentialCases.Spec> specs = new ArrayList<>(DifferentialCases.fixed());
        specs.addAll(DifferentialCases.randomized());
        List<DynamicTest> tests = new ArrayList<>();
        for (DifferentialCases.Spec spec : specs) {
            tests.add(DynamicTest.dynamicTest("every engine vs fdb-skiplist on " + spec, () -> check(spec)));
        }
        return tests.stream();
    }

    /**
     * {@code --cycles} (issue 30, item 5) shifts the same way on both sides: on the golden capture, the comparator's
     * {@code --cycles 3} gives {@code fdbresolver bench --cycles 3}'s decision and conflicting-keys hashes (a wrong shift
     * turns the later cycles' reads TOO_OLD or CONFLICT), with the warm-up counted across the cycles on both; its
     * {@code --cycles 1} is its plain run.
     */
    @Test
    void cyclesShiftTheTraceAsBenchCyclesDoes() throws Exception {
        Path comparator = FoundationDbSkipList.requireCycles();
        Path capture = Golden.dir().resolve("capture-txn-timeout.trace.gz");
        Map<String, String> plain = FoundationDbSkipList.decide(comparator, capture);
        Map<String, String> one = FoundationDbSkipList.decide(comparator, List.of(capture.toString(), "--cycles", "1"));
        for (String line : List.of("batches", "transactions", "commit", "conflict", "too-old", "decision-hash",
                "conflicting-keys-hash", "history-bytes")) {
            assertEquals(plain.get(line), one.get(line), "--cycles 1: " + line);
        }

        String warmup = Long.toString(Long.parseLong(plain.get("batches")) + 100); // past the first cycle
        Map<String, String> fdb = FoundationDbSkipList.decide(comparator,
                List.of(capture.toString(), "--cycles", "3", "--warmup", warmup));
        Map<String, String> bench = bench(capture.toString(), "--engine", "tree", "--cycles", "3", "--warmup", warmup);
        assertEquals("3", fdb.get("cycles"));
        assertEquals(String.valueOf(3 * Long.parseLong(plain.get("batches"))), fdb.get("batches"));
        for (String line : List.of("batches", "cycles", "timed-batches", "timed-transactions", "decision-hash",
                "conflicting-keys-hash")) {
            assertEquals(fdb.get(line), bench.get(line), "--cycles 3, skip list vs bench: " + line);
        }
    }

    /** {@code fdbresolver bench} in this JVM; its "name: value" lines. */
    private static Map<String, String> bench(String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] command = new String[arguments.length + 1];
        command[0] = "bench";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Main.run(o, e, false, command);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, () -> "bench failed: " + text + err.toString(StandardCharsets.UTF_8));
        Map<String, String> lines = new LinkedHashMap<>();
        text.lines().filter(l -> l.contains(": ")).forEach(l -> lines.put(l.substring(0, l.indexOf(": ")), l.substring(l.indexOf(": ") + 2)));
        return lines;
    }

    /**
     * The fuzzer's path to the skip list ({@code --stream}, one batch answered at a time) with keys of every length:
     * empty, 10 KiB (the fuzzer's mixed-keys shape reaches it), 1 MiB + 77 (the engine has no key limit). Decisions and
     * conflicting reads worked out by hand; the tree must give the same. Aborted, with the reason, when the
     * comparator is not built or was built before {@code --stream} existed.
     */
    @Test
    void theStreamModeDecidesKeysOfEveryLengthAsWorkedOut() throws Exception {
        Path comparator = FoundationDbSkipList.requireStreaming();
        ByteString k10 = repeated('k', 10_240);
        ByteString k10Next = k10.substring(0, 10_239).concat(ByteString.copyFromUtf8("l")); // differs in the last byte
        ByteString k10Prefix = k10.substring(0, 10_239);
        ByteString huge = repeated('m', (1 << 20) + 77);
        ByteString empty = ByteString.EMPTY;
        List<Batch> batches = List.of(
                batch(100, tx(0, List.of(), List.of(point(k10), point(huge), point(empty)))),
                batch(200,
                        tx(50, List.of(point(k10)), List.of()), // CONFLICT [0]: written at 100
                        tx(50, List.of(point(k10Next)), List.of()), // COMMIT: one byte on
                        tx(50, List.of(range(k10Prefix, k10)), List.of()), // COMMIT: the end is not in it
                        tx(50, List.of(range(k10Prefix, k10Next)), List.of()), // CONFLICT [0]
                        tx(50, List.of(point(huge)), List.of()), // CONFLICT [0]
                        tx(50, List.of(range(huge.concat(ByteString.copyFrom(new byte[] {0})),
                                huge.concat(ByteString.copyFrom(new byte[] {1})))), List.of()), // COMMIT: past the point
                        tx(50, List.of(point(empty)), List.of()), // CONFLICT [0]
                        tx(50, List.of(range(k10, k10)), List.of()), // COMMIT: an empty range
                        tx(100, List.of(point(k10)), List.of()), // COMMIT: reads at the write's version
                        tx(50, List.of(point(k10Next), point(k10)), List.of())), // CONFLICT [1]
                batch(300,
                        tx(250, List.of(), List.of(point(k10Next))), // COMMIT
                        tx(250, List.of(point(k10Next)), List.of()), // CONFLICT [0]: the writer before it in the batch
                        tx(99, List.of(point(huge)), List.of()), // CONFLICT [0]
                        tx(100, List.of(point(huge)), List.of()))); // COMMIT
        List<List<String>> expected = List.of(
                List.of("COMMIT"),
                List.of("CONFLICT [0]", "COMMIT", "COMMIT", "CONFLICT [0]", "CONFLICT [0]", "COMMIT", "CONFLICT [0]",
                        "COMMIT", "COMMIT", "CONFLICT [1]"),
                List.of("COMMIT", "CONFLICT [0]", "CONFLICT [0]", "COMMIT"));
        TraceHeader header = TraceHeader.newBuilder().setFormat("fdb-resolver-trace/1").setWorkload("long-keys").build();

        List<List<String>> skipList = new ArrayList<>();
        try (SkipListOracle oracle = SkipListOracle.start(comparator)) {
            oracle.beginTrace(header);
            for (Batch b : batches) {
                oracle.submit(b);
                BatchAnswer a = oracle.take();
                List<String> decided = new ArrayList<>();
                for (int t = 0; t < a.transactions(); t++) {
                    decided.add(a.describe(t));
                }
                oracle.release(a);
                skipList.add(decided);
            }
        }
        assertEquals(expected, skipList, "FoundationDB's skip list through --stream");

        List<List<String>> tree = new ArrayList<>();
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
            ConflictBatch cb = cs.newBatch();
            TraceBatches converter = new TraceBatches();
            for (Batch b : batches) {
                converter.load(b, cb);
                BatchResult r = cb.detectConflicts(b.getVersion(), b.getNewOldestVersion());
                List<String> decided = new ArrayList<>();
                for (int t = 0; t < r.transactionCount(); t++) {
                    decided.add(describe(r, t));
                }
                tree.add(decided);
            }
        }
        assertEquals(expected, tree, "tree");
    }

    private static ByteString repeated(char c, int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) c);
        return ByteString.copyFrom(b);
    }

    private static KeyRange point(ByteString k) {
        return range(k, k.concat(ByteString.copyFrom(new byte[] {0})));
    }

    private static KeyRange range(ByteString begin, ByteString end) {
        return KeyRange.newBuilder().setBegin(begin).setEnd(end).build();
    }

    private static Transaction tx(long snapshot, List<KeyRange> reads, List<KeyRange> writes) {
        return Transaction.newBuilder().setReadSnapshot(snapshot).addAllReads(reads).addAllWrites(writes)
                .setReportConflictingKeys(true).build();
    }

    private static Batch batch(long version, Transaction... transactions) {
        return Batch.newBuilder().setVersion(version).setNewOldestVersion(0).addAllTransactions(List.of(transactions)).build();
    }

    /** As {@link BatchAnswer#describe} shows a decision: {@code COMMIT}, {@code CONFLICT [0, 2]}. */
    private static String describe(BatchResult r, int t) {
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            if (r.conflictingTransaction(i) == t) {
                StringBuilder sb = new StringBuilder(r.decision(t) + " [");
                for (int j = 0; j < r.conflictingReadCount(i); j++) {
                    sb.append(j == 0 ? "" : ", ").append(r.conflictingRead(i, j));
                }
                return sb.append(']').toString();
            }
        }
        return r.decision(t).toString();
    }

    private static void check(DifferentialCases.Spec spec) throws Exception {
        Path comparator = FoundationDbSkipList.require();
        DifferentialCases.Case c = spec.generate();
        Path trace = c.saveFailingInput("fdb-skiplist", c.batches().size() - 1);
        Map<String, String> fdb;
        try {
            fdb = FoundationDbSkipList.decide(comparator, trace);
        } finally {
            Files.deleteIfExists(trace);
        }
        List<String> differences = new ArrayList<>();
        for (EnginesUnderTest.Variant engine : EnginesUnderTest.all()) {
            EngineRun run = DifferentialTest.run(engine, c);
            if (!run.decisionHash().equals(fdb.get("decision-hash"))
                    || !run.conflictingKeysHash().equals(fdb.get("conflicting-keys-hash"))) {
                differences.add(engine.label());
            }
        }
        if (!differences.isEmpty()) {
            Path saved = c.saveFailingInput("vs-fdb-skiplist", c.batches().size() - 1);
            fail(differences + " decide unlike FoundationDB's skip list on " + c + " (skip list: decision hash "
                    + fdb.get("decision-hash") + ", conflicting-keys hash " + fdb.get("conflicting-keys-hash")
                    + "); input saved as " + saved + "; compare with `fdbresolver resolve` and the comparator");
        }
    }
}
