package org.fdbresolver.bridge;

import java.nio.file.Path;
import org.fdbresolver.bridge.capture.CaptureSettings;

/**
 * The bridge's own settings from a configuration text ({@code fdbr_open_text}), as the native side hands them
 * over: {@code name=value} lines, sizes already turned into byte counts there (one parser for the whole text,
 * {@code fdbresolver::parseSettings}).
 *
 * @param processMemoryLimit the host's memory limit in bytes (for fdbserver its {@code --memory}, which the Resolver
 *                           hook passes): the JVM must fit in it; 0 for none
 * @param hostMemoryReserve  what the host keeps for itself inside that limit
 * @param capture            where and how to capture the resolver's batches ({@code capture=PATH}), or null
 */
record BridgeSettings(long processMemoryLimit, long hostMemoryReserve, CaptureSettings capture) {
    static final BridgeSettings NONE = new BridgeSettings(0, HeapPlan.DEFAULT_HOST_RESERVE_BYTES, null);

    static BridgeSettings parse(String text) {
        if (text == null || text.isEmpty()) {
            return NONE;
        }
        long limit = 0;
        long reserve = HeapPlan.DEFAULT_HOST_RESERVE_BYTES;
        String capture = null;
        String captureConfig = "";
        long segmentBytes = CaptureSettings.DEFAULT_SEGMENT_BYTES;
        long maxBytes = CaptureSettings.DEFAULT_MAX_BYTES;
        long queueBytes = CaptureSettings.DEFAULT_QUEUE_BYTES;
        long folderMaxBytes = -1; // four chains' bound unless set
        String companion = null;
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            String name = eq < 0 ? line : line.substring(0, eq);
            String value = eq < 0 ? "" : line.substring(eq + 1);
            switch (name) {
                case "process_memory_limit" -> limit = bytes(name, value);
                case "host_memory_reserve" -> reserve = bytes(name, value);
                case "capture" -> capture = value;
                case "capture_config" -> captureConfig = value;
                case "capture_segment_bytes" -> {
                    segmentBytes = bytes(name, value);
                    companion = name;
                }
                case "capture_max_bytes" -> {
                    maxBytes = bytes(name, value);
                    companion = name;
                }
                case "capture_folder_max_bytes" -> {
                    folderMaxBytes = bytes(name, value);
                    companion = name;
                }
                case "capture_queue_bytes" -> {
                    queueBytes = bytes(name, value);
                    companion = name;
                    if (queueBytes > Integer.MAX_VALUE - 8) {
                        throw new IllegalArgumentException("capture_queue_bytes=" + value + " is over the most, 2 GiB");
                    }
                }
                default -> throw new IllegalArgumentException("unknown bridge setting '" + name + "' (engine jar and "
                        + "libfdbresolver from different builds?)");
            }
        }
        CaptureSettings settings = null;
        if (capture != null) {
            if (capture.isEmpty()) {
                throw new IllegalArgumentException("capture= names no folder");
            }
            settings = new CaptureSettings(Path.of(capture), segmentBytes, maxBytes, (int) queueBytes, captureConfig,
                    folderMaxBytes < 0 ? CaptureSettings.defaultFolderMaxBytes(maxBytes) : folderMaxBytes);
        } else if (companion != null) {
            throw new IllegalArgumentException(companion + " is set but capture= is not (it names where captures go)");
        }
        return new BridgeSettings(limit, reserve, settings);
    }

    private static long bytes(String name, String value) {
        try {
            long n = Long.parseLong(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(name + "=" + value + " is not a byte count");
    }
}
