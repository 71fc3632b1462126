package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fdbresolver.harness.trace.TraceFormats;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/**
 * One error style for every command (issue 7): exactly one {@code error: ...} line on stderr naming the file or
 * option, exit 2 for bad usage or input, nothing on stdout. Each case here was found wrong in a trial run.
 */
class ErrorStyleTest {
    @TempDir
    static Path dir;
    /** A small generated trace of {@link #BATCHES} batches (no golden data needed). */
    static Path trace;
    static final int BATCHES = 12;

    @BeforeAll
    static void generate() {
        trace = dir.resolve("t.trace");
        CliRun gen = CliRun.of("gen", "random", "--batches", Integer.toString(BATCHES), "--seed", "3", "--out", trace.toString());
        assertEquals(0, gen.code(), gen::toString);
    }

    static CliRun run(Object... args) {
        return CliRun.of(Arrays.stream(args).map(String::valueOf).toArray(String[]::new));
    }

    static void assertError(String expected, CliRun run) {
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of(expected), run.errLines(), run::toString);
        assertEquals("", run.out(), "nothing on stdout before or besides the error");
    }

    @Test
    void aDirectoryGivenAsTheTraceIsOneErrorWithOrWithoutOut() throws IOException {
        Path notATrace = Files.createDirectories(dir.resolve("a-directory"));
        String expected = "error: trace " + notATrace + " is a directory";
        assertError(expected, run("resolve", notATrace, "--engine", "tree"));
        Path out = dir.resolve("never.decisions");
        assertError(expected, run("resolve", notATrace, "--engine", "tree", "--out", out));
        assertFalse(Files.exists(out));
        assertError(expected, run("bench", notATrace, "--engine", "tree"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"resolve", "bench", "hash", "diff", "gen", "demo"})
    void anUnknownFlagAsTheLastArgumentIsAnUnknownOption(String command) {
        List<String> args = switch (command) {
            case "resolve", "bench" -> List.of(command, trace.toString(), "--engine", "tree", "--fast");
            case "hash" -> List.of(command, "x.decisions", "--fast");
            case "diff" -> List.of(command, "a.decisions", "b.decisions", "--fast");
            case "gen" -> List.of(command, "random", "--out", dir.resolve("g.trace").toString(), "--fast");
            default -> List.of(command, "--fast");
        };
        assertError("error: unknown option '--fast' (see fdbresolver " + command + " --help)", run(args.toArray()));
    }

    @Test
    void aWarmupThatLeavesNothingToTimeIsAnError() {
        for (int warmup : new int[] {BATCHES, 5000}) {
            assertError("error: --warmup " + warmup + " leaves nothing to time: " + trace + " has " + BATCHES
                    + " batches (use --warmup " + (BATCHES - 1) + " or less)", run("bench", trace, "--engine", "tree", "--warmup", warmup));
        }
        CliRun last = run("bench", trace, "--engine", "tree", "--warmup", BATCHES - 1);
        assertEquals(0, last.code(), last::toString);
        assertEquals("1", last.value("timed-batches"));
    }

    @Test
    void aTraceWithoutBatchesHasNothingToTime() throws IOException {
        Path empty = emptyTrace(dir.resolve("empty.trace"));
        assertError("error: " + empty + ": the trace has no batches, nothing to time", run("bench", empty, "--engine", "tree"));
    }

    /** A well-formed trace without batches, as a capture that saw none would write ({@code gen} refuses to). */
    static Path emptyTrace(Path file) throws IOException {
        try (TraceWriter w = TraceWriter.create(file, TraceHeader.newBuilder().setFormat(TraceFormats.TRACE)
                .setWorkload("empty").build())) {
            w.commit();
        }
        return file;
    }

    /** Issue 33: a count of 0 is refused alike by every command it would leave with nothing to do. */
    @Test
    void zeroBatchesOrCasesAreRefusedAsZeroTransactionsAre() {
        assertError("error: --batches 0 generates nothing (give 1 or more)",
                run("gen", "random", "--batches", 0, "--out", dir.resolve("zero.trace")));
        assertFalse(Files.exists(dir.resolve("zero.trace")));
        assertError("error: --batches 0 compares nothing", run("demo", "--batches", 0));
        assertError("error: --cases 0 compares nothing", run("fuzz", "--cases", 0, "--oracle", "reference"));
        assertError("error: --transactions 0 compares nothing", run("fuzz", "--transactions", 0, "--oracle", "reference"));
        assertError("error: --cycles 0 resolves nothing (give 1 or more)", run("bench", trace, "--cycles", 0));
    }

    /**
     * Issue 33: a key block of more than 2^30 bytes cannot be one array; it was an internal error
     * (NegativeArraySizeException, exit 3). The check sits in the configuration, which the bridge's
     * configuration text builds too (jni-bridge's tests check that path).
     */
    @ParameterizedTest
    @ValueSource(strings = {"2000000000", "1073741825", "99999999999"})
    void aKeyBlockTooLargeIsARangeErrorNamingTheOption(String value) {
        String expected = "error: engine tree: option keyBlockBytes is too large: '" + value + "' (at most 1073741824)";
        assertError(expected, run("resolve", trace, "--engine", "tree", "--engine-option", "keyBlockBytes=" + value));
        assertError(expected, run("bench", trace, "--engine", "tree", "--engine-option", "keyBlockBytes=" + value));
        assertError(expected, run("demo", "--batches", 3, "--engine-option", "keyBlockBytes=" + value));
        assertError(expected, run("retention", trace, "--budget", "4m", "--engine-option", "keyBlockBytes=" + value,
                "--out", dir.resolve("kb")));
        CliRun largest = run("resolve", trace, "--engine", "tree", "--engine-option", "keyBlockBytes=1073741824");
        assertEquals(0, largest.code(), largest::toString);
    }

    /** Issue 33: a setting given twice was taken silently (the last won) while a repeated --budget is refused. */
    @Test
    void anEngineSettingGivenTwiceIsRefusedAsARepeatedBudgetIs() {
        String twice = "error: option '--engine-option' sets threads twice (threads=2, then threads=3): give each setting "
                + "once (see fdbresolver %s --help)";
        assertError(twice.formatted("resolve"), run("resolve", trace, "--engine-option", "threads=2", "--engine-option", "threads=3"));
        assertError(twice.formatted("bench"), run("bench", trace, "--engine-option=threads=2", "--engine-option=threads=3"));
        assertError(twice.formatted("demo"), run("demo", "--engine-option", "threads=2", "--engine-option", "threads=3"));
        assertError(twice.formatted("retention"), run("retention", trace, "--budget", "4m", "--engine-option", "threads=2",
                "--engine-option", "threads=3"));
        assertError(twice.formatted("size"), run("size", "--engine-option", "threads=2", "--engine-option", "threads=3"));
        assertError("error: option '--budget' (BYTES) should be specified only once (see fdbresolver demo --help)",
                run("demo", "--budget", "1g", "--budget", "2g"));
        assertError("error: invalid value for option '--engine-option': 'threads' is not NAME=VALUE (see fdbresolver "
                + "resolve --help)", run("resolve", trace, "--engine-option", "threads"));
        CliRun two = run("resolve", trace, "--engine-option", "threads=2", "--engine-option", "readWays=4");
        assertEquals(0, two.code(), two::toString);
    }

    /** Issue 33: a budget whose history could outgrow the heap ran without a word; it is said once, and runs. */
    @Test
    void aBudgetLargerThanTheHeapIsWarnedOnce() {
        CliRun run = run("demo", "--batches", 3, "--budget", "1t");
        assertEquals(0, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.errLines().getFirst().startsWith("warning: the memory budget lets the history take up to 1088.0 GiB"
                + " of heap, more than this JVM's "), run::toString);
        CliRun within = run("demo", "--batches", 3, "--budget", "64m");
        assertEquals(List.of(), within.errLines(), within::toString);
    }

    @Test
    void anEmptyFileNameIsRefusedNamingTheOption() {
        assertError("error: invalid value for option '--out': '' is not a file name (see fdbresolver gen --help)",
                run("gen", "random", "--batches", 2, "--out", ""));
        assertError("error: invalid value for option '--out': '' is not a file name (see fdbresolver resolve --help)",
                run("resolve", trace, "--out", ""));
    }

    @Test
    void sizeTakesScaleByInAnyCaseAndRefusesOthersInItsOwnWords() {
        assertError("error: invalid value for option '--scale-by': 'sideways' is neither BATCHES nor SPACING (see "
                + "fdbresolver size --help)", run("size", "--scale-by", "sideways"));
        assertEquals(org.fdbresolver.harness.sizing.ScaledTrace.Mode.BATCHES, new SizeCommand.ScaleByConverter().convert("batches"));
        assertEquals(org.fdbresolver.harness.sizing.ScaledTrace.Mode.SPACING, new SizeCommand.ScaleByConverter().convert("Spacing"));
    }

    @Test
    void theReferenceEngineRefusesEngineOptions() {
        String expected = "error: engine reference: unknown option 'nodeBytes' (it takes none)";
        assertError(expected, run("resolve", trace, "--engine", "reference", "--engine-option", "nodeBytes=256"));
        assertError(expected, run("bench", trace, "--engine", "reference", "--engine-option", "nodeBytes=256"));
    }

    @Test
    void anEngineErrorNamesTheEngineOnce() {
        assertError("error: engine tree: unknown option 'foo' (known: directBatchPairs, directBatchRanges, directSortEndpoints, endpointsPerSlice, keyBlockBytes, leafPrefixMinGain, nodeBytes, prefixLoweringLeaves, readBatchedFromBytes, readBatchedFromReads, readPath, readTouch, readWays, readsPerSlice, threads, warmUpBatches, warmUpSettleMillis, writeWays, writesPerPartition)",
                run("resolve", trace, "--engine", "tree", "--engine-option", "foo=1"));
        assertError("error: engine tree: option nodeBytes must be a positive integer, not 'big'",
                run("resolve", trace, "--engine", "tree", "--engine-option", "nodeBytes=big"));
        CliRun small = run("resolve", trace, "--engine", "tree", "--budget", "1k");
        assertEquals(2, small.code(), small::toString);
        assertTrue(small.err().startsWith("error: engine tree: memory budget 1024 "), small.err());
        assertEquals(1, small.err().split("tree", -1).length - 1, small.err());
    }

    @Test
    void seedsAreUnsignedAndPrintedAsGiven() throws IOException {
        Path out = dir.resolve("seeded.trace");
        assertError("error: invalid value for option '--seed': '-1' is negative: a seed is 0 to 18446744073709551615"
                + " (see fdbresolver gen --help)", run("gen", "random", "--seed", "-1", "--out", out));
        assertError("error: invalid value for option '--seed': '18446744073709551616' is too large: a seed is 0 to"
                + " 18446744073709551615 (see fdbresolver gen --help)", run("gen", "random", "--seed", "18446744073709551616", "--out", out));
        assertError("error: invalid value for option '--seed': '-1' is negative: a seed is 0 to 18446744073709551615"
                + " (see fdbresolver demo --help)", run("demo", "--seed", "-1"));
        assertFalse(Files.exists(out));

        CliRun max = run("gen", "random", "--batches", 2, "--seed", "18446744073709551615", "--out", out);
        assertEquals(0, max.code(), max::toString);
        assertEquals("18446744073709551615", max.value("seed"));
        try (TraceReader r = TraceReader.open(out)) {
            assertEquals(-1L, r.header().getSeed(), "the header's uint64 holds the same 64 bits");
            assertEquals("18446744073709551615", r.header().getParamsMap().get("seed"));
        }
    }

    @Test
    void demoPrintsNothingBeforeItsError() throws IOException {
        byte[] noise = new byte[4096];
        new SplittableRandom(7).nextBytes(noise);
        noise[0] = 0x7f; // not gzip's magic: the reader sees a damaged plain trace
        Path bin = Files.write(dir.resolve("random.bin"), noise);
        CliRun run = run("demo", "--trace", bin);
        assertEquals(2, run.code(), run::toString);
        assertEquals("", run.out());
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.err().startsWith("error: "), run.err());
    }

    @Test
    void diffPrintsNothingBeforeItsError() throws IOException {
        Path good = dir.resolve("good.decisions");
        assertEquals(0, run("resolve", trace, "--engine", "reference", "--out", good).code());
        byte[] bytes = Files.readAllBytes(good);
        Path cut = Files.write(dir.resolve("cut.decisions"), Arrays.copyOf(bytes, bytes.length - 3));
        CliRun run = run("diff", good, cut);
        assertEquals(2, run.code(), run::toString);
        assertEquals("", run.out());
        assertEquals(1, run.errLines().size(), run::toString);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "-1                       | '-1' is negative: wanted a byte count such as 1073741824, 512m, 2g or 64KiB",
            "-2g                      | '-2g' is negative: wanted a byte count such as 1073741824, 512m, 2g or 64KiB",
            "0                        | '0' is zero: wanted at least 1 byte",
            "0g                       | '0g' is zero: wanted at least 1 byte",
            "999999999999999999999999 | '999999999999999999999999' is too large: at most 9223372036854775807 bytes (8 EiB)",
            "9223372036854775808      | '9223372036854775808' is too large: at most 9223372036854775807 bytes (8 EiB)",
            "8388608t                 | '8388608t' is too large: at most 9223372036854775807 bytes (8 EiB)",
            "1.5g                     | '1.5g' is not a byte count such as 1073741824, 512m, 2g or 64KiB",
            "12q                      | '12q' is not a byte count such as 1073741824, 512m, 2g or 64KiB",
            "lots                     | 'lots' is not a byte count such as 1073741824, 512m, 2g or 64KiB"})
    void badByteCountsAreRefusedNamingTheOption(String value, String why) {
        String expected = "error: invalid value for option '--budget': " + why + " (see fdbresolver %s --help)";
        assertError(expected.formatted("resolve"), run("resolve", trace, "--engine", "tree", "--budget", value));
        assertError(expected.formatted("bench"), run("bench", trace, "--engine", "tree", "--budget", value));
        assertError(expected.formatted("demo"), run("demo", "--budget", value));
        assertThrows(TypeConversionException.class, () -> SizeConverter.parse(value));
    }

    @ParameterizedTest
    @CsvSource({"1, 1", "1b, 1", "3000, 3000", "1k, 1024", "1K, 1024", "1kb, 1024", "1KiB, 1024", "2_048m, 2147483648",
            "512MiB, 536870912", "512MB, 536870912", "2g, 2147483648", "1GiB, 1073741824", "1t, 1099511627776",
            "8388607t, 9223370937343148032", "9223372036854775807, 9223372036854775807"})
    void byteCountsTakeBinarySuffixesInAnyCase(String text, long bytes) {
        assertEquals(bytes, SizeConverter.parse(text));
    }

    @Test
    void aBudgetWithASuffixIsAccepted() {
        CliRun run = run("resolve", trace, "--engine", "tree", "--budget", "64MiB");
        assertEquals(0, run.code(), run::toString);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--batches | -1  | '-1' is negative: wanted 0 or more",
            "--batches | 1e3 | '1e3' is not a whole number",
            "--batches | 99999999999999999999 | '99999999999999999999' is too large: at most 9223372036854775807"})
    void badCountsAreRefusedNamingTheOption(String option, String value, String why) {
        assertError("error: invalid value for option '" + option + "': " + why + " (see fdbresolver gen --help)",
                run("gen", "random", option, value, "--out", dir.resolve("c.trace")));
    }
}
