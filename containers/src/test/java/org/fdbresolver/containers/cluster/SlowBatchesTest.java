package org.fdbresolver.containers.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the cluster benchmark reads the glue's slow-batch events and figure from a resolver's trace (no Docker). */
class SlowBatchesTest {
    @TempDir
    Path logs;

    @Test
    void countsTheWindowAndSaysWhereTheLoggedBatchesWentTheirTime() throws IOException {
        Files.write(logs.resolve("trace.10.0.0.1.4500.1.abc.0.1.json"), List.of(
                metrics(100.0, "r1", 3),
                slow(101.0, "r1", 12.5, 40, 9000, 1000, 8800, "MergeWriteMicros", 8500),
                slow(102.0, "r1", 13.5, 41, 2000, 1800, 1900, "SortMicros", 1700),
                metrics(105.0, "r1", 20),
                slow(106.0, "r1", 17.0, 90, 4000, 500, 3900, "RemoveBeforeMicros", 3600),
                metrics(110.0, "r1", 26)));
        TraceLog trace = TraceLog.read(logs);

        SlowBatches window = SlowBatches.of(trace, 100.5, 105.5);

        assertEquals(17, window.counted(), "PluginSlowBatches over the window: 20 at its last event less 3 before it");
        assertEquals(2, window.logged().size(), "the events inside the window only");
        SlowBatches.Batch first = window.logged().getFirst();
        assertEquals(8000, first.waitedMicros());
        assertEquals("MergeWrite 8500", first.largestPhase());
        // (8000 + 200) of 11,000 µs off the CPU; 10,700 in the engine; one of two mostly waiting; both within 40 s.
        assertEquals("17 counted, 2 logged: 75 % of their wall time off the CPU, 97 % in the engine; 1 mostly waiting; "
                + "2 within 40 s of the open", window.summary());
        String rows = window.slowestRows(1);
        assertTrue(rows.startsWith("| 12.5 | 40 | 9000 | 1000 | 8000 | 8800 | MergeWrite 8500 | 3 |"), rows);
    }

    @Test
    void aStockResolverHasNoFigure() throws IOException {
        Files.write(logs.resolve("trace.10.0.0.1.4500.1.abc.0.1.json"),
                List.of("{\"Type\": \"ResolverMetrics\", \"Time\": \"100.0\", \"ID\": \"r1\", \"ResolveBatchStart\": \"1 1 5\"}"));

        SlowBatches window = SlowBatches.of(TraceLog.read(logs), 90, 110);

        assertEquals(-1, window.counted());
        assertEquals("no figure", window.summary());
    }

    private static String metrics(double time, String id, long slowBatches) {
        return "{\"Type\": \"ResolverMetrics\", \"Time\": \"" + time + "\", \"ID\": \"" + id + "\", \"PluginSlowBatches\": \"" + slowBatches
                + "\"}";
    }

    private static String slow(double time, String id, double sinceOpen, long batch, long micros, long cpuMicros, long engineMicros,
            String phase, long phaseMicros) {
        return "{\"Type\": \"ResolverConflictSetPluginSlowBatch\", \"Time\": \"" + time + "\", \"ID\": \"" + id + "\", \"Micros\": \"" + micros
                + "\", \"CpuMicros\": \"" + cpuMicros + "\", \"Transactions\": \"3\", \"Batch\": \"" + batch + "\", \"SecondsSinceOpen\": \""
                + sinceOpen + "\", \"EngineMicros\": \"" + engineMicros + "\", \"SortMicros\": \"10\", \"" + phase + "\": \"" + phaseMicros + "\"}";
    }
}
