package org.fdbresolver.bridge;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.TraceHeader;
import org.fdbresolver.trace.v1.Transaction;

/**
 * The same engine driven in-process, timed the way fdbresolver-replay times the bridge: the trace is
 * decoded first (keys as byte arrays, untimed); then, per batch, filling a {@link ConflictBatch}
 * (addTransaction, addRead, addWrite) and {@code detectConflicts} are timed, after {@code --warmup N}
 * untimed batches. Prints the same "name: value" lines, so the two runs compare line by line.
 *
 * <p>usage: InProcessReplay TRACE [--engine NAME] [--warmup N]
 */
public final class InProcessReplay {
    private InProcessReplay() {
    }

    /** One decoded batch: flat arrays, built before timing starts. */
    record DecodedBatch(long version, long newOldestVersion, long[] snapshots, boolean[] report, int[] readCounts,
                        int[] writeCounts, byte[][] begins, byte[][] ends) {
    }

    public static void main(String[] args) throws Exception {
        String trace = args[0];
        String engine = "reference";
        int warmup = 0;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--engine" -> engine = args[++i];
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        List<DecodedBatch> batches = decode(Path.of(trace));
        MessageDigest decisionHash = MessageDigest.getInstance("SHA-256");
        long[] counts = new long[3];
        long transactions = 0;
        long timedTransactions = 0;
        long timedNanos = 0;
        long engineNanos = 0;
        long timedCpuNanos = 0;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine(engine).build())) {
            ConflictBatch batch = cs.newBatch();
            for (int b = 0; b < batches.size(); b++) {
                DecodedBatch d = batches.get(b);
                long start = System.nanoTime();
                long startCpu = threads.getCurrentThreadCpuTime();
                int r = 0;
                for (int t = 0; t < d.snapshots().length; t++) {
                    batch.addTransaction(d.snapshots()[t], d.report()[t]);
                    for (int i = 0; i < d.readCounts()[t]; i++, r++) {
                        batch.addRead(d.begins()[r], d.ends()[r]);
                    }
                    for (int i = 0; i < d.writeCounts()[t]; i++, r++) {
                        batch.addWrite(d.begins()[r], d.ends()[r]);
                    }
                }
                long filled = System.nanoTime();
                BatchResult result = batch.detectConflicts(d.version(), d.newOldestVersion());
                long end = System.nanoTime();
                long endCpu = threads.getCurrentThreadCpuTime();
                if (b >= warmup) {
                    timedCpuNanos += endCpu - startCpu;
                    timedNanos += end - start;
                    engineNanos += end - filled;
                    timedTransactions += result.transactionCount();
                }
                decisionHash.update(result.decisionBytes(), 0, result.transactionCount());
                result.countDecisions(counts);
                transactions += result.transactionCount();
            }
        }
        double seconds = timedNanos / 1e9;
        System.out.println("trace: " + trace);
        System.out.println("engine: " + engine);
        System.out.println("decision-hash: " + HexFormat.of().formatHex(decisionHash.digest()));
        System.out.println("batches: " + batches.size());
        System.out.println("transactions: " + transactions);
        System.out.println("commit: " + counts[0]);
        System.out.println("conflict: " + counts[1]);
        System.out.println("too-old: " + counts[2]);
        System.out.println("seconds: " + String.format("%.6f", seconds));
        System.out.println("transactions/sec: " + String.format("%.0f", timedTransactions / seconds));
        System.out.println("cpu-seconds: " + String.format("%.6f", timedCpuNanos / 1e9));
        // Filling the ConflictBatch in-process: what the bridge's crossing replaces.
        System.out.println("fill-seconds: " + String.format("%.6f", (timedNanos - engineNanos) / 1e9));
        System.out.println("engine-seconds: " + String.format("%.6f", engineNanos / 1e9));
    }

    static List<DecodedBatch> decode(Path trace) throws IOException {
        List<DecodedBatch> out = new ArrayList<>();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(trace), 1 << 16)) {
            raw.mark(2);
            boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            InputStream in = gzip ? new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16) : raw;
            TraceHeader.parseDelimitedFrom(in);
            Batch b;
            while ((b = Batch.parseDelimitedFrom(in)) != null) {
                int n = b.getTransactionsCount();
                long[] snapshots = new long[n];
                boolean[] report = new boolean[n];
                int[] readCounts = new int[n];
                int[] writeCounts = new int[n];
                List<byte[]> begins = new ArrayList<>();
                List<byte[]> ends = new ArrayList<>();
                for (int t = 0; t < n; t++) {
                    Transaction tr = b.getTransactions(t);
                    snapshots[t] = tr.getReadSnapshot();
                    report[t] = tr.getReportConflictingKeys();
                    readCounts[t] = tr.getReadsCount();
                    writeCounts[t] = tr.getWritesCount();
                    for (KeyRange k : tr.getReadsList()) {
                        begins.add(k.getBegin().toByteArray());
                        ends.add(k.getEnd().toByteArray());
                    }
                    for (KeyRange k : tr.getWritesList()) {
                        begins.add(k.getBegin().toByteArray());
                        ends.add(k.getEnd().toByteArray());
                    }
                }
                out.add(new DecodedBatch(b.getVersion(), b.getNewOldestVersion(), snapshots, report, readCounts,
                        writeCounts, begins.toArray(byte[][]::new), ends.toArray(byte[][]::new)));
            }
        }
        return out;
    }
}
