package org.fdbresolver.harness.workload;

import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * The common shape of every generator run: a header built once from the parameters used, then
 * {@link #generate(long)} called once per batch, in order, so that only one batch is ever in memory.
 */
abstract class BatchStream implements Workload {
    static final String FORMAT = "fdb-resolver-trace/1";

    private final TraceHeader header;
    private final long batchCount;
    private long next;

    BatchStream(String workload, long seed, long batchCount, Map<String, String> params) {
        this.header = TraceHeader.newBuilder()
                .setFormat(FORMAT)
                .setWorkload(workload)
                .setSeed(seed)
                .putAllParams(params)
                .putParams("prng", "splitmix64")
                .build();
        this.batchCount = batchCount;
    }

    @Override
    public final TraceHeader header() {
        return header;
    }

    @Override
    public final Batch nextBatch() {
        if (next >= batchCount) {
            return null;
        }
        return generate(next++);
    }

    @Override
    public final long batchCount() {
        return batchCount;
    }

    /** Batch number {@code index} (0-based); called exactly once per index, in increasing order. */
    abstract Batch generate(long index);
}
