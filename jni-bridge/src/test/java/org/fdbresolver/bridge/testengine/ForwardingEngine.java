package org.fdbresolver.bridge.testengine;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.engine.ConflictEngine;

/**
 * An engine that hands every call to another one, for the test engines that change only how a batch is decided
 * (they override {@link #detectConflicts}); everything the host reads besides — history bytes, the retained
 * version, the heap bounds, phase times — stays the delegate's.
 */
abstract class ForwardingEngine implements ConflictEngine {
    private final String name;
    protected final ConflictEngine delegate;

    ForwardingEngine(String name, ConflictEngine delegate) {
        this.name = name;
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
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
    public long forgottenBatches() {
        return delegate.forgottenBatches();
    }

    @Override
    public long historyHeapBoundBytes() {
        return delegate.historyHeapBoundBytes();
    }

    @Override
    public long historyReservedBytes() {
        return delegate.historyReservedBytes();
    }

    @Override
    public void addPhaseNanos(long[] nanosByPhase) {
        delegate.addPhaseNanos(nanosByPhase);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
