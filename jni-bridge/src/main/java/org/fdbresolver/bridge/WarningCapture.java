package org.fdbresolver.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The engines' warnings (they log through {@link System.Logger}: a budget below 1 MiB, a batch whose writes did not
 * fit even into an empty history) go to the resolver whose call raised them, for the host to take
 * ({@code fdbr_take_warnings}) and put into its own log — for fdbserver, trace events — instead of the JVM's
 * stderr, which a server's operator never reads. In a JVM the bridge started itself they go nowhere else.
 */
final class WarningCapture extends Handler {
    private static final String ENGINES = "org.fdbresolver";
    /** Held: java.util.logging keeps loggers only weakly. */
    private static final Logger LOGGER = Logger.getLogger(ENGINES);
    /** Per thread, the resolver (or open in progress) warnings go to: one slot, set and cleared without allocating. */
    private static final ThreadLocal<Object[]> TARGET = ThreadLocal.withInitial(() -> new Object[1]);

    static {
        WarningCapture handler = new WarningCapture();
        handler.setLevel(Level.WARNING);
        handler.setFormatter(new SimpleFormatter());
        LOGGER.addHandler(handler);
        if (Boolean.getBoolean("fdbresolver.bridge.ownJvm")) {
            LOGGER.setUseParentHandlers(false);
        }
    }

    private WarningCapture() {
    }

    /** Warnings raised on this thread go to {@code resolver} until the next call (null: to the JVM's log). */
    static void current(NativeResolver resolver) {
        TARGET.get()[0] = resolver;
    }

    /**
     * This thread's slot: warnings raised on it go to the resolver in {@code slot[0]} (null: to the JVM's log). For a
     * caller that keeps it while the thread stays the same, to skip the thread-local look-up per batch.
     */
    static Object[] slot() {
        return TARGET.get();
    }

    /** Collects the warnings of an open until the resolver exists. */
    static Scope begin() {
        Scope scope = new Scope();
        TARGET.get()[0] = scope;
        return scope;
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        Object target = TARGET.get()[0];
        String text = getFormatter().formatMessage(record);
        if (target instanceof NativeResolver resolver) {
            resolver.warn(text);
        } else if (target instanceof Scope scope) {
            scope.warnings.add(text);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    /** The warnings of one open. */
    static final class Scope implements AutoCloseable {
        private final List<String> warnings = new ArrayList<>();

        void drainInto(NativeResolver resolver) {
            warnings.forEach(resolver::warn);
            warnings.clear();
        }

        @Override
        public void close() {
            TARGET.get()[0] = null;
        }
    }
}
