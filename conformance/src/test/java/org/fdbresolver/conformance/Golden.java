package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The golden traces: FoundationDB's own skip list decided them (testdata/golden/README.md). The system
 * property {@code fdbresolver.golden} names the folder (the POM sets it to the repository's testdata/golden;
 * {@code -Dfdbresolver.golden=DIR} checks another set); without it (a test started from an IDE) the
 * repository's folder is found from the working directory. A missing folder fails the test with a message
 * saying so, rather than letting the suite pass with nothing checked.
 */
final class Golden {
    static final String PROPERTY = "fdbresolver.golden";

    /** One MANIFEST.tsv row. */
    record Entry(String name, String decisionHash, String conflictingKeysHash, long batches, long transactions,
                 Path trace, Path decisions) {
    }

    private Golden() {
    }

    static Path dir() {
        String configured = System.getProperty(PROPERTY);
        Path dir = (configured != null ? Path.of(configured) : repositoryDir()).toAbsolutePath().normalize();
        if (!Files.isRegularFile(dir.resolve("MANIFEST.tsv"))) {
            boolean repository = dir.equals(repositoryDir().toAbsolutePath().normalize());
            fail("golden traces folder absent: no MANIFEST.tsv in " + dir
                    + (repository ? " (the repository's testdata/golden is missing)" : " (named by -D" + PROPERTY + ")"));
        }
        return dir;
    }

    /** testdata/golden under the project root: the nearest folder above the working directory with .mvn. */
    private static Path repositoryDir() {
        Path start = Path.of("").toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve(".mvn"))) {
                return p.resolve("testdata").resolve("golden");
            }
        }
        return start.resolveSibling("testdata").resolve("golden");
    }

    static List<Entry> manifest() throws IOException {
        Path dir = dir();
        List<String> lines = Files.readAllLines(dir.resolve("MANIFEST.tsv"));
        List<String> header = List.of(lines.get(0).split("\t"));
        int name = header.indexOf("name");
        int decision = header.indexOf("decision hash");
        int keys = header.indexOf("conflicting-keys hash");
        int batches = header.indexOf("batches");
        int transactions = header.indexOf("transactions");
        List<Entry> entries = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            entries.add(new Entry(f[name], f[decision], f[keys], Long.parseLong(f[batches]), Long.parseLong(f[transactions]),
                    dir.resolve(f[name] + ".trace.gz"), dir.resolve(f[name] + ".decisions.gz")));
        }
        return entries;
    }
}
