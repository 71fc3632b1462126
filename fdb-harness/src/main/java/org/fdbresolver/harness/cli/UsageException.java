package org.fdbresolver.harness.cli;

/** The command line or its input is wrong: reported as one {@code error:} line, exit code 2. */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }

    UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
