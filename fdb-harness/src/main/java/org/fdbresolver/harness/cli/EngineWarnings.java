package org.fdbresolver.harness.cli;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The engines' warnings (a budget below 1 MiB, a batch whose writes did not fit) as {@code warning: ...} lines
 * on stderr, each text once per command. The engines log through {@link System.Logger}, which a host such as
 * fdbserver routes to its own log; left to the JDK's default, each would be two lines with a timestamp and a
 * class name, repeated for every engine a command opens ({@code bench} opens two, {@code demo} three or more).
 * Installed for one command and removed after it.
 */
final class EngineWarnings extends Handler implements AutoCloseable {
    /** The loggers of every engine and the pipeline live under this name. */
    private static final String ENGINES = "org.fdbresolver";

    private final Logger logger = Logger.getLogger(ENGINES);
    private final PrintStream err;
    private final boolean progress;
    private final Set<String> shown = new HashSet<>();
    private final boolean parentHandlers;

    /**
     * @param progress whether a progress bar may be on the current line (then it is erased first; it redraws)
     */
    EngineWarnings(PrintStream err, boolean progress) {
        this.err = err;
        this.progress = progress;
        setLevel(Level.WARNING);
        setFormatter(new SimpleFormatter());
        parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        logger.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        String text = getFormatter().formatMessage(record).replace('\n', ' ');
        if (shown.add(text)) {
            err.println((progress ? "\r\u001b[K" : "") + "warning: " + text);
            err.flush();
        }
    }

    @Override
    public void flush() {
        err.flush();
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setUseParentHandlers(parentHandlers);
    }
}
