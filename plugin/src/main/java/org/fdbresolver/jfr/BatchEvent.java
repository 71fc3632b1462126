package org.fdbresolver.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One batch decided by a conflict set, as a JDK Flight Recorder event ({@value #NAME}): its duration is the
 * whole {@code detectConflicts} call (validation included). Field names are the names a recording's reader
 * ({@code jfr print --events org.fdbresolver.Batch}, JDK Mission Control, {@code RecordedEvent.getLong})
 * uses; docs/retention.md lists them. Versions are FoundationDB's, 1,000,000 per second, so the retained age
 * (versions) is shown as microseconds.
 */
@Name(BatchEvent.NAME)
@Label("Resolver Batch")
@Category({"FoundationDB", "Resolver"})
@Description("One batch decided by an fdbresolver conflict set: decisions, TOO_OLD causes, history kept, time per phase")
@StackTrace(false)
public final class BatchEvent extends Event {
    public static final String NAME = "org.fdbresolver.Batch";

    @Label("Engine")
    String engine;

    @Label("Version")
    @Description("The batch's commit version")
    long version;

    @Label("New Oldest Version")
    @Description("Reads below it are TOO_OLD in FoundationDB too")
    long newOldestVersion;

    @Label("Retained Version")
    @Description("The engine's oldest checkable version after the batch: reads below it are TOO_OLD")
    long retainedVersion;

    @Label("Retained Age")
    @Description("Version minus retained version: how far back reads are still checked (versions, one per microsecond)")
    @Timespan(Timespan.MICROSECONDS)
    long retainedAge;

    @Label("History")
    @Description("Bytes the history holds after the batch, as the memory budget counts them")
    @DataAmount
    long historyBytes;

    @Label("Memory Budget")
    @DataAmount
    long memoryBudgetBytes;

    @Label("Transactions")
    int transactions;

    @Label("Committed")
    int commits;

    @Label("Conflicts")
    int conflicts;

    @Label("Too Old (FoundationDB)")
    @Description("TOO_OLD answers FoundationDB gives too: reads and a snapshot below the new oldest version")
    int tooOldFdb;

    @Label("Too Old (Budget)")
    @Description("TOO_OLD answers only the memory budget caused")
    int tooOldBudget;

    @Label("Sort")
    @Timespan(Timespan.NANOSECONDS)
    long sortTime;

    @Label("Check Reads")
    @Timespan(Timespan.NANOSECONDS)
    long checkReadTime;

    @Label("Check Intra-Batch")
    @Timespan(Timespan.NANOSECONDS)
    long checkIntraBatchTime;

    @Label("Combine Writes")
    @Timespan(Timespan.NANOSECONDS)
    long combineTime;

    @Label("Merge Writes")
    @Timespan(Timespan.NANOSECONDS)
    long mergeWriteTime;

    @Label("Remove Before")
    @Timespan(Timespan.NANOSECONDS)
    long removeBeforeTime;
}
