/**
 * FoundationDB's resolver phases for one batch ({@link org.fdbresolver.pipeline.BatchPipeline}: too old,
 * sort, checkRead, checkIntraBatch, combine, mergeWrite, removeBefore), each timed, over the
 * {@link org.fdbresolver.pipeline.History} and {@link org.fdbresolver.pipeline.HistoryReader} seams: a
 * batch's reads cross sorted by begin ({@link org.fdbresolver.pipeline.SortedReads}), its committed
 * writes combined into sorted, disjoint ranges ({@link org.fdbresolver.pipeline.CombinedWrites}).
 */
package org.fdbresolver.pipeline;
