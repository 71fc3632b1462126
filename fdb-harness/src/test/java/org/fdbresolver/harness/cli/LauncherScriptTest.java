package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/fdbresolver} checks what it needs before using it (issue 7 item 5). The script runs against
 * stand-ins: a fake JDK (a {@code release} file and a {@code bin/java} script) and, for the build messages, a
 * copy of the script beside a fake Maven wrapper, so no test builds anything or needs a second real JDK.
 */
class LauncherScriptTest {
    static final Path SCRIPT = repositoryRoot().resolve("scripts").resolve("fdbresolver");

    static Path repositoryRoot() {
        // surefire runs in the module directory (fdb-harness); basedir says so explicitly
        Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        return module.getParent();
    }

    record Result(int code, String out, String err) {
        List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\n"));
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Result bash(Path script, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Path out = Files.createTempFile("launcher", ".out");
        Path err = Files.createTempFile("launcher", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the script finished");
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** A JDK stand-in: {@code bin/java} prints its arguments, or what an old JVM says about a new option. */
    static Path fakeJdk(Path dir, String version, boolean releaseFile) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        if (releaseFile) {
            Files.writeString(dir.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        }
        boolean old = Integer.parseInt(version.replaceFirst("^1\\.", "").replaceAll("[^0-9].*", "")) < 25;
        executable(bin.resolve("java"), """
                #!/usr/bin/env bash
                if [[ "$1" == -version ]]; then
                  echo 'openjdk version "%s" 2024-01-01' >&2
                  exit 0
                fi
                if %s; then
                  echo 'Unrecognized option: --sun-misc-unsafe-memory-access=allow' >&2
                  echo 'Error: Could not create the Java Virtual Machine.' >&2
                  exit 1
                fi
                echo "fake java ran: $*"
                """.formatted(version, old));
        return dir;
    }

    static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aJdk17IsOneErrorLineSayingWhatIsNeeded(@TempDir Path dir) throws Exception {
        for (boolean releaseFile : new boolean[] {true, false}) {
            Path jdk = fakeJdk(dir.resolve("jdk17-" + releaseFile), "17.0.15", releaseFile);
            Result r = bash(SCRIPT, Map.of("JAVA_HOME", jdk.toString(), "FDBRESOLVER_NO_BUILD", "1"), "--help");
            assertEquals(2, r.code(), r::toString);
            assertEquals(List.of("error: JAVA_HOME=" + jdk + " is JDK 17: fdbresolver needs JDK 25 (e.g. Temurin 25 at"
                    + " /usr/lib/jvm/temurin-25-jdk-amd64; point JAVA_HOME at it)"), r.errLines(), r::toString);
            assertEquals("", r.out());
        }
        Path java8 = fakeJdk(dir.resolve("jdk8"), "1.8.0_402", false);
        Result r = bash(SCRIPT, Map.of("JAVA_HOME", java8.toString(), "FDBRESOLVER_NO_BUILD", "1"), "--help");
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains(" is JDK 8: "), r::toString);
    }

    @Test
    void aMissingJdkSaysWhereToSetIt(@TempDir Path dir) throws Exception {
        Result r = bash(SCRIPT, Map.of("JAVA_HOME", dir.resolve("nothing").toString()), "--help");
        assertEquals(2, r.code(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().startsWith("error: JAVA_HOME=" + dir.resolve("nothing") + " holds no JDK: fdbresolver needs JDK 25"),
                r::toString);
    }

    /** A repository stand-in: the real script beside a Maven wrapper that fails offline with {@code offlineError}. */
    static Path fakeRepository(Path dir, String offlineError) throws IOException {
        Path root = Files.createDirectories(dir.resolve("repo"));
        Files.createDirectories(root.resolve("scripts"));
        Files.copy(SCRIPT, root.resolve("scripts").resolve("fdbresolver"));
        Files.createDirectories(root.resolve("scripts").resolve("lib"));
        Files.copy(SCRIPT.resolveSibling("lib").resolve("require-jdk.bash"), root.resolve("scripts/lib/require-jdk.bash"));
        executable(root.resolve("mvnw"), """
                #!/usr/bin/env bash
                echo "$*" >> mvnw.calls
                for a in "$@"; do
                  if [[ "$a" == -o ]]; then
                    echo '%s'
                    exit 1
                  fi
                done
                echo '[INFO] Building fdbresolver plugin 0.1.0-SNAPSHOT [1/2]'
                echo '[INFO] Building fdbresolver harness 0.1.0-SNAPSHOT [2/2]'
                mkdir -p fdb-harness/target/lib
                touch fdb-harness/target/fdbresolver-harness-0.1.0-SNAPSHOT.jar
                touch fdb-harness/target/fdbresolver-cli.stamp
                """.formatted(offlineError));
        return root;
    }

    /** {@link #fakeRepository} as a build has left it: the script starts the JVM at once. */
    static Path builtRepository(Path dir) throws IOException {
        Path root = fakeRepository(dir, "(never called)");
        Path target = Files.createDirectories(root.resolve("fdb-harness/target/lib"));
        Files.createFile(target.resolveSibling("fdbresolver-harness-0.1.0-SNAPSHOT.jar"));
        Files.createFile(target.resolveSibling("fdbresolver-cli.stamp"));
        return root;
    }

    /**
     * Issue 33: an option the JVM refuses printed the JVM's three lines and exited 1, which here means "the answer
     * is no". The real JDK is asked, before anything runs; a bad FDBRESOLVER_PROGRESS was ignored.
     */
    @Test
    void environmentTheScriptCannotUseIsOneErrorLineExitTwo(@TempDir Path dir) throws Exception {
        Path root = builtRepository(dir);
        Path script = root.resolve("scripts").resolve("fdbresolver");
        String jdk = System.getProperty("java.home");
        Map<String, String> expected = Map.of(
                "-Xbogus", "Unrecognized option: -Xbogus",
                "-Xmx3q", "Invalid maximum heap size: -Xmx3q",
                "-Xmx1g -XX:+UseG1GC", "Multiple garbage collectors selected");
        for (var e : expected.entrySet()) {
            Result r = bash(script, Map.of("JAVA_HOME", jdk, "FDBRESOLVER_JAVA_OPTS", e.getKey()), "--help");
            assertEquals(2, r.code(), r::toString);
            assertEquals(List.of("error: FDBRESOLVER_JAVA_OPTS='" + e.getKey() + "': the JVM refuses it: " + e.getValue()),
                    r.errLines(), r::toString);
            assertEquals("", r.out());
        }
        Result progress = bash(script, Map.of("JAVA_HOME", jdk, "FDBRESOLVER_PROGRESS", "bogus"), "--help");
        assertEquals(2, progress.code(), progress::toString);
        assertEquals(List.of("error: FDBRESOLVER_PROGRESS=bogus: wanted bar, lines or none (or unset: a bar on a "
                + "terminal, else lines)"), progress.errLines(), progress::toString);
        assertFalse(Files.exists(root.resolve("mvnw.calls")), "nothing was built");
    }

    @Test
    void theFirstBuildSaysItIsFetchingDependencies(@TempDir Path dir) throws Exception {
        Path root = fakeRepository(dir, "[ERROR] Failed to execute goal on project fdbresolver-harness: Could not resolve"
                + " dependencies: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the"
                + " artifact info.picocli:picocli:jar:4.7.7 has not been downloaded from it before.");
        Path jdk = fakeJdk(dir.resolve("jdk25"), "25.0.3", true);
        Result r = bash(root.resolve("scripts").resolve("fdbresolver"), Map.of("JAVA_HOME", jdk.toString()), "demo");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.err().contains("fetching Maven plugins and dependencies from Maven Central"), r::toString);
        assertFalse(r.err().contains("failed") || r.err().contains("retrying"), r::toString);
        assertTrue(r.out().startsWith("fake java ran: "), r::toString);
        assertEquals(2, Files.readAllLines(root.resolve("mvnw.calls")).size(), "offline, then online");
    }

    @Test
    void aBrokenBuildIsReportedWithoutFetchingAgain(@TempDir Path dir) throws Exception {
        Path root = fakeRepository(dir, "[ERROR] COMPILATION ERROR : Main.java:[1,1] class, interface, enum, or record expected");
        Path jdk = fakeJdk(dir.resolve("jdk25"), "25.0.3", true);
        Result r = bash(root.resolve("scripts").resolve("fdbresolver"), Map.of("JAVA_HOME", jdk.toString()), "demo");
        assertEquals(3, r.code(), r::toString);
        assertTrue(r.err().contains("[ERROR] COMPILATION ERROR"), r::toString);
        assertTrue(r.err().contains("error: the build failed"), r::toString);
        assertFalse(r.err().contains("fetching") || r.err().contains("retrying"), r::toString);
        assertEquals(1, Files.readAllLines(root.resolve("mvnw.calls")).size(), "no second attempt");
        assertEquals("", r.out());
    }
}
