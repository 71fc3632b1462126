package org.fdbresolver.tree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rules of docs/formats.md written as plainly as possible: the history is a list of (begin, end, version)
 * writes, every read is checked against every write. Optionally applies an engine's retained boundary
 * to the too-old rule, so that a budgeted engine can be compared transaction by transaction.
 */
final class BruteForceOracle {
    record Write(byte[] begin, byte[] end, long version) {
    }

    record Range(byte[] begin, byte[] end) {
        boolean empty() {
            return Arrays.equals(begin, end);
        }
    }

    record Tx(long snapshot, List<Range> reads, List<Range> writes, boolean report) {
    }

    /** Decisions (0 commit, 1 conflict, 2 too old) and, per transaction, the reported read indices or null. */
    record Result(byte[] decisions, List<int[]> conflictingReads) {
    }

    final List<Write> history = new ArrayList<>();

    static int cmp(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    boolean conflictsWithHistory(Range r, long snapshot) {
        for (Write w : history) {
            if (w.version <= snapshot) {
                continue;
            }
            if (r.empty()) {
                if (cmp(w.begin, r.begin) < 0 && cmp(r.begin, w.end) <= 0) {
                    return true;
                }
            } else if (cmp(w.begin, r.end) < 0 && cmp(r.begin, w.end) < 0) {
                return true;
            }
        }
        return false;
    }

    Result detect(List<Tx> txs, long now, long oldest, long retained) {
        long tooOldBelow = Math.max(oldest, retained);
        int n = txs.size();
        byte[] d = new byte[n];
        List<int[]> reports = new ArrayList<>();
        List<Range> committed = new ArrayList<>();
        List<Write> added = new ArrayList<>();
        boolean[] histConflict = new boolean[n];
        List<int[]> histReads = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            Tx tx = txs.get(t);
            histReads.add(null);
            if (!tx.reads.isEmpty() && tx.snapshot < tooOldBelow) {
                d[t] = 2;
                continue;
            }
            List<Integer> hits = new ArrayList<>();
            for (int i = 0; i < tx.reads.size(); i++) {
                if (conflictsWithHistory(tx.reads.get(i), tx.snapshot)) {
                    hits.add(i);
                }
            }
            if (!hits.isEmpty()) {
                d[t] = 1;
                histConflict[t] = true;
                histReads.set(t, hits.stream().mapToInt(Integer::intValue).toArray());
            }
        }
        for (int t = 0; t < n; t++) {
            Tx tx = txs.get(t);
            reports.add(null);
            if (d[t] != 0) {
                if (d[t] == 1 && tx.report) {
                    reports.set(t, histReads.get(t));
                }
                continue;
            }
            int hit = -1;
            for (int i = 0; i < tx.reads.size() && hit < 0; i++) {
                Range r = tx.reads.get(i);
                if (r.empty()) {
                    continue;
                }
                for (Range w : committed) {
                    if (!w.empty() && cmp(w.begin, r.end) < 0 && cmp(r.begin, w.end) < 0) {
                        hit = i;
                        break;
                    }
                }
            }
            if (hit >= 0) {
                d[t] = 1;
                if (tx.report) {
                    reports.set(t, new int[] {hit});
                }
                continue;
            }
            for (Range w : tx.writes) {
                committed.add(w);
                if (!w.empty()) {
                    added.add(new Write(w.begin, w.end, now));
                }
            }
        }
        history.addAll(added);
        history.removeIf(w -> w.version < oldest);
        return new Result(d, reports);
    }
}
