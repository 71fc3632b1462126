package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.Captures;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.trace.v1.Batch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code resolve}, {@code bench}, {@code hash}, {@code diff} and {@code retention} take a capture's folder as they take
 * a trace or decision file: the chain's batches in order, its offered hash, its recorded decisions.
 */
class CaptureCliTest {
    static final List<Batch> BATCHES = Captures.batches(5, 120);

    @Test
    void everyCommandReadsACaptureFolderAsTheSameTraceInOneFile(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("chain"), BATCHES, 4);
        Path whole = dir.resolve("whole.trace");
        try (TraceWriter w = TraceWriter.create(whole, Captures.header("whole", 0, 1))) {
            for (Batch b : BATCHES) {
                w.write(b);
            }
            w.commit();
        }
        String offered = Hashes.hex(CaptureChain.offeredSha256(chain));

        CliRun fromChain = CliRun.of("resolve", chain.toString(), "--engine", "tree", "--out", dir.resolve("c.decisions").toString());
        assertEquals(0, fromChain.code(), fromChain::toString);
        assertEquals(offered, fromChain.value("offered-hash"));
        CliRun fromFile = CliRun.of("resolve", whole.toString(), "--engine", "tree");
        assertEquals(fromFile.value("decision-hash"), fromChain.value("decision-hash"));
        assertEquals(fromFile.value("conflicting-keys-hash"), fromChain.value("conflicting-keys-hash"));
        assertEquals("120", fromChain.value("batches"));

        // The recorded decisions (the reference engine's) hash as the tree's replay; the header names the chain.
        CliRun recorded = CliRun.of("hash", chain.toString());
        assertEquals(0, recorded.code(), recorded::toString);
        assertEquals(offered, recorded.value("trace-sha256"));
        assertEquals(fromChain.value("decision-hash"), recorded.value("decision-hash"));
        assertEquals(fromChain.value("conflicting-keys-hash"), recorded.value("conflicting-keys-hash"));
        assertEquals("reference", recorded.value("engine"));

        CliRun diff = CliRun.of("diff", chain.toString(), dir.resolve("c.decisions").toString());
        assertEquals(0, diff.code(), diff::toString);
        assertEquals("yes", diff.value("same-trace"));

        CliRun bench = CliRun.of("bench", chain.toString(), "--engine", "tree", "--warmup", "10");
        assertEquals(0, bench.code(), bench::toString);
        assertEquals(fromChain.value("decision-hash"), bench.value("decision-hash"));

        Path out = dir.resolve("retention");
        CliRun retention = CliRun.of("retention", chain.toString(), "--budget", "64m", "--out", out.toString(), "--csv-only");
        assertEquals(0, retention.code(), retention::toString);
        assertTrue(Files.size(out.resolve("retention.csv")) > 0);
    }

    @Test
    void aBrokenChainIsTheCommandsOneError(@TempDir Path dir) throws IOException {
        Path chain = Captures.write(dir.resolve("chain"), BATCHES, 4);
        Files.delete(chain.resolve("segment-000001.trace.gz"));
        CliRun run = CliRun.of("resolve", chain.toString());
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: capture " + chain + ": trace segments 1 are missing (between segment-000000.trace.gz "
                + "and segment-000002.trace.gz)"), run.errLines());
        assertEquals("", run.out());
    }
}
