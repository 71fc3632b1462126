package org.fdbresolver.api;

import java.util.Arrays;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.jfr.BatchRecorder;

/**
 * A resolver's conflict set: the write history of committed transactions and the engine that checks
 * batches against it (FoundationDB's {@code ConflictSet} with {@code ConflictBatch}).
 *
 * <pre>{@code
 * try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("tree").build())) {
 *     ConflictBatch batch = cs.newBatch();
 *     batch.addTransaction(readSnapshot, false);
 *     batch.addRead(begin, end);
 *     batch.addWrite(begin, end);
 *     BatchResult result = batch.detectConflicts(now, newOldestVersion);
 * }
 * }</pre>
 *
 * <p>Every batch is validated before any state changes (the rules of docs/formats.md); an invalid batch throws
 * {@link InvalidBatchException} naming the batch, the transaction and the range, and the conflict set is
 * left exactly as it was. Not thread-safe: one resolver thread drives it, as in FoundationDB.
 *
 * <p>After each batch it counts the decisions, splitting TOO_OLD into FoundationDB's (the transaction reads and
 * its snapshot is below {@code newOldestVersion}) and the budget's (the rest), from the batch and the decisions
 * alone, whatever the engine; {@link #stats()} reports them with the last batch's figures, and a Flight Recorder
 * event ({@link org.fdbresolver.jfr.BatchEvent}) carries them when a recording asks for it. None of this
 * allocates.
 */
public final class ConflictSet implements AutoCloseable {
    private final ConflictSetConfig config;
    private final ConflictEngine engine;

    private long batches;
    private long transactions;
    private long lastVersion = Long.MIN_VALUE;
    private long lastOldestVersion = Long.MIN_VALUE;

    private long commits;
    private long conflicts;
    private long tooOldFdb;
    private long tooOldBudget;
    // The last batch's figures (see BatchFigures), kept in fields: nothing is allocated per batch.
    private long lastNewOldestVersion;
    private int lastTransactions;
    private int lastCommits;
    private int lastConflicts;
    private int lastTooOldFdb;
    private int lastTooOldBudget;
    private long lastNanos;
    private final long[] phaseTotals = new long[Phase.values().length];
    private final long[] phaseScratch = new long[Phase.values().length];
    private final long[] lastPhaseNanos = new long[Phase.values().length];
    private final BatchRecorder recorder = new BatchRecorder();

    private ConflictSet(ConflictSetConfig config, ConflictEngine engine) {
        this.config = config;
        this.engine = engine;
    }

    public static ConflictSet open(ConflictSetConfig config) {
        return new ConflictSet(config, Engines.create(config));
    }

    /** Wraps an engine built elsewhere (tests, deliberately broken engines). */
    public static ConflictSet wrap(ConflictSetConfig config, ConflictEngine engine) {
        return new ConflictSet(config, engine);
    }

    public ConflictBatch newBatch() {
        return new ConflictBatch(this);
    }

    public ConflictSetConfig config() {
        return config;
    }

    public String engineName() {
        return engine.name();
    }

    /**
     * Validates the batch, then decides it into {@code out}.
     *
     * @throws InvalidBatchException if the batch breaks a validity rule; nothing changed
     */
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        long start = System.nanoTime();
        recorder.begin();
        boolean decided = false;
        try {
            validate(batch, now, newOldestVersion);
            engine.detectConflicts(batch, now, newOldestVersion, out);
            decided = true;
        } finally {
            if (!decided) {
                recorder.abandon();
            }
        }
        lastVersion = now;
        lastOldestVersion = newOldestVersion;
        batches++;
        transactions += batch.transactionCount();
        countDecisions(batch, newOldestVersion, out);
        lastNanos = System.nanoTime() - start;
        if (recorder.recording()) {
            recorder.commit(engine.name(), now, newOldestVersion, engine.retainedVersion(), engine.historyBytes(),
                    config.memoryBudgetBytes(), lastTransactions, lastCommits, lastConflicts, lastTooOldFdb,
                    lastTooOldBudget, lastPhaseNanos);
        }
    }

    /** The batch's decisions into the counters and the last batch's figures; its phase times from the engine's totals. */
    private void countDecisions(ConflictBatch batch, long newOldestVersion, BatchResult out) {
        int n = batch.transactionCount();
        int commit = 0;
        int conflict = 0;
        int fdb = 0;
        int budget = 0;
        for (int t = 0; t < n; t++) {
            byte d = out.decisionCode(t);
            if (d == Decision.COMMIT_CODE) {
                commit++;
            } else if (d == Decision.CONFLICT_CODE) {
                conflict++;
            } else if (batch.readStart(t) < batch.readEnd(t) && batch.readSnapshot(t) < newOldestVersion) {
                fdb++;
            } else {
                budget++;
            }
        }
        commits += commit;
        conflicts += conflict;
        tooOldFdb += fdb;
        tooOldBudget += budget;
        lastNewOldestVersion = newOldestVersion;
        lastTransactions = n;
        lastCommits = commit;
        lastConflicts = conflict;
        lastTooOldFdb = fdb;
        lastTooOldBudget = budget;
        Arrays.fill(phaseScratch, 0);
        engine.addPhaseNanos(phaseScratch);
        for (int i = 0; i < phaseScratch.length; i++) {
            lastPhaseNanos[i] = phaseScratch[i] - phaseTotals[i];
            phaseTotals[i] = phaseScratch[i];
        }
    }

    /**
     * The last batch's time in {@link #detectConflicts} (validation, engine, counting) in nanoseconds, 0 before the
     * first: what {@code stats().lastBatch().nanos()} says, without allocating (the JNI bridge reads it per batch).
     */
    public long lastBatchNanos() {
        return lastNanos;
    }

    /** Forgets the history; reads older than {@code version} are TOO_OLD from now on. */
    public void clear(long version) {
        engine.clear(version);
        lastOldestVersion = Math.max(lastOldestVersion, version);
    }

    /**
     * Copies the last batch's time per {@link Phase} (by ordinal, as in {@link BatchFigures#phaseNanos}) into
     * {@code into} from {@code offset}, without allocating ({@link #stats()} allocates): for a benchmark that keeps
     * every batch's phases.
     */
    public void lastPhaseNanos(long[] into, int offset) {
        System.arraycopy(lastPhaseNanos, 0, into, offset, lastPhaseNanos.length);
    }

    public ConflictSetStats stats() {
        long[] phases = new long[Phase.values().length];
        engine.addPhaseNanos(phases);
        BatchFigures last = new BatchFigures(batches == 0 ? 0 : lastVersion, lastNewOldestVersion, lastTransactions,
                lastCommits, lastConflicts, lastTooOldFdb, lastTooOldBudget, lastNanos, lastPhaseNanos.clone());
        return new ConflictSetStats(engine.name(), batches, transactions, engine.historyBytes(),
                config.memoryBudgetBytes(), engine.retainedVersion(), phases, commits, conflicts, tooOldFdb, tooOldBudget,
                engine.forgottenBatches(), engine.fullSweepEvictions(), last);
    }

    /** The engine behind this conflict set, for harness code that drives engines directly. */
    public ConflictEngine engine() {
        return engine;
    }

    @Override
    public void close() {
        engine.close();
    }

    private void validate(ConflictBatch batch, long now, long newOldestVersion) {
        if (now < 0) {
            throw invalid(now, "version is negative");
        }
        if (newOldestVersion < 0) {
            throw invalid(now, "new_oldest_version " + newOldestVersion + " is negative");
        }
        if (batches > 0 && now <= lastVersion) {
            throw invalid(now, "version does not increase (previous batch has version " + lastVersion + ")");
        }
        if (batches > 0 && newOldestVersion < lastOldestVersion) {
            throw invalid(now, "new_oldest_version " + newOldestVersion + " is smaller than the previous batch's "
                    + lastOldestVersion);
        }
        if (newOldestVersion > now) {
            throw invalid(now, "new_oldest_version " + newOldestVersion + " is greater than version " + now);
        }
        for (int t = 0, n = batch.transactionCount(); t < n; t++) {
            validateTransaction(batch, t, now);
        }
    }

    /** One method per transaction, so the JIT compiles it early though validate runs once per batch. */
    private void validateTransaction(ConflictBatch batch, int t, long now) {
        byte[] keys = batch.keys();
        int maxKey = config.maxKeyBytes();
        int first = batch.readStart(t);
        for (int r = first, end = batch.readEnd(t); r < end; r++) {
            checkRange(now, t, "read", r - first, keys, maxKey,
                    batch.readBeginOffset(r), batch.readBeginLength(r), batch.readEndOffset(r), batch.readEndLength(r));
        }
        first = batch.writeStart(t);
        for (int w = first, end = batch.writeEnd(t); w < end; w++) {
            checkRange(now, t, "write", w - first, keys, maxKey,
                    batch.writeBeginOffset(w), batch.writeBeginLength(w), batch.writeEndOffset(w), batch.writeEndLength(w));
        }
    }

    private void checkRange(long now, int t, String kind, int index, byte[] keys, int maxKey,
                            int bOff, int bLen, int eOff, int eLen) {
        if (bLen > maxKey || eLen > maxKey) {
            throw invalid(now, "transaction " + t + ": " + kind + " range " + index + " has a key of "
                    + Math.max(bLen, eLen) + " bytes, over the limit of " + maxKey + " bytes");
        }
        if (Keys.compare(keys, bOff, bLen, keys, eOff, eLen) > 0) {
            throw invalid(now, "transaction " + t + ": " + kind + " range " + index + " ["
                    + Keys.format(keys, bOff, bLen) + ", " + Keys.format(keys, eOff, eLen) + ") is inverted (begin > end)");
        }
    }

    private InvalidBatchException invalid(long now, String what) {
        String where = "batch " + batches + " (version " + now + ")";
        return new InvalidBatchException(where + (what.startsWith("transaction") ? " " : ": ") + what);
    }
}
