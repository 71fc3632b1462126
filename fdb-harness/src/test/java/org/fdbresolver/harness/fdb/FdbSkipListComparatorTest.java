package org.fdbresolver.harness.fdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One way to name FoundationDB's skip list (issue 19 item 8): {@code FDBRESOLVER_FDB_SKIPLIST}, else
 * {@code scripts/build-fdb --where}, whose "not built" reason is passed on. A stand-in build-fdb answers.
 */
class FdbSkipListComparatorTest {

    static Path repository(Path dir, String whereScript) throws IOException {
        Path script = Files.createDirectories(dir.resolve("scripts")).resolve("build-fdb");
        Files.writeString(script, whereScript);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

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
                + " scripts/build-fdb; or set FDBRESOLVER_FDB_SKIPLIST=PATH to a built comparator", missing.whyNot());
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
        assertEquals("FoundationDB's skip list is not built: " + underWay + "; or set FDBRESOLVER_FDB_SKIPLIST=PATH to a "
                + "built comparator", FdbSkipListComparator.find(null, repo).whyNot());

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
}
