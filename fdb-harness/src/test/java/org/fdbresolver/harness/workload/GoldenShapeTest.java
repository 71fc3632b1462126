package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.zip.GZIPInputStream;
import org.fdbresolver.harness.trace.CaptureChain;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.Test;

/**
 * The golden manifest's generator command lines (from the external generator these workloads share
 * names and options with) are accepted as they stand, and give the same batch shape: batch count,
 * transactions in the first batch, first version. Reads the golden set the other golden tests read
 * ({@link GoldenFiles#dir()}: the repository's testdata/golden unless {@code -Dfdbresolver.golden=DIR}), and
 * fails when it is missing: a missing oracle is never a pass.
 */
class GoldenShapeTest {

    @Test
    void manifestCommandLinesGiveTheGoldenShape() throws IOException {
        Path dir = GoldenFiles.dir();
        List<String> rows = Files.readAllLines(dir.resolve("MANIFEST.tsv"));
        int checked = 0;
        for (String row : rows.subList(1, rows.size())) {
            String[] cols = row.split("\t");
            String name = cols[0];
            if (cols[1].equals(CaptureChain.WORKLOAD)) {
                assertWholeCapture(dir.resolve(name + ".trace.gz"), name);
                continue; // recorded from a real resolver: no generator to compare with
            }
            String[] argv = generatorArguments(cols[2]);
            String workload = argv[0];
            Map<String, String> options = new HashMap<>();
            OptionalLong seed = OptionalLong.empty();
            OptionalLong batches = OptionalLong.empty();
            for (int i = 1; i + 1 < argv.length; i += 2) {
                String opt = argv[i].substring(2);
                switch (opt) {
                    case "seed" -> seed = OptionalLong.of(Long.parseLong(argv[i + 1]));
                    case "batches" -> batches = OptionalLong.of(Long.parseLong(argv[i + 1]));
                    case "out" -> { }
                    default -> options.put(opt, argv[i + 1]);
                }
            }
            Workload ours = Workloads.get(workload).create(new WorkloadParams(seed, batches, options));
            assertEquals(batches.getAsLong(), ours.batchCount(), name);
            if (workload.equals("adversarial")) {
                continue; // scenario-built batches (the external generator also adds some): no fixed shape
            }
            assertEquals(Long.parseLong(cols[6]), ours.batchCount(), name + ": batches");
            try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve(name + ".trace.gz")))) {
                TraceHeader h = TraceHeader.parseDelimitedFrom(in);
                Batch golden = Batch.parseDelimitedFrom(in);
                Batch first = ours.nextBatch();
                assertEquals(h.getWorkload(), ours.header().getWorkload(), name);
                assertEquals(h.getSeed(), ours.header().getSeed(), name + ": default seed");
                assertEquals(golden.getTransactionsCount(), first.getTransactionsCount(), name + ": transactions per batch");
                assertEquals(golden.getVersion(), first.getVersion(), name + ": first version");
                assertEquals(firstKeyLength(golden), firstKeyLength(first), name + ": key length");
            }
            checked++;
        }
        assertTrue(checked >= 10, "checked " + checked + " golden rows");
    }

    /**
     * The generator's arguments, workload first: the column holds either those alone or the generator's
     * whole command line ({@code tools/tracegen.py WORKLOAD ...}), as the longer golden set does.
     */
    static String[] generatorArguments(String column) {
        String[] argv = column.trim().split("\\s+");
        return argv[0].endsWith(".py") ? Arrays.copyOfRange(argv, 1, argv.length) : argv;
    }

    /**
     * A captured golden trace (testdata/golden/README.md) is the first segment of a capture, whole: a resolver's life
     * from its first batch, so that replaying it must give the decisions recorded.
     */
    static void assertWholeCapture(Path trace, String name) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            TraceHeader h = TraceHeader.parseDelimitedFrom(in);
            assertEquals(CaptureChain.WORKLOAD, h.getWorkload(), name);
            assertEquals("0", h.getParamsOrDefault(CaptureChain.SEGMENT, ""), name + ": a capture's first segment");
            assertEquals("", h.getParamsOrDefault(CaptureChain.PREVIOUS_SEGMENT, "?"), name + ": no segment before it");
        }
    }

    private static int firstKeyLength(Batch b) {
        for (var tx : b.getTransactionsList()) {
            if (tx.getReadsCount() > 0) {
                return tx.getReads(0).getBegin().size();
            }
        }
        return -1;
    }
}
