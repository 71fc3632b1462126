package org.fdbresolver.harness.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.reference.ReferenceEngine;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;
import org.junit.jupiter.api.Test;

/** What counts as a difference: everything but a TOO_OLD that a budget which has bound explains. */
class DifferentialRunTest {
    private static final KeyRange A = KeyRange.newBuilder().setBegin(ByteString.copyFromUtf8("a"))
            .setEnd(ByteString.copyFromUtf8("b")).build();

    /** The reference engine, but TOO_OLD for transaction {@code tooOld} of every batch, its retained version as given. */
    private static final class Engine implements ConflictEngine {
        final ReferenceEngine inner = new ReferenceEngine();
        final int tooOld;
        final long retainedAbove;
        final int failAtBatch;
        int batches;

        Engine(int tooOld, long retainedAbove, int failAtBatch) {
            this.tooOld = tooOld;
            this.retainedAbove = retainedAbove;
            this.failAtBatch = failAtBatch;
        }

        @Override
        public String name() {
            return "test";
        }

        @Override
        public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
            if (batches++ == failAtBatch) {
                throw new IllegalStateException("planted failure");
            }
            inner.detectConflicts(batch, now, newOldestVersion, out);
            if (tooOld >= 0 && tooOld < out.transactionCount()) {
                out.setDecision(tooOld, Decision.TOO_OLD_CODE);
            }
        }

        @Override
        public void clear(long version) {
        }

        @Override
        public long historyBytes() {
            return 0;
        }

        @Override
        public long retainedVersion() {
            return inner.retainedVersion() + retainedAbove;
        }
    }

    private static EngineSource source(Engine e) {
        return new EngineSource() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public boolean honoursBudget() {
                return true;
            }

            @Override
            public ConflictSet open(Long budget, Map<String, String> extraOptions) {
                return ConflictSet.wrap(ConflictSetConfig.builder().engine("test").build(), e);
            }

            @Override
            public String budgetText(Long budget) {
                return null;
            }
        };
    }

    /** Three batches of a reader (transaction 0) and a writer (transaction 1). */
    private static List<Batch> trace() {
        Transaction reader = Transaction.newBuilder().setReadSnapshot(5).addReads(A).build();
        Transaction writer = Transaction.newBuilder().setReadSnapshot(5).addWrites(A).build();
        return List.of(
                Batch.newBuilder().setVersion(10).setNewOldestVersion(0).addTransactions(reader).addTransactions(writer).build(),
                Batch.newBuilder().setVersion(20).setNewOldestVersion(0).addTransactions(reader).addTransactions(writer).build(),
                Batch.newBuilder().setVersion(30).setNewOldestVersion(0).addTransactions(reader).addTransactions(writer).build());
    }

    private static DifferentialRun.Outcome run(Engine e) throws IOException {
        Iterator<Batch> it = trace().iterator();
        try (ReferenceOracle oracle = new ReferenceOracle("test")) {
            return new DifferentialRun(source(e), oracle).run(TraceHeader.getDefaultInstance(),
                    () -> it.hasNext() ? it.next() : null, Long.MAX_VALUE, null, Map.of(), null, null);
        }
    }

    @Test
    void theSameAnswersAreNoDifference() throws IOException {
        DifferentialRun.Outcome o = run(new Engine(-1, 0, -1));
        assertNull(o.first());
        assertEquals(3, o.batches());
        assertEquals(6, o.transactions());
    }

    @Test
    void anExtraTooOldIsTheBudgetsOnlyOnceItHasBound() throws IOException {
        DifferentialRun.Outcome bound = run(new Engine(0, 1, -1));
        assertNull(bound.first(), () -> "" + bound.first());
        assertEquals(3, bound.budgetTooOld());
        DifferentialRun.Outcome unbound = run(new Engine(0, 0, -1));
        assertNotNull(unbound.first());
        assertEquals("batch 0 (version 10) transaction 0: test TOO_OLD, reference COMMIT", unbound.first().where());
    }

    @Test
    void aTransactionWithoutReadsIsNeverTooOld() throws IOException {
        DifferentialRun.Outcome o = run(new Engine(1, 1, -1));
        assertNotNull(o.first());
        assertEquals(Difference.Kind.DECISION, o.first().kind());
        assertEquals(1, o.first().transaction());
    }

    @Test
    void anEngineThatFailsIsADifferenceAtItsBatch() throws IOException {
        DifferentialRun.Outcome o = run(new Engine(-1, 0, 2));
        assertNotNull(o.first());
        assertEquals(Difference.Kind.ENGINE_ERROR, o.first().kind());
        assertEquals(2, o.first().batch());
        assertEquals(1, o.differing());
        assertEquals(2, o.batches(), "the batches before it were compared");
        assertTrue(o.first().text().contains("planted failure"), o.first()::toString);
    }
}
