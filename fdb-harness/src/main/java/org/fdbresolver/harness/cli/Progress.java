package org.fdbresolver.harness.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar on stderr: done / total, percent, and a rate. It appears only after
 * {@link #QUIET_NANOS} (short runs stay silent), redraws at most every {@link #REDRAW_NANOS}, and erases
 * itself when closed so the next line (a result or an error) starts clean. Without a stream it does nothing.
 */
final class Progress implements AutoCloseable {
    static final long QUIET_NANOS = 2_000_000_000L;
    static final long REDRAW_NANOS = 200_000_000L;
    private static final int BAR = 30;

    private final PrintStream err;
    private final String label;
    private final long total;
    private final String unit;
    private final long start = System.nanoTime();
    private long nextDraw = start + QUIET_NANOS;
    private boolean drawn;

    /**
     * @param err   where to draw, or {@code null} for no display
     * @param total the amount that means done (bytes, batches), or 0 when unknown
     * @param unit  what {@code done} counts: {@code "bytes"} or {@code "batches"}
     */
    Progress(PrintStream err, String label, long total, String unit) {
        this.err = err;
        this.label = label;
        this.total = total;
        this.unit = unit;
    }

    /**
     * Reports progress: {@code done} of the total (in the unit given at construction), with the batches and
     * transactions handled so far for the counts and the rate. Cheap when no redraw is due.
     */
    void update(long done, long batches, long transactions) {
        if (err == null) {
            return;
        }
        long now = System.nanoTime();
        if (now < nextDraw) {
            return;
        }
        nextDraw = now + REDRAW_NANOS;
        double secs = (now - start) / 1e9;
        StringBuilder sb = new StringBuilder("\r").append(label).append(' ');
        if (total > 0) {
            double f = Math.min(1.0, (double) done / total);
            int filled = (int) Math.round(f * BAR);
            sb.append('[').append("#".repeat(filled)).append(".".repeat(BAR - filled)).append("] ")
                    .append(String.format(Locale.ROOT, "%5.1f%%", f * 100));
        }
        if (unit.equals("batches") && total > 0) {
            sb.append(String.format(Locale.ROOT, "  %,d/%,d batches", batches, total));
        } else {
            sb.append(String.format(Locale.ROOT, "  %,d batches", batches));
        }
        if (transactions > 0) {
            sb.append(String.format(Locale.ROOT, "  %,d tx  %,.0f tx/s", transactions, transactions / secs));
        }
        sb.append(String.format(Locale.ROOT, "  %.0fs", secs)).append("\u001b[K");
        err.print(sb);
        err.flush();
        drawn = true;
    }

    @Override
    public void close() {
        if (drawn) {
            err.print("\r\u001b[K");
            err.flush();
            drawn = false;
        }
    }
}
