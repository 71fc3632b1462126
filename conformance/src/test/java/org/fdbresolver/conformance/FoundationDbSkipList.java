package org.fdbresolver.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.fdbresolver.harness.fuzz.SkipListOracle;
import org.junit.jupiter.api.Assumptions;

/**
 * FoundationDB's own skip list as a live oracle: the comparator {@code fdbresolver_fdb_skiplist}
 * (jni-bridge/fdb/skiplist), which decides a trace file with the skip list exactly as FoundationDB's Resolver
 * drives it — built by {@code scripts/build-fdb} inside FoundationDB's tree, or in about a minute by
 * {@code scripts/build-skiplist} from FoundationDB's {@code ConflictSet.cpp} alone.
 *
 * <p>Found as {@link FdbSkipListComparator} says: {@code FDBRESOLVER_FDB_SKIPLIST=PATH}, else the full build's,
 * else the standalone one; the console says which. Without either the tests that need it are aborted with a
 * message saying so and how to build it (reported as skipped, never as passed), and the reason is printed once
 * on the console, not once per test; the stored golden decisions remain the check on such machines.
 */
final class FoundationDbSkipList {
    private static FdbSkipListComparator lookup;
    /** Empty once the comparator is known to stream; else why it does not. */
    private static java.util.Optional<String> whyNoStream;

    private FoundationDbSkipList() {
    }

    /** The comparator, or aborts the calling test with the reason and the fix (printed for the first only). */
    static synchronized Path require() {
        if (lookup == null) {
            lookup = FdbSkipListComparator.find();
            if (!lookup.found()) {
                System.out.println("NOT RUN: the checks against FoundationDB's own skip list (FoundationDbSkipListTest): "
                        + lookup.whyNot());
            } else {
                System.out.println("FoundationDbSkipListTest: FoundationDB's skip list is " + lookup.path() + " (from "
                        + lookup.from() + ")");
            }
        }
        if (!lookup.found()) {
            Assumptions.abort(lookup.whyNot());
        }
        return lookup.path();
    }

    /**
     * The comparator when it has the {@code --stream} mode the fuzzer talks to (jni-bridge/fdb/skiplist), or aborts the
     * calling test with the reason: no build, or a comparator built before the mode existed (then rebuilding it with
     * scripts/build-fdb or scripts/build-skiplist brings it).
     */
    static synchronized Path requireStreaming() {
        Path comparator = require();
        if (whyNoStream == null) {
            whyNoStream = java.util.Optional.ofNullable(SkipListOracle.lacksStreaming(comparator));
            whyNoStream.ifPresent(why -> System.out.println("NOT RUN: the checks of FoundationDB's skip list's --stream mode: " + why));
        }
        whyNoStream.ifPresent(Assumptions::abort);
        return comparator;
    }

    /**
     * The comparator when it takes {@code --cycles} (issue 30, item 5), or aborts the calling test with the reason: the
     * full build's comparator is used even when built from older sources, and one built before the option refuses it.
     */
    static Path requireCycles() throws IOException, InterruptedException {
        Path comparator = require();
        Process p = new ProcessBuilder(comparator.toString(), "--help").redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        Assumptions.assumeTrue(help.contains("--cycles"), () -> comparator + " has no --cycles (built from an older"
                + " jni-bridge/fdb/skiplist/fdb_skiplist_main.cpp; rebuild it with scripts/build-fdb or scripts/build-skiplist)");
        return comparator;
    }

    /** Decides {@code trace} with FoundationDB's skip list; its "name: value" lines. */
    static Map<String, String> decide(Path comparator, Path trace) throws IOException, InterruptedException {
        return decide(comparator, List.of(trace.toString()));
    }

    /** Runs the comparator with {@code arguments} (a trace and its options); its "name: value" lines. */
    static Map<String, String> decide(Path comparator, List<String> arguments) throws IOException, InterruptedException {
        String trace = arguments.get(0);
        List<String> command = new java.util.ArrayList<>(List.of(comparator.toString()));
        command.addAll(arguments);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(comparator + " did not finish on " + trace);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(comparator + " failed on " + trace + " (exit " + p.exitValue() + "): " + out.strip());
        }
        Map<String, String> lines = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                lines.put(line.substring(0, colon), line.substring(colon + 2).trim());
            }
        }
        return lines;
    }
}
