package org.fdbresolver.jfr;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import org.fdbresolver.api.Phase;

/**
 * Emits one {@link BatchEvent} per batch when a Flight Recorder recording wants it, and costs nothing
 * otherwise: until Flight Recorder has been started in this JVM ({@code -XX:StartFlightRecording}, {@code jcmd
 * JFR.start}, JDK Mission Control) {@link #begin()} is one volatile read and allocates nothing; after that,
 * it asks the event's type whether a recording enables {@value BatchEvent#NAME}, and makes an event object only
 * then. A Java runtime without the
 * {@code jdk.jfr} module (a jlink'd one) never touches its classes.
 *
 * <p>One recorder per conflict set, used by its one resolving thread: {@code begin()} before the batch,
 * {@code commit(...)} after it, or {@code abandon()} when the batch failed.
 */
public final class BatchRecorder {
    private static final boolean JFR_PRESENT = ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    /** The event's type, looked up once Flight Recorder runs (a benign race: every thread finds the same). */
    private static EventType batchEventType;

    private BatchEvent event;

    /** Starts timing a batch, when a recording could take its event. */
    public void begin() {
        if (JFR_PRESENT && FlightRecorder.isInitialized()) {
            beginEvent();
        }
    }

    private void beginEvent() {
        EventType type = batchEventType;
        if (type == null) {
            type = EventType.getEventType(BatchEvent.class); // registers the event with the recorder, once
            batchEventType = type;
        }
        // Asking the type, not a new event, keeps a recording of other events from costing an object per batch.
        if (type.isEnabled()) {
            BatchEvent e = new BatchEvent();
            e.begin();
            event = e;
        }
    }

    /** Whether the batch begun is being recorded (its figures are wanted). */
    public boolean recording() {
        return event != null;
    }

    /** Forgets the batch begun (it failed: nothing is recorded). */
    public void abandon() {
        event = null;
    }

    /**
     * Records the batch begun, if a recording takes it.
     *
     * @param phaseNanos this batch's time per {@link Phase}, by ordinal
     */
    public void commit(String engine, long version, long newOldestVersion, long retainedVersion, long historyBytes,
                       long memoryBudgetBytes, int transactions, int commits, int conflicts, int tooOldFdb, int tooOldBudget,
                       long[] phaseNanos) {
        BatchEvent e = event;
        if (e == null) {
            return;
        }
        event = null;
        e.end();
        if (!e.shouldCommit()) {
            return;
        }
        e.engine = engine;
        e.version = version;
        e.newOldestVersion = newOldestVersion;
        e.retainedVersion = retainedVersion;
        e.retainedAge = version - retainedVersion;
        e.historyBytes = historyBytes;
        e.memoryBudgetBytes = memoryBudgetBytes;
        e.transactions = transactions;
        e.commits = commits;
        e.conflicts = conflicts;
        e.tooOldFdb = tooOldFdb;
        e.tooOldBudget = tooOldBudget;
        e.sortTime = phaseNanos[Phase.SORT.ordinal()];
        e.checkReadTime = phaseNanos[Phase.CHECK_READ.ordinal()];
        e.checkIntraBatchTime = phaseNanos[Phase.CHECK_INTRA_BATCH.ordinal()];
        e.combineTime = phaseNanos[Phase.COMBINE.ordinal()];
        e.mergeWriteTime = phaseNanos[Phase.MERGE_WRITE.ordinal()];
        e.removeBeforeTime = phaseNanos[Phase.REMOVE_BEFORE.ordinal()];
        e.commit();
    }
}
