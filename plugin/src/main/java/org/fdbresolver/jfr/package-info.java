/**
 * JDK Flight Recorder events of the resolver, for operators watching it in JDK Mission Control or with
 * {@code jfr print}: {@link org.fdbresolver.jfr.BatchEvent} ({@code org.fdbresolver.Batch}), one per batch, with
 * its decisions, the TOO_OLD answers split into FoundationDB's and the budget's, the history kept and the time
 * per phase. {@link org.fdbresolver.jfr.BatchRecorder} emits them from
 * {@link org.fdbresolver.api.ConflictSet#detectConflicts}; with no recording running it allocates nothing.
 */
package org.fdbresolver.jfr;
