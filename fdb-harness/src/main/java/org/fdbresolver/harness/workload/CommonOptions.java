package org.fdbresolver.harness.workload;

/** Options that several workloads share, with the same name and meaning everywhere. */
final class CommonOptions {
    static final String REPORT_FRACTION = "report-fraction";
    static final String WINDOW = "window";

    /** The stream id of the report-flag draws, kept apart so the flags never shift the keys. */
    static final long REPORT_STREAM = 0x5245504f5254L; // "REPORT"

    private CommonOptions() {
    }

    static WorkloadOption reportFraction(String defaultValue) {
        return new WorkloadOption(REPORT_FRACTION, defaultValue,
                "fraction of transactions with report_conflicting_keys set, in [0, 1]");
    }

    static WorkloadOption window(String defaultValue) {
        return new WorkloadOption(WINDOW, defaultValue,
                "versions of history kept: new_oldest_version = max(0, version - window)");
    }
}
