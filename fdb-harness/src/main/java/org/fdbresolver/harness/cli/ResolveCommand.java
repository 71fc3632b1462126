package org.fdbresolver.harness.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fdbresolver.harness.trace.DecisionHasher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code resolve TRACE [--engine NAME] [--out DECISIONS]}: decides a trace and prints its hashes and counts. */
@Command(name = "resolve", description = "Decide every transaction of a trace with one engine; print the decision hash and counts.")
final class ResolveCommand extends Subcommand {
    @Parameters(paramLabel = "TRACE", description = "the trace to decide (plain or gzip)")
    Path trace;

    @Mixin
    EngineOptions engine;

    @Option(names = "--out", paramLabel = "DECISIONS", order = 20,
            description = "also write the decision file (gzip if it ends in .gz); written only if every batch is decided")
    Path out;

    @Override
    Path input() {
        return trace;
    }

    @Override
    String details() {
        return EngineOptions.listing() + """

                prints (one 'name: value' per line):
                  engine, offered-hash (SHA-256 of the trace file as stored), decision-hash,
                  conflicting-keys-hash, batches, transactions, commit, conflict, too-old,
                  seconds and transactions/sec (the whole run: reading, parsing, deciding, writing),
                  engine-seconds and engine-transactions/sec (inside detectConflicts only),
                  decisions (the file written, with --out)
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        if (out != null && Files.exists(out) && Files.exists(trace) && Files.isSameFile(out, trace)) {
            throw new UsageException("--out " + out + " is the trace itself");
        }
        TraceResolution.Outcome o = TraceResolution.run(trace, engine.config(), out, context);
        DecisionHasher h = o.hasher();
        context.line("engine", o.engine());
        context.line("offered-hash", o.offeredHash());
        context.decisionLines(h);
        context.line("seconds", CommandContext.seconds(o.wallNanos()));
        context.line("transactions/sec", CommandContext.rate(h.transactions(), o.wallNanos()));
        context.line("engine-seconds", CommandContext.seconds(o.engineNanos()));
        context.line("engine-transactions/sec", CommandContext.rate(h.transactions(), o.engineNanos()));
        if (out != null) {
            context.line("decisions", out);
        }
        return ExitCodes.OK;
    }
}
