package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edge workload's mixed-keys shape gives what issue 17 asks of the fuzzer: keys of 0 bytes to 10 KiB (a point
 * range's end, its key and a 0x00 byte, one more), in every length class, long ones sharing long prefixes.
 */
class EdgeWorkloadTest {
    /** A fuzz case of mixed-keys: 20,000 transactions at about 12 a batch (FuzzShapes, ShortFuzzTest's case size). */
    static final long FUZZ_CASE_BATCHES = 20_000 / 12 + 1;

    @ParameterizedTest
    @ValueSource(longs = {1, 20261210, 20261228})
    void mixedKeysRunFromEmptyToTenKibibytes(long seed) {
        Workload w = TraceChecks.create("edge", seed, FUZZ_CASE_BATCHES, Map.of("shape", "mixed-keys"));
        long[] byClass = new long[6]; // 0, 1-32, 33-512, 513-4096, 4097-10239, 10240
        int longest = 0;
        long keys = 0;
        long longKeysExtendingAnother = 0;
        ByteString previousLong = null;
        for (Batch b; (b = w.nextBatch()) != null; ) {
            for (Transaction tx : b.getTransactionsList()) {
                for (int side = 0; side < 2; side++) {
                    for (KeyRange r : side == 0 ? tx.getReadsList() : tx.getWritesList()) {
                        // A point's end is its key and a 0x00 byte: the key is its begin.
                        boolean point = TraceChecks.isPoint(r);
                        for (ByteString k : point ? new ByteString[] {r.getBegin()} : new ByteString[] {r.getBegin(), r.getEnd()}) {
                            int n = k.size();
                            keys++;
                            longest = Math.max(longest, n);
                            byClass[n == 0 ? 0 : n <= 32 ? 1 : n <= 512 ? 2 : n <= 4096 ? 3 : n < 10_240 ? 4 : 5]++;
                            if (n > 4096) {
                                // Long keys are cut from three stems: they share long prefixes with each other.
                                if (previousLong != null && sharedPrefix(previousLong, k) >= 4096) {
                                    longKeysExtendingAnother++;
                                }
                                previousLong = k;
                            }
                        }
                    }
                }
            }
        }
        String seen = "seed " + seed + ": " + keys + " keys, longest " + longest + " bytes, by length class "
                + java.util.Arrays.toString(byClass);
        assertTrue(byClass[0] > 0, "no empty key; " + seen);
        for (int c = 1; c <= 4; c++) {
            assertTrue(byClass[c] > 0, "no key in length class " + c + "; " + seen);
        }
        assertTrue(longest <= EdgeWorkload.LONGEST_KEY, "a key over 10 KiB; " + seen);
        assertEquals(10_240, EdgeWorkload.LONGEST_KEY);
        // Uniform lengths over 4097..10240 for 5 % of keys: over 40,000 keys, some reach the last 40 bytes.
        assertTrue(longest > 10_200, "no key reaches 10 KiB; " + seen);
        assertTrue(longKeysExtendingAnother > 0, "no two long keys share a 4 KiB prefix; " + seen);
    }

    private static int sharedPrefix(ByteString a, ByteString b) {
        int n = Math.min(a.size(), b.size());
        int i = 0;
        while (i < n && a.byteAt(i) == b.byteAt(i)) {
            i++;
        }
        return i;
    }
}
