package org.fdbresolver.harness.workload;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Parameters of one generator run: the seed and batch count when given (each workload has its own
 * defaults), and further options by name ({@code --window 50000} is {@code "window" -> "50000"}).
 */
public record WorkloadParams(OptionalLong seed, OptionalLong batches, Map<String, String> options) {

    public WorkloadParams {
        options = Map.copyOf(new TreeMap<>(options));
    }

    public static WorkloadParams defaults() {
        return new WorkloadParams(OptionalLong.empty(), OptionalLong.empty(), Map.of());
    }

    public long seedOr(long fallback) {
        return seed.orElse(fallback);
    }

    public long batchesOr(long fallback) {
        return batches.orElse(fallback);
    }
}
