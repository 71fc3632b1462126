package org.fdbresolver.harness.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzzer's side of the comparator's stream protocol (docs/formats.md, "Streams"), against
 * {@link FakeStreamComparator}, which speaks it with the reference engine deciding: traces back to back through one
 * process, every batch answered and compared, a comparator that dies or disagrees reported as such.
 */
class SkipListOracleTest {
    @TempDir
    static Path dir;

    static EngineSource reference() {
        return new EngineSource() {
            @Override
            public String name() {
                return "reference";
            }

            @Override
            public boolean honoursBudget() {
                return false;
            }

            @Override
            public ConflictSet open(Long budget, Map<String, String> extraOptions) {
                return ConflictSet.open(ConflictSetConfig.builder().engine("reference").build());
            }

            @Override
            public String budgetText(Long budget) {
                return null;
            }
        };
    }

    private static Workload random(long seed) {
        return Workloads.get("random").create(new WorkloadParams(OptionalLong.of(seed), OptionalLong.of(200),
                Map.of("report-fraction", "0.5", "txns", "20")));
    }

    @Test
    void tracesBackToBackAreAnsweredBatchByBatch() throws IOException {
        try (SkipListOracle oracle = SkipListOracle.start(FakeStreamComparator.script(dir, "agree"))) {
            DifferentialRun run = new DifferentialRun(reference(), oracle);
            long transactions = 0;
            for (long seed = 1; seed <= 3; seed++) {
                Workload w = random(seed);
                DifferentialRun.Outcome o = run.run(w.header(), w::nextBatch, Long.MAX_VALUE, null, Map.of(), null, null);
                assertNull(o.first(), () -> "the same rules differ: " + o.first());
                assertEquals(200, o.batches());
                transactions += o.transactions();
            }
            assertTrue(transactions > 1000, "compared " + transactions);
        }
    }

    @Test
    void aComparatorThatDisagreesIsADifference() throws IOException {
        try (SkipListOracle oracle = SkipListOracle.start(FakeStreamComparator.script(dir, "commit-all"))) {
            Workload w = random(4);
            DifferentialRun.Outcome o = new DifferentialRun(reference(), oracle).run(w.header(), w::nextBatch, Long.MAX_VALUE,
                    null, Map.of(), null, null);
            assertNotNull(o.first());
            assertTrue(o.first().text().endsWith("fdb-skiplist COMMIT"), o.first()::toString);
            // The process is still in step: the next trace is answered.
            Workload next = random(5);
            assertNotNull(new DifferentialRun(reference(), oracle).run(next.header(), next::nextBatch, Long.MAX_VALUE, null,
                    Map.of(), null, null).first());
        }
    }

    @Test
    void aComparatorThatDiesIsAFailureWithItsLastWords() throws IOException {
        try (SkipListOracle oracle = SkipListOracle.start(FakeStreamComparator.script(dir, "die-after=3"))) {
            Workload w = random(6);
            IOException e = assertThrows(IOException.class, () -> new DifferentialRun(reference(), oracle).run(w.header(),
                    w::nextBatch, Long.MAX_VALUE, null, Map.of(), null, null));
            assertTrue(e.getMessage().contains("exited with status 2"), e.getMessage());
            assertTrue(e.getMessage().contains("error: stdin: trace 1: batch 3: dying as asked"), e.getMessage());
        }
    }

    @Test
    void aComparatorWithoutTheStreamModeIsRecognised() throws IOException {
        assertNull(SkipListOracle.lacksStreaming(FakeStreamComparator.script(dir, "agree")));
        String why = SkipListOracle.lacksStreaming(FakeStreamComparator.script(dir, "no-stream"));
        assertNotNull(why);
        assertTrue(why.contains("has no --stream mode"), why);
        assertTrue(SkipListOracle.lacksStreaming(dir.resolve("missing")).startsWith("cannot run"));
    }

    @Test
    void answersDecodeAsDecisionFilesEncodeThem() throws IOException {
        // The comparator encodes BatchDecisions as DecisionWriter does; decode what protobuf itself writes.
        org.fdbresolver.trace.v1.BatchDecisions d = org.fdbresolver.trace.v1.BatchDecisions.newBuilder().setVersion(7)
                .setDecisions(com.google.protobuf.ByteString.copyFrom(new byte[] {0, 1, 2, 1}))
                .addConflictingReads(org.fdbresolver.trace.v1.ConflictingReads.newBuilder().setTransaction(1)
                        .addAllReadRanges(List.of(0, 2, 300)))
                .addConflictingReads(org.fdbresolver.trace.v1.ConflictingReads.newBuilder().setTransaction(3)).build();
        byte[] bytes = d.toByteArray();
        BatchAnswer a = new BatchAnswer();
        SkipListOracle.decode(bytes, bytes.length, a, new int[1]);
        assertEquals(7, a.version);
        assertEquals(4, a.transactions);
        assertEquals("CONFLICT [0, 2, 300]", a.describe(1));
        assertEquals("CONFLICT []", a.describe(3));
        assertEquals("TOO_OLD", a.describe(2));
        assertEquals("COMMIT", a.describe(0));
    }
}
