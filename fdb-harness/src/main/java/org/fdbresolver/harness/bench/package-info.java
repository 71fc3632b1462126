/**
 * Benchmarks, apart from the code they measure: JMH benchmarks ({@code WorkloadBench} over the real
 * workload generators, {@code TreeEngineBench} over a conflictset-range-like stream) whose
 * {@code -prof gc} results prove the engines allocate nothing per batch in steady state, and
 * {@code ConflictSetRangeRun}, a plain timing loop of FoundationDB's conflictset-range shape. The CLI's
 * {@code bench} command is the everyday tool; these are for profiling and allocation proofs.
 */
package org.fdbresolver.harness.bench;
