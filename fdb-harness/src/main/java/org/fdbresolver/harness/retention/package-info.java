/**
 * How much history an engine keeps under a memory budget, and how much FoundationDB keeps in the same bytes:
 * the machinery of {@code fdbresolver retention} (docs/retention.md).
 *
 * <p>{@link org.fdbresolver.harness.retention.TraceReplay} streams a trace through a conflict set (optionally
 * with a fixed window in place of the trace's {@code new_oldest_version}); each batch becomes a
 * {@link org.fdbresolver.harness.retention.RetentionSample} (retained age, history bytes, TOO_OLD answers split
 * into FoundationDB's and the budget's, from the trace and the decisions only), written to the CSV
 * ({@link org.fdbresolver.harness.retention.RetentionCsv}), summed up in constant memory
 * ({@link org.fdbresolver.harness.retention.RetentionSummary}) and kept for the plots in bounded
 * {@link org.fdbresolver.harness.retention.PlotSeries} ({@link org.fdbresolver.harness.retention.RetentionPlots}
 * draws them with XChart).
 *
 * <p>FoundationDB's side: {@link org.fdbresolver.harness.retention.FdbWindowSearch} finds the longest fixed
 * window whose skip list fits in a budget, measuring peak node bytes either with FoundationDB's own skip list
 * ({@link org.fdbresolver.harness.retention.NativeMeter}, the comparator built by {@code scripts/build-fdb})
 * or, without a FoundationDB build, with {@link org.fdbresolver.harness.retention.FdbSkipListModel}, which
 * replays the skip list's node set and node sizes from ConflictSet.cpp in Java
 * ({@link org.fdbresolver.harness.retention.ModelMeter}).
 */
package org.fdbresolver.harness.retention;
