/**
 * Reading and writing the interchange formats of {@code docs/formats.md}: trace files
 * ({@link org.fdbresolver.harness.trace.TraceReader}, {@link org.fdbresolver.harness.trace.TraceWriter}),
 * decision files ({@link org.fdbresolver.harness.trace.DecisionReader},
 * {@link org.fdbresolver.harness.trace.DecisionWriter}) and the hashes that compare engines
 * ({@link org.fdbresolver.harness.trace.DecisionHasher}, {@link org.fdbresolver.harness.trace.Hashes}).
 *
 * <p>Both formats are streams of length-delimited protobuf messages, optionally gzip-compressed (detected
 * by the magic bytes, never by the file name). Readers stream one message at a time, so a trace of any size
 * is never held whole, and they frame messages themselves (varint length, then exactly that many bytes) so
 * that a damaged file gets one precise {@link org.fdbresolver.harness.trace.TraceFormatException} naming the
 * message. Writers write to {@code FILE.tmp} and rename on {@link org.fdbresolver.harness.trace.TraceWriter#commit()},
 * so a failed run never leaves a file that looks complete; a symbolic link is followed, and a device or FIFO
 * is written through, never replaced (see {@link org.fdbresolver.harness.trace.AtomicOutput}, which the report
 * commands use for their own files too).
 *
 * <p>{@link org.fdbresolver.harness.trace.TraceBatches} turns a protobuf {@code Batch} into an engine's
 * {@link org.fdbresolver.api.ConflictBatch}; {@link org.fdbresolver.harness.trace.LoadedTrace} holds a whole
 * trace converted up front, for timing engines without the cost of parsing.
 */
package org.fdbresolver.harness.trace;
