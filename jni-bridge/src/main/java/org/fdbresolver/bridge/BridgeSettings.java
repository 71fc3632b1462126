package org.fdbresolver.bridge;

/**
 * The bridge's own settings from a configuration text ({@code fdbr_open_text}), as the native side hands them
 * over: {@code name=value} lines, sizes already turned into byte counts there (one parser for the whole text,
 * {@code fdbresolver::parseSettings}).
 *
 * @param processMemoryLimit the host's memory limit in bytes (for fdbserver its {@code --memory}, which the Resolver
 *                           hook passes): the JVM must fit in it; 0 for none
 * @param hostMemoryReserve  what the host keeps for itself inside that limit
 */
record BridgeSettings(long processMemoryLimit, long hostMemoryReserve) {
    static final BridgeSettings NONE = new BridgeSettings(0, HeapPlan.DEFAULT_HOST_RESERVE_BYTES);

    static BridgeSettings parse(String text) {
        if (text == null || text.isEmpty()) {
            return NONE;
        }
        long limit = 0;
        long reserve = HeapPlan.DEFAULT_HOST_RESERVE_BYTES;
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            String name = eq < 0 ? line : line.substring(0, eq);
            String value = eq < 0 ? "" : line.substring(eq + 1);
            switch (name) {
                case "process_memory_limit" -> limit = bytes(name, value);
                case "host_memory_reserve" -> reserve = bytes(name, value);
                default -> throw new IllegalArgumentException("unknown bridge setting '" + name + "' (engine jar and "
                        + "libfdbresolver from different builds?)");
            }
        }
        return new BridgeSettings(limit, reserve);
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
