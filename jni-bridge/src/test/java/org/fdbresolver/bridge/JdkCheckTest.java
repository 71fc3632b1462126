package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/fdbresolver-replay and scripts/test check that JAVA_HOME is a JDK 25 before anything runs
 * (scripts/lib/require-jdk.bash) and say what is needed and where, with exit status 2, instead of letting
 * an older JVM die on an option it does not know. Stand-in JDKs (a release file and a bin/java that only
 * reports its version) play the old and broken installations. scripts/test itself is not run here (it
 * installs packages and starts Docker): its check is the same function, and it must come first.
 */
class JdkCheckTest {
    static final Path SCRIPTS = Path.of("..", "scripts").toAbsolutePath().normalize();
    static final String WHERE = "(e.g. Temurin 25 at /usr/lib/jvm/temurin-25-jdk-amd64; point JAVA_HOME at it)";

    record Result(int exitCode, String stdout, String stderr) {
    }

    static Result run(Path javaHome, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(SCRIPTS.getParent().toFile());
        pb.environment().put("JAVA_HOME", javaHome.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not finish");
        return new Result(p.exitValue(), out, err);
    }

    /** A stand-in JDK of the given version: a release file (when asked) and a bin/java that reports it. */
    static Path fakeJdk(Path dir, String version, boolean releaseFile, boolean headers) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho '    java.specification.version = " + version.split("\\.")[0] + "' >&2\n"
                + "echo 'openjdk version \"" + version + "\"' >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (releaseFile) {
            Files.writeString(dir.resolve("release"), "IMPLEMENTOR=\"Stand-in\"\nJAVA_VERSION=\"" + version + "\"\n");
        }
        if (headers) {
            Files.createDirectories(dir.resolve("include"));
            Files.writeString(dir.resolve("include").resolve("jni.h"), "/* stand-in */\n");
        }
        return dir;
    }

    static Result replayScript(Path javaHome) throws Exception {
        return run(javaHome, SCRIPTS.resolve("fdbresolver-replay").toString(), "--help");
    }

    static Result testScriptsCheck(Path javaHome) throws Exception {
        return run(javaHome, "bash", "-c", ". scripts/lib/require-jdk.bash && require_jdk25 scripts/test && echo checked");
    }

    @Test
    void jdk17IsRefusedSayingJdk25IsNeededAndWhere(@TempDir Path tmp) throws Exception {
        for (boolean releaseFile : List.of(true, false)) {
            Path jdk17 = fakeJdk(tmp.resolve("jdk17-" + releaseFile), "17.0.12", releaseFile, true);
            Result replay = replayScript(jdk17);
            assertEquals(2, replay.exitCode(), replay.toString());
            assertEquals("", replay.stdout());
            assertEquals("error: JAVA_HOME=" + jdk17 + " is JDK 17: fdbresolver-replay needs JDK 25 " + WHERE + "\n",
                    replay.stderr());
            Result test = testScriptsCheck(jdk17);
            assertEquals(2, test.exitCode(), test.toString());
            assertEquals("error: JAVA_HOME=" + jdk17 + " is JDK 17: scripts/test needs JDK 25 " + WHERE + "\n", test.stderr());
        }
    }

    @Test
    void aFolderWithoutAJdkIsRefused(@TempDir Path tmp) throws Exception {
        Result replay = replayScript(tmp);
        assertEquals(2, replay.exitCode(), replay.toString());
        assertEquals("error: JAVA_HOME=" + tmp + " holds no JDK: fdbresolver-replay needs JDK 25 " + WHERE + "\n",
                replay.stderr());
    }

    @Test
    void theBridgeNeedsAFullJdkNotARuntime(@TempDir Path tmp) throws Exception {
        Path jre25 = fakeJdk(tmp, "25.0.1", true, false);
        Result replay = replayScript(jre25);
        assertEquals(2, replay.exitCode(), replay.toString());
        assertEquals("error: JAVA_HOME=" + jre25 + " is a Java runtime without include/jni.h: fdbresolver-replay needs a"
                + " full JDK 25\n", replay.stderr());
    }

    @Test
    void theRunningJdk25Passes() throws Exception {
        Result test = testScriptsCheck(Path.of(System.getProperty("java.home")));
        assertEquals(0, test.exitCode(), test.toString());
        assertEquals("checked\n", test.stdout());
    }

    /** scripts/test checks the JDK before it installs, starts Docker or builds anything. */
    @Test
    void scriptsTestChecksTheJdkFirst() throws IOException {
        List<String> commands = new ArrayList<>();
        for (String line : Files.readAllLines(SCRIPTS.resolve("test"))) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("#")) {
                commands.add(s);
            }
        }
        int check = commands.indexOf("require_jdk25 scripts/test");
        assertTrue(check > 0, "scripts/test calls require_jdk25:\n" + commands);
        for (String later : List.of("scripts/install-deps", "containers/setup-docker.sh", "./mvnw")) {
            int at = -1;
            for (int i = 0; i < commands.size(); i++) {
                if (commands.get(i).startsWith(later)) {
                    at = i;
                    break;
                }
            }
            assertTrue(at > check, later + " runs after the JDK check:\n" + commands);
        }
    }
}
