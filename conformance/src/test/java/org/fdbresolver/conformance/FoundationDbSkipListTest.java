package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The engines against FoundationDB itself, live: FoundationDB's skip list (built by scripts/build-fdb)
 * decides every golden trace — it must reproduce the stored hashes, which shows the comparator drives it
 * as the Resolver does — and every generated differential case, fixed and randomized; every engine must
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
