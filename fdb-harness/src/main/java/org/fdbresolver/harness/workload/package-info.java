/**
 * Workload generators: deterministic producers of resolver traces ({@code fdb-resolver-trace/1}).
 *
 * <p>{@link org.fdbresolver.harness.workload.Workloads} is the registry by name; each
 * {@link org.fdbresolver.harness.workload.WorkloadFactory} checks its options (unknown names and bad
 * values fail with an {@code IllegalArgumentException} naming the option) and returns a
 * {@link org.fdbresolver.harness.workload.Workload} that streams one batch at a time. Every generator
 * draws from {@code SplitMix64}, a PRNG defined in this package, so that the same parameters give the
 * same bytes on every JDK; report flags come from a separate stream of the same seed, so changing
 * {@code --report-fraction} changes only the flags. {@code docs/workloads.md} describes each workload.
 */
package org.fdbresolver.harness.workload;
