package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code regroup}: a trace of small batches written again in large ones, which the engines then decide alike. */
class RegroupCommandTest {

    @Test
    void regroupsAndTheEnginesAgreeOnTheResult(@TempDir Path dir) throws Exception {
        Path small = dir.resolve("small.trace.gz");
        CliRun gen = CliRun.of("gen", "conflictset-point", "--out", small.toString(), "--batches", "40", "--txns", "3",
                "--keyspace", "200");
        assertEquals(0, gen.code(), gen::toString);
        Path big = dir.resolve("big.trace");
        CliRun regroup = CliRun.of("regroup", small.toString(), "--txns", "50", "--out", big.toString());
        assertEquals(0, regroup.code(), regroup::toString);
        assertEquals("120", regroup.value("transactions"));
        assertEquals("3", regroup.value("batches"), "120 transactions: 50, 50 and 20");
        assertEquals("conflictset-point", regroup.value("from-workload"));
        assertEquals(Hashes.hex(Hashes.sha256(big)), regroup.value("offered-hash"));
        try (TraceReader r = TraceReader.open(big)) {
            assertEquals("regroup", r.header().getWorkload());
            assertEquals(Hashes.hex(Hashes.sha256(small)), r.header().getParamsMap().get("from-sha256"));
            long previous = Long.MIN_VALUE;
            for (Batch b; (b = r.next()) != null; ) {
                assertTrue(b.getVersion() > previous, "versions increase");
                previous = b.getVersion();
            }
        }
        CliRun tree = CliRun.of("resolve", big.toString(), "--engine", "tree");
        CliRun reference = CliRun.of("resolve", big.toString(), "--engine", "reference");
        assertEquals(0, tree.code(), tree::toString);
        assertEquals(reference.value("decision-hash"), tree.value("decision-hash"));
        assertEquals("120", tree.value("transactions"));
    }

    @Test
    void refusesWhatItCannotRegroup(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.trace");
        CliRun missing = CliRun.of("regroup", dir.resolve("nope.trace").toString(), "--out", out.toString());
        assertEquals(ExitCodes.USAGE, missing.code(), missing::toString);
        CliRun zero = CliRun.of("regroup", dir.resolve("nope.trace").toString(), "--txns", "0", "--out", out.toString());
        assertEquals(ExitCodes.USAGE, zero.code(), zero::toString);
        assertTrue(zero.toString().contains("--txns must be at least 1"), zero::toString);
        Path garbage = dir.resolve("garbage.trace");
        Files.write(garbage, new byte[] {5, 1, 2, 3});
        CliRun malformed = CliRun.of("regroup", garbage.toString(), "--out", out.toString());
        assertEquals(ExitCodes.USAGE, malformed.code(), malformed::toString);
        assertFalse(Files.exists(out), "nothing written from bad input");
    }
}
