package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The repository's own golden set (testdata/golden) is whole, whatever {@code -Dfdbresolver.golden} names:
 * a clone alone must carry FoundationDB's decisions, so a missing or damaged file fails here rather than
 * leaving the other golden tests to check nothing.
 */
class GoldenDataTest {
    /** The twelve generated workloads of testdata/golden/MANIFEST.tsv; captured traces (workload capture) come beside them. */
    static final int WORKLOADS = 12;

    @Test
    void everyTraceAndDecisionFileIsThereAndMatchesItsChecksum() throws IOException {
        Path dir = GoldenFiles.repositoryDir();
        assertTrue(Files.isRegularFile(dir.resolve("MANIFEST.tsv")),
                "the repository's golden traces are missing: no " + dir.resolve("MANIFEST.tsv"));
        assertTrue(Files.isRegularFile(dir.resolve("README.md")), "testdata/golden/README.md says where they came from");
        List<Map<String, String>> rows = GoldenFiles.manifest(dir.resolve("MANIFEST.tsv"));
        assertEquals(WORKLOADS, rows.stream().filter(r -> !r.get("workload").equals(CaptureChain.WORKLOAD)).count(),
                "generated workloads' manifest rows");
        for (Map<String, String> row : rows) {
            String name = row.get("name");
            Path trace = dir.resolve(name + ".trace.gz");
            assertTrue(Files.isRegularFile(trace), "missing " + trace);
            assertEquals(row.get("offered sha256"), Hashes.hex(Hashes.sha256(trace)), trace + " is not the file FoundationDB decided");
            Path decisions = dir.resolve(name + ".decisions.gz");
            assertTrue(Files.size(decisions) > 0, "missing " + decisions);
        }
    }

    @Test
    void everyInvalidTraceIsThereAndMatchesItsChecksum() throws IOException {
        Path dir = GoldenFiles.repositoryDir().resolve("invalid");
        List<Map<String, String>> rows = GoldenFiles.manifest(dir.resolve("MANIFEST.tsv"));
        assertEquals(11, rows.size(), "invalid manifest rows");
        for (Map<String, String> row : rows) {
            Path trace = dir.resolve(row.get("name"));
            assertTrue(Files.isRegularFile(trace), "missing " + trace);
            assertEquals(row.get("offered sha256"), Hashes.hex(Hashes.sha256(trace)), trace.toString());
        }
    }
}
