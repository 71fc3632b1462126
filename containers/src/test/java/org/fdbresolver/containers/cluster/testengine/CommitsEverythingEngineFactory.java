package org.fdbresolver.containers.cluster.testengine;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;

/**
 * Engine {@value #NAME}: wrong on purpose — commits every transaction and keeps no history, like a
 * resolver that ignores reads. A cluster whose Resolver runs it must fail the bank workload's audit;
 * that proves the audit can see a wrong resolver. Not registered on any class path: the cluster test
 * packs it into a jar of its own ({@code EngineJar}) and mounts it into the containers.
 */
public final class CommitsEverythingEngineFactory implements EngineFactory {
    public static final String NAME = "test-commits-everything";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "commits every transaction, keeps no history (wrong on purpose: the audit must catch it)";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        return new ConflictEngine() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
                out.reset(batch.transactionCount());
            }

            @Override
            public void clear(long version) {
            }

            @Override
            public long historyBytes() {
                return 0;
            }

            @Override
            public long retainedVersion() {
                return 0;
            }
        };
    }
}
