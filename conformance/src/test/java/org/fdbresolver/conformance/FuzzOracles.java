package org.fdbresolver.conformance;

import java.io.IOException;
import java.util.Map;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.fdbresolver.harness.fuzz.EngineSource;
import org.fdbresolver.harness.fuzz.Oracle;
import org.fdbresolver.harness.fuzz.ReferenceOracle;
import org.fdbresolver.harness.fuzz.SkipListOracle;

/**
 * What the fuzzing tests compare with: FoundationDB's skip list where its comparator is built with the
 * {@code --stream} mode (found as {@link FdbSkipListComparator} finds it), else the reference engine, saying once on
 * the console why.
 */
final class FuzzOracles {
    private static java.nio.file.Path comparator;
    private static String whyNotSkipList;
    private static boolean asked;

    private FuzzOracles() {
    }

    static synchronized Oracle open() throws IOException {
        if (!asked) {
            asked = true;
            FdbSkipListComparator c = FdbSkipListComparator.find();
            comparator = c.path();
            whyNotSkipList = c.found() ? SkipListOracle.lacksStreaming(c.path()) : c.whyNot();
            if (whyNotSkipList != null) {
                System.out.println("NOTE: the fuzzing tests compare with the reference engine, not FoundationDB's skip list: "
                        + whyNotSkipList);
            }
        }
        if (whyNotSkipList == null) {
            return SkipListOracle.start(comparator);
        }
        return new ReferenceOracle(whyNotSkipList);
    }

    /** A registered engine by name, with the fuzzer's per-case budget and options. */
    static EngineSource registered(String engine) {
        return new EngineSource() {
            @Override
            public String name() {
                return engine;
            }

            @Override
            public boolean honoursBudget() {
                return org.fdbresolver.engine.Engines.all().get(engine).honoursMemoryBudget();
            }

            @Override
            public ConflictSet open(Long budget, Map<String, String> extraOptions) {
                ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine(engine);
                if (budget != null) {
                    b.memoryBudgetBytes(budget);
                }
                extraOptions.forEach(b::option);
                return ConflictSet.open(b.build());
            }

            @Override
            public String budgetText(Long budget) {
                return honoursBudget() ? (budget != null ? budget : ConflictSetConfig.DEFAULT_MEMORY_BUDGET_BYTES) + " bytes" : null;
            }
        };
    }

    /** An engine made here (not registered), without a budget. */
    static EngineSource unregistered(String name, java.util.function.Supplier<ConflictEngine> engine) {
        return new EngineSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean honoursBudget() {
                return false;
            }

            @Override
            public ConflictSet open(Long budget, Map<String, String> extraOptions) {
                return ConflictSet.wrap(ConflictSetConfig.builder().engine(name).build(), engine.get());
            }

            @Override
            public String budgetText(Long budget) {
                return null;
            }
        };
    }
}
