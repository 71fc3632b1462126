package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every engine against the reference engine, transaction by transaction, on every generator with fixed
 * seeds and on randomized runs. A failure names the seed and the first differing transaction, and saves
 * the trace up to the failing batch under {@code target/conformance-failures/} to replay with
 * {@code fdbresolver resolve}.
 */
class DifferentialTest {

    @TestFactory
    Stream<DynamicTest> fixedSeeds() {
        return tests(DifferentialCases.fixed());
    }

    @TestFactory
    Stream<DynamicTest> randomized() {
        System.out.println("randomized differential runs start at seed "
                + Long.getLong("conformance.seed", DifferentialCases.DEFAULT_RANDOM_SEED)
                + " (-Dconformance.seed=N -Dconformance.randomRuns=M to change)");
        return tests(DifferentialCases.randomized());
    }

    /** One test per engine and case; the case is generated, and the reference run, once per case. */
    private static Stream<DynamicTest> tests(List<DifferentialCases.Spec> specs) {
        List<DynamicTest> tests = new ArrayList<>();
        List<EnginesUnderTest.Variant> engines = EnginesUnderTest.candidates();
        for (DifferentialCases.Spec spec : specs) {
            DifferentialCases.Case[] generated = new DifferentialCases.Case[1];
            EngineRun[] reference = new EngineRun[1];
            for (int i = 0; i < engines.size(); i++) {
                EnginesUnderTest.Variant engine = engines.get(i);
                boolean last = i == engines.size() - 1;
                tests.add(DynamicTest.dynamicTest(engine + " on " + spec, () -> {
                    if (generated[0] == null) {
                        generated[0] = spec.generate();
                        reference[0] = run(EnginesUnderTest.reference(), generated[0]);
                    }
                    try {
                        compare(engine, generated[0], reference[0]);
                    } finally {
                        if (last) {
                            generated[0] = null; // let the case be collected once every engine has run it
                            reference[0] = null;
                        }
                    }
                }));
            }
        }
        return tests.stream();
    }

    static EngineRun run(EnginesUnderTest.Variant engine, DifferentialCases.Case c) {
        Iterator<Batch> batches = c.batches().iterator();
        return EngineRun.run(engine.create(), engine.config(), () -> batches.hasNext() ? batches.next() : null);
    }

    /** Fails, naming the difference and the saved input, when {@code engine} decides unlike the reference. */
    static void compare(EnginesUnderTest.Variant engine, DifferentialCases.Case c, EngineRun reference) throws Exception {
        EngineRun run = run(engine, c);
        String difference = run.firstDifference(reference);
        if (difference != null) {
            Path saved = c.saveFailingInput(engine.label(), run.firstDifferingBatch(reference));
            fail(engine + " differs from the reference on " + c + ": " + difference + "; input saved as " + saved);
        }
        assertEquals(reference.decisionHash(), run.decisionHash());
        assertEquals(reference.conflictingKeysHash(), run.conflictingKeysHash());
    }
}
