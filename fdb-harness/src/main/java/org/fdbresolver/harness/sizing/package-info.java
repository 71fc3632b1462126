/**
 * What memory budget a write window costs: the machinery of {@code fdbresolver size}
 * (docs/long-transactions.md, "Sizing the budget").
 *
 * <p>A {@link org.fdbresolver.harness.sizing.WindowShape} is the question (window, write rate, key length and how
 * the writes look); {@link org.fdbresolver.harness.sizing.ScaledTrace} is the {@code longtrace} trace of that
 * shape, scaled down when the window holds too many writes to replay quickly;
 * {@link org.fdbresolver.harness.sizing.WindowMeasurement} replays it (the engine without a budget and under the
 * budget found, FoundationDB's skip list or its model) and gives the bytes per write in the window, which scale
 * back to the shape asked; {@link org.fdbresolver.harness.sizing.MemoryPlan} turns a budget into the heap, the
 * JVM and fdbserver's {@code --memory} it means.
 */
package org.fdbresolver.harness.sizing;
