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
 * IllegalStateException, one with {@value #ERROR_SNAPSHOT} a StackOverflowError, one with
 * {@value #NULL_DEREFERENCE_SNAPSHOT} a NullPointerException from a real null dereference, before any state
 * changes (as the engine contract requires). Lets the native tests prove a Java failure inside a batch
 * reaches the host as a status code and a message, and that the next batch is still decided right.
 */
public final class ThrowingEngineFactory implements EngineFactory {
    public static final long RUNTIME_EXCEPTION_SNAPSHOT = 777_777;
    public static final long ERROR_SNAPSHOT = 888_888;
    /** Dereferences null: the JVM takes a SIGSEGV (implicit null check) and throws NullPointerException. */
    public static final long NULL_DEREFERENCE_SNAPSHOT = 999_999;

    /** Something with a field, read through a null reference. */
    static final class Holder {
        int value;
    }

    static volatile Holder nobody;

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
        return new ForwardingEngine("test-throwing", delegate) {
            @Override
            public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
                for (int t = 0; t < batch.transactionCount(); t++) {
                    if (batch.readSnapshot(t) == RUNTIME_EXCEPTION_SNAPSHOT) {
                        throw new IllegalStateException("simulated engine failure in transaction " + t);
                    }
                    if (batch.readSnapshot(t) == ERROR_SNAPSHOT) {
                        throw new StackOverflowError("simulated");
                    }
                    if (batch.readSnapshot(t) == NULL_DEREFERENCE_SNAPSHOT) {
                        Holder h = nobody;
                        if (h.value == 42) { // getfield on null: a SIGSEGV the JVM turns into an NPE
                            throw new AssertionError("unreachable");
                        }
                    }
                }
                delegate.detectConflicts(batch, now, newOldestVersion, out);
            }
        };
    }
}
