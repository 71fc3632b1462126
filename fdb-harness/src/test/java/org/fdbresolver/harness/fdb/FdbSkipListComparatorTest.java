package org.fdbresolver.harness.fdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One way to name FoundationDB's skip list (issue 19 item 8, issue 30 item 4): {@code FDBRESOLVER_FDB_SKIPLIST},
 * else {@code scripts/build-fdb --where}'s comparator, else {@code scripts/build-skiplist --where}'s standalone one;
 * the "not built" reason is passed on with the one-minute command. Stand-in scripts answer.
 */
class FdbSkipListComparatorTest {

    static Path repository(Path dir, String whereScript) throws IOException {
        return withScript(dir, "build-fdb", whereScript);
    }

    static Path withScript(Path dir, String name, String whereScript) throws IOException {
        Path script = Files.createDirectories(dir.resolve("scripts")).resolve(name);
        Files.writeString(script, whereScript);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    static Path executableFile(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    static String answer(int exitCode, Path comparator, String stderr) {
        return "#!/bin/sh\necho \"fdb-skiplist: " + comparator + "\"\n" + (stderr.isEmpty() ? "" : "echo \"" + stderr + "\" >&2\n")
                + "exit " + exitCode + "\n";
    }

    static final String FULL_NOT_BUILT = "build-fdb: not built: FoundationDB's build in /cache lacks fdbserver; run scripts/build-fdb";

    @Test
    void theEnvironmentNamesItFirst(@TempDir Path dir) throws IOException {
        Path comparator = Files.writeString(dir.resolve("skiplist"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(comparator, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path repo = repository(dir.resolve("repo"), "#!/bin/sh\nexit 99\n");
        FdbSkipListComparator found = FdbSkipListComparator.find(comparator.toString(), repo);
        assertEquals(comparator, found.path());
        assertNull(found.whyNot());

        Path plain = Files.writeString(dir.resolve("plain"), "not executable");
        FdbSkipListComparator refused = FdbSkipListComparator.find(plain.toString(), repo);
        assertFalse(refused.found());
        assertEquals("FDBRESOLVER_FDB_SKIPLIST=" + plain + " is not an executable file", refused.whyNot());
    }

    @Test
    void elseTheBuildsAnswerWithItsReason(@TempDir Path dir) throws IOException {
        Path repo = repository(dir, """
                #!/bin/sh
                echo "fdbserver: /cache/build/bin/fdbserver"
                echo "fdb-skiplist: /cache/build/bin/fdbresolver_fdb_skiplist"
                echo "build-fdb: not built: FoundationDB's build in /cache lacks fdbserver; run scripts/build-fdb" >&2
                exit 3
                """);
        FdbBuildLocation where = FdbBuildLocation.ask(repo);
        assertEquals(FdbBuildLocation.NOT_BUILT_YET, where.exitCode());
        assertEquals(Path.of("/cache/build/bin/fdbresolver_fdb_skiplist"), where.path("fdb-skiplist"));
        assertEquals("FoundationDB's build in /cache lacks fdbserver; run scripts/build-fdb", where.notBuilt());
        assertEquals(2, where.paths().size(), "stderr's lines are not paths");

        FdbSkipListComparator missing = FdbSkipListComparator.find(null, repo);
        assertFalse(missing.found());
        assertEquals("FoundationDB's skip list is not built: FoundationDB's build in /cache lacks fdbserver; run"
                + " scripts/build-fdb; or build the standalone comparator from FoundationDB's ConflictSet.cpp alone in about"
                + " a minute: scripts/build-skiplist; or set FDBRESOLVER_FDB_SKIPLIST=PATH to a built comparator", missing.whyNot());
        assertEquals(missing.whyNot(), FdbSkipListComparator.find("", repo).whyNot(), "empty is not set");
    }

    /**
     * Issue 33: the cluster tests' NOT RUN line said "run scripts/build-fdb" while a build was under way; every
     * test that needs the build now passes build-fdb's own reason on, which says so.
     */
    @Test
    void theReasonForEveryNotRunLineSaysWhenABuildIsUnderWay(@TempDir Path dir) throws IOException {
        String underWay = "FoundationDB's build in /cache lacks fdbserver; a build is under way (step 56 of 572), its log: "
                + "/cache/build.log";
        Path repo = repository(dir.resolve("building"), """
                #!/bin/sh
                echo "fdbserver: /cache/build/bin/fdbserver"
                echo "build-fdb: not built: %s" >&2
                exit 3
                """.formatted(underWay));
        FdbBuildLocation where = FdbBuildLocation.ask(repo);
        assertFalse(where.built());
        assertEquals(underWay, where.whyNotBuilt());
        assertEquals("FoundationDB's skip list is not built: " + underWay + "; or build the standalone comparator from"
                + " FoundationDB's ConflictSet.cpp alone in about a minute: scripts/build-skiplist; or set"
                + " FDBRESOLVER_FDB_SKIPLIST=PATH to a built comparator", FdbSkipListComparator.find(null, repo).whyNot());

        Path silent = repository(dir.resolve("silent"), "#!/bin/sh\necho \"fdbserver: /cache/build/bin/fdbserver\"\nexit 3\n");
        assertEquals("FoundationDB is not built (scripts/build-fdb --where exited 3; fdbserver would be "
                + "/cache/build/bin/fdbserver): run scripts/build-fdb (hours the first time, see docs/fdb-integration.md)",
                FdbBuildLocation.ask(silent).whyNotBuilt());
    }

    @Test
    void aBuiltComparatorIsFound(@TempDir Path dir) throws IOException {
        Path comparator = Files.writeString(dir.resolve("fdbresolver_fdb_skiplist"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(comparator, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path repo = repository(dir.resolve("repo"), "#!/bin/sh\necho \"fdb-skiplist: " + comparator + "\"\nexit 0\n");
        assertEquals(comparator, FdbSkipListComparator.find(null, repo).path());
    }

    @Test
    void theFullBuildIsTheReferenceWhereBothAreBuilt(@TempDir Path dir) throws IOException {
        Path full = executableFile(dir.resolve("build/fdbresolver_fdb_skiplist"));
        Path standalone = executableFile(dir.resolve("skiplist/fdbresolver_fdb_skiplist"));
        Path repo = repository(dir.resolve("repo"), answer(0, full, ""));
        withScript(repo, "build-skiplist", answer(0, standalone, ""));
        FdbSkipListComparator found = FdbSkipListComparator.find(null, repo);
        assertEquals(full, found.path());
        assertEquals("scripts/build-fdb", found.from());

        // A full build older than the checkout's patches still decides with FoundationDB's skip list: still first.
        repository(repo, answer(4, full, "stale: the patch series changed since this build"));
        assertEquals(full, FdbSkipListComparator.find(null, repo).path());

        // The environment comes before both.
        Path named = executableFile(dir.resolve("named"));
        FdbSkipListComparator fromEnv = FdbSkipListComparator.find(named.toString(), repo);
        assertEquals(named, fromEnv.path());
        assertEquals("FDBRESOLVER_FDB_SKIPLIST", fromEnv.from());
    }

    @Test
    void theStandaloneOneWhenTheFullBuildIsAbsent(@TempDir Path dir) throws IOException {
        Path standalone = executableFile(dir.resolve("skiplist/fdbresolver_fdb_skiplist"));
        Path repo = repository(dir.resolve("repo"), answer(3, dir.resolve("build/fdbresolver_fdb_skiplist"), FULL_NOT_BUILT));
        withScript(repo, "build-skiplist", answer(0, standalone, ""));
        FdbSkipListComparator found = FdbSkipListComparator.find(null, repo);
        assertEquals(standalone, found.path());
        assertNull(found.whyNot());
        assertEquals("scripts/build-skiplist", found.from());
    }

    @Test
    void aStandaloneOneBuiltFromOtherSourcesIsNotUsed(@TempDir Path dir) throws IOException {
        // --where exits 3 when nothing is built from this checkout's sources, even if the path it names exists.
        Path standalone = executableFile(dir.resolve("skiplist/fdbresolver_fdb_skiplist"));
        Path repo = repository(dir.resolve("repo"), answer(3, dir.resolve("build/fdbresolver_fdb_skiplist"), FULL_NOT_BUILT));
        withScript(repo, "build-skiplist", answer(3, standalone,
                "build-skiplist: not built: no standalone comparator for this checkout's sources; run scripts/build-skiplist"));
        FdbSkipListComparator missing = FdbSkipListComparator.find(null, repo);
        assertFalse(missing.found());
        assertNull(missing.from());
        assertTrue(missing.whyNot().contains("in about a minute: scripts/build-skiplist;"), missing.whyNot());

        // Its "not built" line reads like build-fdb's.
        assertEquals("no standalone comparator for this checkout's sources; run scripts/build-skiplist",
                FdbBuildLocation.ask(repo, FdbBuildLocation.STANDALONE_SKIPLIST).notBuilt());
    }

    /** The real scripts agree with the lookup: build-skiplist --where names a path and says why it is not there. */
    @Test
    void theRealBuildSkiplistAnswersWhereLikeBuildFdb(@TempDir Path cache) throws Exception {
        Path repo = FdbBuildLocation.repositoryRoot();
        Process p = new ProcessBuilder(repo.resolve("scripts/build-skiplist").toString(), "--where", "--cache", cache.toString())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(3, p.waitFor(), out + err);
        assertTrue(out.startsWith("fdb-skiplist: " + cache + "/skiplist-c0c44752df67/"), out);
        assertTrue(out.lines().findFirst().orElseThrow().endsWith("/fdbresolver_fdb_skiplist"), out);
        assertEquals("build-skiplist: not built: no standalone comparator for this checkout's sources in " + cache
                + "/skiplist-c0c44752df67; run scripts/build-skiplist (about a minute)", err.strip());
    }
}
