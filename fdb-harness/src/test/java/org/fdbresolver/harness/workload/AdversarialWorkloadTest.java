package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The adversarial trace contains every edge case it promises, for any seed. */
class AdversarialWorkloadTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 99})
    void containsEveryListedFeature(long seed) {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("adversarial", seed, 40, Map.of()));
        TraceChecks.assertValid(batches);
        Set<String> seen = new HashSet<>();
        Set<ByteString> keys = new HashSet<>();
        int transactions = 0;
        int reported = 0;
        for (Batch b : batches) {
            long oldest = b.getNewOldestVersion();
            if (b.getTransactionsCount() == 0) {
                seen.add("empty batch");
            }
            if (oldest == b.getVersion()) {
                seen.add("oldest at version");
            }
            for (Transaction tx : b.getTransactionsList()) {
                transactions++;
                reported += tx.getReportConflictingKeys() ? 1 : 0;
                boolean reads = tx.getReadsCount() > 0;
                long snap = tx.getReadSnapshot();
                if (reads && snap == oldest && oldest > 0) {
                    seen.add("snapshot at oldest");
                }
                if (reads && snap == oldest - 1 && oldest > 0) {
                    seen.add("snapshot one below oldest");
                }
                if (!reads && tx.getWritesCount() > 0 && snap < oldest) {
                    seen.add("write-only with old snapshot");
                }
                if (snap < 0) {
                    seen.add(reads ? "negative snapshot with reads" : "negative snapshot without reads");
                }
                List<KeyRange> all = new ArrayList<>(tx.getReadsList());
                all.addAll(tx.getWritesList());
                for (KeyRange r : tx.getReadsList()) {
                    if (r.getBegin().equals(r.getEnd())) {
                        seen.add("empty read");
                    }
                }
                for (KeyRange r : tx.getWritesList()) {
                    if (r.getBegin().equals(r.getEnd())) {
                        seen.add("empty write");
                    }
                }
                for (KeyRange r : all) {
                    keys.add(r.getBegin());
                    keys.add(r.getEnd());
                }
                if (hasDuplicate(tx.getReadsList()) || hasDuplicate(tx.getWritesList())) {
                    seen.add("duplicate ranges");
                }
                if (hasOverlapOfDistinct(tx.getReadsList()) || hasOverlapOfDistinct(tx.getWritesList())) {
                    seen.add("overlapping ranges");
                }
            }
            if (hasChain(b, 3)) {
                seen.add("chain");
            }
        }
        for (ByteString k : keys) {
            if (k.isEmpty()) {
                seen.add("empty key");
            }
            if (k.size() >= 10_240) {
                seen.add("10 KB key");
            }
            for (int i = 0; i < k.size(); i++) {
                if (k.byteAt(i) == 0) {
                    seen.add("0x00 byte");
                }
                if (k.byteAt(i) == (byte) 0xFF) {
                    seen.add("0xFF byte");
                }
            }
            if (!k.isEmpty()) {
                for (ByteString other : keys) {
                    if (other.size() > k.size() && other.startsWith(k)) {
                        seen.add("prefix keys");
                    }
                }
            }
        }
        double fraction = reported / (double) transactions;
        assertTrue(fraction > 0.15 && fraction < 0.45, "report fraction near 0.3: " + fraction);
        for (String feature : List.of("empty batch", "oldest at version", "snapshot at oldest",
                "snapshot one below oldest", "write-only with old snapshot", "negative snapshot with reads",
                "negative snapshot without reads", "empty read", "empty write", "duplicate ranges",
                "overlapping ranges", "chain", "empty key", "10 KB key", "0x00 byte", "0xFF byte", "prefix keys")) {
            assertTrue(seen.contains(feature), "seed " + seed + " lacks: " + feature + " (saw " + seen + ")");
        }
    }

    private static boolean hasDuplicate(List<KeyRange> ranges) {
        return new HashSet<>(ranges).size() < ranges.size();
    }

    private static boolean hasOverlapOfDistinct(List<KeyRange> ranges) {
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = i + 1; j < ranges.size(); j++) {
                KeyRange a = ranges.get(i);
                KeyRange c = ranges.get(j);
                if (!a.equals(c) && overlaps(a, c)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean overlaps(KeyRange a, KeyRange c) {
        return TraceChecks.compare(a.getBegin(), c.getEnd()) < 0 && TraceChecks.compare(c.getBegin(), a.getEnd()) < 0;
    }

    /** Consecutive transactions t, t+1, ... where each reads over a point the previous one wrote. */
    private static boolean hasChain(Batch b, int length) {
        int run = 1;
        for (int t = 1; t < b.getTransactionsCount(); t++) {
            Transaction prev = b.getTransactions(t - 1);
            Transaction cur = b.getTransactions(t);
            boolean linked = false;
            for (KeyRange w : prev.getWritesList()) {
                for (KeyRange r : cur.getReadsList()) {
                    linked |= overlaps(w, r);
                }
            }
            run = linked ? run + 1 : 1;
            if (run >= length) {
                return true;
            }
        }
        return false;
    }
}
