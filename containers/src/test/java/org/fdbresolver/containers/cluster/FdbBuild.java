package org.fdbresolver.containers.cluster;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.harness.fdb.FdbBuildLocation;
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
        Path root = FdbBuildLocation.repositoryRoot();
        FdbBuildLocation where;
        try {
            where = FdbBuildLocation.ask(root);
        } catch (IOException e) {
            return notRun(e.getMessage());
        }
        if (where.exitCode() == FdbBuildLocation.STALE) {
            return notRun("FoundationDB's build is older than this checkout's patch series or bridge headers ("
                    + (where.stale() == null ? "stale" : where.stale()) + ")");
        }
        if (!where.built()) {
            // build-fdb's words: they say when a build is under way, as the other NOT RUN lines do (issue 33)
            return notRun(where.whyNotBuilt());
        }
        return new FdbBuild(root, where.path("fdbserver"), where.path("fdbcli"), where.path("libfdb_c"));
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
