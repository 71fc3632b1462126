package org.fdbresolver.pipeline;

import java.util.Arrays;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.api.Phase;

/**
 * FoundationDB's resolver phases for one batch, around a {@link History}:
 * <ol>
 * <li>too old: a transaction with reads and a snapshot below {@code max(newOldestVersion, retained)};</li>
 * <li>{@code checkRead}: every read of the remaining transactions against the history (all of a
 * reporting transaction's reads; a non-reporting one stops at its first conflict, which decides the
 * same);</li>
 * <li>{@code sort}: endpoints of the still-undecided transactions' non-empty ranges, sorted and
 * numbered;</li>
 * <li>{@code checkIntraBatch}: in trace order, non-empty reads against the {@link MiniConflictSet} of
 * earlier committed writes; a committing transaction then sets its writes;</li>
 * <li>{@code combine}: the set's runs are the committed writes as disjoint sorted ranges;</li>
 * <li>{@code mergeWrite}: each range enters the history at {@code now};</li>
 * <li>{@code removeBefore}: history older than {@code newOldestVersion} is discarded.</li>
 * </ol>
 * Every scratch array is reused and grows only when a batch is larger than any before.
 */
public final class BatchPipeline {
    private static final byte UNDECIDED = -1;

    private final History history;
    private final HistoryReader reader;
    private final EndpointSorter sorter = new EndpointSorter();
    private final MiniConflictSet miniSet = new MiniConflictSet();
    private final long[] phaseNanos = new long[Phase.values().length];

    private byte[] state = new byte[64];
    private boolean[] historyConflict = new boolean[64];
    /** Reporting transactions' conflicting read indices: {@code reported[reportStart[t] ..)} for t with history conflicts. */
    private int[] reportStart = new int[64];
    private int[] reportCount = new int[64];
    private int[] reported = new int[64];
    private int reportedCount;
    private int[] intraRead = new int[64];
    private int[] readBeginId = new int[256];
    private int[] readEndId = new int[256];
    private int[] writeBeginId = new int[256];
    private int[] writeEndId = new int[256];

    public BatchPipeline(History history) {
        this(history, history);
    }

    /** A pipeline whose read check goes through {@code reader} (another read path over the same history). */
    public BatchPipeline(History history, HistoryReader reader) {
        this.history = history;
        this.reader = reader;
    }

    public void addPhaseNanos(long[] nanosByPhase) {
        for (int i = 0; i < phaseNanos.length; i++) {
            nanosByPhase[i] += phaseNanos[i];
        }
    }

    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        int n = batch.transactionCount();
        ensureTransactions(n);
        out.reset(n);
        byte[] keys = batch.keys();
        long oldest = Math.max(newOldestVersion, history.retainedVersion());

        // ---- too old, then every read against the history ----
        long t0 = System.nanoTime();
        reportedCount = 0;
        for (int t = 0; t < n; t++) {
            int rs = batch.readStart(t);
            int re = batch.readEnd(t);
            historyConflict[t] = false;
            reportCount[t] = 0;
            long snapshot = batch.readSnapshot(t);
            if (rs < re && snapshot < oldest) {
                state[t] = Decision.TOO_OLD_CODE;
                continue;
            }
            state[t] = UNDECIDED;
            boolean report = batch.reportConflictingKeys(t);
            reportStart[t] = reportedCount;
            for (int r = rs; r < re; r++) {
                if (reader.conflicts(keys, batch.readBeginOffset(r), batch.readBeginLength(r),
                        batch.readEndOffset(r), batch.readEndLength(r), snapshot)) {
                    historyConflict[t] = true;
                    state[t] = Decision.CONFLICT_CODE;
                    if (!report) {
                        break;
                    }
                    addReported(r - rs);
                    reportCount[t]++;
                }
            }
        }
        long t1 = System.nanoTime();
        phaseNanos[Phase.CHECK_READ.ordinal()] += t1 - t0;

        // ---- sort the endpoints of the undecided transactions' non-empty ranges ----
        sorter.reset(keys);
        ensureRanges(batch.readCount(), batch.writeCount());
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                continue;
            }
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                if (!isEmpty(keys, batch.readBeginOffset(r), batch.readBeginLength(r), batch.readEndOffset(r), batch.readEndLength(r))) {
                    readBeginId[r] = sorter.add(batch.readBeginOffset(r), batch.readBeginLength(r));
                    readEndId[r] = sorter.add(batch.readEndOffset(r), batch.readEndLength(r));
                } else {
                    readBeginId[r] = -1;
                }
            }
            for (int w = batch.writeStart(t), we = batch.writeEnd(t); w < we; w++) {
                if (!isEmpty(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w), batch.writeEndOffset(w), batch.writeEndLength(w))) {
                    writeBeginId[w] = sorter.add(batch.writeBeginOffset(w), batch.writeBeginLength(w));
                    writeEndId[w] = sorter.add(batch.writeEndOffset(w), batch.writeEndLength(w));
                } else {
                    writeBeginId[w] = -1;
                }
            }
        }
        sorter.sort();
        long t2 = System.nanoTime();
        phaseNanos[Phase.SORT.ordinal()] += t2 - t1;

        // ---- intra-batch, in trace order ----
        miniSet.reset(Math.max(0, sorter.distinctCount() - 1));
        for (int t = 0; t < n; t++) {
            if (state[t] != UNDECIDED) {
                continue;
            }
            intraRead[t] = -1;
            for (int r = batch.readStart(t), re = batch.readEnd(t); r < re; r++) {
                if (readBeginId[r] >= 0 && miniSet.any(sorter.rank(readBeginId[r]), sorter.rank(readEndId[r]))) {
                    intraRead[t] = r - batch.readStart(t);
                    break;
                }
            }
            if (intraRead[t] >= 0) {
                state[t] = Decision.CONFLICT_CODE;
                continue;
            }
            state[t] = Decision.COMMIT_CODE;
            for (int w = batch.writeStart(t), we = batch.writeEnd(t); w < we; w++) {
                if (writeBeginId[w] >= 0) {
                    miniSet.set(sorter.rank(writeBeginId[w]), sorter.rank(writeEndId[w]));
                }
            }
        }
        // ---- decisions and conflicting reads ----
        for (int t = 0; t < n; t++) {
            byte d = state[t];
            out.setDecision(t, d);
            if (d == Decision.CONFLICT_CODE && batch.reportConflictingKeys(t)) {
                out.beginConflictingReads(t);
                if (historyConflict[t]) {
                    for (int i = reportStart[t], e = i + reportCount[t]; i < e; i++) {
                        out.addConflictingRead(reported[i]);
                    }
                } else {
                    out.addConflictingRead(intraRead[t]);
                }
            }
        }
        long t3 = System.nanoTime();
        phaseNanos[Phase.CHECK_INTRA_BATCH.ordinal()] += t3 - t2;

        // ---- combine: runs of the set are the committed writes, disjoint and sorted ----
        int ranges = 0;
        long longKeyBytes = 0;
        int maxKeyLength = 0;
        int bits = Math.max(0, sorter.distinctCount() - 1);
        for (int from = miniSet.nextSet(0); from < bits; ) {
            int to = miniSet.nextClear(from);
            ranges++;
            int bl = sorter.keyLength(from);
            int el = sorter.keyLength(to);
            maxKeyLength = Math.max(maxKeyLength, Math.max(bl, el));
            longKeyBytes += longKeyBytes(bl) + longKeyBytes(el);
            from = miniSet.nextSet(to);
        }
        long t4 = System.nanoTime();
        phaseNanos[Phase.COMBINE.ordinal()] += t4 - t3;

        // ---- merge into the history at now ----
        if (ranges > 0) {
            history.prepareMerge(now, ranges, longKeyBytes, maxKeyLength);
            for (int from = miniSet.nextSet(0); from < bits; ) {
                int to = miniSet.nextClear(from);
                history.merge(keys, sorter.keyOffset(from), sorter.keyLength(from), sorter.keyOffset(to), sorter.keyLength(to), now);
                from = miniSet.nextSet(to);
            }
        }
        long t5 = System.nanoTime();
        phaseNanos[Phase.MERGE_WRITE.ordinal()] += t5 - t4;

        history.removeBefore(newOldestVersion, ranges);
        phaseNanos[Phase.REMOVE_BEFORE.ordinal()] += System.nanoTime() - t5;
    }

    /** Upper bound of the key-block bytes one stored key of {@code len} bytes takes (see the tree's KeyArena). */
    private static long longKeyBytes(int len) {
        return len <= 8 ? 0 : (4 + len + 7) & ~7;
    }

    private static boolean isEmpty(byte[] keys, int bOff, int bLen, int eOff, int eLen) {
        return bLen == eLen && (bOff == eOff || Arrays.equals(keys, bOff, bOff + bLen, keys, eOff, eOff + eLen));
    }

    private void addReported(int readIndex) {
        if (reportedCount == reported.length) {
            reported = Arrays.copyOf(reported, reportedCount * 2);
        }
        reported[reportedCount++] = readIndex;
    }

    private void ensureTransactions(int n) {
        if (state.length < n) {
            int m = Math.max(n, state.length * 2);
            state = new byte[m];
            historyConflict = new boolean[m];
            reportStart = new int[m];
            reportCount = new int[m];
            intraRead = new int[m];
        }
    }

    private void ensureRanges(int reads, int writes) {
        if (readBeginId.length < reads) {
            int m = Math.max(reads, readBeginId.length * 2);
            readBeginId = new int[m];
            readEndId = new int[m];
        }
        if (writeBeginId.length < writes) {
            int m = Math.max(writes, writeBeginId.length * 2);
            writeBeginId = new int[m];
            writeEndId = new int[m];
        }
    }
}
