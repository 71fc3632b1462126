package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.fdbresolver.harness.fuzz.FuzzShapes;
import org.fdbresolver.harness.fuzz.Fuzzer;
import org.fdbresolver.harness.fuzz.Oracle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer in every test run, for about {@value #SECONDS} seconds: engine {@code tree} against
 * FoundationDB's skip list where its comparator is built (else the reference engine, said on the console), every
 * shape in turn with small cases, every batch compared. Fails on any difference, naming the reproduction it wrote
 * (in {@code target/fuzz-failures}). {@code -Dconformance.fuzzSeed=N} runs other seeds,
 * {@code -Dconformance.fuzzSeconds=S} longer; the long runs are {@code fdbresolver fuzz} (docs/conformance.md).
 */
@Tag("fuzz")
class ShortFuzzTest {
    static final long SECONDS = 40;
    static final long DEFAULT_SEED = 20261201L;
    /** Small cases, so that every shape runs several times in the time given. */
    static final long CASE_TRANSACTIONS = 20_000;

    @Test
    void treeDecidesLikeTheOracleOnEveryShape() throws Exception {
        long seed = Long.getLong("conformance.fuzzSeed", DEFAULT_SEED);
        long seconds = Long.getLong("conformance.fuzzSeconds", SECONDS);
        List<String> shapes = FuzzShapes.choose(null, true);
        Fuzzer.Settings settings = new Fuzzer.Settings(seed, 0, Long.MAX_VALUE, Long.MAX_VALUE, seconds * 1_000_000_000L,
                CASE_TRANSACTIONS, shapes, true, 60_000_000_000L, Path.of("target", "fuzz-failures").toAbsolutePath(),
                "ShortFuzzTest -Dconformance.fuzzSeed=" + seed);
        Fuzzer.Result r;
        try (Oracle oracle = FuzzOracles.open()) {
            r = new Fuzzer(FuzzOracles.registered("tree"), oracle).run(settings, null);
        }
        System.out.println("ShortFuzzTest: tree vs " + r.oracle() + ": seed " + seed + ", " + r.cases() + " cases, "
                + r.transactions() + " transactions in " + String.format("%.1f", r.nanos() / 1e9) + " s, "
                + r.budgetTooOld() + " TOO_OLD from the budget, " + r.differences() + " differences; by shape " + r.byShape());
        if (r.found() != null) {
            Fuzzer.Found f = r.found();
            fail("tree differs from " + r.oracle() + " in " + f.fuzzCase() + " at " + f.original().where()
                    + "; shrunk to " + f.shrunkTransactions() + " transactions: " + f.shrunk() + "; reproduction "
                    + f.files().trace() + ", listing " + f.files().listing());
        }
        for (Map.Entry<String, Long> e : r.byShape().entrySet()) {
            assertTrue(e.getValue() > 0, "shape " + e.getKey() + " did not run: give the test more time");
        }
        assertTrue(r.budgetTooOld() > 0, "the small budgets never bound: the budget rule went untested");
    }
}
