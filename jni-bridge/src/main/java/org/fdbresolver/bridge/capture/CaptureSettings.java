package org.fdbresolver.bridge.capture;

import java.nio.file.Path;

/**
 * A capture's settings, from the configuration text ({@code capture=PATH} and its companions; fdbresolver.h,
 * docs/capture.md).
 *
 * @param folder       where the captures go: each resolver opened with it writes its own chain of segments into a
 *                     new folder inside it
 * @param segmentBytes a segment (its trace and decision files, compressed) is closed once it reaches this size
 * @param maxBytes     the chain's bound: once its segments pass it, the oldest are deleted
 * @param queueBytes   how far the writer thread may fall behind the resolver before capturing stops
 * @param config       the configuration text the resolver was opened with, class paths left out, for the headers
 * @param folderMaxBytes the bound over the whole folder, every chain in it: once passed, the oldest chains that no
 *                     resolver is writing are deleted (at open and at each new segment); at least {@code maxBytes}
 */
public record CaptureSettings(Path folder, long segmentBytes, long maxBytes, int queueBytes, String config,
                              long folderMaxBytes) {
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    public static final long DEFAULT_MAX_BYTES = 1L << 30;
    public static final int DEFAULT_QUEUE_BYTES = 32 << 20;
    /** Smallest sizes accepted: below these a capture would spend itself on headers and gzip members. */
    public static final long MIN_SEGMENT_BYTES = 64L << 10;
    public static final int MIN_QUEUE_BYTES = 1 << 20;
    /** Heap the writer thread needs beside its record and member buffers (which grow to the largest batch). */
    public static final long WRITER_HEAP_BYTES = 8L << 20;

    /** How many chains' bounds the folder holds unless {@code capture_folder_max_bytes} says otherwise. */
    public static final int DEFAULT_FOLDER_CHAINS = 4;

    /** Settings with the folder's default bound, {@link #defaultFolderMaxBytes}. */
    public CaptureSettings(Path folder, long segmentBytes, long maxBytes, int queueBytes, String config) {
        this(folder, segmentBytes, maxBytes, queueBytes, config, defaultFolderMaxBytes(maxBytes));
    }

    /** The folder's bound unless set: {@link #DEFAULT_FOLDER_CHAINS} chains' (4 GiB at the defaults). */
    public static long defaultFolderMaxBytes(long maxBytes) {
        return maxBytes > Long.MAX_VALUE / DEFAULT_FOLDER_CHAINS ? Long.MAX_VALUE : DEFAULT_FOLDER_CHAINS * maxBytes;
    }

    public CaptureSettings {
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("capture_segment_bytes=" + segmentBytes + " is below the least, "
                    + MIN_SEGMENT_BYTES + " (64k)");
        }
        if (maxBytes < segmentBytes) {
            throw new IllegalArgumentException("capture_max_bytes=" + maxBytes + " is below capture_segment_bytes="
                    + segmentBytes + ": a capture keeps at least the segment being written");
        }
        if (folderMaxBytes < maxBytes) {
            throw new IllegalArgumentException("capture_folder_max_bytes=" + folderMaxBytes + " is below capture_max_bytes="
                    + maxBytes + ": the folder keeps at least the chain being written");
        }
        if (queueBytes < MIN_QUEUE_BYTES) {
            throw new IllegalArgumentException("capture_queue_bytes=" + queueBytes + " is below the least, "
                    + MIN_QUEUE_BYTES + " (1m)");
        }
    }

    /**
     * What a resolver capturing with these settings needs of the Java heap beside its engine: the queue, and the
     * writer's copy of a record and its compressed member, each at most half the queue (the largest record it takes).
     */
    public long heapBytes() {
        return 2L * queueBytes + WRITER_HEAP_BYTES;
    }
}
