package org.fdbresolver.harness.fuzz;

import java.io.IOException;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * The side an engine is compared with: FoundationDB's skip list ({@link SkipListOracle}) or, where it is not
 * built, the reference engine ({@link ReferenceOracle}). Batches go in with {@link #submit} and their answers
 * come back in the same order from {@link #take}; a caller may submit one batch ahead of the answer it waits
 * for (the oracle then decides while the caller's engine works), never more than {@link #MAX_AHEAD}.
 */
public interface Oracle extends AutoCloseable {
    /** Batches that may be submitted before the answer to the first of them is taken. */
    int MAX_AHEAD = 2;

    /** Short name for decisions and listings: {@code fdb-skiplist}, {@code reference}. */
    String name();

    /** One line saying what it is (and, for a stand-in, why). */
    String description();

    /** Starts a new trace: an empty history. */
    void beginTrace(TraceHeader header) throws IOException;

    void submit(Batch batch) throws IOException;

    /** The answer to the oldest batch submitted and not yet taken; valid until {@link #release}. */
    BatchAnswer take() throws IOException;

    /** Gives an answer back for reuse. */
    void release(BatchAnswer answer);

    @Override
    void close() throws IOException;
}
