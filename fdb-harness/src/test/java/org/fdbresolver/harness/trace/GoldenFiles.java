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
 * Where the golden traces are: system property {@code fdbresolver.golden} (surefire sets it to
 * {@code ../shared/golden} beside the repository; override with {@code -Dfdbresolver.golden=DIR}).
 */
public final class GoldenFiles {
    private GoldenFiles() {
    }

    public static Path dir() {
        String configured = System.getProperty("fdbresolver.golden");
        Path dir = configured != null ? Path.of(configured) : Path.of("..", "..", "shared", "golden");
        if (!Files.isRegularFile(dir.resolve("MANIFEST.tsv"))) {
            fail("golden traces not found at " + dir.toAbsolutePath().normalize()
                    + " (no MANIFEST.tsv); run with -Dfdbresolver.golden=DIR pointing at shared/golden");
        }
        return dir;
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
