package org.fdbresolver.harness.cli;

import static org.fdbresolver.harness.cli.LauncherScriptTest.bash;
import static org.fdbresolver.harness.cli.LauncherScriptTest.executable;
import static org.fdbresolver.harness.cli.LauncherScriptTest.fakeJdk;
import static org.fdbresolver.harness.cli.LauncherScriptTest.repositoryRoot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripts a new user meets without a FoundationDB build (issue 19, items 1, 3 and 7): each says what is
 * missing on stderr instead of exiting silently, and the replay driver never runs a build older than its
 * sources. They run against an empty FoundationDB cache, or a stand-in repository with a fake Maven wrapper.
 */
class ScriptsTest {
    static final Path SCRIPTS = repositoryRoot().resolve("scripts");
    /** The build folder's name for the pinned commit, as build-fdb names it. */
    static final String LABEL = "c0c44752df67";

    static String lacks(Path cache) {
        return "FoundationDB's build in " + cache + " lacks fdbserver fdbcli libfdb_c.so fdbresolver_fdb_skiplist";
    }

    @Test
    void buildFdbWhereSaysNotBuiltOnStderr(@TempDir Path cache) throws Exception {
        LauncherScriptTest.Result r = bash(SCRIPTS.resolve("build-fdb"), Map.of(), "--where", "--cache", cache.toString());
        assertEquals(3, r.code(), r::toString);
        assertEquals(6, r.out().lines().count(), r::toString);
        assertTrue(r.out().contains("fdb-skiplist: " + cache + "/build-" + LABEL + "/bin/fdbresolver_fdb_skiplist\n"), r::toString);
        assertEquals(List.of("build-fdb: not built: " + lacks(cache) + "; run scripts/build-fdb (hours the first"
                + " time on 2 cores, see docs/fdb-integration.md)"), r.errLines(), r::toString);

        // A build under way writes its log: said, with how far it got.
        Path log = cache.resolve("build-" + LABEL + ".log");
        Files.writeString(log, "[1/345] Building CXX object a.o\n[12/345] Building CXX object b.o\n");
        r = bash(SCRIPTS.resolve("build-fdb"), Map.of(), "--where", "--cache", cache.toString());
        assertEquals(3, r.code(), r::toString);
        assertEquals(List.of("build-fdb: not built: " + lacks(cache) + "; a build is under way (step 12 of 345), its log: "
                + log), r.errLines(), r::toString);
    }

    @Test
    void fdbCompareWithoutABuildSaysSoAndExitsThree(@TempDir Path dir) throws Exception {
        Path trace = Files.writeString(dir.resolve("t.trace"), "not read: the build is checked first");
        Path cache = dir.resolve("cache");
        // FDBRESOLVER_FDB_SKIPLIST set empty: the builds are asked, whatever the environment running the tests names.
        LauncherScriptTest.Result r = bash(SCRIPTS.resolve("fdb-compare"), Map.of("FDBRESOLVER_FDB_CACHE", cache.toString(),
                "FDBRESOLVER_FDB_SKIPLIST", ""), trace.toString(), "--warmup", "10");
        assertEquals(3, r.code(), r::toString);
        assertEquals("", r.out());
        assertEquals(List.of("error: FoundationDB's skip list is not built: " + lacks(cache) + "; run scripts/build-fdb"
                + " (hours the first time on 2 cores, see docs/fdb-integration.md); or build the standalone comparator from FoundationDB's"
                + " ConflictSet.cpp alone in about a minute: scripts/build-skiplist"), r.errLines(), r::toString);
        // --cache says the same of another cache.
        Path other = dir.resolve("other");
        r = bash(SCRIPTS.resolve("fdb-compare"), Map.of("FDBRESOLVER_FDB_SKIPLIST", ""), trace.toString(), "--cache",
                other.toString());
        assertEquals(3, r.code(), r::toString);
        assertTrue(r.err().contains(lacks(other)), r::toString);
        // FDBRESOLVER_FDB_SKIPLIST names the comparator first; one that is not there is bad usage.
        r = bash(SCRIPTS.resolve("fdb-compare"), Map.of("FDBRESOLVER_FDB_SKIPLIST", dir.resolve("none").toString()),
                trace.toString(), "--cache", other.toString());
        assertEquals(2, r.code(), r::toString);
        assertEquals(List.of("error: FDBRESOLVER_FDB_SKIPLIST=" + dir.resolve("none") + " is not an executable file"),
                r.errLines(), r::toString);
    }

    /**
     * scripts/test's step before Maven (issue 30 item 4): with neither FoundationDB's build nor its source, CI goes on
     * (the tests then say NOT RUN) after build-skiplist's one line; a source that is here but does not build stops it.
     */
    @Test
    void theTestsPreparationOfTheStandaloneComparatorFailsOnlyOnABrokenBuild(@TempDir Path dir) throws Exception {
        Path runner = Files.writeString(dir.resolve("prepare.sh"), """
                unset FDBRESOLVER_FDB_SKIPLIST
                source "%s"
                prepare_skiplist_comparator
                """.formatted(SCRIPTS.resolve("lib/skiplist-comparator.bash")));
        Path cache = dir.resolve("cache");
        LauncherScriptTest.Result none = bash(runner, Map.of("FDBRESOLVER_FDB_CACHE", cache.toString(), "FDB_SOURCE", ""));
        assertEquals(0, none.code(), none::toString);
        assertEquals(List.of("build-skiplist: not built: no FoundationDB source here (no --source, $FDB_SOURCE, nor"
                + " build-fdb's source or clone in " + cache + "); pass --source DIR|MIRROR"), none.errLines(), none::toString);

        Path broken = Files.createDirectories(dir.resolve("fdb/fdbserver/resolver"));
        Files.writeString(broken.resolve("ConflictSet.cpp"), "not FoundationDB's ConflictSet.cpp\n");
        Files.writeString(broken.resolve("ConflictSet.h"), "\n");
        LauncherScriptTest.Result failed = bash(runner, Map.of("FDBRESOLVER_FDB_CACHE", cache.toString(),
                "FDB_SOURCE", dir.resolve("fdb").toString()));
        assertEquals(1, failed.code(), failed::toString);
        assertTrue(failed.err().contains("error: patch 0002's ConflictSet.cpp and ConflictSet.h parts do not apply to"), failed::toString);
        assertTrue(failed.err().endsWith("test: scripts/build-skiplist failed (exit 2) although FoundationDB's source is here\n"),
                failed::toString);
    }

    /**
     * fdb-compare times FoundationDB's skip list over jemalloc, as fdbserver links it: a comparator that links it runs
     * as it is, another one with jemalloc preloaded where the library is here (else the report says glibc's malloc and
     * why), and FDBRESOLVER_SKIPLIST_MALLOC=system keeps glibc's.
     */
    @Test
    void theSkipListIsTimedOverJemalloc(@TempDir Path dir) throws Exception {
        Path probe = Files.writeString(dir.resolve("probe.bash"), "source " + SCRIPTS.resolve("lib/skiplist-comparator.bash")
                + "\nskiplist_allocator \"$1\"\necho \"run=${skiplist_run[*]}\"\necho \"allocator=$skiplist_allocator\"\n");
        Path linked = Files.write(dir.resolve("linked"), "\u007fELF ... <jemalloc>: Invalid conf pair ...".getBytes());
        Path plain = Files.write(dir.resolve("plain"), "\u007fELF ... malloc ...".getBytes());

        LauncherScriptTest.Result r = bash(probe, Map.of(), linked.toString());
        assertEquals(List.of("run=", "allocator=jemalloc (linked in the comparator, as in fdbserver)"), r.out().lines().toList(),
                r::toString);

        r = bash(probe, Map.of("FDBRESOLVER_SKIPLIST_MALLOC", "system"), plain.toString());
        assertEquals("run=", r.out().lines().findFirst().orElseThrow(), r::toString);
        assertTrue(r.out().contains("allocator=glibc malloc (FDBRESOLVER_SKIPLIST_MALLOC=system;"), r::toString);

        r = bash(probe, Map.of(), plain.toString());
        Path lib = List.of("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
                "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2").stream().map(Path::of).filter(Files::isRegularFile)
                .findFirst().orElse(null);
        if (lib != null) {
            assertEquals(List.of("run=env LD_PRELOAD=" + lib, "allocator=jemalloc (" + lib + " preloaded, as fdbserver links it)"),
                    r.out().lines().toList(), r::toString);
        } else {
            assertEquals("run=", r.out().lines().findFirst().orElseThrow(), r::toString);
            assertTrue(r.out().contains("allocator=glibc malloc: no libjemalloc.so.2 here (apt-get install libjemalloc2)"),
                    r::toString);
        }
    }

    /** Its usage line names every option it takes, and takes every option it names; bad usage is exit 2. */
    @Test
    void fdbCompareUsageMatchesWhatItParses() throws Exception {
        String script = Files.readString(SCRIPTS.resolve("fdb-compare"));
        List<String> parsed = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^    (--[a-z-]+)\\)").matcher(script);
        while (m.find()) {
            parsed.add(m.group(1));
        }
        LauncherScriptTest.Result help = bash(SCRIPTS.resolve("fdb-compare"), Map.of(), "--help");
        assertEquals(0, help.code(), help::toString);
        String usage = help.out().lines().filter(l -> l.startsWith("Usage:")).findFirst().orElseThrow();
        List<String> named = new ArrayList<>();
        Matcher u = Pattern.compile("\\[(--[a-z-]+)").matcher(usage);
        while (u.find()) {
            named.add(u.group(1));
        }
        assertEquals(parsed, named, usage);
        LauncherScriptTest.Result bad = bash(SCRIPTS.resolve("fdb-compare"), Map.of(), "--engine-option", "x=1");
        assertEquals(2, bad.code(), bad::toString);
        assertEquals(List.of("error: unknown option --engine-option (see --help)"), bad.errLines());
        // A budget is a byte count, as bench takes it; anything else is refused before a run.
        bad = bash(SCRIPTS.resolve("fdb-compare"), Map.of(), "--budget", "lots");
        assertEquals(2, bad.code(), bad::toString);
        assertEquals(List.of("error: --budget needs a byte count (e.g. 128m)"), bad.errLines());
    }

    /** A stand-in repository: the real replay script, a fake Maven wrapper that "builds" the bridge and counts its calls. */
    static Path fakeBridgeRepository(Path dir) throws IOException {
        Path root = Files.createDirectories(dir.resolve("repo"));
        Files.createDirectories(root.resolve("scripts/lib"));
        Files.copy(SCRIPTS.resolve("fdbresolver-replay"), root.resolve("scripts/fdbresolver-replay"));
        Files.copy(SCRIPTS.resolve("lib/require-jdk.bash"), root.resolve("scripts/lib/require-jdk.bash"));
        executable(root.resolve("scripts/install-deps"), "#!/usr/bin/env bash\nexit 0\n");
        for (String source : List.of("plugin/src/main/java/Engine.java", "jni-bridge/src/main/native/replay/replay_main.cpp",
                "jni-bridge/include/fdbresolver.h", "fdb-harness/src/main/java/Cli.java")) {
            Files.createDirectories(root.resolve(source).getParent());
            Files.writeString(root.resolve(source), "// source\n");
        }
        for (String pom : List.of("pom.xml", "plugin/pom.xml", "jni-bridge/pom.xml")) {
            Files.writeString(root.resolve(pom), "<project/>\n");
        }
        Files.writeString(root.resolve("jni-bridge/CMakeLists.txt"), "# cmake\n");
        executable(root.resolve("jni-bridge/build-native.sh"), "#!/usr/bin/env bash\n");
        executable(root.resolve("mvnw"), """
                #!/usr/bin/env bash
                echo "$*" >> mvnw.calls
                t=jni-bridge/target
                mkdir -p $t/native $t/classes/org/fdbresolver/bridge $t/lib
                printf '#!/usr/bin/env bash\\necho "fake replay ran: $*"\\n' > $t/native/fdbresolver-replay
                chmod +x $t/native/fdbresolver-replay
                touch $t/classes/org/fdbresolver/bridge/NativeResolver.class $t/lib/plugin.jar
                touch $t/fdbresolver-replay.stamp
                """);
        return root;
    }

    static void makeNewer(Path file) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(60)));
    }

    @Test
    void theReplayDriverRebuildsWhenASourceChanged(@TempDir Path dir) throws Exception {
        Path root = fakeBridgeRepository(dir);
        Path jdk = fakeJdk(dir.resolve("jdk25"), "25.0.3", true);
        Files.createDirectories(jdk.resolve("include"));
        Files.writeString(jdk.resolve("include/jni.h"), "");
        Path script = root.resolve("scripts/fdbresolver-replay");
        Path calls = root.resolve("mvnw.calls");
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());

        LauncherScriptTest.Result first = bash(script, env, "t.trace");
        assertEquals(0, first.code(), first::toString);
        assertTrue(first.err().startsWith("fdbresolver-replay: building the JNI bridge (first call: the bridge is not built;"),
                first::toString);
        assertEquals("fake replay ran: t.trace\n", first.out());
        assertEquals(1, Files.readAllLines(calls).size());

        LauncherScriptTest.Result again = bash(script, env, "t.trace");
        assertEquals("", again.err(), "nothing changed: no build");
        assertEquals(1, Files.readAllLines(calls).size());

        for (String changed : List.of("plugin/src/main/java/Engine.java", "jni-bridge/src/main/native/replay/replay_main.cpp",
                "jni-bridge/include/fdbresolver.h", "jni-bridge/pom.xml")) {
            int before = Files.readAllLines(calls).size();
            makeNewer(root.resolve(changed));
            LauncherScriptTest.Result stale = bash(script, Map.of("JAVA_HOME", jdk.toString(), "FDBRESOLVER_NO_BUILD", "1"),
                    "t.trace");
            assertEquals(2, stale.code(), stale::toString);
            assertEquals(List.of("error: the JNI bridge needs a build (" + changed + " changed since the last build), and"
                    + " FDBRESOLVER_NO_BUILD=1"), stale.errLines());
            LauncherScriptTest.Result rebuilt = bash(script, env, "t.trace");
            assertEquals(0, rebuilt.code(), rebuilt::toString);
            assertTrue(rebuilt.err().startsWith("fdbresolver-replay: building the JNI bridge (" + changed
                    + " changed since the last build;"), rebuilt::toString);
            assertEquals(before + 1, Files.readAllLines(calls).size());
            Files.setLastModifiedTime(root.resolve(changed), FileTime.from(Instant.now().minusSeconds(60)));
        }
        // What the driver does not run from is not a reason to rebuild.
        makeNewer(root.resolve("fdb-harness/src/main/java/Cli.java"));
        int before = Files.readAllLines(calls).size();
        assertEquals("", bash(script, env, "t.trace").err());
        assertEquals(before, Files.readAllLines(calls).size());
    }

    /**
     * Issue 33: the replay script rebuilt the bridge ("no record of the last build") right after scripts/test had
     * built it, because only the script wrote its record. Maven writes it now, at the end of every build that
     * packages the module (the fake wrappers above do the same); each script reads the file its module's pom writes.
     */
    @Test
    void theRecordOfTheLastBuildIsWrittenByMavenWhereTheScriptsLook() throws IOException {
        Path root = repositoryRoot();
        for (var e : Map.of("jni-bridge", "fdbresolver-replay", "fdb-harness", "fdbresolver").entrySet()) {
            String stamp = e.getValue().equals("fdbresolver") ? "fdbresolver-cli.stamp" : "fdbresolver-replay.stamp";
            String pom = Files.readString(root.resolve(e.getKey()).resolve("pom.xml"));
            Matcher record = Pattern.compile("<id>record-build</id>\\s*<phase>package</phase>[\\s\\S]*?<executable>touch"
                    + "</executable>\\s*<arguments>\\s*<argument>\\$\\{project.build.directory\\}/([^<]+)</argument>").matcher(pom);
            assertTrue(record.find(), e.getKey() + "/pom.xml records its build");
            assertEquals(stamp, record.group(1));
            String script = Files.readString(SCRIPTS.resolve(e.getValue()));
            assertTrue(script.contains("stamp=\"$target/" + stamp + "\"") || script.contains("stamp=$target/" + stamp),
                    e.getValue() + " reads " + stamp);
            assertTrue(!script.contains("touch \"$stamp\""), e.getValue() + " leaves the record to Maven");
        }
    }
}
