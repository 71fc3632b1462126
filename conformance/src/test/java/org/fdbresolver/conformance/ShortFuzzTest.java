package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.fdbresolver.harness.fuzz.FuzzShapes;
import org.fdbresolver.harness.fuzz.Fuzzer;
import org.fdbresolver.harness.fuzz.Oracle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer in every test run (the CI's short fuzz): engine {@code tree} against FoundationDB's skip
 * list where its comparator is built with {@code --stream} (else the reference engine, said on the console and in the
 * result line), every shape in turn, {@value #CASES_PER_SHAPE} cases of about {@value #CASE_TRANSACTIONS}
 * transactions each, every batch compared. A count of cases, not a time: what a pass has covered must not depend on
 * how busy the machine is (about a minute on two idle cores; docs/conformance.md).
 *
 * <p>Fails on any difference, naming the reproduction it wrote (in {@code target/fuzz-failures}); when a case compared
 * nothing; when a small-budget case's budget never bound (the budget rule would go untested) or the four small
 * budgets did not all run; and when a case under the default budget (1 GiB) answered TOO_OLD for its budget (but for
 * {@link #VERSION_SPAN_SHAPE}).
 * {@code -Dconformance.fuzzSeed=N} runs other seeds, {@code -Dconformance.fuzzCasesPerShape=N} more cases; the long
 * runs are {@code fdbresolver fuzz} (docs/conformance.md).
 */
@Tag("fuzz")
class ShortFuzzTest {
    /**
     * Cases per shape. Four is the most variants a shape takes in turn ({@code skiplist-layouts}' four layouts,
     * {@code small-budget}'s four budgets; FuzzShapes): eight runs every variant of every shape twice or more, with
     * two seeds each, in about a minute.
     */
    static final int CASES_PER_SHAPE = 8;
    static final long DEFAULT_SEED = 20261201L;
    /** Small cases, so that the whole schedule is about a minute; each small budget binds within 10,000. */
    static final long CASE_TRANSACTIONS = 20_000;
    /** The workloads small-budget takes in turn (FuzzShapes): each must have run, its budget binding. */
    static final Set<String> SMALL_BUDGET_WORKLOADS = Set.of("random", "longtrace", "conflictset-point", "conflictset-range");

    /**
     * The shape whose windows pass 2^30 versions (the oldest version stays while versions jump towards 2^63 - 1): the
     * tree then raises its retained boundary to {@code now - 2^30} (docs/tree.md, "Versions"), and the fuzzer counts
     * the TOO_OLD that follow with the budget's (seed 20261201, case 103: one). Not a budget binding, so not checked.
     */
    static final String VERSION_SPAN_SHAPE = "high-versions";

    @Test
    void treeDecidesLikeTheOracleOnEveryShape() throws Exception {
        long seed = Long.getLong("conformance.fuzzSeed", DEFAULT_SEED);
        int perShape = Integer.getInteger("conformance.fuzzCasesPerShape", CASES_PER_SHAPE);
        List<String> shapes = FuzzShapes.choose(null, true);
        long cases = (long) perShape * shapes.size();
        Fuzzer.Settings settings = new Fuzzer.Settings(seed, 0, cases, Long.MAX_VALUE, 0, CASE_TRANSACTIONS, shapes,
                true, 60_000_000_000L, Path.of("target", "fuzz-failures").toAbsolutePath(),
                "ShortFuzzTest -Dconformance.fuzzSeed=" + seed + " -Dconformance.fuzzCasesPerShape=" + perShape);
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
        assertEquals(cases, r.cases(), "the run stopped before its last case");
        Set<String> smallBudgetWorkloads = new TreeSet<>();
        for (Fuzzer.CaseRun c : r.caseRuns()) {
            assertTrue(c.transactions() > 0, c.fuzzCase() + " compared no transaction");
            if (c.fuzzCase().shape().equals(FuzzShapes.SMALL_BUDGET)) {
                smallBudgetWorkloads.add(c.fuzzCase().workload());
                assertTrue(c.budgetTooOld() > 0, "the budget of " + c.fuzzCase() + " never bound in its "
                        + c.transactions() + " transactions: the budget rule went untested there");
            } else if (!c.fuzzCase().shape().equals(VERSION_SPAN_SHAPE)) {
                assertEquals(0, c.budgetTooOld(), c.fuzzCase() + " answered TOO_OLD for its budget under the default budget");
            }
        }
        if (perShape >= SMALL_BUDGET_WORKLOADS.size()) {
            assertEquals(new TreeSet<>(SMALL_BUDGET_WORKLOADS), smallBudgetWorkloads, "the small budgets run");
        }
    }
}
