package org.fdbresolver.harness.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * Capture folders made here as the bridge makes them (docs/capture.md): numbered trace segments with capture headers
 * that chain, and beside each its decisions, decided by the reference engine over the whole chain.
 */
public final class Captures {
    private Captures() {
    }

    /** The header of segment {@code n} of chain {@code chain}, whose first batch has {@code firstVersion}. */
    public static TraceHeader header(String chain, int n, long firstVersion) {
        return TraceHeader.newBuilder().setFormat(TraceFormats.TRACE).setWorkload(CaptureChain.WORKLOAD)
                .putParams(CaptureChain.CHAIN, chain).putParams(CaptureChain.SEGMENT, Integer.toString(n))
                .putParams(CaptureChain.PREVIOUS_SEGMENT, n == 0 ? "" : CaptureChain.traceName(n - 1))
                .putParams("first_version", Long.toString(firstVersion)).putParams("engine", "reference")
                .putParams("config", "engine=reference").build();
    }

    /** Writes {@code batches} into {@code folder} as {@code segments} segments of about equal length; returns the folder. */
    public static Path write(Path folder, List<Batch> batches, int segments) throws IOException {
        Files.createDirectories(folder);
        int per = (batches.size() + segments - 1) / segments;
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())) {
            ConflictBatch batch = cs.newBatch();
            TraceBatches converter = new TraceBatches();
            for (int s = 0; s < segments; s++) {
                List<Batch> part = batches.subList(s * per, Math.min(batches.size(), (s + 1) * per));
                Path trace = folder.resolve(CaptureChain.traceName(s));
                try (TraceWriter w = TraceWriter.create(trace, header(folder.getFileName().toString(), s, part.getFirst().getVersion()))) {
                    for (Batch b : part) {
                        w.write(b);
                    }
                    w.commit();
                }
                Path decisions = folder.resolve(CaptureChain.traceName(s).replace(".trace.", ".decisions."));
                try (DecisionWriter d = DecisionWriter.create(decisions, "reference", Hashes.sha256(trace))) {
                    for (Batch b : part) {
                        converter.load(b, batch);
                        BatchResult result = batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
                        d.write(b.getVersion(), result);
                    }
                    d.commit();
                }
            }
        }
        return folder;
    }

    /** Random valid batches (TraceRoundTripTest's). */
    public static List<Batch> batches(long seed, int count) {
        return TraceRoundTripTest.batches(seed, count);
    }
}
