package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the native test program (src/test/native/bridge_test.cpp) case by case, each in its own process
 * with the reference engine under {@code -Xcheck:jni}: a Java exception inside a batch, a malformed
 * batch, bad arguments, closing and reopening, other threads, statistics, a host signal handler installed
 * after the JVM started (libjsig). Each case must pass and the
 * JVM's JNI checker must print no warning.
 */
class NativeBridgeTest {

    @ParameterizedTest
    @ValueSource(strings = {"decisions", "java-exception", "invalid-batch", "bad-arguments", "close-reopen",
            "threads", "statistics", "engine-name", "host-signal-handler", "open-text", "dlopen", "check-result", "malformed-output"})
    void nativeCase(String name) throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test", List.of("reference", name),
                "-Xcheck:jni -Xmx256m");
        String output = run.all();
        assertTrue(output.contains("PASS " + name), output);
        assertTrue(output.contains("1 passed, 0 failed"), output);
        assertEquals(0, run.exitCode(), output);
        assertFalse(output.toLowerCase(Locale.ROOT).contains("warning"), "-Xcheck:jni warned:\n" + output);
    }

    /**
     * The library exports the C ABI of fdbresolver.h and nothing else, each function under the ELF version
     * it was added in (libfdbresolver.map): functions are never moved between versions, so a host built
     * against the first ABI keeps loading.
     */
    @Test
    void exportsExactlyTheVersionedCAbi() throws Exception {
        Process p = new ProcessBuilder("nm", "-D", "--defined-only",
                NativeProgram.nativeDir().resolve("libfdbresolver.so").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        Set<String> symbols = new TreeSet<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[1].equals("T")) {
                symbols.add(f[2]);
            }
        }
        assertEquals(new TreeSet<>(List.of(
                "fdbr_config_init@@FDBRESOLVER_1", "fdbr_open@@FDBRESOLVER_1", "fdbr_close@@FDBRESOLVER_1",
                "fdbr_resolve@@FDBRESOLVER_1", "fdbr_clear@@FDBRESOLVER_1", "fdbr_get_stats@@FDBRESOLVER_1",
                "fdbr_last_error@@FDBRESOLVER_1", "fdbr_status_name@@FDBRESOLVER_1",
                "fdbr_engine_name@@FDBRESOLVER_1.1", "fdbr_open_text@@FDBRESOLVER_1.1",
                "fdbr_get_batch_stats@@FDBRESOLVER_1.1",
                "fdbr_get_counters@@FDBRESOLVER_1.2", "fdbr_take_warnings@@FDBRESOLVER_1.2",
                "fdbr_await_closes@@FDBRESOLVER_1.3", "fdbr_host_memory_room@@FDBRESOLVER_1.4")), symbols, out);
    }

    /**
     * An installation that names only the library (FoundationDB's knob does) needs no class path: the
     * bridge finds the engine's jars beside it. Laid out as an installation — native/ with the library
     * and the program, lib/ with the jars — with no FDBRESOLVER_CLASS_PATH.
     */
    @Test
    void installedLayoutNeedsNoClassPath(@TempDir Path install) throws Exception {
        Path nativeDir = Files.createDirectories(install.resolve("native"));
        Path lib = Files.createDirectories(install.resolve("lib"));
        for (String file : List.of("libfdbresolver.so", "fdbresolver-bridge-test")) {
            Files.copy(NativeProgram.nativeDir().resolve(file), nativeDir.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
        }
        int n = 0;
        for (String entry : NativeProgram.engineClassPath().split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                Jars.write(p, lib.resolve("classes-" + n++ + ".jar"));
            } else if (Files.isRegularFile(p) && entry.endsWith(".jar")) {
                Files.copy(p, lib.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        NativeProgram.Run run = NativeProgram.runWithoutClassPath(nativeDir.resolve("fdbresolver-bridge-test"),
                List.of("reference", "installed-class-path"), "-Xmx256m");
        assertTrue(run.all().contains("PASS installed-class-path"), run.all());
        assertEquals(0, run.exitCode(), run.all());
    }

    /**
     * Cases that start the JVM with their own settings, one process each (issue 15): SIGUSR2 left to the host, and
     * the control that the JVM's default takes it; the host's C locale and open-file limit kept, and the control
     * that the JVM changes the locale; warnings and counters; the heap sized from the budget and checked at every
     * open. And issue 32's JVM starts that HotSpot would end the process for (-Xms above -Xmx, _JAVA_OPTIONS=-Xms2g,
     * an address-space limit too low, options that exit on purpose, and what only the trial start in a child
     * finds): each open fails with a clear message and the case goes on to start the JVM with sound settings, so
     * a PASS and exit status 0 show that the process did not exit. No JVM options from the environment: each case
     * names its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"suspend-signal", "suspend-signal-default", "host-locale", "host-locale-jvm",
            "warnings-and-counters", "heap-check", "jvm-xms-above-xmx", "jvm-environment-xms", "jvm-address-space",
            "jvm-exit-options", "jvm-trial-start"})
    void processCase(String name) throws Exception {
        NativeProgram.Run run = runProcessCase(name);
        assertFalse(run.stderr().contains("WARNING"), "nothing on stderr: the host takes the warnings\n" + run.all());
    }

    /**
     * A host's exit() shuts the JVM down first (DestroyJavaVM) even from a thread that did not start it, keeping the
     * host's status: the JVM's exit log is printed, and no abort from a collection still running (the heap handed
     * back after the close) while libjvm's destructors run.
     */
    @Test
    void exitShutsTheJvmDownFirst() throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test", List.of("reference", "exit-shuts-down-jvm"), "");
        assertTrue(run.stdout().contains("PASS exit-shuts-down-jvm"), run.all());
        assertEquals(7, run.exitCode(), "the host's own exit status\n" + run.all());
        assertTrue(run.stdout().contains("Maximum vm operation time"), "the JVM's orderly shutdown logged\n" + run.all());
        assertFalse(run.all().contains("did not shut down"), run.all());
    }

    /**
     * The bridge's collector (issue 31: young pauses bounded while the history grows): G1 with a 10 ms pause goal, a
     * young generation from 1 % of the heap and survivors tenured at once, as HotSpot prints its flags.
     */
    @Test
    void theBridgeGivesItsJvmG1WithAPauseGoal() throws Exception {
        NativeProgram.Run run = runProcessCase("jvm-collector");
        for (String flag : List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=10", "-XX:G1NewSizePercent=1",
                "-XX:MaxTenuringThreshold=0")) {
            assertTrue(run.stdout().contains(flag), flag + "\n" + run.all());
        }
    }

    /**
     * A collector the host chose, in jvm_option or in the environment, is the JVM's: the bridge adds no second one
     * (HotSpot would refuse to start with two), and the JVM starts and decides.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jvm-collector-option", "jvm-collector-environment"})
    void aCollectorTheHostChoseIsKept(String name) throws Exception {
        NativeProgram.Run run = runProcessCase(name);
        String chosen = name.endsWith("option") ? "-XX:+UseParallelGC" : "-XX:+UseSerialGC";
        assertTrue(run.stdout().contains(chosen), run.all());
        assertFalse(run.stdout().contains("-XX:+UseG1GC"), run.all());
        assertFalse(run.all().contains("Multiple garbage collectors"), run.all());
    }

    /** JVM options in the environment reach the JVM, which says "Picked up" on stderr; the open names them to the host. */
    @Test
    void environmentOptionsAreNamedToTheHost() throws Exception {
        NativeProgram.Run run = runProcessCase("environment-options");
        assertTrue(run.stderr().contains("Picked up JAVA_TOOL_OPTIONS"), run.all());
    }

    private static NativeProgram.Run runProcessCase(String name) throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test", List.of("reference", name), "");
        assertTrue(run.all().contains("PASS " + name), run.all());
        assertEquals(0, run.exitCode(), run.all());
        return run;
    }

    /** -Xcheck:jni is really on and reports misuse here: a deliberate unchecked exception is reported. */
    @Test
    void jniCheckerReportsMisuse() throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test",
                List.of("reference", "unchecked-jni-misuse"), "-Xcheck:jni -Xmx256m");
        assertTrue(run.all().contains("WARNING in native method"), run.all());
    }

    /**
     * The signal case tests something: the same program linked without libjsig loses the JVM's SIGSEGV
     * to the host's handler, installed after the JVM started, and dies.
     */
    @Test
    void withoutLibjsigTheHostHandlerStealsTheJvmSignal() throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test-nojsig",
                List.of("reference", "host-signal-handler"), "-Xmx256m");
        assertNotEquals(0, run.exitCode(), run.all());
        assertTrue(run.stdout().contains("FAIL host-signal-handler"), run.all());
    }
}
