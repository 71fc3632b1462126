package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.harness.workload.WorkloadFactory;
import org.fdbresolver.harness.workload.WorkloadOption;
import org.fdbresolver.harness.workload.WorkloadParams;
import org.fdbresolver.harness.workload.Workloads;
import org.fdbresolver.trace.v1.Batch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gen WORKLOAD --out FILE}: runs a workload generator into a trace file. The workloads' own options
 * ({@code --window 50000}) are declared from the workload registry at run time, so picocli parses them like
 * any other option; the chosen workload then refuses the ones it does not take.
 */
@Command(name = "gen", description = "Generate a trace with a workload generator; the workload's own options are listed below.")
final class GenCommand extends Subcommand {
    /** Names the workloads may not use for their own options: they belong to gen. */
    private static final Set<String> RESERVED = Set.of("out", "seed", "batches", "verbose", "help");

    @Parameters(paramLabel = "WORKLOAD", description = "the workload generator (listed below)")
    String workload;

    @Option(names = "--out", paramLabel = "FILE", required = true, order = 1,
            description = "the trace to write (gzip if it ends in .gz)")
    Path out;

    @Option(names = "--seed", paramLabel = "N", order = 2, converter = SeedConverter.class,
            description = "generator seed, " + SeedConverter.RANGE + " (default: the workload's)")
    Long seed;

    @Option(names = "--batches", paramLabel = "N", order = 3, converter = CountConverter.class,
            description = "number of batches (default: the workload's)")
    Long batches;

    /** The options declared for the workloads, by name without dashes; a value once given on the command line. */
    private final List<OptionSpec> workloadOptions = new ArrayList<>();

    @Override
    void describe(CommandSpec spec) {
        super.describe(spec);
        Set<String> names = new TreeSet<>();
        for (WorkloadFactory f : Workloads.all().values()) {
            for (WorkloadOption o : f.options()) {
                if (!RESERVED.contains(o.name())) {
                    names.add(o.name());
                }
            }
        }
        for (String name : names) {
            // Hidden from the option list: the footer lists them per workload, with each workload's default.
            OptionSpec option = OptionSpec.builder("--" + name).paramLabel("VALUE").type(String.class).hidden(true).build();
            spec.addOption(option);
            workloadOptions.add(option);
        }
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
    int run(CommandContext context) throws Exception {
        if (batches != null && batches == 0) {
            // A trace without batches is refused by every command that reads one (bench, retention, demo).
            throw new UsageException("--batches 0 generates nothing (give 1 or more)");
        }
        Map<String, String> options = new TreeMap<>();
        for (OptionSpec o : workloadOptions) {
            if (o.getValue() != null) {
                options.put(o.longestName().substring(2), o.getValue());
            }
        }
        WorkloadParams params = new WorkloadParams(optional(seed), optional(batches), options);
        Generated g = generate(workload, params, out, context);
        context.line("trace", out);
        context.line("workload", g.workload());
        context.line("seed", Long.toUnsignedString(g.seed()));
        context.line("batches", g.batches());
        context.line("transactions", g.transactions());
        context.line("offered-hash", g.offeredHash());
        context.line("seconds", CommandContext.seconds(g.nanos()));
        return ExitCodes.OK;
    }

    static OptionalLong optional(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** What a generator run wrote. */
    record Generated(String workload, long seed, long batches, long transactions, String offeredHash, long nanos) {
    }

    /** Runs workload {@code name} into {@code out} (renamed into place only when complete, see TraceWriter). */
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
        String offeredHash;
        try (TraceWriter writer = TraceWriter.create(out, workload.header());
             Progress progress = context.progress("gen " + name, workload.batchCount(), "batches")) {
            for (Batch b; (b = nextBatch(workload, writer)) != null; ) {
                writer.write(b);
                transactions += b.getTransactionsCount();
                progress.update(writer.batchesWritten(), writer.batchesWritten(), transactions);
            }
            written = writer.batchesWritten();
            writer.commit();
            // hashed while writing: a FIFO or device cannot be read back
            offeredHash = Hashes.hex(writer.offeredSha256());
        }
        return new Generated(workload.header().getWorkload(), workload.header().getSeed(), written, transactions,
                offeredHash, System.nanoTime() - start);
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
