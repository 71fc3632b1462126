package org.fdbresolver.harness.trace;

/** The format strings that open every trace and decision file (docs/formats.md). */
public final class TraceFormats {
    /** {@code TraceHeader.format} of every version-1 trace. */
    public static final String TRACE = "fdb-resolver-trace/1";
    /** {@code DecisionHeader.format} of every version-1 decision file. */
    public static final String DECISIONS = "fdb-resolver-decisions/1";

    private TraceFormats() {
    }
}
