package org.fdbresolver.harness.workload;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads one run's options against the workload's declared {@link WorkloadOption}s: rejects names it
 * does not declare, parses and range-checks values (falling back to the declared default), and
 * records every value used so that the trace header carries the complete parameter set.
 */
final class OptionReader {
    private final String workload;
    private final Map<String, String> given = new TreeMap<>();
    private final Map<String, WorkloadOption> declared = new LinkedHashMap<>();
    private final Map<String, String> used = new TreeMap<>();

    OptionReader(String workload, WorkloadParams params, List<WorkloadOption> options) {
        this.workload = workload;
        for (WorkloadOption o : options) {
            declared.put(o.name(), o);
        }
        for (Map.Entry<String, String> e : params.options().entrySet()) {
            String name = e.getKey().startsWith("--") ? e.getKey().substring(2) : e.getKey();
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("workload " + workload + ": unknown option --" + name
                        + (declared.isEmpty() ? " (it takes none besides --seed and --batches)"
                                : " (known: --" + String.join(", --", declared.keySet()) + ")"));
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("workload " + workload + ": option --" + name + " needs a value");
            }
            given.put(name, e.getValue().trim());
        }
    }

    /** The seed, or the workload's default; recorded as {@code seed}. */
    long seed(WorkloadParams params, long fallback) {
        long seed = params.seedOr(fallback);
        used.put("seed", Long.toUnsignedString(seed));
        return seed;
    }

    /** The batch count, or the workload's default; must be at least 0. Recorded as {@code batches}. */
    long batches(WorkloadParams params, long fallback) {
        long batches = params.batchesOr(fallback);
        if (batches < 0) {
            throw new IllegalArgumentException("workload " + workload + ": --batches must be >= 0, got " + batches);
        }
        used.put("batches", Long.toString(batches));
        return batches;
    }

    long longValue(String name, long min, long max) {
        String raw = raw(name);
        long v;
        try {
            v = Long.parseLong(raw.replace("_", ""));
        } catch (NumberFormatException e) {
            throw bad(name, raw, "an integer in [" + min + ", " + max + "]");
        }
        if (v < min || v > max) {
            throw bad(name, raw, "an integer in [" + min + ", " + max + "]");
        }
        used.put(name, Long.toString(v));
        return v;
    }

    int intValue(String name, int min, int max) {
        return (int) longValue(name, min, max);
    }

    double doubleValue(String name, double min, double max) {
        String raw = raw(name);
        double v;
        try {
            v = Double.parseDouble(raw);
        } catch (NumberFormatException e) {
            throw bad(name, raw, "a number in [" + min + ", " + max + "]");
        }
        if (!(v >= min && v <= max)) { // also rejects NaN
            throw bad(name, raw, "a number in [" + min + ", " + max + "]");
        }
        used.put(name, Double.toString(v));
        return v;
    }

    /** A probability: a number in [0, 1]. */
    double fraction(String name) {
        return doubleValue(name, 0.0, 1.0);
    }

    String choice(String name, String... allowed) {
        String raw = raw(name);
        for (String a : allowed) {
            if (a.equals(raw)) {
                used.put(name, raw);
                return raw;
            }
        }
        throw bad(name, raw, "one of " + String.join(", ", allowed));
    }

    /** A fixed shape constant of the workload, recorded for provenance. */
    void constant(String name, Object value) {
        used.put(name, String.valueOf(value));
    }

    IllegalArgumentException invalid(String name, String why) {
        return new IllegalArgumentException("workload " + workload + ": option --" + name + ": " + why);
    }

    /** Every parameter used so far, sorted by name. */
    Map<String, String> used() {
        return used;
    }

    private String raw(String name) {
        WorkloadOption o = declared.get(name);
        if (o == null) {
            throw new IllegalStateException("workload " + workload + " reads undeclared option " + name);
        }
        return given.getOrDefault(name, o.defaultValue());
    }

    private IllegalArgumentException bad(String name, String raw, String expected) {
        return new IllegalArgumentException("workload " + workload + ": option --" + name + ": expected "
                + expected + ", got '" + raw + "'");
    }
}
