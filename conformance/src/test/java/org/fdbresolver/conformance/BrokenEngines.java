package org.fdbresolver.conformance;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.reference.ReferenceEngine;

/**
 * Deliberately broken engines, each wrong in one way FoundationDB's own negative tests also break a
 * resolver (its {@code ResolverIgnoreReads} and friends). The suite must reject every one of them:
 * that is what proves it can catch a real bug.
 */
enum BrokenEngines {
    /** Never checks reads for conflicts (too-old still applies). */
    IGNORE_READS,
    /** Never records writes in the history. */
    IGNORE_WRITES,
    /** Never answers TOO_OLD. */
    IGNORE_TOO_OLD,
    /** Never checks reads against earlier writes of the same batch. */
    IGNORE_INTRA_BATCH;

    ConflictEngine create() {
        return new Broken(this);
    }

    /** The reference engine, fed a batch altered to produce the intended bug. */
    private static final class Broken implements ConflictEngine {
        private static final byte[] EMPTY = new byte[0];
        private final BrokenEngines flaw;
        private final ReferenceEngine inner = new ReferenceEngine();
        private final ConflictBatch altered = ConflictBatch.detached();
        private final BatchResult writeResult = new BatchResult();

        Broken(BrokenEngines flaw) {
            this.flaw = flaw;
        }

        @Override
        public String name() {
            return "broken-" + flaw.name().toLowerCase().replace('_', '-');
        }

        @Override
        public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
            switch (flaw) {
                case IGNORE_READS -> inner.detectConflicts(copy(batch, true, true), now, newOldestVersion, out);
                case IGNORE_WRITES -> inner.detectConflicts(copy(batch, false, false), now, newOldestVersion, out);
                case IGNORE_TOO_OLD -> inner.detectConflicts(batch, now, 0, out);
                case IGNORE_INTRA_BATCH -> {
                    // Decide every transaction against the history alone, then apply the committed writes.
                    inner.detectConflicts(copy(batch, false, false), now, newOldestVersion, out);
                    ConflictBatch writes = ConflictBatch.detached();
                    for (int t = 0; t < batch.transactionCount(); t++) {
                        if (out.decisionCode(t) == Decision.COMMIT_CODE) {
                            writes.addTransaction(now, false);
                            copyWrites(batch, t, writes);
                        }
                    }
                    inner.detectConflicts(writes, now, newOldestVersion, writeResult);
                }
            }
        }

        /**
         * A copy of the batch; {@code readsAsEmpty} replaces a transaction's reads by one empty read at the
         * empty key, which can never conflict but keeps the transaction subject to too-old.
         */
        private ConflictBatch copy(ConflictBatch batch, boolean readsAsEmpty, boolean keepWrites) {
            altered.clear();
            byte[] k = batch.keys();
            for (int t = 0; t < batch.transactionCount(); t++) {
                altered.addTransaction(batch.readSnapshot(t), batch.reportConflictingKeys(t));
                if (readsAsEmpty) {
                    if (batch.readEnd(t) > batch.readStart(t)) {
                        altered.addRead(EMPTY, EMPTY);
                    }
                } else {
                    for (int r = batch.readStart(t); r < batch.readEnd(t); r++) {
                        altered.addRead(k, batch.readBeginOffset(r), batch.readBeginLength(r),
                                k, batch.readEndOffset(r), batch.readEndLength(r));
                    }
                }
                if (keepWrites) {
                    copyWrites(batch, t, altered);
                }
            }
            return altered;
        }

        private static void copyWrites(ConflictBatch from, int t, ConflictBatch to) {
            byte[] k = from.keys();
            for (int w = from.writeStart(t); w < from.writeEnd(t); w++) {
                to.addWrite(k, from.writeBeginOffset(w), from.writeBeginLength(w),
                        k, from.writeEndOffset(w), from.writeEndLength(w));
            }
        }

        @Override
        public void clear(long version) {
            inner.clear(version);
        }

        @Override
        public long historyBytes() {
            return inner.historyBytes();
        }

        @Override
        public long retainedVersion() {
            return inner.retainedVersion();
        }
    }
}
