package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.DecisionWriter;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;

/**
 * Streams a trace through one engine: read a batch, convert it, decide it, hash the decisions and (when asked)
 * write them. The engine's own time is measured around {@code detectConflicts} alone; the wall time covers the
 * whole run (reading, parsing, writing).
 */
final class TraceResolution {

    /** What a run found. */
    record Outcome(String engine, String offeredHash, DecisionHasher hasher, long engineNanos, long wallNanos) {
    }

    private TraceResolution() {
    }

    /**
     * @param decisions where to write the decision file, or {@code null}; written as {@code FILE.tmp} and
     *                  renamed only when every batch was decided
     */
    static Outcome run(Path trace, ConflictSetConfig config, Path decisions, CommandContext context) throws IOException {
        long wallStart = System.nanoTime();
        // Opened first: a path that is no trace (missing, a directory, another format) gets the reader's one
        // error whether or not decisions are written.
        try (TraceReader reader = TraceReader.open(trace);
             ConflictSet conflictSet = EngineOptions.open(config);
             // The decision header names the trace by its hash, known before the first batch is written.
             DecisionWriter writer = decisions == null ? null
                     : DecisionWriter.create(decisions, conflictSet.engineName(), CaptureChain.offeredSha256(trace));
             Progress progress = context.progress(conflictSet.engineName(), CaptureChain.storedBytes(trace), "bytes")) {
            ConflictBatch batch = conflictSet.newBatch();
            DecisionHasher hasher = new DecisionHasher();
            long engineNanos = 0;
            while (reader.nextInto(batch)) {
                long t0 = System.nanoTime();
                BatchResult result = batch.detectConflicts(reader.version(), reader.newOldestVersion());
                engineNanos += System.nanoTime() - t0;
                hasher.add(result);
                if (writer != null) {
                    writer.write(reader.version(), result);
                }
                progress.update(reader.storedBytesRead(), hasher.batches(), hasher.transactions());
            }
            if (writer != null) {
                writer.commit();
            }
            return new Outcome(conflictSet.engineName(), Hashes.hex(reader.offeredSha256()), hasher, engineNanos,
                    System.nanoTime() - wallStart);
        }
    }
}
