package org.fdbresolver.harness.cli;

import java.io.PrintStream;
import java.util.Locale;

/** What a command writes to: results on {@code out}, progress on {@code err} (when enabled). */
final class CommandContext {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean progressEnabled;

    CommandContext(PrintStream out, PrintStream err, boolean progressEnabled) {
        this.out = out;
        this.err = err;
        this.progressEnabled = progressEnabled;
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    /** Prints one result line, {@code name: value}. */
    void line(String name, Object value) {
        out.println(name + ": " + value);
    }

    /** A progress display for work that may take a while; silent unless stderr is a terminal. */
    Progress progress(String label, long total, String unit) {
        return new Progress(progressEnabled ? err : null, label, total, unit);
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** Events per second, rounded to a whole number; 0 when no time passed. */
    static String rate(long count, long nanos) {
        return nanos <= 0 ? "0" : Long.toString(Math.round(count / (nanos / 1e9)));
    }
}
