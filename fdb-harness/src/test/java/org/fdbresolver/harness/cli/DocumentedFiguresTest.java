package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fdbresolver.harness.sizing.MemoryPlan;
import org.junit.jupiter.api.Test;

/**
 * Issue 33: each figure lives in one place, and where one must appear twice the copies agree. The docs had
 * drifted apart (the memory a budget needs in fdbserver, the size example's figures in two tables, a
 * settings page without one of the engine's options); these checks fail when a copy is changed alone.
 */
class DocumentedFiguresTest {
    static final Path ROOT = LauncherScriptTest.repositoryRoot();
    static final long MIB = 1L << 20;

    static String read(String path) throws IOException {
        return Files.readString(ROOT.resolve(path));
    }

    /** The cells of the first table row of {@code markdown} whose first cell starts with {@code firstCell}. */
    static List<String> row(String markdown, String firstCell) {
        for (String line : markdown.split("\n")) {
            if (line.startsWith("| " + firstCell)) {
                String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
                return Arrays.stream(cells).map(String::strip).toList();
            }
        }
        throw new AssertionError("no table row starting '| " + firstCell + "'");
    }

    /** The first number in a cell, without grouping commas or emphasis: {@code **46,137,344 (44 MiB)**} is 46137344. */
    static String number(String cell) {
        Matcher m = Pattern.compile("[0-9][0-9,]*(\\.[0-9]+)?").matcher(cell);
        assertTrue(m.find(), "a number in '" + cell + "'");
        return m.group().replace(",", "");
    }

    /**
     * docs/long-transactions.md states the worked example's scaled run twice: in its own table and as the
     * example's row of "Bytes per write by shape". Both come from one run.
     */
    @Test
    void theSizeExampleIsTheSameRunInBothTables() throws IOException {
        String doc = read("docs/long-transactions.md");
        String example = doc.substring(doc.indexOf("### Worked example"), doc.indexOf("### Bytes per write by shape"));
        String shapes = doc.substring(doc.indexOf("### Bytes per write by shape"));
        List<String> shapeRow = row(shapes, "`--key-length 32` (the example)");
        // | shape | scale | engine bytes/write | history-share | budget | skip list bytes/write | skip list for the window | ratio |
        assertEquals(number(row(example, "engine: bytes per write").get(1)), number(shapeRow.get(2)), "engine bytes per write");
        assertEquals(number(row(example, "`history-share`").get(1)), number(shapeRow.get(3)), "history-share");
        assertEquals(number(row(example, "**budget**").get(1).replaceFirst("^.*\\(", "")), number(shapeRow.get(4)), "budget, MiB");
        assertEquals(number(row(example, "skip list: bytes per write").get(1)), number(shapeRow.get(5)), "skip list bytes per write");
        assertEquals(number(row(example, "**skip list for the window**").get(1)), number(shapeRow.get(6)), "skip list for the window");
        assertEquals(number(row(example, "skip list / engine at equal window").get(1)), number(shapeRow.get(7)), "fdb-over-tree");

        // "What it does" compares the same two runs, scaled and full: | shape | how | scale | commit share | engine | skip list |
        // (a row whose first cell is empty splits one cell short)
        String scaling = doc.substring(doc.indexOf("### What it does"), doc.indexOf("### Worked example")).replace("\n   |", "\n|");
        List<String> full = row(scaling, "60 s at 10,000/s | full scale");
        List<String> batches = row(scaling, "| **`BATCHES`** (101 of 242 transactions)");
        assertEquals(number(row(example, "engine: history for 600,000 writes").get(2)), number(full.get(4)), "full scale, engine");
        assertEquals(number(row(example, "**skip list for the window**").get(2)), number(full.get(5)), "full scale, skip list");
        assertEquals(number(row(example, "engine: history for 600,000 writes").get(1)), number(batches.get(3)), "scaled, engine");
        assertEquals(number(row(example, "**skip list for the window**").get(1)), number(batches.get(4)), "scaled, skip list");
    }

    /**
     * docs/fdb-integration.md gives the largest budget fdbserver's default {@code --memory} admits; it is the edge
     * of the plan {@code size} prints ({@link MemoryPlan}), which SizingMemoryPlanTest (jni-bridge) ties to the
     * bridge's own check.
     */
    @Test
    void theLargestBudgetTheDefaultMemoryAdmitsIsThePlans() throws IOException {
        String doc = read("docs/fdb-integration.md").replaceAll("\\s+", " ");
        Matcher stated = Pattern.compile("With the default `--memory` \\(8 GiB\\) and no `-Xmx` a budget up to ([0-9,]+) MiB fits:"
                + " `memory_budget=([0-9]+)m` opens, `([0-9]+)m`").matcher(doc);
        assertTrue(stated.find(), "docs/fdb-integration.md states the largest budget");
        long defaultMemory = 8L << 30;
        long largest = 0;
        while (MemoryPlan.forBudget((largest + 1) * MIB).fdbserverMemoryBytes() <= defaultMemory) {
            largest++;
        }
        assertEquals(largest, Long.parseLong(stated.group(1).replace(",", "")));
        assertEquals(largest, Long.parseLong(stated.group(2)), "the budget said to open is the largest");
        assertEquals(largest + 1, Long.parseLong(stated.group(3)), "the budget said to be refused is the next");
    }

    /** docs/configuration.md is "every setting": a row for each option the tree engine takes, as it names them. */
    @Test
    void theSettingsPageHasEveryOptionOfTheTree() throws IOException {
        CliRun run = CliRun.of("demo", "--batches", "1", "--engine-option", "noSuchOption=1");
        Matcher known = Pattern.compile("\\(known: ([^)]+)\\)").matcher(run.err());
        assertTrue(known.find(), run::toString);
        String doc = read("docs/configuration.md");
        List<String> missing = new ArrayList<>();
        for (String option : known.group(1).split(", ")) {
            if (!doc.contains("\n| `" + option + "` |")) {
                missing.add(option);
            }
        }
        assertEquals(List.of(), missing, "tree options without a row in docs/configuration.md");
    }

    /**
     * The launcher's environment is listed once, in docs/cli.md's table, which names every variable the script's
     * own header documents; docs/configuration.md points there instead of keeping a second, drifting copy.
     */
    @Test
    void theLaunchersEnvironmentIsListedOnce() throws IOException {
        List<String> documented = new ArrayList<>();
        for (String line : read("scripts/fdbresolver").split("\n")) {
            Matcher m = Pattern.compile("^#   ([A-Z_]+) ").matcher(line);
            if (m.find()) {
                documented.add(m.group(1));
            }
        }
        assertTrue(documented.containsAll(List.of("JAVA_HOME", "FDBRESOLVER_PROGRESS", "FDBRESOLVER_FDB_SKIPLIST")), documented::toString);
        String cli = read("docs/cli.md");
        String configuration = read("docs/configuration.md");
        for (String variable : documented) {
            assertTrue(Pattern.compile("\n\\| `" + variable + "(=1)?` \\|").matcher(cli).find(), variable + " in docs/cli.md's table");
            assertFalse(configuration.contains("\n| `" + variable + "` |"), variable + " has a second row in docs/configuration.md");
        }
    }

    /**
     * How long FoundationDB's first build takes is measured once (docs/fdb-integration.md, "Building it"); every
     * other page and script that says it takes hours points there rather than giving its own estimate.
     */
    @Test
    void theFirstBuildsDurationIsMeasuredInOnePlace() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs")); Stream<Path> scripts = Files.walk(ROOT.resolve("scripts"))) {
            docs.filter(p -> p.toString().endsWith(".md") && !p.endsWith("fdb-integration.md")).forEach(files::add);
            scripts.filter(p -> Files.isRegularFile(p) && !p.toString().contains("__pycache__")).forEach(files::add);
        }
        files.add(ROOT.resolve("fdb-harness/src/main/java/org/fdbresolver/harness/fdb/FdbBuildLocation.java"));
        List<String> unsourced = new ArrayList<>();
        for (Path file : files) {
            for (String line : Files.readAllLines(file)) {
                if (line.contains("build") && Pattern.compile("\\b(one|two|1|2)( to (two|three|2|3))? hours?\\b").matcher(line).find()
                        && !line.contains("fdb-integration.md")) {
                    unsourced.add(ROOT.relativize(file) + ": " + line.strip());
                }
            }
        }
        assertEquals(List.of(), unsourced, "an estimate of the build's time that does not point to the measurement");
    }
}
