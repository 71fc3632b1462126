package org.fdbresolver.harness.sizing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.fdbresolver.harness.workload.LongTraceModel;
import org.fdbresolver.harness.workload.WorkloadParams;

/**
 * The trace that answers a {@link WindowShape}: {@code longtrace} with its window, key shape and rate, at a
 * {@code scale} of at most 1 when the whole window holds more writes than is quick to replay. Scaling keeps the
 * window and every key's write rate per second: the rate, the key space and the hot set shrink by the scale,
 * so the history holds the same share of distinct keys and the same reads conflict, and the bytes per write in
 * the window stay what they are at full scale. The rate shrinks either through fewer transactions per batch
 * ({@link Mode#BATCHES}, the default: the batches as often as asked, so reads lag the same number of batches
 * and intra-batch conflicts stay as they are) or through batches further apart ({@link Mode#SPACING}: each batch
 * as asked, so both engines' removal work per batch is as asked, but a hot key is written many times per batch
 * and more reads conflict within a batch). docs/long-transactions.md, "Sizing the budget", shows how close
 * each comes.
 *
 * @param shape       what was asked
 * @param scale       rate, key space and hot set at this fraction of the shape's
 * @param txns        transactions per batch
 * @param versionStep versions between batches
 * @param keyspace    the key space replayed
 * @param hotKeys     the hot set replayed
 * @param batches     batches in the trace: {@link #WINDOWS} windows, so the last one is in steady state
 */
public record ScaledTrace(WindowShape shape, double scale, int txns, long versionStep, long keyspace, int hotKeys,
                          long batches) {
    /** The trace spans this many windows; the last is measured in steady state (both engines' removal caught up). */
    public static final int WINDOWS = 3;
    /** Fewest batches per window a trace scaled by spacing keeps, so that the window is not a handful of batches. */
    public static final long MIN_BATCHES_PER_WINDOW = 32;

    /** How the rate is scaled down. */
    public enum Mode {
        /** Each batch as asked, the batches further apart. */
        SPACING,
        /** The batches as often as asked, each with fewer transactions. */
        BATCHES
    }

    /**
     * The trace for {@code shape} whose window holds about {@code maxWindowWrites} writes at most (more when the
     * window would otherwise have fewer than {@link #MIN_BATCHES_PER_WINDOW} batches, or batches no transaction),
     * at full scale when the whole window fits.
     */
    public static ScaledTrace of(WindowShape shape, long maxWindowWrites, Mode mode) {
        double wanted = Math.min(1.0, maxWindowWrites / shape.windowWrites());
        int fullTxns = shape.transactionsPerBatch();
        if (mode == Mode.BATCHES) {
            int txns = (int) Math.max(1, Math.min(fullTxns, Math.round(fullTxns * wanted)));
            return at(shape, (double) txns / fullTxns, txns, shape.batchVersions());
        }
        double floor = MIN_BATCHES_PER_WINDOW * (double) shape.batchVersions() / shape.windowVersions();
        double f = Math.min(1.0, Math.max(wanted, floor));
        long step = Math.max(1, Math.round(shape.batchVersions() / f));
        return at(shape, (double) shape.batchVersions() / step, fullTxns, step);
    }

    /** The trace at full scale: what the shape asks for, with nothing scaled. */
    public static ScaledTrace full(WindowShape shape) {
        return at(shape, 1.0, shape.transactionsPerBatch(), shape.batchVersions());
    }

    private static ScaledTrace at(WindowShape shape, double scale, int txns, long step) {
        long keyspace = scale == 1.0 ? shape.keyspace() : Math.max(1, Math.round(shape.keyspace() * scale));
        int hot = scale == 1.0 ? shape.hotKeys() : (int) Math.max(1, Math.round(shape.hotKeys() * scale));
        long batches = (WINDOWS * shape.windowVersions() + step - 1) / step + 1;
        return new ScaledTrace(shape, scale, txns, step, keyspace, hot, batches);
    }

    public boolean scaled() {
        return scale < 1.0;
    }

    /** Batches per window. */
    public double batchesPerWindow() {
        return (double) shape.windowVersions() / versionStep;
    }

    /** The generator's options, by name. */
    public Map<String, String> options() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("txns", Integer.toString(txns));
        o.put("version-step", Long.toString(versionStep));
        o.put("window", Long.toString(shape.windowVersions()));
        o.put("keyspace", Long.toString(keyspace));
        o.put("hot-keys", Integer.toString(hotKeys));
        o.put("hot-fraction", plain(shape.hotFraction()));
        o.put("range-fraction", plain(shape.rangeFraction()));
        o.put(LongTraceModel.KEY_LENGTH, Integer.toString(shape.keyLength()));
        o.put(LongTraceModel.KEY_PREFIX, Integer.toString(shape.keyPrefix()));
        return o;
    }

    public WorkloadParams params() {
        return new WorkloadParams(OptionalLong.of(shape.seed()), OptionalLong.of(batches), options());
    }

    /** The command line that writes this trace to {@code out}. */
    public String command(String out) {
        StringBuilder sb = new StringBuilder("fdbresolver gen ").append(LongTraceModel.NAME)
                .append(" --seed ").append(Long.toUnsignedString(shape.seed())).append(" --batches ").append(batches);
        options().forEach((k, v) -> sb.append(" --").append(k).append(' ').append(v));
        return sb.append(" --out ").append(out).toString();
    }

    private static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
