package org.fdbresolver.harness.fdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where FoundationDB's own skip list is, as a program: a comparator {@code fdbresolver_fdb_skiplist}, which
 * decides a trace (or measures its memory) with FoundationDB's {@code ConflictSet.cpp}. One way to name it
 * everywhere, for {@code retention --versus-fdb}, {@code size}, {@code fuzz} and every test that checks against
 * it (the live conformance, the skip-list memory model's check), in this order:
 * <ol>
 * <li>{@link #ENV}, when set;</li>
 * <li>the comparator {@code scripts/build-fdb} builds inside FoundationDB's tree (its {@code --where}): the
 * reference wherever it is built;</li>
 * <li>else the standalone comparator {@code scripts/build-skiplist} builds in about a minute from FoundationDB's
 * {@code ConflictSet.cpp} alone (its {@code --where}), when built from this checkout's sources. It gives the
 * full build's decisions and node bytes (docs/conformance.md).</li>
 * </ol>
 *
 * @param path   the comparator, or null when there is none to run
 * @param whyNot when {@code path} is null: what is missing and how to get it, in one line
 * @param from   where it was found ({@link #ENV}, {@code scripts/build-fdb}, {@code scripts/build-skiplist}), or null
 */
public record FdbSkipListComparator(Path path, String whyNot, String from) {
    /** Names the comparator, overriding the builds'; empty means none (retention then models the skip list). */
    public static final String ENV = "FDBRESOLVER_FDB_SKIPLIST";

    /** The comparator {@link #ENV} names, else the full build's, else the standalone one. */
    public static FdbSkipListComparator find() {
        return find(System.getenv(ENV), FdbBuildLocation.repositoryRoot());
    }

    /**
     * @param named    the value of {@link #ENV}, or null when it is not set
     * @param repoRoot the repository whose {@code scripts/build-fdb --where} and {@code scripts/build-skiplist --where}
     *                 to ask when {@code named} is not set
     */
    public static FdbSkipListComparator find(String named, Path repoRoot) {
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? new FdbSkipListComparator(p, null, ENV)
                    : new FdbSkipListComparator(null, ENV + "=" + named + " is not an executable file", null);
        }
        FdbSkipListComparator fullBuild = fullBuild(repoRoot);
        if (fullBuild.found()) {
            return fullBuild;
        }
        FdbSkipListComparator standalone = standalone(repoRoot);
        if (standalone.found()) {
            return standalone;
        }
        return new FdbSkipListComparator(null, "FoundationDB's skip list is not built: " + fullBuild.whyNot() + "; or build"
                + " the standalone comparator from FoundationDB's ConflictSet.cpp alone in about a minute: scripts/build-skiplist"
                + "; or set " + ENV + "=PATH to a built comparator", null);
    }

    /**
     * The comparator of FoundationDB's full build ({@code scripts/build-fdb --where}), used even when built from an
     * older patch series: it still decides with FoundationDB's skip list. Else {@code whyNot} is build-fdb's reason
     * (missing, or a build under way).
     */
    public static FdbSkipListComparator fullBuild(Path repoRoot) {
        try {
            FdbBuildLocation where = FdbBuildLocation.ask(repoRoot);
            Path built = where.path("fdb-skiplist");
            if (built != null && Files.isExecutable(built)) {
                return new FdbSkipListComparator(built, null, "scripts/" + FdbBuildLocation.FULL_BUILD);
            }
            return new FdbSkipListComparator(null, where.notBuilt() != null ? where.notBuilt()
                    : "no " + (built != null ? built : "comparator path from scripts/build-fdb --where")
                            + "; build it with scripts/build-fdb (" + FdbBuildLocation.FIRST_BUILD + ")", null);
        } catch (IOException e) {
            return new FdbSkipListComparator(null, "cannot locate FoundationDB's build: " + e.getMessage(), null);
        }
    }

    /**
     * The standalone comparator ({@code scripts/build-skiplist --where}), only when built from this checkout's sources
     * (rebuilding takes a minute). Else {@code whyNot} is build-skiplist's reason.
     */
    public static FdbSkipListComparator standalone(Path repoRoot) {
        try {
            FdbBuildLocation where = FdbBuildLocation.ask(repoRoot, FdbBuildLocation.STANDALONE_SKIPLIST);
            Path built = where.path("fdb-skiplist");
            if (where.built() && built != null && Files.isExecutable(built)) {
                return new FdbSkipListComparator(built, null, "scripts/" + FdbBuildLocation.STANDALONE_SKIPLIST);
            }
            return new FdbSkipListComparator(null, where.notBuilt() != null ? where.notBuilt()
                    : "scripts/build-skiplist --where exited " + where.exitCode(), null);
        } catch (IOException e) {
            return new FdbSkipListComparator(null, "cannot locate the standalone comparator: " + e.getMessage(), null);
        }
    }

    public boolean found() {
        return path != null;
    }
}
