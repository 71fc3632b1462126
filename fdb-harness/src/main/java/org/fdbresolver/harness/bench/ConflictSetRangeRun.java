package org.fdbresolver.harness.bench;

import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.api.Phase;
import org.fdbresolver.engine.ConflictEngine;
import org.fdbresolver.engine.Engines;

/**
 * FoundationDB's conflictset-range measurement as a plain program (budget: {@code -Dbudget=BYTES}): 1000 warm-up batches, then 2000
 * measured batches of 500 transactions; prints transactions per second of the measured part (batch
 * generation excluded), the history's bytes after all 3000 batches and the time per phase.
 *
 * <pre>
 * java -Xmx4g -cp fdb-harness/target/classes:plugin/target/classes:$(cat fdb-harness/target/cp.txt) org.fdbresolver.harness.bench.ConflictSetRangeRun [engine] [nodeBytes]
 * </pre>
 */
public final class ConflictSetRangeRun {
    private ConflictSetRangeRun() {
    }

    public static void main(String[] args) {
        String engine = args.length > 0 ? args[0] : "tree";
        ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine(engine)
                .memoryBudgetBytes(Long.getLong("budget", 2L << 30));
        if (args.length > 1) {
            b.option("nodeBytes", args[1]);
        }
        int warmup = Integer.getInteger("warmup", 1000);
        int measured = Integer.getInteger("measured", 2000);
        try (ConflictEngine e = Engines.create(b.build())) {
            RangeBatchSource source = RangeBatchSource.conflictSetRange(1);
            ConflictBatch batch = ConflictBatch.detached();
            BatchResult result = new BatchResult();
            long[] counts = new long[3];
            long engineNanos = 0;
            long cpuNanos = 0;
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long tx = 0;
            for (int i = 0; i < warmup + measured; i++) {
                long now = source.fill(batch);
                long c0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                e.detectConflicts(batch, now, source.oldestVersion(), result);
                long t1 = System.nanoTime();
                long c1 = threads.getCurrentThreadCpuTime();
                if (i >= warmup) {
                    engineNanos += t1 - t0;
                    cpuNanos += c1 - c0;
                    tx += batch.transactionCount();
                    result.countDecisions(counts);
                }
            }
            System.out.printf("budget %d bytes, retained version %d at version %d%n", Long.getLong("budget", 2L << 30),
                    e.retainedVersion(), (long) (warmup + measured) * RangeBatchSource.VERSION_STEP);
            long[] phases = new long[Phase.values().length];
            e.addPhaseNanos(phases);
            System.out.printf("engine %s: %d measured transactions in %.3f s = %.0f tx/s (commit %d, conflict %d, too old %d)%n",
                    engine, tx, engineNanos / 1e9, tx / (engineNanos / 1e9), counts[0], counts[1], counts[2]);
            System.out.printf("  on-CPU time of the resolving thread %.3f s = %.0f tx per CPU-second (the machine is shared)%n",
                    cpuNanos / 1e9, tx / (cpuNanos / 1e9));
            System.out.printf("history bytes after %d batches: %d (%.1f MiB)%n", warmup + measured, e.historyBytes(),
                    e.historyBytes() / (1024.0 * 1024.0));
            StringBuilder sb = new StringBuilder("phase seconds (all batches):");
            for (Phase p : Phase.values()) {
                sb.append(String.format(" %s %.3f", p.counterName(), phases[p.ordinal()] / 1e9));
            }
            System.out.println(sb);
            if (e instanceof org.fdbresolver.tree.TreeEngine te) {
                var t = te.tree();
                System.out.printf("tree: height %d, leaves %d (capacity %d), inners %d, key bytes %d, entries %d%n",
                        t.height(), t.leavesInUse(), t.leafCapacity(), t.innersInUse(), t.keyBytesInUse(), t.entryCount());
            }
        }
    }
}
