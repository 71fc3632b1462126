package org.fdbresolver.harness.cli;

import java.nio.file.Path;

/**
 * Names the input file in an error about its contents. The trace and decision readers, and the conflict set
 * that validates each batch, say where in a file the damage is ({@code batch 3: truncated message ...}) but
 * not which file: on a command line that names files, the error line should.
 */
final class InputError {
    private InputError() {
    }

    /**
     * {@code FILE: message} as a usage error (exit 2), or {@code e} itself when there is no file to name or
     * its message names the file already ({@code trace t.trace does not exist}).
     */
    static Exception naming(Path file, Exception e) {
        String message = e.getMessage() == null ? "unreadable" : e.getMessage();
        if (file == null || message.contains(file.toString())) {
            return e;
        }
        return new UsageException(file + ": " + message, e);
    }
}
