package org.fdbresolver.harness.workload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The registry of workload generators by name. */
public final class Workloads {
    private static final Map<String, WorkloadFactory> BY_NAME = new LinkedHashMap<>();

    static {
        // Generators register here, in the order --help lists them.
        register(new SkipListWorkload.Benchmark());
        register(new SkipListWorkload.Layouts());
        register(new ConflictSetWorkload.Factory(false));
        register(new ConflictSetWorkload.Factory(true));
        register(new CustomWorkload.Factory(false));
        register(new CustomWorkload.Factory(true));
        register(new LongTraceWorkload.Factory());
        register(new TupleWorkload.Factory());
        register(new FloodWorkload.Factory());
        register(new AdversarialWorkload.Factory());
        register(new RandomWorkload.Factory());
        register(new EdgeWorkload.Factory());
    }

    private Workloads() {
    }

    static void register(WorkloadFactory factory) {
        BY_NAME.put(factory.name(), factory);
    }

    public static Map<String, WorkloadFactory> all() {
        return Collections.unmodifiableMap(BY_NAME);
    }

    public static WorkloadFactory get(String name) {
        WorkloadFactory f = BY_NAME.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown workload '" + name + "' (known: " + String.join(", ", BY_NAME.keySet()) + ")");
        }
        return f;
    }
}
