package org.fdbresolver.harness.workload;

import java.util.List;

/** Makes runs of one named workload from parameters. */
public interface WorkloadFactory {

    /** The name used by {@code fdbresolver gen NAME}. */
    String name();

    /** One line for {@code --help}. */
    String description();

    /** Names, defaults and meanings of the options this workload takes besides seed and batches. */
    List<WorkloadOption> options();

    /**
     * A run with these parameters.
     *
     * @throws IllegalArgumentException for an unknown option or a bad value, with a message naming it
     */
    Workload create(WorkloadParams params);
}
