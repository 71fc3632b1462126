package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the commands print is what their {@code --help} and docs/cli.md say they print, line name by line name
 * (issue 19 item 10: {@code bench --help} left out {@code offered-hash}, docs/cli.md two of retention's lines),
 * and docs/cli.md quotes the launcher's own JDK error.
 */
class DocumentedOutputTest {
    static final Path CLI_MD = LauncherScriptTest.repositoryRoot().resolve("docs").resolve("cli.md");
    @TempDir
    static Path dir;
    static Path trace;

    @BeforeAll
    static void generate() {
        trace = dir.resolve("long.trace");
        CliRun gen = CliRun.of("gen", "longtrace", "--batches", "16", "--out", trace.toString());
        assertEquals(0, gen.code(), gen::toString);
    }

    /** docs/cli.md's section {@code ## command}. */
    static String section(String command) throws IOException {
        String md = Files.readString(CLI_MD);
        int start = md.indexOf("\n## " + command + "\n");
        assertTrue(start >= 0, "docs/cli.md has a section " + command);
        int end = md.indexOf("\n## ", start + 1);
        return md.substring(start, end < 0 ? md.length() : end);
    }

    /** The names of stdout's lines, each budget's name ({@code 16MiB}) written {@code B} as the docs do. */
    static List<String> names(CliRun run, List<String> budgets) {
        List<String> names = new ArrayList<>();
        for (String name : run.values().keySet()) {
            for (String b : budgets) {
                name = name.replace("budget-" + b + "-", "budget-B-");
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    static void assertDocumented(String command, List<String> names) throws IOException {
        String help = CliRun.of(command, "--help").out();
        String docs = section(command);
        List<String> missing = new ArrayList<>();
        for (String name : names) {
            // --help lists names separated by commas and spaces ("engine, batches, ..."); docs in backquotes
            if (!Pattern.compile("(^|[\\s,(])" + Pattern.quote(name) + "($|[\\s,;.)])", Pattern.MULTILINE).matcher(help).find()) {
                missing.add(name + " (--help)");
            }
            if (!docs.contains("`" + name + "`")) {
                missing.add(name + " (docs/cli.md)");
            }
        }
        assertEquals(List.of(), missing, command + " prints lines its help or docs do not name");
    }

    @Test
    void resolveBenchHashAndDiff() throws IOException {
        Path decisions = dir.resolve("t.decisions");
        CliRun resolve = CliRun.of("resolve", trace.toString(), "--out", decisions.toString());
        assertEquals(0, resolve.code(), resolve::toString);
        assertDocumented("resolve", names(resolve, List.of()));
        CliRun bench = CliRun.of("bench", trace.toString(), "--warmup", "4");
        assertEquals(0, bench.code(), bench::toString);
        assertDocumented("bench", names(bench, List.of()));
        assertDocumented("hash", names(CliRun.of("hash", decisions.toString()), List.of()));
        assertDocumented("diff", names(CliRun.of("diff", decisions.toString(), decisions.toString()), List.of()));
    }

    @Test
    void genAndDemo() throws IOException {
        CliRun gen = CliRun.of("gen", "random", "--batches", "3", "--out", dir.resolve("g.trace").toString());
        assertEquals(0, gen.code(), gen::toString);
        assertDocumented("gen", names(gen, List.of()));
        List<String> names = new ArrayList<>();
        for (List<String> args : List.of(List.of("demo", "--batches", "5"), List.of("demo", "--trace",
                trace.toString(), "--budget", "64k"), List.of("demo", "--trace", trace.toString(), "--engine", "reference"))) {
            CliRun demo = CliRun.of(args.toArray(String[]::new));
            assertTrue(demo.code() == 0, demo::toString);
            names.addAll(names(demo, List.of()).stream()
                    .map(n -> n.startsWith("tree-") || n.startsWith("reference-") ? "E-" + n.substring(n.indexOf('-') + 1) : n)
                    .filter(n -> !names.contains(n)).distinct().toList());
        }
        assertTrue(names.containsAll(List.of("workload", "trace", "too-old-from-budget", "note", "agree")), names::toString);
        assertDocumented("demo", names);
    }

    @Test
    void retentionVersusFdb() throws IOException {
        CliRun run = CliRun.of("retention", trace.toString(), "--budget", "1m,2m", "--out", dir.resolve("r").toString(),
                "--versus-fdb");
        assertEquals(0, run.code(), run::toString);
        assertDocumented("retention", names(run, List.of("1MiB", "2MiB")));
    }

    @Test
    void size() throws IOException {
        // scaled down (a note) and with every line the command prints
        CliRun run = CliRun.of("size", "--window", "2", "--rate", "2000", "--key-length", "16", "--max-window-writes", "1000");
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.values().containsKey("note"), run::toString);
        assertDocumented("size", names(run, List.of()));
    }

    @Test
    void theJdkErrorDocsQuoteIsTheLaunchersOwn() throws Exception {
        Matcher quoted = Pattern.compile("`(error: JAVA_HOME=(\\S+) is JDK 17: [^`]*)`").matcher(Files.readString(CLI_MD));
        assertTrue(quoted.find(), "docs/cli.md quotes the JDK error");
        Path jdk = LauncherScriptTest.fakeJdk(dir.resolve("jdk17"), "17.0.15", true);
        LauncherScriptTest.Result r = LauncherScriptTest.bash(LauncherScriptTest.SCRIPT,
                Map.of("JAVA_HOME", jdk.toString(), "FDBRESOLVER_NO_BUILD", "1"), "--help");
        assertEquals(2, r.code(), r::toString);
        assertEquals(List.of(quoted.group(1).replace(quoted.group(2), jdk.toString())), r.errLines());
    }
}
