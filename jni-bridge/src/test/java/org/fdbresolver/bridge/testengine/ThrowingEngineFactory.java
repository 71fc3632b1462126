package org.fdbresolver.bridge.testengine;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;

/**
 * Engine {@code test-throwing}, on the test class path only: the reference engine, except that a batch
 * holding a transaction with read snapshot {@value #RUNTIME_EXCEPTION_SNAPSHOT} throws an
 * IllegalStateException, and one with {@value #ERROR_SNAPSHOT} a StackOverflowError, before any state
 * changes (as the engine contract requires). Lets the native tests prove a Java failure inside a batch
 * reaches the host as a status code and a message, and that the next batch is still decided right.
 */
public final class ThrowingEngineFactory implements EngineFactory {
    public static final long RUNTIME_EXCEPTION_SNAPSHOT = 777_777;
    public static final long ERROR_SNAPSHOT = 888_888;

    @Override
    public String name() {
        return "test-throwing";
    }

    @Override
    public String description() {
        return "reference engine that throws on marked read snapshots (tests only)";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        ConflictEngine delegate = Engines.create(config.toBuilder().engine("reference").build());
        return new ConflictEngine() {
            @Override
            public String name() {
                return "test-throwing";
            }

            @Override
            public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
                for (int t = 0; t < batch.transactionCount(); t++) {
                    if (batch.readSnapshot(t) == RUNTIME_EXCEPTION_SNAPSHOT) {
                        throw new IllegalStateException("simulated engine failure in transaction " + t);
                    }
                    if (batch.readSnapshot(t) == ERROR_SNAPSHOT) {
                        throw new StackOverflowError("simulated");
                    }
                }
                delegate.detectConflicts(batch, now, newOldestVersion, out);
            }

            @Override
            public void clear(long version) {
                delegate.clear(version);
            }

            @Override
            public long historyBytes() {
                return delegate.historyBytes();
            }

            @Override
            public long retainedVersion() {
                return delegate.retainedVersion();
            }

            @Override
            public void addPhaseNanos(long[] nanosByPhase) {
                delegate.addPhaseNanos(nanosByPhase);
            }

            @Override
            public void close() {
                delegate.close();
            }
        };
    }
}
