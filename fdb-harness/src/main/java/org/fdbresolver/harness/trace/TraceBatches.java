package org.fdbresolver.harness.trace;

import com.google.protobuf.ByteString;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Fills a reusable {@link ConflictBatch} from a trace's protobuf {@link Batch}. Keys are copied out of the
 * protobuf {@code ByteString}s into one scratch array that this instance keeps, so converting a batch
 * allocates nothing once the scratch array has grown to the longest range. One instance per thread.
 */
public final class TraceBatches {
    private byte[] scratch = new byte[256];

    /** Clears {@code target} and adds every transaction of {@code batch} to it, in trace order. */
    public void load(Batch batch, ConflictBatch target) {
        target.clear();
        for (int t = 0, n = batch.getTransactionsCount(); t < n; t++) {
            Transaction tx = batch.getTransactions(t);
            target.addTransaction(tx.getReadSnapshot(), tx.getReportConflictingKeys());
            for (int r = 0, reads = tx.getReadsCount(); r < reads; r++) {
                KeyRange range = tx.getReads(r);
                int split = stage(range);
                target.addRead(scratch, 0, split, scratch, split, range.getEnd().size());
            }
            for (int w = 0, writes = tx.getWritesCount(); w < writes; w++) {
                KeyRange range = tx.getWrites(w);
                int split = stage(range);
                target.addWrite(scratch, 0, split, scratch, split, range.getEnd().size());
            }
        }
    }

    /** Copies begin then end into the scratch array; returns the begin key's length. */
    private int stage(KeyRange range) {
        ByteString begin = range.getBegin();
        ByteString end = range.getEnd();
        int b = begin.size();
        int total = b + end.size();
        if (scratch.length < total) {
            scratch = new byte[Math.max(total, scratch.length * 2)];
        }
        begin.copyTo(scratch, 0);
        end.copyTo(scratch, b);
        return b;
    }
}
