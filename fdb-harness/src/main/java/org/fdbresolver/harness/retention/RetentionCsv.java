package org.fdbresolver.harness.retention;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;

/**
 * The per-batch CSV of a retention run: one header line, then one row per batch and budget, budgets one after
 * the other in the order they were replayed. Columns:
 * <pre>
 * budget_bytes,batch,version,trace_seconds,new_oldest_version,retained_version,retained_age_seconds,
 * history_bytes,budget_used,transactions,too_old_fdb,too_old_budget
 * </pre>
 * {@code trace_seconds} counts from the first batch's version, {@code retained_age_seconds} is
 * {@code (version - retained_version) / 1e6}, {@code budget_used} is {@code history_bytes / budget_bytes};
 * seconds have six decimals (one version), fractions four.
 */
public final class RetentionCsv {
    public static final String HEADER = "budget_bytes,batch,version,trace_seconds,new_oldest_version,retained_version,"
            + "retained_age_seconds,history_bytes,budget_used,transactions,too_old_fdb,too_old_budget";

    private final Writer out;
    private final StringBuilder row = new StringBuilder(160);

    public RetentionCsv(Writer out) throws IOException {
        this.out = out;
        out.write(HEADER);
        out.write('\n');
    }

    /** One row; {@code traceSeconds} is the sample's time from the trace's first batch. */
    public void add(RetentionSample s, double traceSeconds) throws IOException {
        row.setLength(0);
        row.append(s.budgetBytes()).append(',')
                .append(s.batch()).append(',')
                .append(s.version()).append(',')
                .append(String.format(Locale.ROOT, "%.6f", traceSeconds)).append(',')
                .append(s.newOldestVersion()).append(',')
                .append(s.retainedVersion()).append(',')
                .append(String.format(Locale.ROOT, "%.6f", s.retainedAgeSeconds())).append(',')
                .append(s.historyBytes()).append(',')
                .append(String.format(Locale.ROOT, "%.4f", s.budgetUsed())).append(',')
                .append(s.transactions()).append(',')
                .append(s.tooOldFdb()).append(',')
                .append(s.tooOldBudget()).append('\n');
        out.append(row);
    }
}
