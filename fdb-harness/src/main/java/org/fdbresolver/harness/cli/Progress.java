package org.fdbresolver.harness.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Progress of a long step on stderr, in one of three {@link Mode}s. On a terminal, a one-line bar (done /
 * total, percent, batches, transactions, rate) that appears only after {@link #QUIET_NANOS} (short runs stay
 * silent), redraws at most every {@link #REDRAW_NANOS}, and erases itself when closed so the next line (a
 * result or an error) starts clean. Elsewhere (a log file, a CI job), one plain line every
 * ten seconds ({@link #LINE_MILLIS}), as {@code scripts/build-fdb} does, so a run of minutes is never silent; the
 * lines come from a timer, so a step that reports no progress of its own (FoundationDB's comparator measuring
 * a window) still shows it is alive.
 */
final class Progress implements AutoCloseable {
    /** How progress is shown: a bar redrawn in place, plain lines, or not at all. */
    enum Mode {
        BAR, LINES, NONE;

        /**
         * From system property {@link Main#PROGRESS_PROPERTY}: {@code bar} (also {@code true}), {@code lines},
         * {@code none} (also {@code false}); null when unset or unknown.
         */
        static Mode of(String value) {
            if (value == null) {
                return null;
            }
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "bar", "true" -> BAR;
                case "lines" -> LINES;
                case "none", "false" -> NONE;
                default -> null;
            };
        }
    }

    static final long QUIET_NANOS = 2_000_000_000L;
    static final long REDRAW_NANOS = 200_000_000L;
    /** Between two plain lines (and before the first): often enough to see a run is alive, rarely enough for a log. */
    static final long LINE_MILLIS = 10_000;
    private static final int BAR = 30;
    /** One timer for every line-mode display: a daemon, so it never keeps the JVM alive. */
    private static ScheduledExecutorService timer;

    private final PrintStream err;
    private final Mode mode;
    private final String label;
    /** Which pass of a step that replays its input several times ({@code window 3, 12.5 s}), or empty. */
    private volatile String stage = "";
    private final long total;
    private final String unit;
    private final long start = System.nanoTime();
    private long nextDraw = start + QUIET_NANOS;
    private boolean drawn;
    /**
     * When the current pass over the trace began: a step that replays the trace several times (FoundationDB's
     * window search) starts counting batches again, and the rate is of the current pass.
     */
    private volatile long passStart = start;
    /** The latest figures, written by the working thread, read by the timer (line mode). */
    private volatile long done;
    private volatile long batches;
    private volatile long transactions;
    private final ScheduledFuture<?> lines;
    /** Line mode: set by close(), under the stream's lock, so no line follows a result or an error. */
    private boolean closed;

    /**
     * @param err   where to draw, or {@code null} for no display
     * @param total the amount that means done (bytes, batches), or 0 when unknown
     * @param unit  what {@code done} counts: {@code "bytes"} or {@code "batches"}
     */
    Progress(PrintStream err, Mode mode, String label, long total, String unit) {
        this(err, mode, label, total, unit, LINE_MILLIS);
    }

    /** @param lineMillis line mode: milliseconds between lines */
    Progress(PrintStream err, Mode mode, String label, long total, String unit, long lineMillis) {
        this.err = err;
        this.mode = err == null ? Mode.NONE : mode;
        this.label = label;
        this.total = total;
        this.unit = unit;
        this.lines = this.mode == Mode.LINES
                ? timer().scheduleAtFixedRate(this::printLine, lineMillis, lineMillis, TimeUnit.MILLISECONDS) : null;
    }

    private static synchronized ScheduledExecutorService timer() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fdbresolver-progress");
                t.setDaemon(true);
                return t;
            });
        }
        return timer;
    }

    /**
     * Reports progress: {@code done} of the total (in the unit given at construction), with the batches and
     * transactions handled so far for the counts and the rate. Cheap when no redraw is due.
     */
    void update(long done, long batches, long transactions) {
        if (batches < this.batches) {
            passStart = System.nanoTime();
        }
        if (mode == Mode.LINES) {
            this.done = done;
            this.batches = batches;
            this.transactions = transactions;
            return;
        }
        if (mode != Mode.BAR) {
            return;
        }
        this.batches = batches;
        long now = System.nanoTime();
        if (now < nextDraw) {
            return;
        }
        nextDraw = now + REDRAW_NANOS;
        double secs = (now - start) / 1e9;
        double passSecs = Math.max(1e-9, (now - passStart) / 1e9);
        StringBuilder sb = new StringBuilder("\r").append(label).append(stage).append(' ');
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
            sb.append(String.format(Locale.ROOT, "  %,d tx  %,.0f tx/s", transactions, transactions / passSecs));
        }
        sb.append(String.format(Locale.ROOT, "  %.0fs", secs)).append("\u001b[K");
        err.print(sb);
        err.flush();
        drawn = true;
    }

    /** Line mode, from the timer: {@code fdbresolver: LABEL: 42.0%, 1,234 batches, 567,890 tx (12,345 tx/s), 30 s}. */
    private void printLine() {
        long now = System.nanoTime();
        double secs = (now - start) / 1e9;
        double passSecs = Math.max(1e-9, (now - passStart) / 1e9);
        long d = done;
        long b = batches;
        long t = transactions;
        StringBuilder sb = new StringBuilder("fdbresolver: ").append(label).append(stage).append(':');
        if (total > 0 && d > 0) {
            sb.append(String.format(Locale.ROOT, " %.1f%%,", Math.min(100.0, 100.0 * d / total)));
        }
        if (b > 0) {
            sb.append(String.format(Locale.ROOT, " %,d batches,", b));
        }
        if (t > 0) {
            sb.append(String.format(Locale.ROOT, " %,d tx (%,.0f tx/s),", t, t / passSecs));
        }
        sb.append(String.format(Locale.ROOT, " %.0f s so far", secs));
        synchronized (err) {
            if (!closed) {
                err.println(sb);
                err.flush();
            }
        }
    }

    /**
     * Names the pass now under way of a step that replays its input once per pass, so that a display which
     * starts again from 0 % says why ({@code FoundationDB window, 16MiB, window 3 (12.500 s): 42.0%, ...}).
     */
    void stage(String text) {
        stage = text.isEmpty() ? "" : ", " + text;
    }

    @Override
    public void close() {
        if (lines != null) {
            lines.cancel(false);
            synchronized (err) {
                closed = true;
            }
        }
        if (drawn) {
            err.print("\r\u001b[K");
            err.flush();
            drawn = false;
        }
    }
}
