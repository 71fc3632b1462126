package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

class LongTraceWorkloadTest {

    @Test
    void versionsAdvance31250AndOldestTrailsByTheWindow() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("longtrace", 1, 4, Map.of("txns", "50")));
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            assertEquals(1_000_000_000_000L + 31_250L * i, b.getVersion());
            assertEquals(b.getVersion() - 5_000_000, b.getNewOldestVersion());
            assertEquals(50, b.getTransactionsCount());
        }
        Workload small = TraceChecks.create("longtrace", 1, 2, Map.of("txns", "5", "base-version", "0"));
        assertEquals(0, small.nextBatch().getNewOldestVersion(), "oldest is clamped at 0");
    }

    @Test
    void lagsAreHeavyTailedAndBoundedByTheWindow() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("longtrace", 2, 20,
                Map.of("txns", "1000", "too-old-fraction", "0.01")));
        int tooOld = 0;
        int atOldest = 0;
        int withinOneBatch = 0;
        int beyondTenBatches = 0;
        int total = 0;
        for (Batch b : batches) {
            for (Transaction tx : b.getTransactionsList()) {
                total++;
                long lag = b.getVersion() - tx.getReadSnapshot();
                assertTrue(lag >= 0, "no reads from the future");
                if (tx.getReadSnapshot() < b.getNewOldestVersion()) {
                    tooOld++;
                    assertTrue(lag <= 5_000_000 + 31_250, "too-old reads sit just below oldest: " + lag);
                } else {
                    assertTrue(lag <= 5_000_000);
                }
                atOldest += tx.getReadSnapshot() == b.getNewOldestVersion() ? 1 : 0;
                withinOneBatch += lag <= 31_250 ? 1 : 0;
                beyondTenBatches += lag > 312_500 ? 1 : 0;
                assertTrue(tx.getReadsCount() + tx.getWritesCount() >= 1);
                assertTrue(tx.getReadsCount() <= 4 && tx.getWritesCount() <= 3);
            }
        }
        // Lomax(alpha 1, scale 31,250): P(lag <= scale) = 1/2, P(lag > 10 scale) = 1/11, P(capped) ~ 0.6%.
        assertTrue(tooOld > total / 200 && tooOld < total / 50, "too old " + tooOld + " of " + total);
        assertTrue(atOldest > 0, "some lags are capped at the window");
        assertTrue(withinOneBatch > total * 0.4 && withinOneBatch < total * 0.6, "within one batch " + withinOneBatch);
        assertTrue(beyondTenBatches > total * 0.06 && beyondTenBatches < total * 0.12, "beyond ten " + beyondTenBatches);
    }

    @Test
    void keysAreSkewedTowardsTheHotSet() {
        List<Batch> batches = TraceChecks.drain(TraceChecks.create("longtrace", 3, 10, Map.of("txns", "1000")));
        Map<Long, Integer> counts = new HashMap<>();
        int ranges = 0;
        int spans = 0;
        for (Batch b : batches) {
            for (Transaction tx : b.getTransactionsList()) {
                for (KeyRange r : java.util.stream.Stream.concat(tx.getReadsList().stream(),
                        tx.getWritesList().stream()).toList()) {
                    ranges++;
                    assertEquals(8, r.getBegin().size());
                    long k = TraceChecks.bigEndian(r.getBegin());
                    assertTrue(k < 10_000_000);
                    counts.merge(k, 1, Integer::sum);
                    spans += TraceChecks.isPoint(r) ? 0 : 1;
                }
            }
        }
        int top = counts.values().stream().max(Integer::compare).orElseThrow();
        // The top hot key takes ~0.4% of hot draws (Zipf 0.6 over 100,000), ~0.16% of all; a uniform
        // draw over 10,000,000 keys would repeat a key a handful of times at most.
        assertTrue(top > ranges / 2000 && top < ranges / 200, "hottest key drawn " + top + " times of " + ranges);
        assertTrue(spans > ranges / 20 && spans < ranges / 5, "about a tenth are spans: " + spans + " of " + ranges);
    }

    @Test
    void zipfCdfIsMonotoneAndEndsAtOne() {
        double[] cdf = LongTraceWorkload.zipfCdf(1000, 0.8);
        for (int i = 1; i < cdf.length; i++) {
            assertTrue(cdf[i] > cdf[i - 1]);
        }
        assertEquals(1.0, cdf[cdf.length - 1], 1e-12);
        assertEquals(1, LongTraceWorkload.coprimeStride(1));
        long s = LongTraceWorkload.coprimeStride(10_000_000);
        assertTrue(s % 2 != 0 && s % 5 != 0);
    }

    @Test
    void keysTakeTheLengthAndSharedPrefixAskedAndKeepTheirOrder() {
        List<Batch> plain = TraceChecks.drain(TraceChecks.create("longtrace", 5, 3, Map.of("txns", "200")));
        List<Batch> explicit = TraceChecks.drain(TraceChecks.create("longtrace", 5, 3,
                Map.of("txns", "200", "key-length", "8", "key-prefix", "0")));
        assertEquals(plain, explicit, "the defaults are the 8-byte big-endian keys");
        Workload w = TraceChecks.create("longtrace", 5, 3, Map.of("txns", "200", "key-length", "32", "key-prefix", "4"));
        assertEquals("prefix-4+big-endian-8+fill-20", w.header().getParamsMap().get("key-encoding"));
        assertEquals("32", w.header().getParamsMap().get("key-length"));
        List<Batch> longer = TraceChecks.drain(w);
        for (int i = 0; i < plain.size(); i++) {
            List<Transaction> a = plain.get(i).getTransactionsList();
            List<Transaction> b = longer.get(i).getTransactionsList();
            assertEquals(a.size(), b.size());
            for (int t = 0; t < a.size(); t++) {
                assertEquals(a.get(t).getReadSnapshot(), b.get(t).getReadSnapshot(), "the same draws, other bytes");
                assertEquals(a.get(t).getWritesCount(), b.get(t).getWritesCount());
                for (int r = 0; r < a.get(t).getWritesCount(); r++) {
                    KeyRange p = a.get(t).getWrites(r);
                    KeyRange q = b.get(t).getWrites(r);
                    assertEquals(32, q.getBegin().size());
                    assertEquals(TraceChecks.isPoint(p) ? 33 : 32, q.getEnd().size());
                    assertEquals("....", q.getBegin().substring(0, 4).toStringUtf8());
                    assertEquals(p.getBegin(), q.getBegin().substring(4, 12), "the integer follows the prefix");
                    assertEquals(".".repeat(20), q.getBegin().substring(12, 32).toStringUtf8());
                    assertTrue(ByteString.unsignedLexicographicalComparator().compare(q.getBegin(), q.getEnd()) < 0);
                }
            }
        }
        // A short key holds fewer integers: the key space must fit in what the prefix leaves.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TraceChecks.create("longtrace", 5, 3,
                Map.of("key-length", "4", "key-prefix", "2", "keyspace", "100000")));
        assertTrue(e.getMessage().contains("--keyspace") && e.getMessage().contains("2 bytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TraceChecks.create("longtrace", 5, 3,
                Map.of("key-length", "8", "key-prefix", "8")));
        // three bytes after the prefix hold 2^24 integers, less the span: 10,000 keys fit
        TraceChecks.drain(TraceChecks.create("longtrace", 5, 2, Map.of("txns", "10", "key-length", "5", "key-prefix", "2",
                "keyspace", "10000")));
    }
}
