package org.fdbresolver.conformance;

import java.util.ArrayList;
import java.util.List;
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

    /** Options that make an engine's nodes tiny, by engine name, so every trace splits and merges often. */
    private static final List<StressOption> STRESS_OPTIONS = List.of(new StressOption("tree", "nodeBytes", "256"));

    private record StressOption(String engine, String option, String value) {
    }

    private EnginesUnderTest() {
    }

    static List<Variant> all() {
        List<Variant> variants = new ArrayList<>();
        for (EngineFactory f : Engines.all().values()) {
            ConflictSetConfig config = ConflictSetConfig.builder().engine(f.name()).build();
            variants.add(new Variant(f.name(), config, () -> f.create(config)));
            for (StressOption stress : STRESS_OPTIONS) {
                if (stress.engine().equals(f.name())) {
                    ConflictSetConfig small = config.toBuilder().option(stress.option(), stress.value()).build();
                    variants.add(new Variant(f.name() + "(" + stress.option() + "=" + stress.value() + ")", small,
                            () -> f.create(small)));
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
