package org.fdbresolver.bridge.capture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The golden traces (the POM's {@code fdbresolver.golden}, the repository's testdata/golden), as ReplayGoldenTest finds them. */
public final class Golden {
    private Golden() {
    }

    static Path dir() {
        String configured = System.getProperty("fdbresolver.golden");
        Path dir = configured != null ? Path.of(configured) : Path.of("..", "testdata", "golden").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(dir.resolve("MANIFEST.tsv")), "golden traces not found at " + dir);
        return dir;
    }

    /** MANIFEST.tsv's rows by trace name, in the file's order, each a map from column name to value. */
    static Map<String, Map<String, String>> manifest() throws IOException {
        List<String> lines = Files.readAllLines(dir().resolve("MANIFEST.tsv"));
        String[] header = lines.getFirst().split("\t");
        Map<String, Map<String, String>> rows = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split("\t");
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.length && i < cells.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.put(cells[0], row);
        }
        return rows;
    }

    public static Path trace(String name) {
        return dir().resolve(name + ".trace.gz");
    }

    static Path decisions(String name) {
        return dir().resolve(name + ".decisions.gz");
    }
}
