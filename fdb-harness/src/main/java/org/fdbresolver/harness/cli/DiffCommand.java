package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.fdbresolver.api.Decision;
import org.fdbresolver.harness.trace.DecisionReader;
import org.fdbresolver.harness.trace.TraceFormatException;
import org.fdbresolver.trace.v1.BatchDecisions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code diff A B}: compares two decision files batch by batch and names the first difference (decision and
 * conflicting-reads entry), with counts. Both files are streamed side by side.
 */
@Command(name = "diff", description = "Compare two decision files; name the first differing transaction. Exit 1 if they differ.")
final class DiffCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "A", description = "a decision file")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "the decision file to compare it with")
    Path b;

    @Override
    String details() {
        return """
                prints (one 'name: value' per line):
                  a-engine, b-engine, same-trace (yes if both headers name the same trace hash),
                  batches, transactions ('a N, b M' when they differ),
                  differing-batches, differing-transactions, differing-conflicting-reads,
                  first-difference (batch, version, transaction and both decisions, or 'none'),
                  first-conflicting-reads-difference (or 'none'), same (yes|no)
                exit status: 0 when the decisions and conflicting reads are identical, 1 when they differ
                """;
    }

    @Override
    int run(CommandContext context) throws Exception {
        Tally tally = new Tally();
        try (DecisionReader ra = read(a, () -> DecisionReader.open(a)); DecisionReader rb = read(b, () -> DecisionReader.open(b))) {
            context.line("a-engine", ra.header().getEngine());
            context.line("b-engine", rb.header().getEngine());
            context.line("same-trace", ra.header().getTraceSha256().equals(rb.header().getTraceSha256()) ? "yes" : "no");
            long batch = 0;
            while (true) {
                BatchDecisions da = read(a, ra::next);
                BatchDecisions db = read(b, rb::next);
                if (da == null && db == null) {
                    break;
                }
                tally.compare(batch++, da, db);
            }
        }
        context.line("batches", pair(tally.batchesA, tally.batchesB));
        context.line("transactions", pair(tally.transactionsA, tally.transactionsB));
        context.line("differing-batches", tally.differingBatches);
        context.line("differing-transactions", tally.differingTransactions);
        context.line("differing-conflicting-reads", tally.differingConflictingReads);
        context.line("first-difference", tally.firstDifference == null ? "none" : tally.firstDifference);
        context.line("first-conflicting-reads-difference",
                tally.firstConflictingDifference == null ? "none" : tally.firstConflictingDifference);
        boolean same = tally.differingBatches == 0;
        context.line("same", same ? "yes" : "no");
        return same ? ExitCodes.OK : ExitCodes.DIFFERENT;
    }

    private interface Read<T> {
        T call() throws IOException;
    }

    /** One read of {@code file}: an error about its contents names it (two files are read side by side). */
    private static <T> T read(Path file, Read<T> read) throws Exception {
        try {
            return read.call();
        } catch (TraceFormatException e) {
            throw InputError.naming(file, e);
        }
    }

    private static String pair(long a, long b) {
        return a == b ? Long.toString(a) : "a " + a + ", b " + b;
    }

    /** Running counts of differences, and the first of each kind. */
    private static final class Tally {
        long batchesA;
        long batchesB;
        long transactionsA;
        long transactionsB;
        long differingBatches;
        long differingTransactions;
        long differingConflictingReads;
        String firstDifference;
        String firstConflictingDifference;

        void compare(long batch, BatchDecisions a, BatchDecisions b) {
            if (a != null) {
                batchesA++;
                transactionsA += a.getDecisions().size();
            }
            if (b != null) {
                batchesB++;
                transactionsB += b.getDecisions().size();
            }
            if (a == null || b == null) {
                BatchDecisions only = a != null ? a : b;
                differingBatches++;
                differingTransactions += only.getDecisions().size();
                differingConflictingReads += only.getConflictingReadsCount();
                first("batch " + batch + " (version " + only.getVersion() + "): only " + (a != null ? "a" : "b")
                        + " has this batch");
                return;
            }
            boolean differs = false;
            String where = "batch " + batch + " (version " + a.getVersion() + ")";
            if (a.getVersion() != b.getVersion()) {
                differs = true;
                first("batch " + batch + ": version a " + a.getVersion() + ", b " + b.getVersion());
            }
            int na = a.getDecisions().size();
            int nb = b.getDecisions().size();
            if (na != nb) {
                differs = true;
                differingTransactions += Math.abs(na - nb);
                first(where + ": a has " + na + " transactions, b has " + nb);
            }
            for (int t = 0, n = Math.min(na, nb); t < n; t++) {
                byte ca = a.getDecisions().byteAt(t);
                byte cb = b.getDecisions().byteAt(t);
                if (ca != cb) {
                    differs = true;
                    differingTransactions++;
                    first(where + " transaction " + t + ": a " + Decision.ofCode(ca) + ", b " + Decision.ofCode(cb));
                }
            }
            // Entries are in ascending transaction order (the reader checks): merge by transaction index.
            int i = 0;
            int j = 0;
            int ea = a.getConflictingReadsCount();
            int eb = b.getConflictingReadsCount();
            while (i < ea || j < eb) {
                long ta = i < ea ? Integer.toUnsignedLong(a.getConflictingReads(i).getTransaction()) : Long.MAX_VALUE;
                long tb = j < eb ? Integer.toUnsignedLong(b.getConflictingReads(j).getTransaction()) : Long.MAX_VALUE;
                List<Integer> readsA = ta <= tb ? a.getConflictingReads(i).getReadRangesList() : null;
                List<Integer> readsB = tb <= ta ? b.getConflictingReads(j).getReadRangesList() : null;
                if (readsA == null || !readsA.equals(readsB)) {
                    differs = true;
                    differingConflictingReads++;
                    if (firstConflictingDifference == null) {
                        firstConflictingDifference = where + " transaction " + Math.min(ta, tb) + ": a " + show(readsA)
                                + ", b " + show(readsB);
                    }
                }
                if (ta <= tb) {
                    i++;
                }
                if (tb <= ta) {
                    j++;
                }
            }
            if (differs) {
                differingBatches++;
            }
        }

        private void first(String description) {
            if (firstDifference == null) {
                firstDifference = description;
            }
        }

        private static String show(List<Integer> reads) {
            if (reads == null) {
                return "no entry";
            }
            StringBuilder sb = new StringBuilder("reads [");
            for (int k = 0; k < reads.size(); k++) {
                if (k > 0) {
                    sb.append(", ");
                }
                sb.append(Integer.toUnsignedString(reads.get(k)));
            }
            return sb.append(']').toString();
        }
    }
}
