package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native replay driver's command line, in the Java CLI's style: a bad usage or input is one line
 * {@code error: ...} naming the option or file, on stderr, with nothing on stdout and exit status 2;
 * {@code --help} lists every option; {@code --budget} is the CLI's option, with the CLI's sizes (its old name
 * {@code --memory-budget} still works, with a note on stderr);
 * the {@code engine:} line names the engine that ran, as the library reports it.
 */
class ReplayCommandLineTest {
    /** No -Xmx: the bridge sizes the heap from the budget (issue 15). */
    private static final String JVM = "";

    static Path trace() {
        return ReplayGoldenTest.goldenDir().resolve("adversarial.trace.gz");
    }

    static NativeProgram.Run replay(List<String> args) throws Exception {
        return NativeProgram.run("fdbresolver-replay", args, JVM);
    }

    static NativeProgram.Run replay(String... args) throws Exception {
        return replay(List.of(args));
    }

    /** Exit 2, nothing on stdout, exactly the one error line. */
    static void assertOneError(NativeProgram.Run run, String line) {
        assertEquals(List.of(line), run.stderrLines(), run.all());
        assertEquals("", run.stdout());
        assertEquals(2, run.exitCode(), run.all());
    }

    @Test
    void missingFileIsNamedWithTheSystemsReason(@TempDir Path tmp) throws Exception {
        Path missing = tmp.resolve("no-such-file.trace");
        assertOneError(replay(missing.toString()), "error: cannot open " + missing + ": No such file or directory");
    }

    @Test
    void directoryIsNotATrace(@TempDir Path tmp) throws Exception {
        assertOneError(replay(tmp.toString()), "error: cannot read " + tmp + ": Is a directory");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--fast", "-x", "--memory_budget"})
    void unknownOptionIsOneLineWithoutTheUsage(String option) throws Exception {
        String line = "error: unknown option '" + option + "' (fdbresolver-replay --help lists the options)";
        assertOneError(replay(trace().toString(), option), line);
        assertOneError(replay(option, trace().toString()), line);
    }

    @Test
    void usageMistakesAreOneLineEach() throws Exception {
        assertOneError(replay(), "error: no trace given: fdbresolver-replay TRACE [OPTION]... (--help lists the options)");
        assertOneError(replay(trace().toString(), "--warmup"), "error: --warmup needs a value");
        assertOneError(replay("a.trace", "b.trace"), "error: one trace at a time (got a.trace and b.trace)");
        assertOneError(replay(trace().toString(), "--warmup", "-3"), "error: --warmup: '-3' is negative: wanted 0 or more");
        assertOneError(replay(trace().toString(), "--warmup", "ten"), "error: --warmup: 'ten' is not a whole number");
        assertOneError(replay(trace().toString(), "--engine-option", "nodeBytes"),
                "error: --engine-option: 'nodeBytes' is not NAME=VALUE");
    }

    @Test
    void unknownEngineAndEngineOptionAreBadUsage() throws Exception {
        NativeProgram.Run engine = replay(trace().toString(), "--engine", "no-such-engine");
        assertEquals(2, engine.exitCode(), engine.all());
        assertEquals(1, engine.stderrLines().size(), engine.all());
        assertTrue(engine.stderr().startsWith("error: unknown engine 'no-such-engine'"), engine.stderr());
        NativeProgram.Run option = replay(trace().toString(), "--engine", "tree", "--engine-option", "noSuchOption=1");
        assertEquals(2, option.exitCode(), option.all());
        assertEquals(1, option.stderrLines().size(), option.all());
        assertTrue(option.stderr().startsWith("error: ") && option.stderr().contains("'noSuchOption'"), option.stderr());
    }

    /**
     * Issue 33: a key block beyond 2^30 bytes was "cannot start the engine: ... NegativeArraySizeException", exit 3;
     * the configuration refuses it as bad input, from the options and from a configuration text alike.
     */
    @Test
    void aKeyBlockTooLargeIsBadInputNamingTheOption() throws Exception {
        String line = "error: engine tree: option keyBlockBytes is too large: '2000000000' (at most 1073741824)";
        assertOneError(replay(trace().toString(), "--engine", "tree", "--engine-option", "keyBlockBytes=2000000000"), line);
        assertOneError(replay(trace().toString(), "--engine", "tree", "--setting", "engine_option=keyBlockBytes=2000000000"),
                line);
    }

    @Test
    void warmupThatLeavesNothingToTimeIsAnError() throws Exception {
        assertOneError(replay(trace().toString(), "--warmup", "5000"),
                "error: --warmup 5000 leaves no batch to time: " + trace() + " has 316 batches");
    }

    /**
     * --cycles N replays the trace N times, every version shifted past the last cycle's (so no batch is refused for
     * going back in time), and counts, hashes and warms up across the cycles; one cycle is the plain replay.
     */
    @Test
    void cyclesReplayTheTraceWithShiftedVersions() throws Exception {
        NativeProgram.Run once = replay(trace().toString());
        NativeProgram.Run plain = replay(trace().toString(), "--cycles", "1");
        NativeProgram.Run thrice = replay(trace().toString(), "--cycles", "3", "--warmup", "316");
        for (NativeProgram.Run run : List.of(once, plain, thrice)) {
            assertEquals(0, run.exitCode(), run.all());
        }
        assertEquals(once.values().get("decision-hash"), plain.values().get("decision-hash"));
        assertEquals("316", once.values().get("batches"));
        assertEquals("948", thrice.values().get("batches"), thrice.stdout());
        long transactions = Long.parseLong(once.values().get("transactions"));
        assertEquals(3 * transactions, Long.parseLong(thrice.values().get("transactions")));
        long decided = 0;
        for (String kind : List.of("commit", "conflict", "too-old")) {
            decided += Long.parseLong(thrice.values().get(kind));
        }
        assertEquals(3 * transactions, decided);
        assertOneError(replay(trace().toString(), "--cycles", "0"), "error: --cycles: '0' is zero: wanted at least 1");
    }

    /**
     * --pause-micros N sleeps between two batches (the idle time a Resolver has between its batches): the run takes
     * at least the pauses in all (20 ms each, so that they outweigh the JVM's start and the open), decides the same,
     * and refuses a pause above 10 s.
     */
    @Test
    void pausesBetweenBatchesDecideTheSame() throws Exception {
        NativeProgram.Run plain = replay(trace().toString());
        long start = System.nanoTime();
        NativeProgram.Run paused = replay(trace().toString(), "--pause-micros", "20000");
        long wallNanos = System.nanoTime() - start;
        assertEquals(0, paused.exitCode(), paused.all());
        assertEquals(plain.values().get("decision-hash"), paused.values().get("decision-hash"));
        assertEquals("316", paused.values().get("batches"));
        assertTrue(wallNanos >= 315 * 20_000_000L, "315 pauses of 20 ms, yet the run took " + wallNanos / 1_000_000 + " ms");
        assertOneError(replay(trace().toString(), "--pause-micros", "10000001"),
                "error: --pause-micros: at most 10000000 (10 s)");
    }

    /**
     * The latency lines bench prints, of the timed batches only: quantiles in order, the slowest batch is the maximum,
     * at most five slowest listed, each a timed batch.
     */
    @Test
    void latenciesOfTheTimedBatchesAsBenchPrintsThem() throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--warmup", "313");
        assertEquals(0, run.exitCode(), run.all());
        java.util.Map<String, String> v = run.values();
        double previous = 0;
        for (String q : List.of("p50", "p90", "p99", "p99.9", "max")) {
            String text = v.get("latency-" + q);
            assertTrue(text != null && text.matches("\\d+\\.\\d{3} ms"), q + ": " + run.stdout());
            double ms = Double.parseDouble(text.split(" ")[0]);
            assertTrue(ms >= previous, q + " below the quantile before it: " + run.stdout());
            previous = ms;
            assertTrue(v.get("cpu-latency-" + q).matches("\\d+\\.\\d{3} ms"), run.stdout());
        }
        assertTrue(v.get("latency-max-to-p50").matches("\\d+\\.\\d|n/a"), run.stdout());
        // 316 batches, 313 untimed: three timed, so three slowest of each kind, batches 313-315.
        for (String prefix : List.of("slowest-", "slowest-cpu-")) {
            for (int k = 1; k <= 3; k++) {
                assertTrue(v.get(prefix + k).matches("batch 31[3-5] \\(version \\d+\\) \\d+\\.\\d{3} ms \\(cpu \\d+\\.\\d{3} ms\\)"),
                        prefix + k + ": " + run.stdout());
            }
            assertEquals(null, v.get(prefix + 4), run.stdout());
        }
        assertTrue(v.get("slowest-1").contains(") " + v.get("latency-max") + " (cpu"), run.stdout());
    }

    /**
     * -Dfdbresolver.bridge.profile=true: each statistics call prints the pieces of the batches since the last, so the
     * driver's calls at the end of its warm-up and at its end print the warm-up's and the timed part's; off, nothing.
     */
    @Test
    void theBridgeProfileSplitsTheWarmUpFromTheTimedBatches() throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--warmup", "16", "--jvm-option",
                "-Dfdbresolver.bridge.profile=true");
        assertEquals(0, run.exitCode(), run.all());
        List<String> profile = run.stderrLines().stream().filter(l -> l.startsWith("fdbresolver-bridge-profile:")).toList();
        assertEquals(2, profile.size(), run.all());
        String pieces = " ns/batch: before \\d+ entry \\d+ read \\d+ engine \\d+ write \\d+ exit \\d+ after \\d+";
        assertTrue(profile.get(0).matches("fdbresolver-bridge-profile: batches 16 transactions \\d+" + pieces), profile.get(0));
        assertTrue(profile.get(1).matches("fdbresolver-bridge-profile: batches 300 transactions "
                + (Long.parseLong(run.values().get("transactions")) - Long.parseLong(profile.get(0).split(" ")[4]))
                + pieces), profile.get(1));
        NativeProgram.Run off = replay(trace().toString(), "--warmup", "16");
        assertEquals(0, off.exitCode(), off.all());
        assertTrue(off.stderrLines().stream().noneMatch(l -> l.contains("bridge-profile")), off.all());
    }

    @Test
    void helpListsEveryOption() throws Exception {
        for (String help : List.of("--help", "-h")) {
            NativeProgram.Run run = replay(help);
            assertEquals(0, run.exitCode(), run.all());
            assertEquals("", run.stderr());
            for (String option : List.of("--engine NAME", "--budget BYTES", "--engine-option NAME=VALUE",
                    "--warmup N", "--cycles N", "--pause-micros N", "--class-path CP", "--jvm-option OPT", "-h, --help")) {
                assertTrue(run.stdout().contains("  " + option), option + " missing from --help:\n" + run.stdout());
            }
            assertTrue(run.stdout().startsWith("usage: fdbresolver-replay TRACE"), run.stdout());
        }
    }

    /** Every option --help lists is one the driver takes (none is refused as unknown). */
    @Test
    void everyListedOptionIsAccepted() throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--engine", "tree", "--budget", "64m",
                "--engine-option", "nodeBytes=256", "--warmup", "1", "--cycles", "1", "--pause-micros", "0",
                "--class-path", NativeProgram.engineClassPath(),
                "--jvm-option", "-Xss2m");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("tree", run.values().get("engine"));
        assertEquals("1", run.values().get("warmup-batches"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "1g, 1073741824",
            "2048m, 2147483648",
            "1GiB, 1073741824",
            "1gb, 1073741824",
            "64KiB, 65536",
            "1_073_741_824, 1073741824",
            "3000000, 3000000",
            "512 m, 536870912"})
    void budgetTakesTheClisSizes(String text, long bytes) throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--engine", "tree", "--budget", text);
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(Long.toString(bytes), run.values().get("memory-budget-bytes"), run.stdout());
    }

    /** A budget the JVM's heap cannot hold is refused at open, with the setting to change (issue 15). */
    @Test
    void budgetTheHeapCannotHoldIsRefusedAtOpen() throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-replay",
                List.of(trace().toString(), "--engine", "tree", "--budget", "1t"), "-Xmx256m");
        assertEquals(2, run.exitCode(), run.all());
        assertEquals("", run.stdout());
        assertTrue(run.stderr().contains("memory_budget=1099511627776") && run.stderr().contains("JVM's heap is 256 MiB")
                && run.stderr().contains("raise jvm_option=-Xmx"), run.all());
    }

    /**
     * A JVM HotSpot would end the process for (issue 32: -Xms above the heap the bridge sizes, which on landed main
     * printed "Initial heap size set to a larger value than the maximum heap size" and exited 1) is refused before it
     * starts: the driver, standing for fdbserver, reports it as its own error line and exits by itself.
     */
    @Test
    void aJvmThatWouldEndTheProcessIsRefused() throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--budget", "64m", "--jvm-option", "-Xms2g");
        assertOneError(run, "error: the JVM's heap options disagree: -Xms2g (from jvm_option) is above the maximum "
                + "-Xmx264m (the bridge's, sized from memory_budget), and HotSpot would end the process at start");
        run = replay(trace().toString(), "--jvm-option", "-XX:+UseG1GC", "--jvm-option", "-XX:+UseSerialGC");
        assertEquals(3, run.exitCode(), run.all());
        assertEquals("", run.stdout());
        assertEquals(1, run.stderrLines().size(), run.all());
        assertTrue(run.stderr().contains("tried first in a child process")
                && run.stderr().contains("Multiple garbage collectors selected"), run.all());
    }

    static Stream<Arguments> badBudgets() {
        String examples = "a byte count such as 1073741824, 512m, 2g or 64KiB";
        return Stream.of(
                Arguments.of("-1", "is negative: wanted " + examples),
                Arguments.of("0", "is zero: wanted at least 1 byte"),
                Arguments.of("0g", "is zero: wanted at least 1 byte"),
                Arguments.of("lots", "is not " + examples),
                Arguments.of("1.5g", "is not " + examples),
                Arguments.of("2x", "is not " + examples),
                Arguments.of("", "is not " + examples),
                Arguments.of("999999999999999999999999", "is too large: at most 9223372036854775807 bytes (8 EiB)"),
                Arguments.of("8388608t", "is too large: at most 9223372036854775807 bytes (8 EiB)"));
    }

    @ParameterizedTest(name = "''{0}''")
    @MethodSource("badBudgets")
    void badBudgetIsRefused(String text, String why) throws Exception {
        assertOneError(replay(trace().toString(), "--budget", text), "error: --budget: '" + text + "' " + why);
    }

    /** The old name is the same option, named as typed in its errors, with a note saying the new name when it works. */
    @Test
    void theOldNameMemoryBudgetStillWorksWithANote() throws Exception {
        NativeProgram.Run run = replay(trace().toString(), "--engine", "tree", "--memory-budget", "64m");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(Long.toString(64L << 20), run.values().get("memory-budget-bytes"), run.stdout());
        assertEquals("fdbresolver-replay: note: --memory-budget is now --budget, the fdbresolver CLI's name; the old"
                + " name still works", run.stderr().strip());
        assertOneError(replay(trace().toString(), "--memory-budget", "lots"), "error: --memory-budget: 'lots' is not a byte"
                + " count such as 1073741824, 512m, 2g or 64KiB");
    }

    @Test
    void engineLineNamesTheDefaultEngineTheLibraryChose() throws Exception {
        NativeProgram.Run run = replay(trace().toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(ConflictSetConfig.DEFAULT_ENGINE, run.values().get("engine"));
        List<String> names = new ArrayList<>(run.values().keySet());
        assertEquals(List.of("trace", "engine", "decision-hash"), names.subList(0, 3));
    }
}
