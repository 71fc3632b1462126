package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the native programs built into target/native with the engine on their embedded JVM's class path. */
final class NativeProgram {
    static final Duration TIMEOUT = new Duration(300);

    record Duration(long seconds) {
    }

    /** What a run printed and how it ended. */
    record Run(int exitCode, String stdout, String stderr) {
        String all() {
            return stdout + stderr;
        }

        /** The lines of stderr (none when it is empty). */
        List<String> stderrLines() {
            return stderr.isEmpty() ? List.of() : List.of(stderr.split("\n"));
        }

        /** The "name: value" lines of stdout. */
        Map<String, String> values() {
            Map<String, String> values = new LinkedHashMap<>();
            for (String line : stdout.split("\n")) {
                int colon = line.indexOf(": ");
                if (colon > 0) {
                    values.put(line.substring(0, colon), line.substring(colon + 2).trim());
                }
            }
            return values;
        }
    }

    private NativeProgram() {
    }

    static Path nativeDir() {
        Path dir = Path.of(System.getProperty("fdbresolver.native.dir", "target/native"));
        assertTrue(Files.isRegularFile(dir.resolve("libfdbresolver.so")),
                "native build missing in " + dir.toAbsolutePath() + ": run the Maven build (jni-bridge/build-native.sh)");
        return dir;
    }

    /** The test JVM's own class path: main and test classes, the plugin and the test engines. */
    static String engineClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
    }

    static Run run(String program, List<String> args, String jvmOptions) throws IOException, InterruptedException {
        return run(nativeDir().resolve(program), args, jvmOptions, engineClassPath());
    }

    /** Runs {@code program} with no class path in its environment (it must find the engine itself). */
    static Run runWithoutClassPath(Path program, List<String> args, String jvmOptions)
            throws IOException, InterruptedException {
        return run(program, args, jvmOptions, null);
    }

    private static Run run(Path program, List<String> args, String jvmOptions, String classPath)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(program.toAbsolutePath().toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        if (classPath != null) {
            pb.environment().put("FDBRESOLVER_CLASS_PATH", classPath);
        } else {
            pb.environment().remove("FDBRESOLVER_CLASS_PATH");
        }
        pb.environment().put("FDBRESOLVER_JVM_OPTIONS", jvmOptions);
        pb.environment().remove("FDBRESOLVER_ENGINE");
        Path out = Files.createTempFile("fdbresolver-native", ".out");
        Path err = Files.createTempFile("fdbresolver-native", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                    Path.of("/dev/null").toFile()));
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT.seconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(String.join(" ", command) + " did not finish in " + TIMEOUT.seconds() + " s");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
