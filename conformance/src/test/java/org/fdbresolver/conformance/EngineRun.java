package org.fdbresolver.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.TraceBatches;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.BatchDecisions;
import org.fdbresolver.trace.v1.ConflictingReads;

/**
 * Everything one engine decided on one trace, kept per batch so two runs can be compared transaction
 * by transaction and the first difference named.
 */
final class EngineRun {
    final String engine;
    final List<byte[]> decisions = new ArrayList<>();
    /** Per batch, the flattened conflicting reads: transaction, count, read indices…, as the hash sees them. */
    final List<int[]> conflictingReads = new ArrayList<>();
    final DecisionHasher hasher = new DecisionHasher();

    private EngineRun(String engine) {
        this.engine = engine;
    }

    /** Runs {@code engine} over every batch {@code batches} yields (null ends), validated by a ConflictSet. */
    static EngineRun run(ConflictEngine engine, ConflictSetConfig config, Supplier<Batch> batches) {
        EngineRun run = new EngineRun(engine.name());
        try (ConflictSet cs = ConflictSet.wrap(config, engine)) {
            ConflictBatch batch = cs.newBatch();
            TraceBatches converter = new TraceBatches();
            Batch b;
            while ((b = batches.get()) != null) {
                converter.load(b, batch);
                BatchResult r = batch.detectConflicts(b.getVersion(), b.getNewOldestVersion());
                run.record(r);
                run.hasher.add(r);
            }
        }
        return run;
    }

    /** A run to be filled from a decision file. */
    static EngineRun empty(String name) {
        return new EngineRun(name);
    }

    /** Adds a batch as read from a decision file. */
    void record(BatchDecisions d) {
        decisions.add(d.getDecisions().toByteArray());
        List<Integer> flat = new ArrayList<>();
        for (ConflictingReads c : d.getConflictingReadsList()) {
            flat.add(c.getTransaction());
            flat.add(c.getReadRangesCount());
            flat.addAll(c.getReadRangesList());
        }
        conflictingReads.add(flat.stream().mapToInt(Integer::intValue).toArray());
        hasher.add(d);
    }

    private void record(BatchResult r) {
        decisions.add(Arrays.copyOf(r.decisionBytes(), r.transactionCount()));
        List<Integer> flat = new ArrayList<>();
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            flat.add(r.conflictingTransaction(i));
            flat.add(r.conflictingReadCount(i));
            for (int j = 0; j < r.conflictingReadCount(i); j++) {
                flat.add(r.conflictingRead(i, j));
            }
        }
        conflictingReads.add(flat.stream().mapToInt(Integer::intValue).toArray());
    }

    String decisionHash() {
        return hasher.decisionHash();
    }

    String conflictingKeysHash() {
        return hasher.conflictingKeysHash();
    }

    /** The first difference from {@code other}, in words, or null when both decided identically. */
    String firstDifference(EngineRun other) {
        int batches = Math.min(decisions.size(), other.decisions.size());
        for (int b = 0; b < batches; b++) {
            byte[] mine = decisions.get(b);
            byte[] theirs = other.decisions.get(b);
            if (mine.length != theirs.length) {
                return "batch " + b + ": " + mine.length + " decisions vs " + theirs.length;
            }
            for (int t = 0; t < mine.length; t++) {
                if (mine[t] != theirs[t]) {
                    return "batch " + b + " transaction " + t + ": " + engine + " decided " + name(mine[t])
                            + ", " + other.engine + " decided " + name(theirs[t]) + " (" + countDifferences(other) + " transactions differ)";
                }
            }
            if (!Arrays.equals(conflictingReads.get(b), other.conflictingReads.get(b))) {
                return "batch " + b + ": conflicting reads differ: " + engine + " " + Arrays.toString(conflictingReads.get(b))
                        + ", " + other.engine + " " + Arrays.toString(other.conflictingReads.get(b))
                        + " (as transaction, count, read indices…)";
            }
        }
        if (decisions.size() != other.decisions.size()) {
            return decisions.size() + " batches vs " + other.decisions.size();
        }
        return null;
    }

    /** The index of the first batch that differs from {@code other}, or -1. */
    int firstDifferingBatch(EngineRun other) {
        int batches = Math.min(decisions.size(), other.decisions.size());
        for (int b = 0; b < batches; b++) {
            if (!Arrays.equals(decisions.get(b), other.decisions.get(b))
                    || !Arrays.equals(conflictingReads.get(b), other.conflictingReads.get(b))) {
                return b;
            }
        }
        return decisions.size() == other.decisions.size() ? -1 : batches;
    }

    private long countDifferences(EngineRun other) {
        long n = 0;
        for (int b = 0; b < Math.min(decisions.size(), other.decisions.size()); b++) {
            byte[] x = decisions.get(b);
            byte[] y = other.decisions.get(b);
            for (int t = 0; t < Math.min(x.length, y.length); t++) {
                if (x[t] != y[t]) {
                    n++;
                }
            }
        }
        return n;
    }

    private static String name(byte code) {
        return org.fdbresolver.api.Decision.ofCode(code).name();
    }
}
