package org.fdbresolver.harness.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.harness.trace.AtomicOutput;
import org.fdbresolver.harness.trace.TraceWriter;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;

/**
 * A difference as a test case a person can read: the (shrunk) trace as a trace file, and beside it a listing of
 * every batch, transaction and range, keys in {@link KeyText}'s quoted form, with both sides' decisions and
 * conflicting reads, the differing ones marked.
 */
public final class Reproduction {
    /** What was written. */
    public record Written(Path trace, Path listing) {
    }

    /** Both sides' answers to one batch, as a run recorded them. */
    record Answered(Batch batch, BatchAnswer engine, boolean budgetBound, BatchAnswer oracle) {
    }

    private Reproduction() {
    }

    /** Records every batch of a run, copying the answers (they are reused). */
    static final class Recording implements DifferentialRun.Recorder {
        final List<Answered> batches = new ArrayList<>();

        @Override
        public void record(long index, Batch batch, BatchAnswer engine, boolean budgetBound, BatchAnswer oracle) {
            BatchAnswer e = new BatchAnswer();
            e.copy(engine);
            BatchAnswer o = new BatchAnswer();
            o.copy(oracle);
            batches.add(new Answered(batch, e, budgetBound, o));
        }
    }

    /**
     * Writes {@code DIR/NAME.trace} and {@code DIR/NAME.txt}.
     *
     * @param heading  lines at the top of the listing ({@code name: value}), saying how it was found
     * @param recorded the run of the trace that the listing shows
     */
    static Written write(Path dir, String name, TraceHeader header, List<Batch> trace, List<String> heading,
            Recording recorded, String engine, String oracle) throws IOException {
        Files.createDirectories(dir);
        Path tracePath = dir.resolve(name + ".trace");
        Path listingPath = dir.resolve(name + ".txt");
        try (TraceWriter w = TraceWriter.create(tracePath, header)) {
            for (Batch b : trace) {
                w.write(b);
            }
            w.commit();
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# fdbresolver fuzz: a reproduction (docs/cli.md#fuzz)\n");
        for (String line : heading) {
            sb.append(line).append('\n');
        }
        sb.append("trace: ").append(tracePath.getFileName()).append('\n');
        sb.append("""

                Keys: quoted bytes, printable ASCII as it is, other bytes as \\xNN, a run of N equal bytes as "a"*N,
                the parts of one key separated by spaces. A point read or write of k is [k, k "\\x00").
                Each transaction ends with both sides' answers; '<-- differs' marks where they part.
                """);
        int batches = recorded.batches.size();
        for (int b = 0; b < trace.size(); b++) {
            Batch batch = trace.get(b);
            sb.append("\nbatch ").append(b).append(": version ").append(batch.getVersion()).append(", new_oldest_version ")
                    .append(batch.getNewOldestVersion()).append(", ").append(batch.getTransactionsCount())
                    .append(batch.getTransactionsCount() == 1 ? " transaction\n" : " transactions\n");
            Answered a = b < batches ? recorded.batches.get(b) : null;
            for (int t = 0; t < batch.getTransactionsCount(); t++) {
                Transaction tx = batch.getTransactions(t);
                sb.append("  transaction ").append(t).append(": read_snapshot ").append(tx.getReadSnapshot())
                        .append(tx.getReportConflictingKeys() ? ", reports conflicting keys" : "").append('\n');
                for (int r = 0; r < tx.getReadsCount(); r++) {
                    sb.append("    read ").append(r).append("  ").append(text(tx.getReads(r))).append('\n');
                }
                for (int w = 0; w < tx.getWritesCount(); w++) {
                    sb.append("    write ").append(w).append(' ').append(text(tx.getWrites(w))).append('\n');
                }
                if (a == null) {
                    sb.append("    (not decided: the run stopped before this batch)\n");
                    continue;
                }
                String mine = a.engine().describe(t);
                String theirs = a.oracle().describe(t);
                boolean allowed = !mine.equals(theirs) && a.engine().decisions[t] == org.fdbresolver.api.Decision.TOO_OLD_CODE
                        && DifferentialRun.allowedByBudget(tx, a.budgetBound());
                sb.append("    ").append(engine).append(' ').append(mine).append(" | ").append(oracle).append(' ')
                        .append(theirs).append(mine.equals(theirs) ? "" : allowed ? "   (TOO_OLD under the budget: allowed)"
                                : "   <-- differs").append('\n');
            }
        }
        try (AtomicOutput out = new AtomicOutput(listingPath)) {
            out.stream().write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.commit();
        }
        return new Written(tracePath, listingPath);
    }

    private static String text(KeyRange r) {
        return KeyText.range(r.getBegin(), r.getEnd());
    }

    /** A name for a run's files: {@code fuzz-seed5-case17-mixed-keys}. */
    static String name(long seed, FuzzCase c) {
        return "fuzz-seed" + Long.toUnsignedString(seed) + "-case" + c.index() + "-" + c.shape();
    }
}
