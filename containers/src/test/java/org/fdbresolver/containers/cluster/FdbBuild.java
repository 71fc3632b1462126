package org.fdbresolver.containers.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The FoundationDB build these tests need: {@code fdbserver}, {@code fdbcli} and {@code libfdb_c} with
 * fdbresolver's patch series, where {@code scripts/build-fdb --where} says they are.
 *
 * <p>Without the build the cluster tests cannot run: they abort, saying why (JUnit reports them as
 * skipped, with the reason, and the reason is printed), so that {@code ./mvnw verify} passes on a
 * machine that never built FoundationDB. With {@code -Dfdbresolver.fdb.required=true} (CI with the
 * build) a missing build fails them instead.
 */
record FdbBuild(Path repoRoot, Path fdbserver, Path fdbcli, Path libfdbC) {
    static final String REQUIRED_PROPERTY = "fdbresolver.fdb.required";

    private static FdbBuild found;
    private static String missing;

    /**
     * The build, or an aborted (or, when required, failed) test naming what is missing and the fix. Call
     * it before each test (not once per class: a class-level abort shows in no test count).
     */
    static synchronized FdbBuild requireOrAbort() {
        if (found == null && missing == null) {
            try {
                found = locate();
            } catch (MissingBuild e) {
                missing = e.getMessage();
                System.err.println(missing);
            }
        }
        if (found != null) {
            return found;
        }
        if (Boolean.getBoolean(REQUIRED_PROPERTY)) {
            throw new IllegalStateException(missing + " (-D" + REQUIRED_PROPERTY + "=true)");
        }
        Assumptions.abort(missing);
        throw new AssertionError("unreachable");
    }

    private static FdbBuild locate() {
        Path root = Path.of(System.getProperty("fdbresolver.repoRoot", "..")).toAbsolutePath().normalize();
        Path script = root.resolve("scripts/build-fdb");
        if (!Files.isExecutable(script)) {
            return notRun("no scripts/build-fdb under " + root + " (system property fdbresolver.repoRoot)");
        }
        String output;
        int exit;
        try {
            Process p = new ProcessBuilder(script.toString(), "--where").redirectErrorStream(true).start();
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return notRun("scripts/build-fdb --where did not answer within a minute");
            }
            exit = p.exitValue();
        } catch (IOException e) {
            return notRun("cannot run scripts/build-fdb --where: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Map<String, Path> paths = new HashMap<>();
        for (String line : output.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                paths.put(line.substring(0, colon), Path.of(line.substring(colon + 2).trim()));
            }
        }
        if (exit == 4) {
            return notRun("FoundationDB's build is older than this checkout's patch series or bridge headers ("
                    + output.lines().filter(l -> l.startsWith("stale: ")).findFirst().orElse("stale") + ")");
        }
        if (exit != 0) {
            return notRun("FoundationDB is not built (scripts/build-fdb --where exited " + exit + "; fdbserver would be "
                    + paths.get("fdbserver") + "): run scripts/build-fdb (one to two hours the first time)");
        }
        return new FdbBuild(root, paths.get("fdbserver"), paths.get("fdbcli"), paths.get("libfdb_c"));
    }

    private static FdbBuild notRun(String reason) {
        throw new MissingBuild("FoundationDB cluster tests NOT RUN: " + reason);
    }

    private static final class MissingBuild extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingBuild(String message) {
            super(message);
        }
    }
}
