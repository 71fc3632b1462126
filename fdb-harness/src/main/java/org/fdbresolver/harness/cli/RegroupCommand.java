package org.fdbresolver.harness.cli;

import java.nio.file.Path;
import org.fdbresolver.harness.trace.BatchRegrouper;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code regroup TRACE --txns N --out FILE}: a trace's transactions, a capture's most often, written again in
 * batches of N ({@link BatchRegrouper}), so that a real Resolver's keys can be timed in the benchmark workloads'
 * batch sizes beside FoundationDB's skip list.
 */
@Command(name = "regroup", description = "Write a trace's transactions (a capture's, most often) again in batches of "
        + "--txns: a Resolver's keys and reads in a benchmark's batch size.")
final class RegroupCommand extends Subcommand {
    @Parameters(paramLabel = "TRACE", description = "the trace (plain or gzip) or capture folder to read")
    Path trace;

    @Option(names = "--txns", paramLabel = "N", defaultValue = "500", order = 1,
            description = "transactions per batch (default: ${DEFAULT-VALUE}); the last batch holds what is left")
    int txns;

    @Option(names = "--out", paramLabel = "FILE", required = true, order = 2,
            description = "the trace to write (gzip if it ends in .gz; written in full or not at all)")
    Path out;

    @Override
    Path input() {
        return trace;
    }

    @Override
    String details() {
        return """
                Each batch takes the version and oldest version of the original batch its last transaction came
                from (one more than the previous batch's when an original batch is split); read snapshots, ranges
                and reporting flags are kept. Decisions differ from the original run's: transactions once in
                consecutive batches meet inside one. docs/cli.md.

                prints (one 'name: value' per line):
                  trace, workload (regroup), from, from-workload, batches, transactions, offered-hash, seconds
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        if (txns < 1) {
            throw new UsageException("--txns must be at least 1, got " + txns);
        }
        long start = System.nanoTime();
        // A first pass for the input's hash, which the output's header records (provenance) before any batch.
        TraceHeader from;
        String fromHash;
        try (TraceReader reader = TraceReader.open(trace)) {
            while (reader.next() != null) {
                // read through: the offered hash covers every stored byte
            }
            from = reader.header();
            fromHash = Hashes.hex(reader.offeredSha256());
        }
        TraceHeader header = TraceHeader.newBuilder()
                .setFormat(from.getFormat())
                .setWorkload("regroup")
                .putParams("txns", Integer.toString(txns))
                .putParams("from", trace.getFileName().toString())
                .putParams("from-workload", from.getWorkload())
                .putParams("from-sha256", fromHash)
                .build();
        BatchRegrouper regrouper = new BatchRegrouper(txns);
        long transactions = 0;
        String offeredHash;
        long written;
        try (TraceReader reader = TraceReader.open(trace);
             TraceWriter writer = TraceWriter.create(out, header)) {
            for (Batch original; (original = reader.next()) != null; ) {
                for (Batch b : regrouper.add(original)) {
                    writer.write(b);
                    transactions += b.getTransactionsCount();
                }
            }
            Batch last = regrouper.finish();
            if (last != null) {
                writer.write(last);
                transactions += last.getTransactionsCount();
            }
            if (writer.batchesWritten() == 0) {
                // Every command that reads a trace refuses one without batches.
                throw new UsageException(trace + " holds no transactions: nothing to regroup");
            }
            written = writer.batchesWritten();
            writer.commit();
            offeredHash = Hashes.hex(writer.offeredSha256());
        }
        context.line("trace", out);
        context.line("workload", "regroup");
        context.line("from", trace);
        context.line("from-workload", from.getWorkload());
        context.line("batches", written);
        context.line("transactions", transactions);
        context.line("offered-hash", offeredHash);
        context.line("seconds", CommandContext.seconds(System.nanoTime() - start));
        return ExitCodes.OK;
    }
}
