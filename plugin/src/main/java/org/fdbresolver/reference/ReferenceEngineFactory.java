package org.fdbresolver.reference;

import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;

public final class ReferenceEngineFactory implements EngineFactory {
    @Override
    public String name() {
        return ReferenceEngine.NAME;
    }

    @Override
    public String description() {
        return "the obviously-correct oracle: a sorted interval map, no memory budget";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        return new ReferenceEngine();
    }
}
