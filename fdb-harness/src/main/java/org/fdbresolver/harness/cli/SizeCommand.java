package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.sizing.MemoryPlan;
import org.fdbresolver.harness.sizing.ScaledTrace;
import org.fdbresolver.harness.sizing.WindowMeasurement;
import org.fdbresolver.harness.sizing.WindowShape;
import org.fdbresolver.harness.workload.LongTraceModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code size --window SECONDS --rate WRITES --key-length BYTES}: the memory budget a write window costs, measured
 * rather than guessed. Generates a {@code longtrace} of that shape (scaled down when the window holds more writes
 * than {@code --max-window-writes}, {@link ScaledTrace}), replays it through the engine and FoundationDB's skip list (or its model),
 * takes the bytes per write in the window in steady state and extrapolates them to the shape asked; the budget
 * adds the headroom a binding budget needs, measured on the same trace. Prints what that budget means for the
 * JVM inside fdbserver.
 */
@Command(name = "size",
        description = "The memory budget a write window costs: generate a trace of the shape asked (window, write rate, "
                + "key length; scaled down if large), replay it through the engine and FoundationDB's skip list, and "
                + "extrapolate the bytes per write in the window; print the budget, the skip list's bytes, and the heap "
                + "and fdbserver --memory that budget means.")
final class SizeCommand extends Subcommand {
    @Option(names = "--window", paramLabel = "SECONDS", required = true, order = 1, converter = Positive.class,
            description = "the write window: how long a transaction may live (MAX_WRITE_TRANSACTION_LIFE_VERSIONS, in seconds)")
    double window;

    @Option(names = "--rate", paramLabel = "WRITES", required = true, order = 2, converter = Positive.class,
            description = "write conflict ranges per second offered to the Resolver (every transaction's, committed or not)")
    double rate;

    @Option(names = "--key-length", paramLabel = "BYTES", required = true, order = 3,
            description = "bytes per key (a point write's end is one more)")
    int keyLength;

    @Option(names = "--range-fraction", paramLabel = "F", order = 4, defaultValue = "0.1", converter = Fraction.class,
            description = "share of write ranges that span keys (1 to 10 keys), the rest are points (default ${DEFAULT-VALUE}; reads alike)")
    double rangeFraction;

    @Option(names = "--key-prefix", paramLabel = "BYTES", order = 5, defaultValue = "0",
            description = "leading bytes every key shares (default ${DEFAULT-VALUE})")
    int keyPrefix;

    @Option(names = "--keyspace", paramLabel = "N", order = 6, defaultValue = "10000000", converter = CountConverter.class,
            description = "distinct keys the writes are drawn from (default ${DEFAULT-VALUE})")
    long keyspace;

    @Option(names = "--hot-fraction", paramLabel = "F", order = 7, defaultValue = "0.4", converter = Fraction.class,
            description = "share of keys drawn from a hot set by a Zipf law, exponent 0.6 (default ${DEFAULT-VALUE}; 0: uniform)")
    double hotFraction;

    @Option(names = "--hot-keys", paramLabel = "N", order = 8, defaultValue = "100000", converter = CountConverter.class,
            description = "keys in the hot set (default ${DEFAULT-VALUE})")
    long hotKeys;

    @Option(names = "--batch-interval", paramLabel = "SECONDS", order = 9, defaultValue = "0.03125", converter = Positive.class,
            description = "time between the Resolver's batches (default ${DEFAULT-VALUE})")
    double batchInterval;

    @Option(names = "--max-window-writes", paramLabel = "N", order = 10, defaultValue = "250000", converter = CountConverter.class,
            description = "replay at most about this many writes per window: a larger window is measured at a scaled-down "
                    + "rate and key space (default ${DEFAULT-VALUE})")
    long maxWindowWrites;

    @Option(names = "--scale-by", paramLabel = "HOW", order = 11, defaultValue = "BATCHES", converter = ScaleByConverter.class,
            description = "how a large shape is scaled down: BATCHES (fewer transactions per batch, batches as often) or "
                    + "SPACING (batches further apart, each as asked), in any case (default ${DEFAULT-VALUE})")
    ScaledTrace.Mode scaleBy;

    /** {@code --scale-by} in any case, refused in this CLI's words rather than picocli's enum message. */
    static final class ScaleByConverter implements ITypeConverter<ScaledTrace.Mode> {
        @Override
        public ScaledTrace.Mode convert(String text) {
            for (ScaledTrace.Mode mode : ScaledTrace.Mode.values()) {
                if (mode.name().equalsIgnoreCase(text.trim())) {
                    return mode;
                }
            }
            throw new TypeConversionException("'" + text + "' is neither BATCHES nor SPACING");
        }
    }

    @Option(names = "--seed", paramLabel = "N", order = 12, defaultValue = "1", converter = SeedConverter.class,
            description = "the trace generator's seed (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--engine", paramLabel = "NAME", order = 13, defaultValue = "tree",
            description = "the engine (default ${DEFAULT-VALUE}; engines are listed below)")
    String engine;

    @Option(names = "--engine-option", paramLabel = "NAME=VALUE", order = 14, parameterConsumer = EngineOptions.OnceEach.class,
            description = "an engine-specific setting, repeatable (see docs/configuration.md)")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--fdb-skiplist", paramLabel = "PATH", order = 15,
            description = "FoundationDB's comparator fdbresolver_fdb_skiplist (default: $" + RetentionCommand.FDB_SKIPLIST_ENV
                    + ", which scripts/fdbresolver sets from scripts/build-fdb --where, else scripts/build-skiplist --where; without it"
                    + " the skip list is modelled in Java)")
    Path fdbSkipList;

    @Override
    String details() {
        return EngineOptions.listing() + """

                The trace is longtrace (docs/workloads.md) with the window, rate and key shape asked. When its
                window would hold more than --max-window-writes writes, the rate, the key space and the hot set
                are scaled down alike (by fewer transactions per batch, or with --scale-by SPACING by batches
                further apart; the window stays as asked), so each key is written as often per second as in the
                shape asked; the bytes per write in the window are measured in steady state (the trace's third
                window) and extrapolated. The budget is the history over the share of a binding budget that
                holds history (history-share: the least, once a budget of 98 % of the peak binds at the trace's
                window), rounded up to a MiB; at the scale measured it is checked to hold the window, and 80 %
                of it not to. See docs/long-transactions.md, "Sizing the budget".
                prints (one 'name: value' per line):
                  window-seconds, write-rate, key-length, key-prefix, range-fraction, keyspace, hot-fraction, hot-keys,
                  batch-interval-seconds, transactions-per-batch, window-writes (rate x window),
                  scale (1: measured as asked), note (when scaled), measured-transactions-per-batch,
                  measured-batch-interval-seconds, measured-write-rate,
                  measured-keyspace, measured-hot-keys, measured-window-writes, measured-commit-share, trace-batches,
                  trace-transactions, trace-command (the trace measured), full-trace-command (the shape asked,
                  unscaled),
                  tree-history-bytes-measured, tree-history-bytes-by-window, tree-bytes-per-write, tree-history-bytes,
                  history-share, budget-bytes, plugin-config,
                  check-budget-bytes, check-retained-age-min-seconds, check-too-old-budget,
                  check-low-budget-bytes, check-low-retained-age-min-seconds, check-low-too-old-budget,
                  fdb-measured-by, fdb-skiplist-bytes-measured, fdb-skiplist-bytes-by-window, fdb-bytes-per-write,
                  fdb-skiplist-bytes, fdb-over-tree,
                  jvm-heap-bytes, jvm-non-heap-bytes, jvm-bytes, fdbserver-memory-bytes,
                  fdbserver-memory-shadow-bytes, seconds
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        long wallStart = System.nanoTime();
        if (window * 1e6 < 1) {
            throw new UsageException("--window " + window + " is shorter than one version (a microsecond)");
        }
        if (window > WindowMeasurement.MAX_WINDOW_SECONDS) {
            throw new UsageException("--window " + plain(window) + " is longer than " + plain(WindowMeasurement.MAX_WINDOW_SECONDS)
                    + " s: the tree keeps at most 2^30 versions (1,073.7 s) of window (docs/tree.md)");
        }
        if (batchInterval > window) {
            throw new UsageException("--batch-interval " + batchInterval + " is longer than --window " + window);
        }
        if (batchInterval * 1e6 < 1) {
            throw new UsageException("--batch-interval " + batchInterval + " is shorter than one version (a microsecond)");
        }
        if (keyspace < 1 || keyspace > LongTraceModel.MAX_KEYSPACE) {
            throw new UsageException("--keyspace " + keyspace + " is not in [1, " + LongTraceModel.MAX_KEYSPACE + "]");
        }
        if (hotKeys < 1 || hotKeys > 10_000_000) {
            throw new UsageException("--hot-keys " + hotKeys + " is not in [1, 10000000]");
        }
        if (maxWindowWrites < 1) {
            throw new UsageException("--max-window-writes must be at least 1");
        }
        String keyProblem = LongTraceModel.keyShapeProblem(keyLength, keyPrefix, keyspace);
        if (keyProblem != null) {
            throw new UsageException("--key-length " + keyLength + ", --key-prefix " + keyPrefix + ", --keyspace " + keyspace
                    + ": " + keyProblem);
        }
        EngineOptions.requireBudgetEngine(engine, "there is no budget to size (use --engine " + ConflictSetConfig.DEFAULT_ENGINE + ")");
        WindowShape shape = new WindowShape(window, rate, keyLength, keyPrefix, rangeFraction, keyspace, (int) hotKeys,
                hotFraction, batchInterval, seed);
        if ((long) shape.transactionsPerBatch() * 3 > 10_000_000 || rate * batchInterval > 2e7) {
            throw new UsageException("--rate " + rate + " at --batch-interval " + batchInterval + " puts more than 10 million "
                    + "transactions in a batch: lower the interval");
        }
        ScaledTrace scaled = ScaledTrace.of(shape, maxWindowWrites, scaleBy);
        ConflictSetConfig config = config();
        EngineOptions.open(config).close(); // an unknown engine or option fails before any work
        Path comparator = comparator();

        Path dir = Files.createTempDirectory("fdbresolver-size");
        WindowMeasurement.Result m;
        try {
            Path trace = dir.resolve("shape.trace");
            GenCommand.generate(LongTraceModel.NAME, scaled.params(), trace, context);
            long size = Files.size(trace);
            m = WindowMeasurement.measure(trace, scaled, config, comparator, label -> {
                Progress p = context.progress(label, size, "bytes");
                return new WindowMeasurement.Phase() {
                    @Override
                    public void update(long storedBytesRead, long batches, long transactions) {
                        p.update(storedBytesRead, batches, transactions);
                    }

                    @Override
                    public void close() {
                        p.close();
                    }
                };
            });
        } finally {
            removeTree(dir);
        }
        report(context, shape, scaled, m);
        context.line("seconds", CommandContext.seconds(System.nanoTime() - wallStart));
        return ExitCodes.OK;
    }

    private void report(CommandContext context, WindowShape shape, ScaledTrace scaled, WindowMeasurement.Result m) {
        context.line("window-seconds", plain(shape.windowSeconds()));
        context.line("write-rate", plain(shape.writesPerSecond()));
        context.line("key-length", shape.keyLength());
        context.line("key-prefix", shape.keyPrefix());
        context.line("range-fraction", plain(shape.rangeFraction()));
        context.line("keyspace", shape.keyspace());
        context.line("hot-fraction", plain(shape.hotFraction()));
        context.line("hot-keys", shape.hotKeys());
        context.line("batch-interval-seconds", fixed(shape.batchIntervalSeconds(), 6));
        context.line("transactions-per-batch", shape.transactionsPerBatch());
        context.line("window-writes", Math.round(shape.windowWrites()));

        context.line("scale", fixed(scaled.scale(), 6));
        if (scaled.scaled()) {
            String how = scaleBy == ScaledTrace.Mode.SPACING
                    ? String.format(Locale.ROOT, "batches %.4g times further apart (the window and the writes per batch as "
                            + "asked)", 1 / scaled.scale())
                    : String.format(Locale.ROOT, "%d transactions per batch instead of %d (the window and the batch "
                            + "interval as asked)", scaled.txns(), shape.transactionsPerBatch());
            context.line("note", String.format(Locale.ROOT, "measured at a scale of %.4g: the rate, the key space and the hot "
                    + "set at that share, %s, so every key is written as often per second; the figures for the shape asked "
                    + "are extrapolated per write in the window", scaled.scale(), how));
        }
        context.line("measured-transactions-per-batch", scaled.txns());
        context.line("measured-batch-interval-seconds", fixed(scaled.versionStep() / 1e6, 6));
        context.line("measured-write-rate", fixed(m.offeredWrites() / (m.batches() * (scaled.versionStep() / 1e6)), 1));
        context.line("measured-keyspace", scaled.keyspace());
        context.line("measured-hot-keys", scaled.hotKeys());
        context.line("measured-window-writes", fixed(m.windowWrites(), 1));
        context.line("measured-commit-share", fixed(m.offeredWrites() == 0 ? 0 : (double) m.committedWrites() / m.offeredWrites(), 4));
        context.line("trace-batches", m.batches());
        context.line("trace-transactions", m.transactions());
        context.line("trace-command", scaled.command("shape.trace"));
        context.line("full-trace-command", ScaledTrace.full(shape).command("shape-full.trace"));

        double extrapolate = shape.windowWrites() / m.windowWrites();
        double treeHistory = m.treePeakBytes() * extrapolate;
        long budget = MemoryPlan.roundUpToMib(WindowMeasurement.budgetFor(treeHistory, m.historyShare()));
        double fdbBytes = m.fdbPeakBytes() * extrapolate;
        context.line("tree-history-bytes-measured", m.treePeakBytes());
        context.line("tree-history-bytes-by-window", join(m.treePeakByWindow()));
        context.line("tree-bytes-per-write", fixed(m.treeBytesPerWrite(), 2));
        context.line("tree-history-bytes", Math.round(treeHistory));
        context.line("history-share", Double.isNaN(m.historyShare()) ? "n/a (a budget of the peak never bound: taken as 1)"
                : fixed(m.historyShare(), 4));
        context.line("budget-bytes", budget);
        context.line("plugin-config", "engine=" + engine + ";memory_budget=" + (budget >> 20) + "m");
        context.line("check-budget-bytes", m.check().budgetBytes());
        context.line("check-retained-age-min-seconds", age(m.check()));
        context.line("check-too-old-budget", m.check().tooOldBudget());
        context.line("check-low-budget-bytes", m.lowCheck().budgetBytes());
        context.line("check-low-retained-age-min-seconds", age(m.lowCheck()));
        context.line("check-low-too-old-budget", m.lowCheck().tooOldBudget());

        context.line("fdb-measured-by", m.fdbMeasuredBy());
        context.line("fdb-skiplist-bytes-measured", m.fdbPeakBytes());
        context.line("fdb-skiplist-bytes-by-window", m.fdbPeakByWindow() == null ? "n/a (the comparator reports only the most)"
                : join(m.fdbPeakByWindow()));
        context.line("fdb-bytes-per-write", fixed(m.fdbBytesPerWrite(), 2));
        context.line("fdb-skiplist-bytes", Math.round(fdbBytes));
        context.line("fdb-over-tree", fixed(fdbBytes / treeHistory, 2));

        MemoryPlan plan = MemoryPlan.forBudget(budget);
        context.line("jvm-heap-bytes", plan.heapBytes());
        context.line("jvm-non-heap-bytes", plan.nonHeapBytes());
        context.line("jvm-bytes", plan.jvmBytes());
        context.line("fdbserver-memory-bytes", plan.fdbserverMemoryBytes());
        context.line("fdbserver-memory-shadow-bytes", plan.fdbserverMemoryBesideSkipList(Math.round(fdbBytes)));
    }

    /** The shortest retained age under a check's budget: the window itself when the budget never bound. */
    private static String age(WindowMeasurement.Check c) {
        return fixed(c.retainedAgeMinSeconds(), 6) + (c.bound() ? " (bound)" : " (never bound: the whole window)");
    }

    private ConflictSetConfig config() {
        return EngineOptions.config(ConflictSetConfig.builder().engine(engine), settings);
    }

    /** The comparator to measure FoundationDB with: --fdb-skiplist, else the environment's, else null (the model). */
    private Path comparator() {
        Path p = fdbSkipList;
        if (p == null) {
            String env = System.getenv(RetentionCommand.FDB_SKIPLIST_ENV);
            if (env == null || env.isBlank()) {
                return null;
            }
            p = Path.of(env);
        }
        if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
            throw new UsageException("--fdb-skiplist " + p + " is not an executable file (build it with scripts/build-fdb,"
                    + " or in a minute with scripts/build-skiplist)");
        }
        return p;
    }

    private static void removeTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String join(long[] values) {
        StringBuilder sb = new StringBuilder();
        for (long v : values) {
            sb.append(sb.isEmpty() ? "" : ", ").append(v);
        }
        return sb.toString();
    }

    private static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** A number above zero: {@code 60}, {@code 0.5}, {@code 10_000}, {@code 1e5}. */
    static final class Positive implements ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            double v = number(text);
            if (!(v > 0)) {
                throw new TypeConversionException("'" + text + "' is not above zero");
            }
            return v;
        }
    }

    /** A share in [0, 1]. */
    static final class Fraction implements ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            double v = number(text);
            if (!(v >= 0 && v <= 1)) {
                throw new TypeConversionException("'" + text + "' is not a share in [0, 1]");
            }
            return v;
        }
    }

    private static double number(String text) {
        try {
            double v = Double.parseDouble(text.trim().replace("_", ""));
            if (Double.isFinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new TypeConversionException("'" + text + "' is not a number");
    }
}
