package org.fdbresolver.harness.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.fdbresolver.harness.trace.DecisionHasher;

/**
 * What a command writes to: results on {@code out}, progress on {@code err} (when enabled). Result lines are
 * held until the command returns and printed only then: a command that fails prints its one error line and
 * nothing on stdout, however far it got.
 */
final class CommandContext {
    private final PrintStream out;
    private final PrintStream err;
    private final Progress.Mode progress;
    private final List<String> results = new ArrayList<>();

    CommandContext(PrintStream out, PrintStream err, Progress.Mode progress) {
        this.out = out;
        this.err = err;
        this.progress = progress;
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    /** Adds one result line, {@code name: value}, printed when the command returns. */
    void line(String name, Object value) {
        results.add(name + ": " + value);
    }

    /** The lines that say what a run decided: its hashes and counts, in the order every command prints them. */
    void decisionLines(DecisionHasher h) {
        line("decision-hash", h.decisionHash());
        line("conflicting-keys-hash", h.conflictingKeysHash());
        line("batches", h.batches());
        line("transactions", h.transactions());
        line("commit", h.commits());
        line("conflict", h.conflicts());
        line("too-old", h.tooOld());
    }

    /** Prints the result lines of a command that returned (rather than threw). */
    void printResults() {
        for (String line : results) {
            out.println(line);
        }
        results.clear();
        out.flush();
    }

    /** A progress display for work that may take a while: a bar on a terminal, lines elsewhere (or none). */
    Progress progress(String label, long total, String unit) {
        return new Progress(err, progress, label, total, unit);
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** Events per second, rounded to a whole number; 0 when no time passed. */
    static String rate(long count, long nanos) {
        return nanos <= 0 ? "0" : Long.toString(Math.round(count / (nanos / 1e9)));
    }
}
