package org.fdbresolver.harness.workload;

import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * One run of a workload generator: a header, then batches one at a time, so that a trace of any length
 * streams to disk without being held in memory. Deterministic: the same parameters give the same bytes.
 */
public interface Workload {

    /** The trace header for this run: format, workload name, seed and every parameter used. */
    TraceHeader header();

    /** The next batch, or {@code null} when the run is complete. */
    Batch nextBatch();

    /** How many batches the run will produce in all (for progress display). */
    long batchCount();
}
