package org.fdbresolver.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.reference.ReferenceEngine;

/**
 * Every engine the suite checks: each registered engine with its defaults, plus configurations that
 * stress an engine's structure (tiny nodes that force many splits). The engine list comes from the
 * registry, so a new engine is checked as soon as it is registered.
 */
final class EnginesUnderTest {
    /** An engine with a configuration, and a label naming both. */
    record Variant(String label, ConflictSetConfig config, Supplier<ConflictEngine> factory) {
        ConflictEngine create() {
            return factory.get();
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * Configurations checked beside each engine's defaults, by engine name: for {@code tree}, each read
     * path on its own (the default takes the batched path only once the history holds 16 MiB, more than
     * any golden trace's), and tiny nodes (256 and 128 bytes, the smallest allowed) that force many
     * splits and merges, with both read paths, a few groups in flight, and writes not loaded ahead;
     * 256-byte key blocks, where every key past 60 bytes takes the large-key path; leaves' own prefixes from 8 bytes of
     * gain (the default is 1).
     * Then more than one thread (issue 18): 2 and 4 threads with the defaults (large batches only go by
     * partitions and slices), and with every batch's writes applied by partitions of one or two writes and
     * its reads in slices of a few, on default and tiny nodes (many splits published at once), and the
     * partitions' way on one thread; and 256-byte key blocks at 2 and 4 threads with every batch by
     * partitions (large keys' arrays taken before the phase, written by the partitions).
     */
    private static final List<Variation> VARIATIONS = List.of(
            new Variation("tree", Map.of("readPath", "single")),
            new Variation("tree", Map.of("readBatchedFromBytes", "0")),
            new Variation("tree", Map.of("nodeBytes", "256", "readBatchedFromBytes", "0")),
            new Variation("tree", Map.of("nodeBytes", "256", "readPath", "single")),
            new Variation("tree", Map.of("nodeBytes", "128", "readBatchedFromBytes", "0", "readWays", "3")),
            new Variation("tree", Map.of("nodeBytes", "128", "readPath", "single", "writeWays", "0")),
            // Key blocks of 256 bytes: every key past 60 bytes takes the large-key path (an array of its own).
            new Variation("tree", Map.of("keyBlockBytes", "256", "nodeBytes", "256", "readBatchedFromBytes", "0")),
            // Leaves' prefixes by the inner nodes' rule of 8 bytes of gain (the default until leaves took them from 1).
            new Variation("tree", Map.of("leafPrefixMinGain", "8", "nodeBytes", "256", "readBatchedFromBytes", "0")),
            // Every batch sorted by radix passes, and every batch by comparison (the small-batch sort).
            new Variation("tree", Map.of("directSortEndpoints", "0")),
            new Variation("tree", Map.of("directSortEndpoints", "2147483647")),
            new Variation("tree", Map.of("threads", "2")),
            new Variation("tree", Map.of("threads", "4")),
            new Variation("tree", Map.of("threads", "1", "writeWays", "0")),
            new Variation("tree", Map.of("threads", "2", "writesPerPartition", "1",
                    "readsPerSlice", "2", "endpointsPerSlice", "2", "readBatchedFromBytes", "0")),
            new Variation("tree", Map.of("threads", "4", "writesPerPartition", "2",
                    "readsPerSlice", "4", "endpointsPerSlice", "8", "readPath", "single")),
            new Variation("tree", Map.of("threads", "4", "nodeBytes", "128", 
                    "writesPerPartition", "1", "readsPerSlice", "1", "endpointsPerSlice", "1", "readBatchedFromBytes", "0")),
            new Variation("tree", Map.of("threads", "2", "nodeBytes", "256", 
                    "writesPerPartition", "1", "readsPerSlice", "3", "readPath", "single", "writeWays", "0")),
            // The large-key path under partitions and slices: 256-byte key blocks, every batch by partitions.
            new Variation("tree", Map.of("threads", "2", "keyBlockBytes", "256", "nodeBytes", "256", 
                    "writesPerPartition", "1", "readsPerSlice", "2", "endpointsPerSlice", "2", "readBatchedFromBytes", "0")),
            new Variation("tree", Map.of("threads", "4", "keyBlockBytes", "256", "nodeBytes", "256", 
                    "writesPerPartition", "1", "readsPerSlice", "1", "endpointsPerSlice", "1", "readPath", "single")));

    private record Variation(String engine, Map<String, String> options) {
        String label() {
            return engine + new TreeMap<>(options).toString().replace('{', '(').replace('}', ')').replace(" ", "");
        }
    }

    private EnginesUnderTest() {
    }

    static List<Variant> all() {
        List<Variant> variants = new ArrayList<>();
        for (EngineFactory f : Engines.all().values()) {
            ConflictSetConfig config = ConflictSetConfig.builder().engine(f.name()).build();
            variants.add(new Variant(f.name(), config, () -> f.create(config)));
            for (Variation v : VARIATIONS) {
                if (v.engine().equals(f.name())) {
                    ConflictSetConfig.Builder b = config.toBuilder();
                    v.options().forEach(b::option);
                    ConflictSetConfig varied = b.build();
                    variants.add(new Variant(v.label(), varied, () -> f.create(varied)));
                }
            }
        }
        return variants;
    }

    /** Every variant but the reference engine itself: the ones compared against it. */
    static List<Variant> candidates() {
        return all().stream().filter(v -> !v.label().equals(ReferenceEngine.NAME)).toList();
    }

    static Variant reference() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine(ReferenceEngine.NAME).build();
        return new Variant(ReferenceEngine.NAME, config, ReferenceEngine::new);
    }
}
