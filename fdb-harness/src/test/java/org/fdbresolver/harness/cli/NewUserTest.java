package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a new user tripped on (issue 19, items 2, 4 and 5): each case here was found in a trial from a fresh
 * clone. Errors are one line naming the file or the option as typed; small budgets warn once and explain the
 * TOO_OLD answers they cause; options that would be ignored are refused.
 */
class NewUserTest {
    @TempDir
    static Path dir;
    static Path trace;
    static final String WARNING_64K = "warning: memory budget of 65,536 bytes is below 1,048,576: a batch whose writes do"
            + " not fit even with all older history dropped makes the engine forget all history (every older reader"
            + " TOO_OLD; counted in stats as forgottenBatches)";

    @BeforeAll
    static void generate() {
        trace = dir.resolve("csr.trace");
        CliRun gen = CliRun.of("gen", "conflictset-range", "--batches", "40", "--out", trace.toString());
        assertEquals(0, gen.code(), gen::toString);
    }

    static void assertError(String expected, CliRun run) {
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of(expected), run.errLines(), run::toString);
        assertEquals("", run.out(), "nothing on stdout");
    }

    static void assertErrorStartingWith(String prefix, CliRun run) {
        assertEquals(2, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.errLines().getFirst().startsWith(prefix), run::toString);
        assertEquals("", run.out(), "nothing on stdout");
    }

    /** An empty file, random bytes and a cut trace: every command that reads it names it (docs/cli.md says so). */
    @Test
    void anEmptyRandomOrTruncatedTraceIsNamedInTheError() throws IOException {
        Path empty = Files.write(dir.resolve("empty.trace"), new byte[0]);
        byte[] bytes = new byte[5000];
        new SplittableRandom(5).nextBytes(bytes);
        bytes[0] = 0x7f; // not gzip's magic
        Path random = Files.write(dir.resolve("random.trace"), bytes);
        byte[] whole = Files.readAllBytes(trace);
        Path cut = Files.write(dir.resolve("cut.trace"), Arrays.copyOf(whole, 3000));
        for (Path bad : List.of(empty, random, cut)) {
            String named = "error: " + bad + ": ";
            assertErrorStartingWith(named, CliRun.of("resolve", bad.toString()));
            assertErrorStartingWith(named, CliRun.of("bench", bad.toString()));
            assertErrorStartingWith(named, CliRun.of("demo", "--trace", bad.toString()));
            assertErrorStartingWith(named, CliRun.of("retention", bad.toString(), "--budget", "8m", "--out",
                    dir.resolve("never").toString()));
            assertErrorStartingWith(named, CliRun.of("hash", bad.toString()));
        }
        assertError("error: " + empty + ": empty file: not a trace (no trace header)", CliRun.of("resolve", empty.toString()));
        assertError("error: " + cut + ": batch 0: truncated message: wanted 67503 bytes, got 2684",
                CliRun.of("resolve", cut.toString()));
        Path decisions = dir.resolve("good.decisions");
        assertEquals(0, CliRun.of("resolve", trace.toString(), "--out", decisions.toString()).code());
        assertError("error: " + random + ": decision header: malformed DecisionHeader message: field 3217560: invalid"
                        + " wire type 3 at byte 0 (not a decision file?)",
                CliRun.of("diff", decisions.toString(), random.toString()));
        assertErrorStartingWith("error: " + empty + ": ", CliRun.of("diff", empty.toString(), decisions.toString()));
    }

    @Test
    void anIntegerTooLargeForAnOptionIsCalledTooLarge() {
        assertError("error: engine tree: option nodeBytes is too large: '999999999999' (at most 1048576)",
                CliRun.of("resolve", trace.toString(), "--engine-option", "nodeBytes=999999999999"));
        assertError("error: engine tree: option readWays is too large: '2000' (at most 1024)",
                CliRun.of("resolve", trace.toString(), "--engine-option", "readWays=2000"));
        assertError("error: engine tree: option writeWays is too large: '99999999999999999999999' (at most 1024)",
                CliRun.of("resolve", trace.toString(), "--engine-option", "writeWays=99999999999999999999999"));
        assertError("error: engine tree: option nodeBytes must be a positive integer, not '-5'",
                CliRun.of("resolve", trace.toString(), "--engine-option", "nodeBytes=-5"));
    }

    @Test
    void aFileWhereAFolderShouldBeIsCalledAFile() {
        Path under = trace.resolve("x.trace");
        assertError("error: " + under + ": cannot write it: " + trace + " is a file, not a directory",
                CliRun.of("gen", "random", "--batches", "2", "--out", under.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--workload=random", "--batches=5", "--seed=9"})
    void demoRefusesOptionsForAGeneratedTraceWithATraceGiven(String option) {
        String name = option.substring(0, option.indexOf('='));
        assertError("error: " + name + " shapes the generated trace: not with --trace " + trace + " (drop one or the other)",
                CliRun.of("demo", "--trace", trace.toString(), option));
    }

    @ParameterizedTest
    @ValueSource(strings = {"resolve", "bench", "demo"})
    void aBudgetForTheReferenceIsRefused(String command) {
        List<String> args = command.equals("demo") ? List.of("demo", "--trace", trace.toString())
                : List.of(command, trace.toString());
        String expected = "error: engine reference keeps all history and has no memory budget: --budget does not apply"
                + " to it (drop --budget, or use --engine tree)";
        String[] withBudget = concat(args, "--engine", "reference", "--budget", "4k");
        assertError(expected, CliRun.of(withBudget));
        CliRun without = CliRun.of(concat(args, "--engine", "reference"));
        assertEquals(0, without.code(), without::toString);
    }

    /** Below 1 MiB the engine warns once per command, not once per engine it opens; a refused budget only errs. */
    @Test
    void aSmallBudgetWarnsOnceAndARefusedOneOnlyErrs() {
        CliRun bench = CliRun.of("bench", trace.toString(), "--budget", "64k");
        assertEquals(0, bench.code(), bench::toString);
        assertEquals(List.of(WARNING_64K), bench.errLines());
        assertError("error: engine tree: memory budget 1024 is below 16 nodes of 2048 bytes (32768 bytes), the least a"
                + " history of that node size works in", CliRun.of("resolve", trace.toString(), "--budget", "1k"));
    }

    /**
     * Issue 33: the default demo printed the hash of nothing as its conflicting-keys hash without a word; a trace
     * whose transactions ask for their conflicting keys prints real hashes and no such line.
     */
    @Test
    void demoSaysWhenNoConflictingKeysWereReported(@TempDir Path dir) {
        CliRun none = CliRun.of("demo", "--batches", "20");
        assertEquals(0, none.code(), none::toString);
        assertEquals(DemoCommand.HASH_OF_NOTHING, none.value("tree-conflicting-keys-hash"));
        assertEquals(DemoCommand.NONE_REPORTED, none.value("conflicting-keys"));
        List<String> names = List.copyOf(none.values().keySet());
        assertTrue(names.indexOf("conflicting-keys") < names.indexOf("tree-conflicting-keys-hash"), names::toString);

        Path reporting = dir.resolve("reporting.trace");
        assertEquals(0, CliRun.of("gen", "skiplisttest", "--batches", "20", "--report-fraction", "1",
                "--out", reporting.toString()).code());
        CliRun some = CliRun.of("demo", "--trace", reporting.toString());
        assertEquals(0, some.code(), some::toString);
        assertFalse(some.value("tree-conflicting-keys-hash").equals(DemoCommand.HASH_OF_NOTHING), some::toString);
        assertFalse(some.values().containsKey("conflicting-keys"), some::toString);
    }

    /** demo under a budget too small for the trace: the extra TOO_OLD answers are said to be the budget's, and allowed. */
    @Test
    void demoExplainsTheTooOldAnswersASmallBudgetCauses() {
        CliRun run = CliRun.of("demo", "--trace", trace.toString(), "--budget", "64k");
        assertEquals(0, run.code(), run::toString);
        assertEquals(List.of(WARNING_64K), run.errLines(), "one warning, though demo opens five engines");
        assertEquals(DemoCommand.AGREE_BUT_BUDGET, run.value("agree"));
        assertTrue(Long.parseLong(run.value("too-old-from-budget")) > 0, run::toString);
        assertEquals("0", run.value("other-differences"));
        assertTrue(run.value("note").startsWith("tree answered TOO_OLD for " + run.value("too-old-from-budget")
                + " transactions the reference decided: its budget of 64 KiB cannot hold this trace's history. That is"
                + " allowed"), run::toString);
        assertFalse(run.values().containsKey("first-difference"), run::toString);

        CliRun large = CliRun.of("demo", "--trace", trace.toString());
        assertEquals("yes", large.value("agree"));
        assertFalse(large.values().containsKey("too-old-from-budget"), large::toString);
    }

    /**
     * The comparison counts only the first engine's extra TOO_OLD answers as the budget's: the other way round
     * (the reference in first place, a starved tree as the oracle) every difference is one a budget cannot explain.
     */
    @Test
    void onlyTheEnginesOwnExtraTooOldAnswersCountAsTheBudgets() throws IOException {
        ConflictSetConfig starved = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(64 << 10).build();
        ConflictSetConfig reference = ConflictSetConfig.builder().engine("reference").build();
        DemoCommand.Differences forward = DemoCommand.Differences.of(trace, starved, reference);
        assertTrue(forward.budgetTooOld() > 0, forward::toString);
        assertEquals(0, forward.other(), forward::toString);
        DemoCommand.Differences backward = DemoCommand.Differences.of(trace, reference, starved);
        assertEquals(0, backward.budgetTooOld(), backward::toString);
        assertEquals(forward.budgetTooOld(), backward.other(), backward::toString);
        assertTrue(backward.first().matches("batch \\d+ \\(version \\d+\\) transaction \\d+: reference (COMMIT|CONFLICT)"
                + " \\[.*\\], tree TOO_OLD \\[\\]"), backward.first());
    }

    private static String[] concat(List<String> head, String... tail) {
        String[] all = Arrays.copyOf(head.toArray(String[]::new), head.size() + tail.length);
        System.arraycopy(tail, 0, all, head.size(), tail.length);
        return all;
    }
}
