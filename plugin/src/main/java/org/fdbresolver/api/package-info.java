/**
 * The public API, shaped like FoundationDB's {@code ConflictSet.h}: open a {@link org.fdbresolver.api.ConflictSet}
 * from a {@link org.fdbresolver.api.ConflictSetConfig}, fill a {@link org.fdbresolver.api.ConflictBatch} with
 * {@code addTransaction} and its ranges, call {@code detectConflicts(now, newOldestVersion)} and read one
 * {@link org.fdbresolver.api.Decision} per transaction from the {@link org.fdbresolver.api.BatchResult}.
 * Nothing in this package depends on how an engine stores its history.
 */
package org.fdbresolver.api;
