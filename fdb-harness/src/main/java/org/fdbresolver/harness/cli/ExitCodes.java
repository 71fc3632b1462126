package org.fdbresolver.harness.cli;

/** What the process's exit status means. */
final class ExitCodes {
    /** Success; for {@code diff} and {@code demo}, also "the same". */
    static final int OK = 0;
    /** The command ran and the answer is "no": {@code diff} found differences, {@code demo}'s engines disagree. */
    static final int DIFFERENT = 1;
    /**
     * Bad usage or bad input: unknown option, bad value, missing file, malformed trace, invalid batch, a file
     * that cannot be read or written (a directory, a full device).
     */
    static final int USAGE = 2;
    /** The run failed for a reason that is not the user's: out of memory, an internal error (a bug). */
    static final int FAILURE = 3;

    private ExitCodes() {
    }
}
