package org.fdbresolver.reference;

import java.util.Set;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;

/** Makes {@link ReferenceEngine}s, which take no options; registered with {@link java.util.ServiceLoader}. */
public final class ReferenceEngineFactory implements EngineFactory {
    @Override
    public String name() {
        return ReferenceEngine.NAME;
    }

    @Override
    public String description() {
        return "the obviously-correct oracle: a sorted interval map, no memory budget";
    }

    /** It keeps all history down to the oldest version: no budget applies. */
    @Override
    public boolean honoursMemoryBudget() {
        return false;
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        EngineFactory.checkOptions(config, ReferenceEngine.NAME, Set.of());
        return new ReferenceEngine();
    }
}
