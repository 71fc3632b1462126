package org.fdbresolver.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fdbresolver.harness.fdb.FdbBuildLocation;
import org.junit.jupiter.api.Assumptions;

/**
 * FoundationDB's own skip list as a live oracle: the comparator {@code fdbresolver_fdb_skiplist} that
 * {@code scripts/build-fdb} builds inside FoundationDB's tree (jni-bridge/fdb/skiplist), which decides
 * a trace file with the skip list exactly as FoundationDB's Resolver drives it.
 *
 * <p>Found through {@code -Dfdbresolver.fdbSkiplist=PATH}, else where {@code scripts/build-fdb --where}
 * says the build puts it. Without a FoundationDB build the tests that need it are aborted with a message
 * saying so and how to build it (reported as skipped, never as passed); the stored golden decisions
 * remain the check on such machines.
 */
final class FoundationDbSkipList {
    static final String PROPERTY = "fdbresolver.fdbSkiplist";

    private static Path located;
    private static String missing;

    private FoundationDbSkipList() {
    }

    /** The comparator, or aborts the calling test with the reason and the fix. */
    static synchronized Path require() {
        if (located == null && missing == null) {
            locate();
        }
        if (located == null) {
            System.out.println("NOT RUN: " + missing);
            Assumptions.abort(missing);
        }
        return located;
    }

    private static void locate() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            if (Files.isExecutable(p)) {
                located = p;
            } else {
                missing = "-D" + PROPERTY + "=" + configured + " is not an executable file";
            }
            return;
        }
        try {
            Path comparator = FdbBuildLocation.ask(FdbBuildLocation.repositoryRoot()).path("fdb-skiplist");
            if (comparator == null) {
                missing = "scripts/build-fdb --where gave no comparator path";
            } else if (Files.isExecutable(comparator)) {
                located = comparator;
            } else {
                missing = "FoundationDB's skip list is not built (no " + comparator + "): these checks against "
                        + "FoundationDB itself did not run. Build it with scripts/build-fdb (one to two hours the "
                        + "first time), or point -D" + PROPERTY + "=PATH at the comparator";
            }
        } catch (IOException e) {
            missing = "cannot locate FoundationDB's build: " + e.getMessage();
        }
    }

    /** Decides {@code trace} with FoundationDB's skip list; its "name: value" lines. */
    static Map<String, String> decide(Path comparator, Path trace) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(comparator.toString(), trace.toString())).redirectErrorStream(true).start();
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
