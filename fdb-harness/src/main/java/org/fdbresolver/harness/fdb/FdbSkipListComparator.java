package org.fdbresolver.harness.fdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where FoundationDB's own skip list is, as a program: the comparator {@code fdbresolver_fdb_skiplist} that
 * {@code scripts/build-fdb} builds inside FoundationDB's tree, which decides a trace (or measures its memory)
 * with FoundationDB's {@code ConflictSet.cpp}. One way to name it everywhere — {@link #ENV}, else where
 * {@code scripts/build-fdb --where} says the build puts it — for {@code retention --versus-fdb} and for every
 * test that checks against it (the live conformance, the skip-list memory model's check).
 *
 * @param path  the comparator, or null when there is none to run
 * @param whyNot when {@code path} is null: what is missing and how to get it, in one line
 */
public record FdbSkipListComparator(Path path, String whyNot) {
    /** Names the comparator, overriding the build's; empty means none (retention then models the skip list). */
    public static final String ENV = "FDBRESOLVER_FDB_SKIPLIST";

    /** The comparator {@link #ENV} names, else the build's. */
    public static FdbSkipListComparator find() {
        return find(System.getenv(ENV), FdbBuildLocation.repositoryRoot());
    }

    /**
     * @param named    the value of {@link #ENV}, or null when it is not set
     * @param repoRoot the repository whose {@code scripts/build-fdb --where} to ask when {@code named} is not set
     */
    public static FdbSkipListComparator find(String named, Path repoRoot) {
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? new FdbSkipListComparator(p, null)
                    : new FdbSkipListComparator(null, ENV + "=" + named + " is not an executable file");
        }
        FdbBuildLocation where;
        try {
            where = FdbBuildLocation.ask(repoRoot);
        } catch (IOException e) {
            return new FdbSkipListComparator(null, "cannot locate FoundationDB's build: " + e.getMessage());
        }
        Path built = where.path("fdb-skiplist");
        if (built != null && Files.isExecutable(built)) {
            return new FdbSkipListComparator(built, null);
        }
        // build-fdb's own reason says what is missing and what to do (build, or wait for the build under way).
        String why = where.notBuilt() != null ? where.notBuilt()
                : "no " + (built != null ? built : "comparator path from scripts/build-fdb --where")
                        + "; build it with scripts/build-fdb (" + FdbBuildLocation.FIRST_BUILD + ")";
        return new FdbSkipListComparator(null, "FoundationDB's skip list is not built: " + why + "; or set " + ENV
                + "=PATH to a built comparator");
    }

    public boolean found() {
        return path != null;
    }
}
