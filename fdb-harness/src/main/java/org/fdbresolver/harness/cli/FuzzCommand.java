package org.fdbresolver.harness.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.fdbresolver.harness.fuzz.EngineSource;
import org.fdbresolver.harness.fuzz.FuzzShapes;
import org.fdbresolver.harness.fuzz.Fuzzer;
import org.fdbresolver.harness.fuzz.Oracle;
import org.fdbresolver.harness.fuzz.ReferenceOracle;
import org.fdbresolver.harness.fuzz.SkipListOracle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code fuzz}: generated traces streamed batch by batch through an engine and FoundationDB's skip list (or the
 * reference engine where the skip list is not built), every batch's decisions and conflicting reads compared; a
 * difference is shrunk to a small trace and written as a readable reproduction (org.fdbresolver.harness.fuzz).
 */
@Command(name = "fuzz",
        description = "Stream generated traces through an engine and FoundationDB's skip list, compare every batch; "
                + "shrink a difference to a readable reproduction.")
final class FuzzCommand extends Subcommand {
    static final String AUTO = "auto";
    static final String SKIPLIST = "fdb-skiplist";

    static final long DEFAULT_TRANSACTIONS = 1_000_000;

    /** Null when not given: {@link #DEFAULT_TRANSACTIONS}, or no limit when --seconds is. */
    @Option(names = "--transactions", paramLabel = "N", order = 1, converter = CountConverter.class,
            description = "stop once N transactions have been compared (default " + DEFAULT_TRANSACTIONS
                    + ", or no limit with --seconds)")
    Long transactions;

    @Option(names = "--seconds", paramLabel = "S", order = 2, converter = CountConverter.class,
            description = "stop after S seconds (default: no time limit)")
    Long seconds;

    @Option(names = "--seed", paramLabel = "N", order = 3, converter = SeedConverter.class,
            description = "base seed: case k has seed N + k (default: a random one, printed)")
    Long seed;

    @Option(names = "--shapes", paramLabel = "LIST", order = 4, split = ",",
            description = "the shapes to take in turn, comma-separated (default: all; listed below)")
    List<String> shapes;

    @Option(names = "--case-transactions", paramLabel = "N", order = 5, converter = CountConverter.class,
            defaultValue = "200000", description = "transactions per case, about (default ${DEFAULT-VALUE})")
    long caseTransactions;

    @Option(names = "--from-case", paramLabel = "K", order = 6, converter = CountConverter.class, defaultValue = "0",
            description = "start at case K of the schedule (to rerun a case: --seed N --from-case K --cases 1)")
    long fromCase;

    @Option(names = "--cases", paramLabel = "N", order = 7, converter = CountConverter.class,
            description = "stop after N cases (default: no limit)")
    Long cases;

    @Option(names = "--oracle", paramLabel = "NAME", order = 8, defaultValue = AUTO,
            description = "what the engine is compared with: fdb-skiplist (FoundationDB's skip list), reference, or auto "
                    + "(the skip list where it is built, else the reference; default)")
    String oracle;

    @Option(names = "--fdb-skiplist", paramLabel = "PATH", order = 9,
            description = "FoundationDB's comparator fdbresolver_fdb_skiplist (default: $" + FdbSkipListComparator.ENV
                    + ", else the one scripts/build-fdb built, else scripts/build-skiplist's)")
    Path fdbSkipList;

    @Mixin
    EngineOptions engine;

    @Option(names = "--out", paramLabel = "DIR", order = 20, defaultValue = "fuzz-failures",
            description = "where a reproduction is written (created when needed; default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--no-shrink", order = 21, description = "write the failing trace as found, without shrinking it")
    boolean noShrink;

    @Option(names = "--shrink-seconds", paramLabel = "S", order = 22, converter = CountConverter.class,
            defaultValue = "300", description = "time the shrinking may take (default ${DEFAULT-VALUE})")
    long shrinkSeconds;

    @Override
    String details() {
        StringBuilder sb = new StringBuilder(EngineOptions.listing()).append("\nshapes (case k takes shape k mod S):\n");
        int width = FuzzShapes.all().keySet().stream().mapToInt(String::length).max().orElse(0);
        for (FuzzShapes.Shape s : FuzzShapes.all().values()) {
            sb.append("  ").append(String.format("%-" + width + "s", s.name())).append("  ").append(s.description()).append('\n');
        }
        return sb.append("""

                Every batch's decisions and conflicting reads are compared. An engine under a memory budget may answer
                TOO_OLD where the oracle decides once its budget has raised its retained version (counted as
                budget-too-old); any other difference stops the run, is shrunk and written to --out.
                prints (one 'name: value' per line):
                  engine, oracle (what it is; for the reference, why it stands in), seed, shapes, cases,
                  case-seeds, batches, transactions (compared), budget-too-old, differences, seconds,
                  transactions/sec, shape-transactions (per shape);
                  on a difference: first-difference, shrunk, difference-shrunk, reproduction, listing
                exit status: 0 no difference, 1 a difference (see the listing), 2 bad usage, 3 a failure (the
                  comparator died, an internal error)
                """).toString();
    }

    @Override
    int run(CommandContext context) throws Exception {
        long limit = transactions != null ? transactions : seconds != null ? Long.MAX_VALUE : DEFAULT_TRANSACTIONS;
        if (limit == 0) {
            throw new UsageException("--transactions 0 compares nothing");
        }
        if (cases != null && cases == 0) {
            throw new UsageException("--cases 0 compares nothing");
        }
        if (seconds != null && seconds == 0) {
            throw new UsageException("--seconds 0 compares nothing");
        }
        if (caseTransactions == 0) {
            throw new UsageException("--case-transactions 0 makes empty cases");
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new UsageException("--out " + out + " is not a directory");
        }
        ConflictSetConfig config = engine.config();
        EngineOptions.open(config).close(); // an unknown engine or a bad setting fails before anything runs
        EngineFactory factory = Engines.all().get(config.engine());
        boolean budgeted = factory.honoursMemoryBudget();
        List<String> chosen;
        try {
            chosen = FuzzShapes.choose(shapes, budgeted);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--shapes: " + e.getMessage());
        }
        if (chosen.isEmpty()) {
            throw new UsageException("--shapes " + String.join(",", shapes) + " needs an engine with a memory budget");
        }
        long base = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1L << 31);

        EngineSource source = new EngineSource() {
            @Override
            public String name() {
                return config.engine();
            }

            @Override
            public boolean honoursBudget() {
                return budgeted;
            }

            @Override
            public ConflictSet open(Long budget, Map<String, String> extraOptions) {
                ConflictSetConfig.Builder b = config.toBuilder();
                if (budget != null) {
                    b.memoryBudgetBytes(budget);
                }
                extraOptions.forEach(b::option);
                return EngineOptions.open(b.build());
            }

            @Override
            public String budgetText(Long budget) {
                return budgeted ? RetentionCommand.label(budget != null ? budget : config.memoryBudgetBytes()) : null;
            }
        };

        try (Oracle o = oracle(); Progress progress = context.progress("fuzz", limit == Long.MAX_VALUE ? 0 : limit, "transactions")) {
            Fuzzer.Settings settings = new Fuzzer.Settings(base, fromCase, cases == null ? Long.MAX_VALUE : cases,
                    limit, seconds == null ? 0 : seconds * 1_000_000_000L, caseTransactions, chosen, !noShrink,
                    shrinkSeconds * 1_000_000_000L, out, commandLine(base));
            Fuzzer.Result r = new Fuzzer(source, o).run(settings, (tx, batches) -> progress.update(tx, batches, tx));
            context.line("engine", r.engine() + (budgeted ? " (budget " + source.budgetText(null) + ")" : ""));
            context.line("oracle", r.oracle());
            context.line("seed", Long.toUnsignedString(r.seed()));
            context.line("shapes", String.join(",", chosen));
            context.line("cases", r.cases());
            context.line("case-seeds", r.cases() == 0 ? "none" : Long.toUnsignedString(r.seed() + r.firstCase()) + ".."
                    + Long.toUnsignedString(r.seed() + r.firstCase() + r.cases() - 1) + " (case k has seed "
                    + Long.toUnsignedString(r.seed()) + " + k)");
            context.line("batches", r.batches());
            context.line("transactions", r.transactions());
            context.line("budget-too-old", r.budgetTooOld());
            context.line("differences", r.differences());
            context.line("seconds", CommandContext.seconds(r.nanos()));
            context.line("transactions/sec", CommandContext.rate(r.transactions(), r.nanos()));
            List<String> byShape = new ArrayList<>();
            r.byShape().forEach((shape, n) -> byShape.add(shape + " " + n));
            context.line("shape-transactions", String.join(", ", byShape));
            if (r.found() == null) {
                return ExitCodes.OK;
            }
            Fuzzer.Found f = r.found();
            context.line("first-difference", f.fuzzCase() + " " + f.original().where());
            context.line("shrunk", noShrink ? "no (--no-shrink)" : String.format(Locale.ROOT,
                    "from %d batches, %d transactions to %d batches, %d transactions (%d tests, %.1f s%s)",
                    f.originalBatches(), f.originalTransactions(), f.shrunkBatches(), f.shrunkTransactions(), f.tests(),
                    f.shrinkNanos() / 1e9, f.timedOut() ? ", stopped by --shrink-seconds" : ""));
            context.line("difference-shrunk", f.shrunk() == null ? "none (the written trace no longer differs)" : f.shrunk().where());
            context.line("reproduction", f.files().trace());
            context.line("listing", f.files().listing());
            return ExitCodes.DIFFERENT;
        }
    }

    /** The oracle --oracle asks for: the skip list where it is built (auto) or required, else the reference. */
    private Oracle oracle() throws java.io.IOException {
        String name = oracle.toLowerCase(Locale.ROOT);
        if (name.equals("reference")) {
            return new ReferenceOracle("chosen with --oracle reference");
        }
        if (!name.equals(AUTO) && !name.equals(SKIPLIST)) {
            throw new UsageException("--oracle " + oracle + ": expected fdb-skiplist, reference or auto");
        }
        Path comparator;
        String whyNot;
        if (fdbSkipList != null) {
            if (!Files.isRegularFile(fdbSkipList) || !Files.isExecutable(fdbSkipList)) {
                throw new UsageException("--fdb-skiplist " + fdbSkipList + " is not an executable file");
            }
            comparator = fdbSkipList;
            whyNot = null;
        } else if (System.getenv(FdbSkipListComparator.ENV) != null && System.getenv(FdbSkipListComparator.ENV).isBlank()) {
            comparator = null;
            whyNot = FdbSkipListComparator.ENV + " is set empty";
        } else {
            FdbSkipListComparator found = FdbSkipListComparator.find();
            comparator = found.path();
            whyNot = found.whyNot();
        }
        if (comparator != null) {
            whyNot = SkipListOracle.lacksStreaming(comparator);
        }
        if (whyNot == null) {
            return SkipListOracle.start(comparator);
        }
        if (name.equals(SKIPLIST) || fdbSkipList != null) {
            throw new UsageException("--oracle fdb-skiplist: " + whyNot);
        }
        return new ReferenceOracle(whyNot);
    }

    /** This run's command line, with the seed it used, for the reproduction's listing. */
    private String commandLine(long base) {
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put("--seed", Long.toUnsignedString(base));
        if (fromCase != 0) {
            parts.put("--from-case", String.valueOf(fromCase));
        }
        if (shapes != null && !shapes.isEmpty()) {
            parts.put("--shapes", String.join(",", shapes));
        }
        parts.put("--case-transactions", String.valueOf(caseTransactions));
        parts.put("--engine", engine.engine);
        if (engine.budgetBytes != null) {
            parts.put("--budget", String.valueOf(engine.budgetBytes));
        }
        StringBuilder sb = new StringBuilder("fdbresolver fuzz");
        parts.forEach((k, v) -> sb.append(' ').append(k).append(' ').append(v));
        engine.settings.forEach((k, v) -> sb.append(" --engine-option ").append(k).append('=').append(v));
        return sb.toString();
    }
}
