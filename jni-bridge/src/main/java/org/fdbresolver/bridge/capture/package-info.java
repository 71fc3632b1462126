/**
 * The capture ({@code capture=PATH} in the configuration text, docs/capture.md): every batch a resolver decides and its
 * decisions, recorded as gzip trace and decision segments that chain. {@link org.fdbresolver.bridge.capture.Capture}
 * is what the resolver calls: it encodes a batch on the resolver's thread ({@code BatchEncoder}, protobuf's
 * {@code CodedOutputStream}, nothing allocated) into a ring allocated at open ({@code RecordRing}); one writer thread
 * ({@code SegmentWriter}) compresses into whole gzip members ({@code GzipMember}), rolls segments over and rotates
 * them. A writer that falls behind stops the capture with a warning, never the resolver.
 */
package org.fdbresolver.bridge.capture;
