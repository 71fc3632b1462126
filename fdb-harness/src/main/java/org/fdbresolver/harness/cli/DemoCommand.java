package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.workload.WorkloadParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code demo}: the project's main job in one command. Generates a default trace into a temporary directory,
 * decides it with the best engine and with the reference engine, and shows that both agree and how fast each
 * was.
 */
@Command(name = "demo",
        description = "Generate a trace, decide it with the best engine and the reference; show they agree and their speed.")
final class DemoCommand extends Subcommand {
    static final String DEFAULT_WORKLOAD = "conflictset-range";
    static final long DEFAULT_BATCHES = 300;

    @Option(names = "--workload", paramLabel = "NAME", order = 1, defaultValue = DEFAULT_WORKLOAD,
            description = "workload to generate (default ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--batches", paramLabel = "N", order = 2, converter = CountConverter.class,
            defaultValue = "" + DEFAULT_BATCHES, description = "batches to generate (default ${DEFAULT-VALUE})")
    long batches;

    @Option(names = "--seed", paramLabel = "N", order = 3, converter = SeedConverter.class,
            description = "generator seed, " + SeedConverter.RANGE + " (default: the workload's)")
    Long seed;

    @Option(names = "--trace", paramLabel = "FILE", order = 4, description = "decide this trace instead of generating one")
    Path givenTrace;

    @Option(names = "--engine", paramLabel = "NAME", order = 5,
            description = "the engine to compare with the reference (default: tree if registered, else the first other engine)")
    String engine;

    @Option(names = "--budget", paramLabel = "BYTES", order = 6, converter = SizeConverter.class, defaultValue = "1g",
            description = "history memory budget: a byte count or 512m, 2g, 64KiB, ... (default ${DEFAULT-VALUE})")
    long budgetBytes;

    @Option(names = "--keep", order = 7, description = "keep the temporary directory with the generated trace")
    boolean keep;

    @Override
    String details() {
        return EngineOptions.listing() + """

                prints (one 'name: value' per line):
                  workload and seed (when generated), trace (when given or kept), batches, transactions,
                  then for each engine E (the chosen one, then reference):
                  E-decision-hash, E-conflicting-keys-hash, E-transactions/sec (time inside the engine),
                  then speedup (the chosen engine's rate over the reference's) and agree (yes|no)
                exit status: 0 when both engines agree, 1 when they do not
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        String chosen = engine != null ? engine : EngineOptions.best();
        ConflictSetConfig best = ConflictSetConfig.builder().engine(chosen).memoryBudgetBytes(budgetBytes).build();
        ConflictSetConfig reference = best.toBuilder().engine(EngineOptions.REFERENCE).build();
        EngineOptions.open(best).close(); // fail on a missing engine before generating anything
        EngineOptions.open(reference).close();

        Path temp = null;
        try {
            Path trace;
            if (givenTrace != null) {
                trace = givenTrace;
            } else {
                temp = Files.createTempDirectory("fdbresolver-demo");
                trace = temp.resolve("demo.trace.gz");
                GenCommand.Generated g = GenCommand.generate(workload,
                        new WorkloadParams(GenCommand.optional(seed), OptionalLong.of(batches), Map.of()), trace, context);
                context.line("workload", g.workload());
                context.line("seed", Long.toUnsignedString(g.seed()));
            }
            if (temp == null || keep) {
                context.line("trace", trace);
            }

            TraceResolution.Outcome a = TraceResolution.run(trace, best, null, context);
            context.line("batches", a.hasher().batches());
            context.line("transactions", a.hasher().transactions());
            print(context, a);
            boolean agree;
            if (a.engine().equals(EngineOptions.REFERENCE)) {
                context.line("note", "only the reference engine is registered: nothing to compare it with");
                agree = true;
            } else {
                TraceResolution.Outcome r = TraceResolution.run(trace, reference, null, context);
                print(context, r);
                double rateA = rate(a);
                double rateR = rate(r);
                context.line("speedup", rateR <= 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", rateA / rateR));
                agree = a.hasher().decisionHash().equals(r.hasher().decisionHash())
                        && a.hasher().conflictingKeysHash().equals(r.hasher().conflictingKeysHash());
            }
            context.line("agree", agree ? "yes" : "no");
            return agree ? ExitCodes.OK : ExitCodes.DIFFERENT;
        } finally {
            if (temp != null && !keep) {
                deleteTree(temp);
            }
        }
    }

    private static void print(CommandContext context, TraceResolution.Outcome o) {
        context.line(o.engine() + "-decision-hash", o.hasher().decisionHash());
        context.line(o.engine() + "-conflicting-keys-hash", o.hasher().conflictingKeysHash());
        context.line(o.engine() + "-transactions/sec", CommandContext.rate(o.hasher().transactions(), o.engineNanos()));
    }

    private static double rate(TraceResolution.Outcome o) {
        return o.engineNanos() <= 0 ? 0 : o.hasher().transactions() / (o.engineNanos() / 1e9);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
