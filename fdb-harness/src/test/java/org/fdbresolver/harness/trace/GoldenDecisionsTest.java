package org.fdbresolver.harness.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FoundationDB's own decision files hash to exactly the manifest's decision and conflicting-keys hashes: this
 * proves the hashers and the decision reader against an independent source.
 */
class GoldenDecisionsTest {

    static Stream<Arguments> rows() throws IOException {
        return GoldenFiles.goldenManifest().stream().map(r -> Arguments.of(r.get("name"), r));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void goldenDecisionFileHashesToTheManifest(String name, Map<String, String> row) throws IOException {
        Path dir = GoldenFiles.dir();
        DecisionHasher hasher = new DecisionHasher();
        try (DecisionReader reader = DecisionReader.open(dir.resolve(name + ".decisions.gz"))) {
            assertEquals(TraceFormats.DECISIONS, reader.header().getFormat());
            assertEquals(row.get("offered sha256"), Hashes.hex(reader.header().getTraceSha256().toByteArray()));
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                hasher.add(d);
            }
        }
        assertEquals(row.get("decision hash"), hasher.decisionHash(), "decision hash");
        assertEquals(row.get("conflicting-keys hash"), hasher.conflictingKeysHash(), "conflicting-keys hash");
        assertEquals(Long.parseLong(row.get("batches")), hasher.batches());
        assertEquals(Long.parseLong(row.get("transactions")), hasher.transactions());
        assertEquals(Long.parseLong(row.get("commit")), hasher.commits());
        assertEquals(Long.parseLong(row.get("conflict")), hasher.conflicts());
        assertEquals(Long.parseLong(row.get("too_old")), hasher.tooOld());
    }

    /** The small golden traces read whole: batch and transaction counts and the offered hash match. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("smallRows")
    void goldenTraceReadsWhole(String name, Map<String, String> row) throws IOException {
        Path trace = GoldenFiles.dir().resolve(name + ".trace.gz");
        long batches = 0;
        long transactions = 0;
        long previousVersion = Long.MIN_VALUE;
        try (TraceReader reader = TraceReader.open(trace)) {
            assertEquals(TraceFormats.TRACE, reader.header().getFormat());
            for (Batch b; (b = reader.next()) != null; ) {
                batches++;
                transactions += b.getTransactionsCount();
                previousVersion = Math.max(previousVersion, b.getVersion());
            }
            assertNull(reader.next(), "the end stays the end");
            assertEquals(row.get("offered sha256"), Hashes.hex(reader.offeredSha256()));
        }
        assertEquals(row.get("offered sha256"), Hashes.hex(Hashes.sha256(trace)));
        assertEquals(Long.parseLong(row.get("batches")), batches);
        assertEquals(Long.parseLong(row.get("transactions")), transactions);
    }

    static Stream<Arguments> smallRows() throws IOException {
        List<Map<String, String>> rows = GoldenFiles.goldenManifest();
        return rows.stream()
                .filter(r -> Long.parseLong(r.get("transactions")) <= 100_000)
                .map(r -> Arguments.of(r.get("name"), r));
    }
}
