package org.fdbresolver.harness.cli;

import java.nio.file.Path;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.trace.v1.BatchDecisions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code hash DECISIONS}: the decision and conflicting-keys hashes of a decision file, and its counts. */
@Command(name = "hash", description = "Print the decision hash, conflicting-keys hash and counts of a decision file.")
final class HashCommand extends Subcommand {
    @Parameters(paramLabel = "DECISIONS", description = "the decision file (plain or gzip)")
    Path file;

    @Override
    Path input() {
        return file;
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
    int run(CommandContext context) throws Exception {
        DecisionHasher h = new DecisionHasher();
        try (DecisionReader reader = DecisionReader.open(file)) {
            for (BatchDecisions d; (d = reader.next()) != null; ) {
                h.add(d);
            }
            context.line("engine", reader.header().getEngine());
            context.line("trace-sha256", Hashes.hex(reader.header().getTraceSha256().toByteArray()));
        }
        context.decisionLines(h);
        return ExitCodes.OK;
    }
}
