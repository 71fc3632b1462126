package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every engine, on every golden trace, must give exactly the decision hash and conflicting-keys hash that
 * FoundationDB's skip list produced. On a mismatch the test names the first differing transaction by
 * comparing with FoundationDB's decision file.
 */
class GoldenConformanceTest {

    @TestFactory
    Stream<DynamicTest> everyEngineMatchesFoundationDb() throws IOException {
        List<Golden.Entry> manifest = Golden.manifest();
        List<DynamicTest> tests = new ArrayList<>();
        for (EnginesUnderTest.Variant engine : EnginesUnderTest.all()) {
            for (Golden.Entry entry : manifest) {
                tests.add(DynamicTest.dynamicTest(engine + " on " + entry.name(), () -> check(engine, entry)));
            }
        }
        return tests.stream();
    }

    private static void check(EnginesUnderTest.Variant engine, Golden.Entry entry) throws IOException {
        EngineRun run;
        try (TraceReader trace = TraceReader.open(entry.trace())) {
            run = EngineRun.run(engine.create(), engine.config(), () -> next(trace));
        }
        if (!entry.decisionHash().equals(run.decisionHash()) || !entry.conflictingKeysHash().equals(run.conflictingKeysHash())) {
            assertNull(run.firstDifference(foundationDb(entry)), engine + " differs from FoundationDB on " + entry.name());
        }
        assertEquals(entry.batches(), run.hasher.batches(), "batches");
        assertEquals(entry.transactions(), run.hasher.transactions(), "transactions");
        assertEquals(entry.decisionHash(), run.decisionHash(), "decision hash");
        assertEquals(entry.conflictingKeysHash(), run.conflictingKeysHash(), "conflicting-keys hash");
    }

    private static Batch next(TraceReader trace) {
        try {
            return trace.next();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** FoundationDB's decisions as an {@link EngineRun}, for naming the first difference. */
    private static EngineRun foundationDb(Golden.Entry entry) throws IOException {
        EngineRun fdb = EngineRun.empty("foundationdb");
        try (DecisionReader reader = DecisionReader.open(entry.decisions())) {
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                fdb.record(d);
            }
        }
        return fdb;
    }
}
