package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the golden traces are: the repository's own {@code testdata/golden} (FoundationDB's decisions,
 * testdata/golden/README.md), which the POM passes as the system property {@code fdbresolver.golden};
 * {@code -Dfdbresolver.golden=DIR} checks another set of the same layout. Without the property (a test
 * started from an IDE) the folder is found from the working directory. A missing folder fails the test:
 * a missing oracle is never a pass.
 */
public final class GoldenFiles {
    public static final String PROPERTY = "fdbresolver.golden";

    private GoldenFiles() {
    }

    /** The golden set the tests check: {@code -Dfdbresolver.golden}, else the repository's own. */
    public static Path dir() {
        String configured = System.getProperty(PROPERTY);
        Path dir = configured != null ? Path.of(configured) : repositoryDir();
        if (!Files.isRegularFile(dir.resolve("MANIFEST.tsv"))) {
            boolean repository = dir.toAbsolutePath().normalize().equals(repositoryDir().toAbsolutePath().normalize());
            fail("golden traces not found at " + dir.toAbsolutePath().normalize() + " (no MANIFEST.tsv): "
                    + (repository ? "the repository's testdata/golden is missing"
                            : "-D" + PROPERTY + " names a folder without them"));
        }
        return dir;
    }

    /**
     * The repository's own golden set: testdata/golden under the project root, the nearest folder above
     * the working directory (a module's, under Maven) that holds {@code .mvn}.
     */
    public static Path repositoryDir() {
        Path start = Path.of("").toAbsolutePath();
        Path root = start.getParent();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve(".mvn"))) {
                root = p;
                break;
            }
        }
        return root.resolve("testdata").resolve("golden");
    }

    /** Rows of a tab-separated manifest, each a map from header name to value. */
    public static List<Map<String, String>> manifest(Path tsv) throws IOException {
        List<String> lines = Files.readAllLines(tsv);
        String[] names = lines.getFirst().split("\t", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < names.length; i++) {
                row.put(names[i], i < cells.length ? cells[i] : "");
            }
            rows.add(row);
        }
        return rows;
    }

    public static List<Map<String, String>> goldenManifest() throws IOException {
        return manifest(dir().resolve("MANIFEST.tsv"));
    }

    public static List<Map<String, String>> invalidManifest() throws IOException {
        return manifest(dir().resolve("invalid").resolve("MANIFEST.tsv"));
    }

    /** The column of the invalid manifest that holds the expected error line. */
    public static String expectedError(Map<String, String> invalidRow) {
        for (Map.Entry<String, String> e : invalidRow.entrySet()) {
            if (e.getKey().contains("error")) {
                return e.getValue();
            }
        }
        throw new IllegalStateException("invalid/MANIFEST.tsv has no error column");
    }
}
