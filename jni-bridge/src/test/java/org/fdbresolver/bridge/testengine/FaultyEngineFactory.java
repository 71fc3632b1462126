package org.fdbresolver.bridge.testengine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Decision;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;

/**
 * Engine {@code test-faulty}, on the test class path only: the tree engine, failing on purpose on every
 * {@code every}-th batch from batch {@code after} on (engine options; the others go to the tree), counting only
 * batches with a write whose begin key starts with {@code trigger} when that option is set (so that a test
 * chooses the moment by writing such a key), in the way option {@code fault} names:
 * <ul>
 * <li>{@code throw}: an IllegalStateException before anything changes (the engine contract's failed batch);</li>
 * <li>{@code oom}: a real OutOfMemoryError: arrays of 64 MiB are taken until the heap has no more, then let go;</li>
 * <li>{@code malformed}: the batch is decided, then its output corrupted: a conflicting-read index past the
 * transaction's reads, or a transaction without reads answered CONFLICT (what a bug in an engine or the
 * bridge could send);</li>
 * <li>{@code wrong-commit}: the batch is decided, then every CONFLICT answered COMMIT (a wrong answer that only a
 * comparison with the skip list can see);</li>
 * <li>{@code wrong-commit-system}: the same, only for transactions with a range in the system keys ({@code \xff}
 * and above): what plugin mode's metadata guard must catch;</li>
 * <li>{@code no-conflicting-reads}: the batch is decided, then a reporting transaction with reads that committed is
 * answered CONFLICT with no conflicting reads (FoundationDB's commit proxy asserts on that and kills itself).</li>
 * </ul>
 * With option {@code capture_delay_millis} set, every capture the bridge opens from then on in this JVM writes each
 * record that many milliseconds late ({@link org.fdbresolver.bridge.SlowCaptures}): the fault then also closes the
 * plugin while its capture's writer is behind (issue 32, "a close during a slow capture").
 * Issue 15's fault injection: FoundationDB's Resolver hook must turn each into a fallback to its skip list,
 * never a recovery and never a wrong COMMIT sent (in guarded mode for the wrong answer).
 */
public final class FaultyEngineFactory implements EngineFactory {
    public static final String FAULT = "fault";
    public static final String EVERY = "every";
    public static final String AFTER = "after";
    public static final String TRIGGER = "trigger";
    public static final String CAPTURE_DELAY_MILLIS = "capture_delay_millis";

    /** What the {@code oom} fault holds while it runs the heap out. */
    static final List<long[]> BALLAST = new ArrayList<>();

    @Override
    public String name() {
        return "test-faulty";
    }

    @Override
    public String description() {
        return "tree engine that fails on purpose: throw, oom, malformed, wrong-commit, wrong-commit-system or no-conflicting-reads"
                + " (tests only)";
    }

    @Override
    public ConflictEngine create(ConflictSetConfig config) {
        Map<String, String> options = config.options();
        String fault = options.getOrDefault(FAULT, "throw");
        if (!List.of("throw", "oom", "malformed", "wrong-commit", "wrong-commit-system", "no-conflicting-reads").contains(fault)) {
            throw new IllegalArgumentException("engine test-faulty: fault must be throw, oom, malformed, wrong-commit, "
                    + "wrong-commit-system or no-conflicting-reads: " + fault);
        }
        long every = Long.parseLong(options.getOrDefault(EVERY, "1"));
        long after = Long.parseLong(options.getOrDefault(AFTER, "0"));
        byte[] trigger = options.containsKey(TRIGGER) ? options.get(TRIGGER).getBytes(java.nio.charset.StandardCharsets.UTF_8) : null;
        if (options.containsKey(CAPTURE_DELAY_MILLIS)) {
            // The engine is made before the open starts its capture, so the capture this open starts is slow too.
            org.fdbresolver.bridge.SlowCaptures.install(Long.parseLong(options.get(CAPTURE_DELAY_MILLIS)));
        }
        ConflictSetConfig.Builder tree = ConflictSetConfig.builder().engine("tree").memoryBudgetBytes(config.memoryBudgetBytes())
                .maxKeyBytes(config.maxKeyBytes());
        options.forEach((name, value) -> {
            if (!List.of(FAULT, EVERY, AFTER, TRIGGER, CAPTURE_DELAY_MILLIS).contains(name)) {
                tree.option(name, value);
            }
        });
        ConflictEngine delegate = Engines.create(tree.build());
        return new ForwardingEngine("test-faulty", delegate) {
            private long batches;

            @Override
            public void detectConflicts(ConflictBatch batch, long now, long newOldestVersion, BatchResult out) {
                boolean counted = trigger == null || triggered(batch);
                long b = counted ? batches++ : -1;
                boolean faulty = counted && b >= after && (b - after) % every == 0;
                if (faulty && fault.equals("throw")) {
                    throw new IllegalStateException("test-faulty: planned failure at batch " + b + " (version " + now + ")");
                }
                if (faulty && fault.equals("oom")) {
                    try {
                        while (true) {
                            BALLAST.add(new long[8 << 20]);
                        }
                    } finally {
                        BALLAST.clear();
                    }
                }
                delegate.detectConflicts(batch, now, newOldestVersion, out);
                if (faulty && fault.equals("malformed")) {
                    corrupt(batch, out);
                } else if (faulty && fault.equals("no-conflicting-reads")) {
                    for (int t = 0; t < out.transactionCount(); t++) {
                        if (out.decision(t) == Decision.COMMIT && batch.reportConflictingKeys(t) && batch.readEnd(t) > batch.readStart(t)) {
                            out.setDecision(t, Decision.CONFLICT_CODE);
                            break;
                        }
                    }
                } else if (faulty && fault.startsWith("wrong-commit")) {
                    boolean systemOnly = fault.equals("wrong-commit-system");
                    for (int t = 0; t < out.transactionCount(); t++) {
                        if (out.decision(t) == Decision.CONFLICT && (!systemOnly || touchesSystemKeys(batch, t))) {
                            out.setDecision(t, Decision.COMMIT_CODE);
                        }
                    }
                }
            }

            /** Whether a write of the batch begins with the trigger. */
            private boolean triggered(ConflictBatch batch) {
                byte[] keys = batch.keys();
                for (int t = 0; t < batch.transactionCount(); t++) {
                    for (int w = batch.writeStart(t); w < batch.writeEnd(t); w++) {
                        int off = batch.writeBeginOffset(w);
                        if (batch.writeBeginLength(w) >= trigger.length
                                && java.util.Arrays.equals(keys, off, off + trigger.length, trigger, 0, trigger.length)) {
                            return true;
                        }
                    }
                }
                return false;
            }

            /** Whether a read or write range of transaction {@code t} ends past {@code \xff}, in the system keys. */
            private boolean touchesSystemKeys(ConflictBatch batch, int t) {
                byte[] keys = batch.keys();
                for (int r = batch.readStart(t); r < batch.readEnd(t); r++) {
                    if (pastSystemBegin(keys, batch.readEndOffset(r), batch.readEndLength(r))) {
                        return true;
                    }
                }
                for (int w = batch.writeStart(t); w < batch.writeEnd(t); w++) {
                    if (pastSystemBegin(keys, batch.writeEndOffset(w), batch.writeEndLength(w))) {
                        return true;
                    }
                }
                return false;
            }

            /** A key above {@code \xff}: it starts with that byte and has more. */
            private static boolean pastSystemBegin(byte[] keys, int offset, int length) {
                return length > 1 && keys[offset] == (byte) 0xff;
            }

            /** A conflicting read past the transaction's reads, else a CONFLICT for a transaction without reads. */
            private void corrupt(ConflictBatch batch, BatchResult out) {
                for (int t = out.transactionCount() - 1; t >= 0; t--) {
                    if (batch.readEnd(t) == batch.readStart(t)) {
                        out.setDecision(t, Decision.CONFLICT_CODE);
                        return;
                    }
                }
                if (out.transactionCount() > 0) {
                    int last = out.transactionCount() - 1;
                    if (out.conflictingTransactionCount() == 0 || out.conflictingTransaction(out.conflictingTransactionCount() - 1) < last) {
                        out.setDecision(last, Decision.CONFLICT_CODE);
                        out.beginConflictingReads(last);
                    }
                    out.addConflictingRead(batch.readEnd(last) - batch.readStart(last) + 1000);
                }
            }
        };
    }
}
