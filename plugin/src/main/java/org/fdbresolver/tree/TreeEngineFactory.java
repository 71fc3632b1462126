package org.fdbresolver.tree;

import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;

/** Makes {@link TreeEngine}s; registered with {@link java.util.ServiceLoader}. */
public final class TreeEngineFactory implements EngineFactory {
    @Override
    public String name() {
        return TreeEngine.NAME;
    }

    @Override
    public String description() {
        return "B+ tree history in primitive arrays under a memory budget (options: nodeBytes, keyBlockBytes, readPath, readWays, readTouch, readBatchedFromBytes, writeWays, threads, readsPerSlice, endpointsPerSlice, writesPerPartition, directSortEndpoints, directBatchRanges, directBatchPairs, readBatchedFromReads, warmUpBatches, warmUpSettleMillis, leafPrefixMinGain, prefixLoweringLeaves)";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        return new TreeEngine(config);
    }
}
