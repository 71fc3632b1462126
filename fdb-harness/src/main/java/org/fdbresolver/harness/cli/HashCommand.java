package org.fdbresolver.harness.cli;

import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.trace.v1.BatchDecisions;

/** {@code hash DECISIONS}: the decision and conflicting-keys hashes of a decision file, and its counts. */
final class HashCommand extends Command {

    @Override
    String name() {
        return "hash";
    }

    @Override
    String summary() {
        return "Print the decision hash, conflicting-keys hash and counts of a decision file.";
    }

    @Override
    String synopsis() {
        return "hash DECISIONS";
    }

    @Override
    List<Option> options() {
        return List.of();
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
    String details() {
        return """
                prints (one 'name: value' per line):
                  engine and trace-sha256 (from the file's header), decision-hash, conflicting-keys-hash,
                  batches, transactions, commit, conflict, too-old
                """;
    }

    @Override
    int run(Args args, CommandContext context) throws Exception {
        Path file = Path.of(args.positionals().getFirst());
        DecisionHasher h = new DecisionHasher();
        try (DecisionReader reader = DecisionReader.open(file)) {
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                h.add(d);
            }
            context.line("engine", reader.header().getEngine());
            context.line("trace-sha256", Hashes.hex(reader.header().getTraceSha256().toByteArray()));
        }
        context.line("decision-hash", h.decisionHash());
        context.line("conflicting-keys-hash", h.conflictingKeysHash());
        context.line("batches", h.batches());
        context.line("transactions", h.transactions());
        context.line("commit", h.commits());
        context.line("conflict", h.conflicts());
        context.line("too-old", h.tooOld());
        return ExitCodes.OK;
    }
}
