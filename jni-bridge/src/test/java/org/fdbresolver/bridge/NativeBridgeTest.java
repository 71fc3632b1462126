package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
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
            "threads", "statistics", "host-signal-handler"})
    void nativeCase(String name) throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test", List.of("reference", name),
                "-Xcheck:jni -Xmx256m");
        String output = run.all();
        assertTrue(output.contains("PASS " + name), output);
        assertTrue(output.contains("1 passed, 0 failed"), output);
        assertEquals(0, run.exitCode(), output);
        assertFalse(output.toLowerCase(Locale.ROOT).contains("warning"), "-Xcheck:jni warned:\n" + output);
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
