package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the native test program (src/test/native/bridge_test.cpp) case by case, each in its own process
 * with the reference engine under {@code -Xcheck:jni}: a Java exception inside a batch, a malformed
 * batch, bad arguments, closing and reopening, other threads, statistics. Each case must pass and the
 * JVM's JNI checker must print no warning.
 */
class NativeBridgeTest {

    @ParameterizedTest
    @ValueSource(strings = {"decisions", "java-exception", "invalid-batch", "bad-arguments", "close-reopen",
            "threads", "statistics"})
    void nativeCase(String name) throws Exception {
        NativeProgram.Run run = NativeProgram.run("fdbresolver-bridge-test", List.of("reference", name),
                "-Xcheck:jni -Xmx256m");
        String output = run.all();
        assertTrue(output.contains("PASS " + name), output);
        assertTrue(output.contains("1 passed, 0 failed"), output);
        assertEquals(0, run.exitCode(), output);
        assertFalse(output.contains("WARNING"), "-Xcheck:jni warned:\n" + output);
    }
}
