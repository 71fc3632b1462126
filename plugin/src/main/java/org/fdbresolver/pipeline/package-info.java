/**
 * FoundationDB's resolver phases for a batch (too old, checkRead, sort, checkIntraBatch, combine,
 * mergeWrite, removeBefore), independent of how the history is stored: the history is the
 * {@link org.fdbresolver.pipeline.History} seam, its read check the
 * {@link org.fdbresolver.pipeline.HistoryReader} seam.
 */
package org.fdbresolver.pipeline;
