package org.fdbresolver.harness.trace;

import java.io.IOException;

/**
 * A file is not a well-formed trace or decision file: bad framing, a truncated or malformed message, a wrong
 * header. The message names where (the header or {@code batch N}) and what, in one line, for example
 * {@code batch 3: truncated message: wanted 176 bytes, got 88}.
 */
public final class TraceFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public TraceFormatException(String message) {
        super(message);
    }

    public TraceFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
