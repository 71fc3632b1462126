package org.fdbresolver.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * The generated traces engines are compared on: every workload with several fixed seeds, scaled down
 * (and with smaller key spaces beside the defaults, so conflicts are frequent), plus randomized runs of
 * the {@code random} workload. Randomized seeds start at {@code -Dconformance.seed} (default fixed) and
 * {@code -Dconformance.randomRuns} of them run (default 40).
 */
final class DifferentialCases {
    static final long[] FIXED_SEEDS = {1, 2, 3};
    static final long DEFAULT_RANDOM_SEED = 20261129L;
    static final int DEFAULT_RANDOM_RUNS = 40;

    /** One generated trace: a workload, its parameters, and the batches (small enough to hold). */
    record Case(String label, TraceHeader header, List<Batch> batches) {
        @Override
        public String toString() {
            return label;
        }

        /**
         * Saves the batches up to and including {@code lastBatch} as a small trace that reproduces a failure,
         * and returns its path.
         */
        Path saveFailingInput(String engine, int lastBatch) throws IOException {
            Path dir = Path.of("target", "conformance-failures");
            Files.createDirectories(dir);
            Path file = dir.resolve((engine + "-" + label).replaceAll("[^A-Za-z0-9._=-]+", "_") + ".trace").toAbsolutePath();
            try (TraceWriter w = TraceWriter.create(file, header)) {
                for (Batch b : batches.subList(0, Math.min(batches.size(), lastBatch + 1))) {
                    w.write(b);
                }
                w.commit();
            }
            return file;
        }
    }

    /** How to generate a case; generation is deferred so that a run stops paying once it has its answer. */
    record Spec(String workload, long seed, long batches, Map<String, String> options) {
        Case generate() {
            return DifferentialCases.generate(workload, seed, batches, options);
        }

        @Override
        public String toString() {
            return workload + " seed=" + seed + (options.isEmpty() ? "" : " " + options);
        }
    }

    private DifferentialCases() {
    }

    /** Every workload with fixed seeds. */
    static List<Spec> fixed() {
        List<Spec> cases = new ArrayList<>();
        for (long seed : FIXED_SEEDS) {
            cases.add(new Spec("skiplisttest", seed, 8, Map.of()));
            cases.add(new Spec("skiplist-layouts", seed, 10, Map.of("ranges-per-batch", "2000", "keyspace", "20000")));
            cases.add(new Spec("skiplist-layouts", seed, 10, Map.of("ranges-per-batch", "2000", "layout", "suffix",
                    "key-length", "64", "keyspace", "20000")));
            cases.add(new Spec("conflictset-point", seed, 40, Map.of()));
            cases.add(new Spec("conflictset-point", seed, 40, Map.of("keyspace", "5000", "report-fraction", "0.3")));
            cases.add(new Spec("conflictset-range", seed, 40, Map.of()));
            cases.add(new Spec("conflictset-range", seed, 40, Map.of("keyspace", "50000", "report-fraction", "0.3")));
            cases.add(new Spec("custom-point", seed, 6, Map.of()));
            cases.add(new Spec("custom-range", seed, 6, Map.of("keyspace", "100000")));
            cases.add(new Spec("longtrace", seed, 12, Map.of("report-fraction", "0.2")));
            cases.add(new Spec("tuple", seed, 20, Map.of()));
            cases.add(new Spec("tuple", seed, 20, Map.of("subspaces", "6", "keyspace", "2000", "index-values", "20",
                    "report-fraction", "0.3")));
            cases.add(new Spec("adversarial", seed, 150, Map.of()));
            // Keys far past a key block and past 1 MiB (FoundationDB accepts conflict ranges of any length).
            cases.add(new Spec("adversarial", seed, 40, Map.of("long-key-length", seed == 1 ? "1100000" : "70000")));
        }
        return cases;
    }

    /** Randomized runs of the {@code random} workload, parameters varied by seed. */
    static List<Spec> randomized() {
        long base = Long.getLong("conformance.seed", DEFAULT_RANDOM_SEED);
        int runs = Integer.getInteger("conformance.randomRuns", DEFAULT_RANDOM_RUNS);
        List<Spec> cases = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long seed = base + i;
            Map<String, String> options = new LinkedHashMap<>();
            options.put("alphabet", String.valueOf(1 + Math.floorMod(seed * 7, 6)));
            options.put("key-length", String.valueOf(1 + Math.floorMod(seed * 5, 4)));
            options.put("txns", String.valueOf(4 + Math.floorMod(seed * 3, 20)));
            options.put("report-fraction", "0.5");
            cases.add(new Spec("random", seed, 150, options));
        }
        return cases;
    }

    static Case generate(String workload, long seed, long batches, Map<String, String> options) {
        Workload w = Workloads.get(workload).create(new WorkloadParams(OptionalLong.of(seed), OptionalLong.of(batches), options));
        List<Batch> list = new ArrayList<>();
        for (Batch b; (b = w.nextBatch()) != null; ) {
            list.add(b);
        }
        return new Case(new Spec(workload, seed, batches, options).toString(), w.header(), list);
    }
}
