package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadFactory;
import org.fdbresolver.harness.workload.WorkloadOption;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.trace.v1.Batch;

/** {@code gen WORKLOAD --out FILE}: runs a workload generator into a trace file. */
final class GenCommand extends Command {
    static final Option OUT = Option.value("out", "FILE", "the trace to write (gzip if it ends in .gz)");
    static final Option SEED = Option.value("seed", "N", "generator seed (default: the workload's)");
    static final Option BATCHES = Option.value("batches", "N", "number of batches (default: the workload's)");
    private static final Set<String> OWN = Set.of("out", "seed", "batches", "verbose", "help");

    @Override
    String name() {
        return "gen";
    }

    @Override
    String summary() {
        return "Generate a trace with a workload generator; other --name VALUE options go to the workload.";
    }

    @Override
    String synopsis() {
        return "gen WORKLOAD --out FILE [--seed N] [--batches N] [--OPTION VALUE ...]";
    }

    @Override
    List<Option> options() {
        return List.of(OUT, SEED, BATCHES);
    }

    @Override
    int minPositionals() {
        return 1;
    }

    @Override
    int maxPositionals() {
        return 1;
    }

    @Override
    boolean passesUnknownOptions() {
        return true;
    }

    @Override
    String details() {
        StringBuilder sb = new StringBuilder();
        Map<String, WorkloadFactory> all = Workloads.all();
        if (all.isEmpty()) {
            sb.append("workloads: none registered\n");
        } else {
            sb.append("workloads (and their options, with defaults):\n");
            for (WorkloadFactory f : all.values()) {
                sb.append("  ").append(f.name()).append("  ").append(f.description()).append('\n');
                for (WorkloadOption o : f.options()) {
                    sb.append("      --").append(o.name()).append(' ').append(o.defaultValue()).append("  ")
                            .append(o.description()).append('\n');
                }
            }
        }
        sb.append("""

                prints (one 'name: value' per line):
                  trace, workload, seed, batches, transactions, offered-hash (SHA-256 of the file written), seconds
                """);
        return sb.toString();
    }

    @Override
    int run(Args args, CommandContext context) throws Exception {
        String name = args.positionals().getFirst();
        Path out = Path.of(args.required(OUT.name(), name()));
        OptionalLong seed = args.has(SEED.name()) ? OptionalLong.of(args.longValue(SEED.name(), 0)) : OptionalLong.empty();
        OptionalLong batches = args.has(BATCHES.name())
                ? OptionalLong.of(args.nonNegative(BATCHES.name(), 0)) : OptionalLong.empty();
        Map<String, String> options = new TreeMap<>();
        for (String option : args.optionNames()) {
            if (!OWN.contains(option)) {
                options.put(option, args.value(option));
            }
        }

        Generated g = generate(name, new WorkloadParams(seed, batches, options), out, context);
        context.line("trace", out);
        context.line("workload", g.workload());
        context.line("seed", Long.toUnsignedString(g.seed()));
        context.line("batches", g.batches());
        context.line("transactions", g.transactions());
        context.line("offered-hash", Hashes.hex(Hashes.sha256(out)));
        context.line("seconds", CommandContext.seconds(g.nanos()));
        return ExitCodes.OK;
    }

    /** What a generator run wrote. */
    record Generated(String workload, long seed, long batches, long transactions, long nanos) {
    }

    /** Runs workload {@code name} into {@code out} (renamed into place only when complete). */
    static Generated generate(String name, WorkloadParams params, Path out, CommandContext context) throws IOException {
        Workload workload;
        try {
            workload = Workloads.get(name).create(params);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage() + " (see fdbresolver gen --help)", e);
        }
        long start = System.nanoTime();
        long transactions = 0;
        long written;
        try (TraceWriter writer = TraceWriter.create(out, workload.header());
             Progress progress = context.progress("gen " + name, workload.batchCount(), "batches")) {
            for (Batch b; (b = nextBatch(workload, writer)) != null; ) {
                writer.write(b);
                transactions += b.getTransactionsCount();
                progress.update(writer.batchesWritten(), writer.batchesWritten(), transactions);
            }
            written = writer.batchesWritten();
            writer.commit();
        }
        return new Generated(workload.header().getWorkload(), workload.header().getSeed(), written, transactions,
                System.nanoTime() - start);
    }

    /** A generator that rejects its parameters late (while generating) is still a usage error. */
    private static Batch nextBatch(Workload workload, TraceWriter writer) throws IOException {
        try {
            return workload.nextBatch();
        } catch (IllegalArgumentException e) {
            throw new UsageException("workload: " + e.getMessage() + " (batch " + writer.batchesWritten() + ")", e);
        }
    }
}
