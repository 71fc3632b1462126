package org.fdbresolver.harness.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.fdbresolver.harness.retention.EngineMeter;
import org.fdbresolver.harness.retention.FdbWindowSearch;
import org.fdbresolver.harness.retention.ModelMeter;
import org.fdbresolver.harness.retention.NativeMeter;
import org.fdbresolver.harness.retention.PlotSeries;
import org.fdbresolver.harness.retention.RetentionCsv;
import org.fdbresolver.harness.retention.RetentionPlots;
import org.fdbresolver.harness.retention.RetentionSample;
import org.fdbresolver.harness.retention.RetentionSummary;
import org.fdbresolver.harness.retention.TraceReplay;
import org.fdbresolver.harness.trace.AtomicOutput;
import org.fdbresolver.harness.trace.CaptureChain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code retention TRACE --budget BYTES[,BYTES...]}: replays the trace once per budget and records, batch by
 * batch, how much history the engine keeps (retained age, history bytes) and which TOO_OLD answers the budget
 * caused; writes a CSV and two PNG plots, prints a summary per budget. With {@code --versus-fdb}, also finds
 * FoundationDB's longest window at the same memory and prints the ratio of history kept.
 */
@Command(name = "retention",
        description = "Replay a trace under one or more memory budgets: per batch, the history the engine keeps and "
                + "the TOO_OLD answers its budget causes; write a CSV and plots, print a summary per budget.")
final class RetentionCommand extends Subcommand {
    /** Environment variable naming the native comparator (scripts/fdbresolver sets it when FoundationDB is built). */
    static final String FDB_SKIPLIST_ENV = FdbSkipListComparator.ENV;
    static final String CSV = "retention.csv";
    static final String AGE_PLOT = "retained-age.png";
    static final String HISTORY_PLOT = "history-bytes.png";
    /** Buckets of each plotted line: enough for a smooth line, bounded however long the trace. */
    private static final int PLOT_BUCKETS = 4096;

    @Parameters(paramLabel = "TRACE", description = "the trace to replay (plain or gzip; a pipe with one budget)")
    Path trace;

    /** One option holding the list, so that help shows it once: --budget=BYTES[,BYTES...]. */
    @Option(names = "--budget", paramLabel = "BYTES[,BYTES...]", required = true, order = 1,
            converter = BudgetList.Converter.class,
            description = "history memory budgets, one replay each: byte counts or 512m, 2g, 64KiB, ...")
    BudgetList budgetList;
    /** The budgets in the order given. */
    private List<Long> budgets;

    @Option(names = "--out", paramLabel = "DIR", order = 2, defaultValue = ".",
            description = "folder for " + CSV + ", " + AGE_PLOT + " and " + HISTORY_PLOT + " (created if missing; default: the current folder)")
    Path out;

    @Option(names = "--engine", paramLabel = "NAME", order = 3, defaultValue = "tree",
            description = "the engine (default ${DEFAULT-VALUE}; engines are listed below)")
    String engine;

    @Option(names = "--engine-option", paramLabel = "NAME=VALUE", order = 4, parameterConsumer = EngineOptions.OnceEach.class,
            description = "an engine-specific setting, repeatable (see docs/configuration.md)")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--versus-fdb", order = 5,
            description = "also find FoundationDB's longest window whose skip list fits in each budget, and the ratio")
    boolean versusFdb;

    @Option(names = "--fdb-skiplist", paramLabel = "PATH", order = 6,
            description = "FoundationDB's comparator fdbresolver_fdb_skiplist for --versus-fdb (default: $" + FDB_SKIPLIST_ENV
                    + "; without it the skip list's memory is modelled in Java)")
    Path fdbSkipList;

    @Option(names = "--csv-only", order = 7, description = "write the CSV but no plots (for a runtime without java.desktop or fonts)")
    boolean csvOnly;

    @Override
    Path input() {
        return trace;
    }

    @Override
    String details() {
        return EngineOptions.listing() + """

                Versions are FoundationDB's commit versions, 1,000,000 per second: trace time is a batch's version
                less the first batch's, retained age is the version less the engine's retained version.
                TOO_OLD answers are split into FoundationDB's (the transaction reads and its snapshot is below
                new_oldest_version) and the budget's (the rest), from the trace and the decisions alone.
                prints (one 'name: value' per line; B is a budget such as 16MiB):
                  trace, engine, batches, transactions, trace-seconds, budgets,
                  budget-B-history-bytes (after the last batch), budget-B-history-bytes-max,
                  budget-B-bound-from-seconds (trace time the budget first raised the retained version
                    above new_oldest_version, or never), budget-B-used-min, budget-B-used-mean (fraction of
                    the budget holding history from then on), budget-B-retained-age-seconds (after the last
                    batch), budget-B-retained-age-min-seconds (from the binding on),
                  budget-B-too-old-fdb, budget-B-too-old-budget (the extra TOO_OLD answers);
                  with --versus-fdb: fdb-measured-by, budget-B-fdb-window-seconds, budget-B-fdb-peak-bytes,
                    budget-B-history-ratio (retained-age-min / fdb-window),
                    budget-B-engine-peak-bytes-at-fdb-window (the engine holding that same window, no budget),
                    budget-B-memory-ratio-at-fdb-window (fdb-peak-bytes / that), fdb-windows-measured;
                  csv, plot-retained-age, plot-history-bytes, seconds
                """;
    }

    /** One budget's replay. */
    private record Run(String name, String engine, RetentionSummary summary, RetentionPlots.BudgetLines lines) {
    }

    @Override
    int run(CommandContext context) throws Exception {
        long wallStart = System.nanoTime();
        budgets = budgetList.bytes();
        // Checked before any work, in the words the trace reader uses.
        if (!Files.exists(trace)) {
            throw new UsageException("trace " + trace + " does not exist");
        }
        boolean capture = CaptureChain.isCapture(trace);
        if (Files.isDirectory(trace) && !capture) {
            throw new UsageException("trace " + trace + " is a directory");
        }
        boolean pipe = !capture && !Files.isRegularFile(trace);
        if (pipe && (budgets.size() > 1 || versusFdb)) {
            throw new UsageException(trace + " is not a regular file and can be read only once: give one budget and no --versus-fdb");
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new UsageException("--out " + out + " is not a folder");
        }
        EngineOptions.requireBudgetEngine(engine, "retention has nothing to measure (use --engine "
                + ConflictSetConfig.DEFAULT_ENGINE + ")");
        Path nativeComparator = versusFdb ? comparator() : null;
        for (long budget : budgets) {
            EngineOptions.open(config(budget)).close(); // an unknown engine, a bad option or budget fails before any work
        }
        Path created = firstMissing(out.toAbsolutePath().normalize());
        Files.createDirectories(out);
        try {
            return report(context, nativeComparator, wallStart);
        } catch (Exception | Error e) {
            // A run that fails leaves no empty folder behind that it created (its files are removed already).
            if (created != null) {
                removeEmpty(out.toAbsolutePath().normalize(), created);
            }
            throw e;
        }
    }

    /** The trace's stored size for a progress bar; 0 for a pipe, whose size is unknown. */
    private long progressBytes() throws IOException {
        return Files.isRegularFile(trace) || CaptureChain.isCapture(trace) ? CaptureChain.storedBytes(trace) : 0;
    }

    /** Replays, measures, draws and prints: everything after the command line was checked and DIR created. */
    private int report(CommandContext context, Path nativeComparator, long wallStart) throws Exception {
        List<Run> runs = new ArrayList<>();
        PlotSeries traceWindow = new PlotSeries(PLOT_BUCKETS);
        try (AtomicOutput csvFile = new AtomicOutput(out.resolve(CSV))) {
            Writer csvWriter = new BufferedWriter(new OutputStreamWriter(csvFile.stream(), StandardCharsets.UTF_8), 1 << 16);
            RetentionCsv csv = new RetentionCsv(csvWriter);
            for (long budget : budgets) {
                runs.add(replay(context, budget, csv, runs.isEmpty() ? traceWindow : null));
                if (runs.getFirst().summary().batches() == 0) {
                    throw new UsageException(trace + ": the trace has no batches, nothing to replay");
                }
            }
            csvWriter.flush();
            csvFile.commit();
        }
        String engineName = runs.getFirst().engine();

        RetentionSummary first = runs.getFirst().summary();
        double traceSeconds = first.last() == null ? 0 : first.traceSeconds(first.last().version());
        List<RetentionPlots.BudgetLines> lines = new ArrayList<>();
        FdbWindowSearch search = null;
        List<FdbWindowSearch.Result> fdb = new ArrayList<>();
        List<Long> enginePeaks = new ArrayList<>();
        if (versusFdb && first.batches() > 0) {
            long span = first.last().version() - first.firstVersion();
            long step = first.batches() > 1 ? span / (first.batches() - 1) : 1;
            Progress[] shown = new Progress[1]; // the model replays the trace once per window measured
            // The comparator counts node bytes by walking the whole list, which costs as much as a batch of
            // a million nodes: after every batch on traces up to 500 batches, after every N-th on longer ones.
            int every = (int) Math.max(1, first.batches() / 500);
            FdbWindowSearch.Meter meter = nativeComparator != null ? new NativeMeter(nativeComparator, trace, every)
                    : new ModelMeter(trace, config(budgets.getFirst()), (bytes, batches, transactions) -> {
                        if (shown[0] != null) {
                            shown[0].update(bytes, batches, transactions);
                        }
                    });
            // Each window tried is a replay of the whole trace: the progress says which, as it starts again from 0 %.
            FdbWindowSearch.Meter measuring = meter;
            meter = new FdbWindowSearch.Meter() {
                private int windows;

                @Override
                public long peakBytes(long windowVersions) throws IOException {
                    if (shown[0] != null) {
                        shown[0].stage(String.format(Locale.ROOT, "window %d (%.3f s)", ++windows,
                                windowVersions / RetentionSample.VERSIONS_PER_SECOND));
                    }
                    return measuring.peakBytes(windowVersions);
                }

                @Override
                public String description() {
                    return measuring.description();
                }
            };
            search = new FdbWindowSearch(meter, span, step);
            for (Run r : runs) {
                RetentionSummary s = r.summary();
                // FoundationDB is expected to keep about a third of what the engine keeps; without a binding
                // budget (or an engine that forgot everything) start from a tenth of the trace.
                long age = s.budgetBound() ? (long) (s.retainedAgeMin() * RetentionSample.VERSIONS_PER_SECOND) : 0;
                long guess = age > 3 * step ? age / 3 : span / 10;
                try (Progress progress = context.progress("FoundationDB window, " + r.name(), CaptureChain.storedBytes(trace), "bytes")) {
                    shown[0] = progress;
                    fdb.add(search.longestWindow(s.budgetBytes(), guess));
                } finally {
                    shown[0] = null;
                }
            }
            // The dual, independent of how the engine sizes its reservations: the engine's own bytes for the
            // history FoundationDB holds at each window found.
            for (int i = 0; i < runs.size(); i++) {
                FdbWindowSearch.Result f = fdb.get(i);
                try (Progress progress = context.progress("engine at FoundationDB's window, " + runs.get(i).name(),
                        CaptureChain.storedBytes(trace), "bytes")) {
                    enginePeaks.add(f.fits() && f.windowVersions() > 0
                            ? new EngineMeter(trace, config(budgets.getFirst()), progress::update).peakBytes(f.windowVersions())
                            : -1L);
                }
            }
        }
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            double fdbSeconds = fdb.isEmpty() || !fdb.get(i).fits() ? Double.NaN : fdb.get(i).windowSeconds();
            lines.add(new RetentionPlots.BudgetLines(r.lines().label(), r.lines().budgetBytes(), r.lines().retainedAge(),
                    r.lines().historyBytes(), fdbSeconds));
        }
        Path agePlot = out.resolve(AGE_PLOT);
        Path historyPlot = out.resolve(HISTORY_PLOT);
        if (!csvOnly) {
            String title = trace.getFileName().toString();
            plot(agePlot, o -> RetentionPlots.writeRetainedAge("History kept under a memory budget: " + title, engineName,
                    lines, traceWindow, traceSeconds, o));
            plot(historyPlot, o -> RetentionPlots.writeHistoryBytes("History bytes under a memory budget: " + title,
                    engineName, lines, traceSeconds, o));
        }

        context.line("trace", trace);
        context.line("engine", engineName);
        context.line("batches", first.batches());
        context.line("transactions", first.transactions());
        context.line("trace-seconds", fixed(traceSeconds, 6));
        context.line("budgets", String.join(", ", runs.stream().map(Run::name).toList()));
        for (Run r : runs) {
            RetentionSummary s = r.summary();
            String p = "budget-" + r.name() + "-";
            context.line(p + "history-bytes", s.last() == null ? 0 : s.last().historyBytes());
            context.line(p + "history-bytes-max", s.historyMax());
            context.line(p + "bound-from-seconds", s.budgetBound() ? fixed(s.boundFromSeconds(), 6) : "never");
            context.line(p + "used-min", s.budgetBound() ? fixed(s.usedMin(), 4) : "n/a");
            context.line(p + "used-mean", s.budgetBound() ? fixed(s.usedMean(), 4) : "n/a");
            context.line(p + "retained-age-seconds", s.last() == null ? "n/a" : fixed(s.last().retainedAgeSeconds(), 6));
            context.line(p + "retained-age-min-seconds", s.budgetBound() ? fixed(s.retainedAgeMin(), 6) : "n/a");
            context.line(p + "too-old-fdb", s.tooOldFdb());
            context.line(p + "too-old-budget", s.tooOldBudget());
        }
        if (search != null) {
            context.line("fdb-measured-by", search.meterDescription());
            for (int i = 0; i < runs.size(); i++) {
                RetentionSummary s = runs.get(i).summary();
                FdbWindowSearch.Result f = fdb.get(i);
                String p = "budget-" + runs.get(i).name() + "-";
                context.line(p + "fdb-window-seconds", !f.fits() ? "none (the skip list exceeds the budget at any window)"
                        : f.wholeTrace() ? "at least " + fixed(f.windowSeconds(), 6) + " (the whole trace fits)"
                        : fixed(f.windowSeconds(), 6));
                context.line(p + "fdb-peak-bytes", f.peakBytes());
                String ratio;
                if (!s.budgetBound()) {
                    ratio = "n/a (the budget never bound the engine)";
                } else if (!f.fits() || f.windowVersions() == 0) {
                    ratio = "n/a (no window fits)";
                } else if (f.wholeTrace()) {
                    ratio = "n/a (the skip list holds the whole trace)";
                } else {
                    ratio = fixed(Math.max(0, s.retainedAgeMin()) / f.windowSeconds(), 2);
                }
                context.line(p + "history-ratio", ratio);
                long enginePeak = enginePeaks.get(i);
                context.line(p + "engine-peak-bytes-at-fdb-window", enginePeak < 0 ? "n/a" : Long.toString(enginePeak));
                context.line(p + "memory-ratio-at-fdb-window", enginePeak <= 0 ? "n/a"
                        : fixed((double) f.peakBytes() / enginePeak, 2));
            }
            context.line("fdb-windows-measured", search.measured().size());
        }
        context.line("csv", out.resolve(CSV));
        if (!csvOnly) {
            context.line("plot-retained-age", agePlot);
            context.line("plot-history-bytes", historyPlot);
        }
        context.line("seconds", CommandContext.seconds(System.nanoTime() - wallStart));
        return ExitCodes.OK;
    }

    private Run replay(CommandContext context, long budget, RetentionCsv csv, PlotSeries traceWindow) throws IOException {
        String name = name(budget);
        RetentionSummary summary = new RetentionSummary(budget);
        PlotSeries age = new PlotSeries(PLOT_BUCKETS);
        PlotSeries history = new PlotSeries(PLOT_BUCKETS);
        int[] tooOld = new int[2];
        String engineName;
        try (ConflictSet cs = EngineOptions.open(config(budget));
             Progress progress = context.progress(cs.engineName() + " " + name, progressBytes(), "bytes")) {
            ConflictEngine engine = cs.engine();
            engineName = cs.engineName();
            TraceReplay.run(trace, cs, TraceReplay.TRACE_WINDOW, (index, batch, version, newOldest, result) -> {
                TraceReplay.countTooOld(batch, result, newOldest, tooOld);
                RetentionSample s = new RetentionSample(budget, index, version, newOldest, engine.retainedVersion(),
                        engine.historyBytes(), batch.transactionCount(), tooOld[0], tooOld[1]);
                summary.add(s);
                double t = summary.traceSeconds(version);
                csv.add(s, t);
                // Plotted: the history that exists, so at most the time since the trace began (the CSV has it all).
                age.add(t, Math.min(t, s.retainedAgeSeconds()));
                history.add(t, s.historyBytes());
                if (traceWindow != null) {
                    traceWindow.add(t, Math.min(t, s.windowSeconds()));
                }
            }, progress::update);
        }
        return new Run(name, engineName, summary, new RetentionPlots.BudgetLines(label(budget), budget, age, history, Double.NaN));
    }

    /** The outermost folder of {@code dir} that does not exist yet (what creating it adds), or null. */
    private static Path firstMissing(Path dir) {
        Path missing = null;
        for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
            missing = p;
        }
        return missing;
    }

    /** Removes {@code dir} and its parents up to {@code top}, each only while it is empty. */
    private static void removeEmpty(Path dir, Path top) {
        for (Path p = dir; p != null && p.startsWith(top); p = p.getParent()) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                return; // not empty (or not ours to remove): leave it and what holds it
            }
        }
    }

    private ConflictSetConfig config(long budget) {
        return EngineOptions.config(ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(budget), settings);
    }

    /** The comparator to measure FoundationDB with: --fdb-skiplist, else the environment's, else null (the model). */
    private Path comparator() {
        Path p = fdbSkipList;
        if (p == null) {
            String env = System.getenv(FDB_SKIPLIST_ENV);
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

    private interface PngWriter {
        void write(java.io.OutputStream out) throws IOException;
    }

    private static void plot(Path file, PngWriter writer) throws IOException {
        try (AtomicOutput png = new AtomicOutput(file)) {
            try {
                writer.write(png.stream());
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Error e) {
                // AWT's errors (no java.desktop, no fonts) are caught as Error: naming java.awt.AWTError here would
                // make this class, and with it every command, fail to load on a runtime without java.desktop.
                throw new IOException("cannot draw " + file + ": " + e + " (this Java runtime has no java.desktop or no "
                        + "fonts: install fontconfig and a font such as fonts-dejavu-core, or use --csv-only)", e);
            }
            png.commit();
        }
    }

    /** A budget in lines' names: 16MiB, 64KiB, 1GiB, or the byte count when no binary unit divides it. */
    static String name(long bytes) {
        return label(bytes).replace(" ", "");
    }

    /** A budget in the plots' legends: 16 MiB, 64 KiB, 1 GiB, or the byte count. */
    static String label(long bytes) {
        String[] units = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (4 - i));
            if (bytes % unit == 0) {
                return bytes / unit + " " + units[i];
            }
        }
        return bytes + " B";
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
