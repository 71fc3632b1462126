/**
 * The differential fuzzer behind {@code fdbresolver fuzz}: generated traces streamed batch by batch through an
 * engine and an oracle — FoundationDB's own skip list (the comparator {@code fdbresolver_fdb_skiplist --stream},
 * one process for the whole run) or, where that is not built, the reference engine — comparing every batch's
 * decisions and conflicting reads.
 *
 * <p>{@link org.fdbresolver.harness.fuzz.FuzzShapes} names what is generated (every workload generator, the
 * {@code edge} workload's shapes, the tree under a small budget) and {@link org.fdbresolver.harness.fuzz.FuzzCase}
 * is one generated trace of the schedule; {@link org.fdbresolver.harness.fuzz.DifferentialRun} streams one trace
 * through both sides; {@link org.fdbresolver.harness.fuzz.Fuzzer} runs the schedule; on a difference
 * {@link org.fdbresolver.harness.fuzz.Shrinker} reduces the trace by delta debugging and
 * {@link org.fdbresolver.harness.fuzz.Reproduction} writes it as a small trace and a readable listing.
 */
package org.fdbresolver.harness.fuzz;
