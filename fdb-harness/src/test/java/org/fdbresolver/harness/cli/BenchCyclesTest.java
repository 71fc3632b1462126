package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --cycles N} (issue 30, item 5): one cycle is the plain run; N cycles decide exactly what a trace file
 * holding the N shifted copies decides, written here batch by batch with the span rule spelled out, so the check does
 * not go through {@code LoadedTrace.cycled}; counts and the warm-up run across the cycles.
 */
class BenchCyclesTest {
    @TempDir
    static Path dir;
    static Path trace;
    static final int BATCHES = 30;

    @BeforeAll
    static void generate() {
        // conflictset-range: conflicts and too-old reads both, so a shift gone wrong changes the decisions
        trace = dir.resolve("t.trace");
        CliRun gen = CliRun.of("gen", "conflictset-range", "--batches", Integer.toString(BATCHES), "--seed", "5",
                "--out", trace.toString());
        assertEquals(0, gen.code(), gen::toString);
    }

    @Test
    void noBatchCpuDecidesTheSameWithoutTheCpuFigures() {
        CliRun with = CliRun.of("bench", trace.toString(), "--warmup", "3");
        CliRun without = CliRun.of("bench", trace.toString(), "--warmup", "3", "--no-batch-cpu");
        assertEquals(0, without.code(), without::toString);
        assertEquals(with.value("decision-hash"), without.value("decision-hash"));
        assertEquals("n/a", without.value("batch-cpu-seconds"));
        assertEquals("n/a", without.value("cpu-latency-p99"));
        assertNotEquals("n/a", with.value("batch-cpu-seconds"), with::toString);
        assertNotEquals("n/a", without.value("cpu-seconds"), without::toString);
        assertNotEquals(null, without.value("latency-p99"), without::toString);
    }

    /** {@code --settle-jit} warms throwaway engines first: the trace's decisions and history are the plain run's. */
    @Test
    void settlingTheJitDecidesTheSame() {
        CliRun plain = CliRun.of("bench", trace.toString(), "--warmup", "3");
        CliRun settled = CliRun.of("bench", trace.toString(), "--warmup", "3", "--settle-jit", "--engine-option",
                "warmUpBatches=100", "--engine-option", "warmUpSettleMillis=1");
        assertEquals(0, settled.code(), settled::toString);
        for (String line : List.of("decision-hash", "conflicting-keys-hash", "history-bytes", "retained-version")) {
            assertEquals(plain.value(line), settled.value(line), line);
        }
        CliRun reference = CliRun.of("bench", trace.toString(), "--settle-jit", "--engine", "reference");
        assertEquals(2, reference.code(), reference::toString);
        assertEquals("error: --settle-jit warms engine tree only, not reference", reference.err().strip());
    }

    /**
     * {@code --evict-caches} writes over a buffer between timed batches: the decisions and history are the plain run's,
     * {@code cpu-seconds} (which would count the eviction) is n/a, and a size outside 64 bytes to 2 GiB is refused.
     */
    @Test
    void evictingTheCachesBetweenBatchesDecidesTheSame() {
        CliRun plain = CliRun.of("bench", trace.toString(), "--warmup", "3");
        CliRun evicted = CliRun.of("bench", trace.toString(), "--warmup", "3", "--evict-caches", "1m");
        assertEquals(0, evicted.code(), evicted::toString);
        for (String line : List.of("decision-hash", "conflicting-keys-hash", "history-bytes", "retained-version", "timed-batches")) {
            assertEquals(plain.value(line), evicted.value(line), line);
        }
        assertEquals("n/a", evicted.value("cpu-seconds"));
        assertNotEquals("n/a", evicted.value("batch-cpu-seconds"), evicted::toString);
        for (String size : List.of("32", "3g")) {
            CliRun bad = CliRun.of("bench", trace.toString(), "--evict-caches", size);
            assertEquals(2, bad.code(), bad::toString);
            assertEquals("error: --evict-caches " + (size.equals("32") ? "32" : Long.toString(3L << 30))
                    + ": give 64 bytes to 2 GiB", bad.err().strip());
        }
    }

    @Test
    void oneCycleIsThePlainRun() {
        CliRun plain = CliRun.of("bench", trace.toString(), "--warmup", "3");
        CliRun one = CliRun.of("bench", trace.toString(), "--warmup", "3", "--cycles", "1");
        assertEquals(0, one.code(), one::toString);
        assertEquals("1", one.value("cycles"));
        for (String line : List.of("batches", "timed-batches", "timed-transactions", "decision-hash", "conflicting-keys-hash",
                "retained-version")) {
            assertEquals(plain.value(line), one.value(line), line);
        }
    }

    @Test
    void threeCyclesDecideAsTheShiftedCopiesWrittenOut() throws IOException {
        List<Batch> batches = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(trace)) {
            for (Batch b; (b = reader.next()) != null; ) {
                batches.add(b);
            }
        }
        long first = batches.getFirst().getVersion();
        long span = batches.getLast().getVersion() - first + Math.max(1, batches.get(1).getVersion() - first);
        Path written = dir.resolve("three-cycles.trace");
        try (TraceWriter w = TraceWriter.create(written, TraceReader.open(trace).header())) {
            for (int c = 0; c < 3; c++) {
                long shift = c * span;
                for (Batch b : batches) {
                    Batch.Builder shifted = b.toBuilder().setVersion(b.getVersion() + shift)
                            .setNewOldestVersion(b.getNewOldestVersion() + shift);
                    for (Transaction.Builder tx : shifted.getTransactionsBuilderList()) {
                        tx.setReadSnapshot(tx.getReadSnapshot() + shift);
                    }
                    w.write(shifted.build());
                }
            }
            w.commit();
        }

        // --warmup 40 is more than one cycle holds: it counts across the cycles
        CliRun cycled = CliRun.of("bench", trace.toString(), "--cycles", "3", "--warmup", "40");
        CliRun writtenOut = CliRun.of("bench", written.toString(), "--warmup", "40");
        assertEquals(0, cycled.code(), cycled::toString);
        assertEquals("3", cycled.value("cycles"));
        assertEquals(Integer.toString(3 * BATCHES), cycled.value("batches"));
        assertEquals(Integer.toString(3 * BATCHES - 40), cycled.value("timed-batches"));
        for (String line : List.of("batches", "timed-transactions", "decision-hash", "conflicting-keys-hash", "retained-version")) {
            assertEquals(writtenOut.value(line), cycled.value(line), line);
        }
    }

    @Test
    void aWarmupOfEveryCycleSaysHowManyBatchesTheCyclesHold() {
        CliRun run = CliRun.of("bench", trace.toString(), "--cycles", "2", "--warmup", Integer.toString(2 * BATCHES));
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: --warmup 60 leaves nothing to time: " + trace + " has 60 batches over 2 cycles"
                + " (use --warmup 59 or less)"), run.errLines());
    }
}
