package org.fdbresolver.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.ConflictEngine;

/**
 * A planted bug for the fuzzer to find (FuzzerFindsPlantedBugTest): a copy of the reference engine
 * (org.fdbresolver.reference.ReferenceEngine) with one comparison wrong. In {@link #overlapsAny}, which checks a
 * read against the earlier committed writes of its batch, a write {@code [a, b)} is taken to overlap a read that
 * begins exactly at {@code b} ({@code >= 0} where the original has {@code > 0}): half-open ranges that only touch
 * conflict within a batch. Everything else is the reference engine, line for line. Test-only and not registered,
 * so no other test picks it up.
 */
final class PlantedBugEngine implements ConflictEngine {
    static final String NAME = "planted-bug";

    /** Disjoint history intervals by begin key: {@code [begin, end)} last written at {@code version}. */
    private final TreeMap<Key, Interval> history = new TreeMap<>();
    /** Interval begins by the version they were written at, so expired intervals are found without a scan. */
    private final TreeMap<Long, List<Key>> beginsByVersion = new TreeMap<>();
    private long oldestVersion;
    private long historyBytes;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
        int n = batch.transactionCount();
        out.reset(n);
        long oldest = Math.max(newOldestVersion, oldestVersion);
        byte[] keys = batch.keys();

        // Rules 1 and 2: too old, then reads against history (every read, for reporting).
        List<List<Integer>> historyConflicts = new ArrayList<>(n);
        for (int t = 0; t < n; t++) {
            List<Integer> conflicting = new ArrayList<>();
            historyConflicts.add(conflicting);
            int firstRead = batch.readStart(t);
            int readCount = batch.readEnd(t) - firstRead;
            long snapshot = batch.readSnapshot(t);
            if (readCount > 0 && snapshot < oldest) {
                out.setDecision(t, Decision.TOO_OLD_CODE);
                continue;
            }
            for (int i = 0; i < readCount; i++) {
                int r = firstRead + i;
                Key begin = Key.copy(keys, batch.readBeginOffset(r), batch.readBeginLength(r));
                Key end = Key.copy(keys, batch.readEndOffset(r), batch.readEndLength(r));
                if (readConflictsWithHistory(begin, end, snapshot)) {
                    conflicting.add(i);
                }
            }
            if (!conflicting.isEmpty()) {
                out.setDecision(t, Decision.CONFLICT_CODE);
            }
        }

        // Rule 3: intra-batch, in trace order, against writes of earlier committed transactions.
        TreeMap<Key, Key> batchWrites = new TreeMap<>();
        int[] firstIntraBatchHit = new int[n];
        Arrays.fill(firstIntraBatchHit, -1);
        for (int t = 0; t < n; t++) {
            if (out.decisionCode(t) != Decision.COMMIT_CODE) {
                continue;
            }
            int firstRead = batch.readStart(t);
            for (int r = firstRead; r < batch.readEnd(t); r++) {
                Key begin = Key.copy(keys, batch.readBeginOffset(r), batch.readBeginLength(r));
                Key end = Key.copy(keys, batch.readEndOffset(r), batch.readEndLength(r));
                if (begin.compareTo(end) < 0 && overlapsAny(batchWrites, begin, end)) {
                    firstIntraBatchHit[t] = r - firstRead;
                    break;
                }
            }
            if (firstIntraBatchHit[t] >= 0) {
                out.setDecision(t, Decision.CONFLICT_CODE);
                continue;
            }
            for (int w = batch.writeStart(t); w < batch.writeEnd(t); w++) {
                Key begin = Key.copy(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w));
                Key end = Key.copy(keys, batch.writeEndOffset(w), batch.writeEndLength(w));
                if (begin.compareTo(end) < 0) {
                    addToUnion(batchWrites, begin, end);
                }
            }
        }

        // Conflicting read ranges, for transactions that asked and conflicted.
        for (int t = 0; t < n; t++) {
            if (!batch.reportConflictingKeys(t) || out.decisionCode(t) != Decision.CONFLICT_CODE) {
                continue;
            }
            out.beginConflictingReads(t);
            if (!historyConflicts.get(t).isEmpty()) {
                for (int i : historyConflicts.get(t)) {
                    out.addConflictingRead(i);
                }
            } else {
                out.addConflictingRead(firstIntraBatchHit[t]);
            }
        }

        // Rule 4: committed writes enter the history at `now`, after every decision.
        for (int t = 0; t < n; t++) {
            if (out.decisionCode(t) != Decision.COMMIT_CODE) {
                continue;
            }
            for (int w = batch.writeStart(t); w < batch.writeEnd(t); w++) {
                Key begin = Key.copy(keys, batch.writeBeginOffset(w), batch.writeBeginLength(w));
                Key end = Key.copy(keys, batch.writeEndOffset(w), batch.writeEndLength(w));
                if (begin.compareTo(end) < 0) {
                    write(begin, end, now);
                }
            }
        }

        // Rule 5: history older than the oldest version can never conflict again.
        oldestVersion = oldest;
        removeBefore(oldest);
    }

    /** A read conflicts when a history interval written after the snapshot overlaps it (docs/formats.md, rule 2). */
    private boolean readConflictsWithHistory(Key begin, Key end, long snapshot) {
        int cmp = begin.compareTo(end);
        if (cmp == 0) {
            // Empty read [k, k): FoundationDB checks the version just below k, i.e. an interval with
            // begin < k <= end.
            Map.Entry<Key, Interval> below = history.lowerEntry(begin);
            return below != null && below.getValue().end.compareTo(begin) >= 0 && below.getValue().version > snapshot;
        }
        Map.Entry<Key, Interval> first = history.floorEntry(begin);
        if (first != null && first.getValue().end.compareTo(begin) > 0 && first.getValue().version > snapshot) {
            return true;
        }
        for (Interval i : history.subMap(begin, false, end, false).values()) {
            if (i.version > snapshot) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlapsAny(TreeMap<Key, Key> union, Key begin, Key end) {
        Map.Entry<Key, Key> floor = union.floorEntry(begin);
        if (floor != null && floor.getValue().compareTo(begin) >= 0) { // the planted bug: > 0 in the reference engine
            return true;
        }
        Key next = union.higherKey(begin);
        return next != null && next.compareTo(end) < 0;
    }

    /** Adds [begin, end) to a union of disjoint ranges, merging what it touches. */
    private static void addToUnion(TreeMap<Key, Key> union, Key begin, Key end) {
        Map.Entry<Key, Key> floor = union.floorEntry(begin);
        if (floor != null && floor.getValue().compareTo(begin) >= 0) {
            begin = floor.getKey();
            if (floor.getValue().compareTo(end) > 0) {
                end = floor.getValue();
            }
        }
        NavigableMap<Key, Key> covered = union.subMap(begin, true, end, true);
        for (Key e : covered.values()) {
            if (e.compareTo(end) > 0) {
                end = e;
            }
        }
        covered.clear();
        union.put(begin, end);
    }

    /** Overwrites [begin, end) with {@code version}, keeping the outer fragments of what it partly covers. */
    private void write(Key begin, Key end, long version) {
        Map.Entry<Key, Interval> left = history.lowerEntry(begin);
        if (left != null && left.getValue().end.compareTo(begin) > 0) {
            Interval cut = left.getValue();
            putInterval(left.getKey(), begin, cut.version);
            if (cut.end.compareTo(end) > 0) {
                putInterval(end, cut.end, cut.version);
            }
        }
        NavigableMap<Key, Interval> inside = history.subMap(begin, true, end, false);
        Map.Entry<Key, Interval> last = inside.lastEntry();
        if (last != null && last.getValue().end.compareTo(end) > 0) {
            putInterval(end, last.getValue().end, last.getValue().version);
        }
        for (Map.Entry<Key, Interval> e : inside.entrySet()) {
            historyBytes -= bytesOf(e.getKey(), e.getValue());
        }
        inside.clear();
        putInterval(begin, end, version);
    }

    private void putInterval(Key begin, Key end, long version) {
        Interval old = history.put(begin, new Interval(end, version));
        if (old != null) {
            historyBytes -= bytesOf(begin, old);
        }
        historyBytes += bytesOf(begin, history.get(begin));
        beginsByVersion.computeIfAbsent(version, v -> new ArrayList<>()).add(begin);
    }

    private void removeBefore(long oldest) {
        NavigableMap<Long, List<Key>> expired = beginsByVersion.headMap(oldest, false);
        for (Map.Entry<Long, List<Key>> e : expired.entrySet()) {
            for (Key begin : e.getValue()) {
                Interval i = history.get(begin);
                if (i != null && i.version == e.getKey()) {
                    history.remove(begin);
                    historyBytes -= bytesOf(begin, i);
                }
            }
        }
        expired.clear();
    }

    /** Payload bytes of one interval: both keys and the version (JVM object overhead not counted). */
    private static long bytesOf(Key begin, Interval i) {
        return begin.bytes.length + i.end.bytes.length + Long.BYTES;
    }

    @Override
    public void clear(long version) {
        history.clear();
        beginsByVersion.clear();
        historyBytes = 0;
        oldestVersion = Math.max(oldestVersion, version);
    }

    /** Key and version payload of the retained intervals; the reference engine has no budget. */
    @Override
    public long historyBytes() {
        return historyBytes;
    }

    @Override
    public long retainedVersion() {
        return oldestVersion;
    }

    private record Interval(Key end, long version) {
    }

    /** A key ordered as unsigned bytes. */
    private record Key(byte[] bytes) implements Comparable<Key> {
        static Key copy(byte[] src, int off, int len) {
            return new Key(Arrays.copyOfRange(src, off, off + len));
        }

        @Override
        public int compareTo(Key o) {
            return Arrays.compareUnsigned(bytes, o.bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
