package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.workload.WorkloadParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the project's main job in one command. Generates a default trace into a temporary directory,
 * decides it with the chosen engine (default {@code tree}) and with the reference engine, and shows that both
 * agree and how fast each was. Each engine decides the trace twice: the first pass warms it up (the JIT
 * compiles its hot paths) and is not timed, so the rate printed is the warm rate that README's figures and
 * {@code bench} report, not the first seconds of a cold JVM.
 */
@Command(name = "demo",
        description = "Generate a trace, decide it with an engine and the reference; show they agree and their warm speed.")
final class DemoCommand extends Subcommand {
    static final String DEFAULT_WORKLOAD = "conflictset-range";
    static final long DEFAULT_BATCHES = 300;
    static final String TIMING = "warm: each engine decides the trace twice, only the second pass is timed";
    /** {@code agree} when the only differences are TOO_OLD answers the chosen engine's budget forced. */
    static final String AGREE_BUT_BUDGET = "yes-except-budget-too-old";

    @Spec
    CommandSpec spec;

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

    /** The engine compared with the reference; --engine-option settings apply to it alone. */
    @Mixin
    EngineOptions engine;

    @Option(names = "--keep", order = 30, description = "keep the temporary directory with the generated trace")
    boolean keep;

    @Override
    Path input() {
        return givenTrace;
    }

    @Override
    String details() {
        return EngineOptions.listing() + """

                --engine-option settings apply to the chosen engine only (the reference takes none).
                prints (one 'name: value' per line):
                  workload and seed (when generated), trace (when given or kept), batches, transactions,
                  timing (how the rates below were measured: warm, second of two passes),
                  conflicting-keys (when none were reported: the hashes of them are SHA-256 of nothing),
                  then for each engine E (the chosen one, then reference):
                  E-decision-hash, E-conflicting-keys-hash, E-transactions/sec (time inside the engine),
                  then speedup (the chosen engine's rate over the reference's) and agree (yes|no);
                  when the hashes differ, too-old-from-budget (transactions the chosen engine answered
                    TOO_OLD where the reference decided: what a small --budget may cause) and
                    other-differences; agree is yes-except-budget-too-old, with a note, when those are
                    the only differences, else first-difference and agree: no;
                  with --engine reference, a note and agree: n/a (nothing to compare it with)
                --workload, --batches and --seed shape the generated trace: not with --trace.
                exit status: 0 when both engines agree (also yes-except-budget-too-old), 1 when they do not
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        if (givenTrace != null) {
            // Options that shape the generated trace would be ignored silently with a trace given.
            List<String> generating = new ArrayList<>();
            for (String name : List.of("--workload", "--batches", "--seed")) {
                if (spec.commandLine().getParseResult().hasMatchedOption(name)) {
                    generating.add(name);
                }
            }
            if (!generating.isEmpty()) {
                throw new UsageException(String.join(", ", generating) + (generating.size() == 1 ? " shapes" : " shape")
                        + " the generated trace: not with --trace " + givenTrace + " (drop one or the other)");
            }
        }
        if (givenTrace == null && batches == 0) {
            throw new UsageException("--batches 0 compares nothing"); // as fuzz --transactions 0 and bench on an empty trace
        }
        ConflictSetConfig chosen = engine.config();
        ConflictSetConfig reference = ConflictSetConfig.builder().engine(EngineOptions.REFERENCE)
                .memoryBudgetBytes(engine.budget()).build();
        boolean comparing = !chosen.engine().equals(EngineOptions.REFERENCE);
        EngineOptions.open(chosen).close(); // fail on a missing engine or a bad setting before generating anything
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

            TraceResolution.Outcome a = warmRun(trace, chosen, context);
            context.line("batches", a.hasher().batches());
            context.line("transactions", a.hasher().transactions());
            context.line("timing", TIMING);
            if (a.hasher().conflictingKeysHash().equals(HASH_OF_NOTHING)) {
                // A hash that looks like data but is SHA-256 of no bytes: say why, once, before the hashes.
                context.line("conflicting-keys", NONE_REPORTED);
            }
            print(context, a);
            if (!comparing) {
                context.line("note", "--engine reference is the oracle itself: nothing to compare it with (try --engine "
                        + ConflictSetConfig.DEFAULT_ENGINE + ")");
                context.line("agree", "n/a");
                return ExitCodes.OK;
            }
            TraceResolution.Outcome r = warmRun(trace, reference, context);
            print(context, r);
            double rateA = rate(a);
            double rateR = rate(r);
            context.line("speedup", rateR <= 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", rateA / rateR));
            boolean agree = a.hasher().decisionHash().equals(r.hasher().decisionHash())
                    && a.hasher().conflictingKeysHash().equals(r.hasher().conflictingKeysHash());
            if (agree) {
                context.line("agree", "yes");
                return ExitCodes.OK;
            }
            // Which differences: an engine under a budget may answer TOO_OLD where the reference decides
            // (allowed), never anything else.
            Differences d = Differences.of(trace, chosen, reference);
            context.line("too-old-from-budget", d.budgetTooOld());
            context.line("other-differences", d.other());
            if (d.other() == 0) {
                context.line("agree", AGREE_BUT_BUDGET);
                context.line("note", chosen.engine() + " answered TOO_OLD for " + d.budgetTooOld() + " transactions the "
                        + "reference decided: its budget of " + RetentionCommand.label(chosen.memoryBudgetBytes())
                        + " cannot hold this trace's history. That is allowed (an engine under a budget may answer TOO_OLD "
                        + "more often than FoundationDB, never COMMIT where it would not) and every other decision is the "
                        + "same; a larger --budget compares byte for byte");
                return ExitCodes.OK;
            }
            context.line("first-difference", d.first());
            context.line("agree", "no");
            return ExitCodes.DIFFERENT;
        } finally {
            if (temp != null && !keep) {
                deleteTree(temp);
            }
        }
    }

    /** SHA-256 of no bytes: the conflicting-keys hash of a run in which no conflicting read was reported. */
    static final String HASH_OF_NOTHING = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    static final String NONE_REPORTED = "none reported: no transaction that conflicted asked for its conflicting keys "
            + "(report_conflicting_keys; gen's workloads set it with --report-fraction), so each E-conflicting-keys-hash "
            + "below is SHA-256 of nothing";

    /** Decides the trace once untimed (the warm-up), then again with a fresh conflict set; returns the second. */
    private static TraceResolution.Outcome warmRun(Path trace, ConflictSetConfig config, CommandContext context)
            throws IOException {
        TraceResolution.run(trace, config, null, context);
        return TraceResolution.run(trace, config, null, context);
    }

    private static void print(CommandContext context, TraceResolution.Outcome o) {
        context.line(o.engine() + "-decision-hash", o.hasher().decisionHash());
        context.line(o.engine() + "-conflicting-keys-hash", o.hasher().conflictingKeysHash());
        context.line(o.engine() + "-transactions/sec", CommandContext.rate(o.hasher().transactions(), o.engineNanos()));
    }

    private static double rate(TraceResolution.Outcome o) {
        return o.engineNanos() <= 0 ? 0 : o.hasher().transactions() / (o.engineNanos() / 1e9);
    }

    /**
     * The transactions two engines decided differently over one trace, decided again side by side: those the
     * first answered TOO_OLD where the reference decided (what a memory budget may cause), and every other
     * difference, decisions or conflicting reads (which no budget explains).
     */
    record Differences(long budgetTooOld, long other, String first) {
        static Differences of(Path trace, ConflictSetConfig engine, ConflictSetConfig reference) throws IOException {
            long budgetTooOld = 0;
            long other = 0;
            String first = null;
            try (TraceReader ra = TraceReader.open(trace); TraceReader rb = TraceReader.open(trace);
                 ConflictSet ea = EngineOptions.open(engine); ConflictSet eb = EngineOptions.open(reference)) {
                ConflictBatch ba = ea.newBatch();
                ConflictBatch bb = eb.newBatch();
                for (long batch = 0; ra.nextInto(ba) && rb.nextInto(bb); batch++) {
                    BatchResult a = ba.detectConflicts(ra.version(), ra.newOldestVersion());
                    BatchResult b = bb.detectConflicts(rb.version(), rb.newOldestVersion());
                    Map<Integer, List<Integer>> readsA = conflictingReads(a);
                    Map<Integer, List<Integer>> readsB = conflictingReads(b);
                    for (int t = 0; t < a.transactionCount(); t++) {
                        byte ca = a.decisionCode(t);
                        byte cb = b.decisionCode(t);
                        if (ca == cb && Objects.equals(readsA.get(t), readsB.get(t))) {
                            continue;
                        }
                        if (ca == Decision.TOO_OLD_CODE && cb != Decision.TOO_OLD_CODE) {
                            budgetTooOld++;
                        } else {
                            other++;
                            if (first == null) {
                                first = "batch " + batch + " (version " + ra.version() + ") transaction " + t + ": "
                                        + engine.engine() + " " + Decision.ofCode(ca) + " " + readsA.getOrDefault(t, List.of())
                                        + ", " + reference.engine() + " " + Decision.ofCode(cb) + " "
                                        + readsB.getOrDefault(t, List.of());
                            }
                        }
                    }
                }
            }
            return new Differences(budgetTooOld, other, first);
        }

        /** Transaction to the indexes of its conflicting reads, for the transactions that have them. */
        private static Map<Integer, List<Integer>> conflictingReads(BatchResult r) {
            Map<Integer, List<Integer>> reads = new HashMap<>();
            for (int i = 0; i < r.conflictingTransactionCount(); i++) {
                List<Integer> list = new ArrayList<>();
                for (int j = 0; j < r.conflictingReadCount(i); j++) {
                    list.add(r.conflictingRead(i, j));
                }
                reads.put(r.conflictingTransaction(i), list);
            }
            return reads;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
