package org.fdbresolver.harness.fuzz;

import java.util.ArrayDeque;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.reference.ReferenceEngine;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * The reference engine (docs/formats.md's rules over a sorted map) in place of FoundationDB's skip list where that
 * is not built: it reproduces the skip list's hashes on every golden trace, but it is this project's reading of
 * FoundationDB's rules, not FoundationDB's code, so a run against it says so. Decides each batch when it is
 * submitted, in this thread.
 */
public final class ReferenceOracle implements Oracle {
    private final String why;
    private final TraceBatches converter = new TraceBatches();
    private final ArrayDeque<BatchAnswer> answers = new ArrayDeque<>();
    private final ArrayDeque<BatchAnswer> spare = new ArrayDeque<>();
    private ConflictSet conflictSet;
    private ConflictBatch batch;

    /** @param why why it stands in for the skip list, for {@link #description()} */
    public ReferenceOracle(String why) {
        this.why = why;
    }

    @Override
    public String name() {
        return ReferenceEngine.NAME;
    }

    @Override
    public String description() {
        return "reference (the reference engine, standing in for FoundationDB's skip list: " + why + ")";
    }

    @Override
    public void beginTrace(TraceHeader header) {
        if (conflictSet != null) {
            conflictSet.close();
        }
        conflictSet = ConflictSet.open(ConflictSetConfig.builder().engine(ReferenceEngine.NAME).build());
        batch = conflictSet.newBatch();
        answers.clear();
    }

    @Override
    public void submit(Batch b) {
        converter.load(b, batch);
        BatchResult r = batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
        BatchAnswer a = spare.isEmpty() ? new BatchAnswer() : spare.pop();
        a.copy(b.getVersion(), r);
        answers.add(a);
    }

    @Override
    public BatchAnswer take() {
        BatchAnswer a = answers.poll();
        if (a == null) {
            throw new IllegalStateException("take() without a batch submitted");
        }
        return a;
    }

    @Override
    public void release(BatchAnswer answer) {
        spare.push(answer);
    }

    @Override
    public void close() {
        if (conflictSet != null) {
            conflictSet.close();
        }
    }
}
