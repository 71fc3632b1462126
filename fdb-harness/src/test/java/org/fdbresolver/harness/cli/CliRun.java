package org.fdbresolver.harness.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One in-process run of the CLI: exit code, stdout, stderr, and stdout's {@code name: value} lines. */
record CliRun(int code, String out, String err) {

    static CliRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Main.run(o, e, false, args);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** stdout's lines as name to value (a repeated name keeps its last value). */
    Map<String, String> values() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                m.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        return m;
    }

    String value(String name) {
        String v = values().get(name);
        if (v == null) {
            throw new AssertionError("no '" + name + ":' line in:\n" + out + "\nstderr:\n" + err);
        }
        return v;
    }

    List<String> errLines() {
        return err.isEmpty() ? List.of() : List.of(err.split("\n"));
    }

    @Override
    public String toString() {
        return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
