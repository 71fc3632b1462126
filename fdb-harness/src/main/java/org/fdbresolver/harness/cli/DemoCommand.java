package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.workload.WorkloadParams;

/**
 * {@code demo}: the project's main job in one command. Generates a default trace into a temporary directory,
 * decides it with the best engine and with the reference engine, and shows that both agree and how fast each
 * was.
 */
final class DemoCommand extends Command {
    static final String DEFAULT_WORKLOAD = "conflictset-range";
    static final long DEFAULT_BATCHES = 300;

    static final Option WORKLOAD = Option.value("workload", "NAME", "workload to generate (default " + DEFAULT_WORKLOAD + ")");
    static final Option BATCHES = Option.value("batches", "N", "batches to generate (default " + DEFAULT_BATCHES + ")");
    static final Option SEED = Option.value("seed", "N", "generator seed (default: the workload's)");
    static final Option TRACE = Option.value("trace", "FILE", "decide this trace instead of generating one");
    static final Option ENGINE = Option.value("engine", "NAME",
            "the engine to compare with the reference (default: tree if registered, else the first other engine)");
    static final Option KEEP = Option.flag("keep", "keep the temporary directory with the generated trace");

    @Override
    String name() {
        return "demo";
    }

    @Override
    String summary() {
        return "Generate a trace, decide it with the best engine and the reference; show they agree and their speed.";
    }

    @Override
    String synopsis() {
        return "demo [--workload NAME] [--batches N] [--seed N] [--trace FILE] [--engine NAME] [--keep]";
    }

    @Override
    List<Option> options() {
        return List.of(WORKLOAD, BATCHES, SEED, TRACE, ENGINE, EngineOptions.BUDGET, KEEP);
    }

    @Override
    int minPositionals() {
        return 0;
    }

    @Override
    int maxPositionals() {
        return 0;
    }

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
    int run(Args args, CommandContext context) throws Exception {
        String engine = args.has(ENGINE.name()) ? args.value(ENGINE.name()) : EngineOptions.best();
        ConflictSetConfig best = EngineOptions.config(args, engine);
        ConflictSetConfig reference = EngineOptions.config(args, EngineOptions.REFERENCE);
        EngineOptions.open(best).close(); // fail on a missing engine before generating anything
        EngineOptions.open(reference).close();

        Path temp = null;
        try {
            Path trace;
            if (args.has(TRACE.name())) {
                trace = Path.of(args.value(TRACE.name()));
            } else {
                temp = Files.createTempDirectory("fdbresolver-demo");
                trace = temp.resolve("demo.trace.gz");
                OptionalLong seed = args.has(SEED.name()) ? OptionalLong.of(args.longValue(SEED.name(), 0)) : OptionalLong.empty();
                long batches = args.nonNegative(BATCHES.name(), DEFAULT_BATCHES);
                GenCommand.Generated g = GenCommand.generate(
                        args.has(WORKLOAD.name()) ? args.value(WORKLOAD.name()) : DEFAULT_WORKLOAD,
                        new WorkloadParams(seed, OptionalLong.of(batches), Map.of()), trace, context);
                context.line("workload", g.workload());
                context.line("seed", Long.toUnsignedString(g.seed()));
            }
            if (temp == null || args.flag(KEEP.name())) {
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
            if (temp != null && !args.flag(KEEP.name())) {
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
