package org.fdbresolver.harness.workload;

/** One option a workload takes: {@code --name VALUE} on the command line. */
public record WorkloadOption(String name, String defaultValue, String description) {
}
