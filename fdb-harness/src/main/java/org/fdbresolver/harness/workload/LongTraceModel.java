package org.fdbresolver.harness.workload;

/**
 * What other packages need to know of the {@code longtrace} model to shape a trace from rates rather than
 * counts ({@code fdbresolver size}): its name, option names and the mean number of write ranges per
 * transaction its weights give.
 */
public final class LongTraceModel {
    public static final String NAME = "longtrace";
    public static final String KEY_LENGTH = KeyShape.KEY_LENGTH;
    public static final String KEY_PREFIX = KeyShape.KEY_PREFIX;
    public static final int MAX_KEY_LENGTH = KeyShape.MAX_KEY_LENGTH;
    /** The largest key space the generator takes (keys drawn as integers below it). */
    public static final long MAX_KEYSPACE = 1L << 38;

    private LongTraceModel() {
    }

    /**
     * Write ranges per transaction on average: the write-count weights' mean, plus one write for the
     * transactions that drew neither reads nor writes (about 1.29).
     */
    public static double meanWritesPerTransaction() {
        double mean = 0;
        for (int w = 0; w < LongTraceWorkload.WRITE_COUNT_WEIGHTS.length; w++) {
            mean += w * LongTraceWorkload.WRITE_COUNT_WEIGHTS[w] / 100.0;
        }
        return mean + LongTraceWorkload.READ_COUNT_WEIGHTS[0] / 100.0 * (LongTraceWorkload.WRITE_COUNT_WEIGHTS[0] / 100.0);
    }

    /**
     * Why keys of this length and shared prefix cannot give {@code keyspace} integers (and the ranges drawn past
     * them) distinct keys, or null when they can.
     */
    public static String keyShapeProblem(int keyLength, int keyPrefix, long keyspace) {
        if (keyLength < 1 || keyLength > MAX_KEY_LENGTH) {
            return "key length " + keyLength + " is not in [1, " + MAX_KEY_LENGTH + "]";
        }
        if (keyPrefix < 0 || keyPrefix >= keyLength) {
            return "the shared prefix (" + keyPrefix + " bytes) must be shorter than the key (" + keyLength + " bytes)";
        }
        return KeyShape.keyspaceProblem(keyLength, keyPrefix, keyspace,
                Math.max(LongTraceWorkload.READ_SPAN_MAX, LongTraceWorkload.WRITE_SPAN_MAX));
    }
}
