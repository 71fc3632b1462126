package org.fdbresolver.harness.fuzz;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;

/**
 * One generated trace of a fuzzing run: case {@code index} of the schedule, a shape ({@link FuzzShapes}) made by a
 * workload generator with a seed and options, decided until it has {@code transactions} transactions (or its
 * {@code batches} end), with the engine under a budget of its own when the shape asks for one.
 *
 * @param budget        the engine's memory budget for this case, or null for the configured one
 * @param engineOptions engine options the shape adds (e.g. small nodes under a small budget)
 */
public record FuzzCase(long index, String shape, String workload, long seed, long batches, Map<String, String> options,
        long transactions, Long budget, Map<String, String> engineOptions) {

    public FuzzCase {
        options = Map.copyOf(options);
        engineOptions = Map.copyOf(engineOptions);
    }

    Workload open() {
        return Workloads.get(workload).create(new WorkloadParams(OptionalLong.of(seed), OptionalLong.of(batches), options));
    }

    /** The command that generates this case's trace. */
    public String genCommand() {
        StringBuilder sb = new StringBuilder("fdbresolver gen ").append(workload).append(" --seed ")
                .append(Long.toUnsignedString(seed)).append(" --batches ").append(batches);
        new TreeMap<>(options).forEach((k, v) -> sb.append(" --").append(k).append(' ').append(v));
        return sb.toString();
    }

    @Override
    public String toString() {
        return "case " + index + " (" + shape + ": " + genCommand().substring("fdbresolver gen ".length())
                + (budget == null ? "" : ", budget " + budget + " bytes")
                + (engineOptions.isEmpty() ? "" : ", engine options " + new TreeMap<>(engineOptions)) + ")";
    }
}
