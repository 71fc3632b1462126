package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.engine.Engines;
import org.fdbresolver.harness.trace.Hashes;
import org.fdbresolver.harness.trace.TraceReader;
import org.fdbresolver.harness.workload.WorkloadOption;
import org.fdbresolver.harness.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code gen} for every registered workload, and what it writes. */
class GenCommandTest {

    static Stream<String> workloads() {
        return Workloads.all().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("workloads")
    void eachWorkloadGeneratesATraceTheReferenceResolves(String workload, @TempDir Path dir) throws IOException {
        Path trace = dir.resolve(workload + ".trace.gz");
        List<String> args = new ArrayList<>(List.of("gen", workload, "--out", trace.toString(), "--batches", "3", "--seed", "5"));
        // Keep batches small where the workload lets us: the point is the plumbing, not the volume.
        Map<String, String> smaller = Map.of("ranges-per-batch", "2000", "txns", "50", "reads-per-batch", "200");
        for (WorkloadOption o : Workloads.get(workload).options()) {
            if (smaller.containsKey(o.name())) {
                args.addAll(List.of("--" + o.name(), smaller.get(o.name())));
            }
        }
        CliRun gen = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, gen.code(), gen::toString);
        assertEquals("3", gen.value("batches"));
        assertEquals(workload, gen.value("workload"));
        assertEquals("5", gen.value("seed"));
        assertEquals(Hashes.hex(Hashes.sha256(trace)), gen.value("offered-hash"));
        assertEquals(List.of(trace), CliTest.list(dir), "no temp file left");
        try (TraceReader r = TraceReader.open(trace)) {
            assertTrue(r.isGzip());
            assertEquals(workload, r.header().getWorkload());
        }
        assertTrue(Engines.all().containsKey("reference"));
        CliRun resolve = CliRun.of("resolve", trace.toString(), "--engine", "reference");
        assertEquals(0, resolve.code(), resolve::toString);
        assertEquals("3", resolve.value("batches"));
        assertEquals(gen.value("transactions"), resolve.value("transactions"));
        assertEquals(gen.value("offered-hash"), resolve.value("offered-hash"));
    }

    @Test
    void sameSeedSameBytesOtherSeedOtherBytes(@TempDir Path dir) {
        assertTrue(Workloads.all().containsKey("conflictset-point"));
        String a = CliRun.of("gen", "conflictset-point", "--out", dir.resolve("a.trace").toString(), "--batches", "4",
                "--txns", "20").value("offered-hash");
        String b = CliRun.of("gen", "conflictset-point", "--out", dir.resolve("b.trace").toString(), "--batches", "4",
                "--txns", "20").value("offered-hash");
        String c = CliRun.of("gen", "conflictset-point", "--out", dir.resolve("c.trace").toString(), "--batches", "4",
                "--txns", "20", "--seed", "99").value("offered-hash");
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void plainUnlessTheNameEndsInGz(@TempDir Path dir) throws IOException {
        assertTrue(Workloads.all().containsKey("random"));
        Path plain = dir.resolve("r.trace");
        assertEquals(0, CliRun.of("gen", "random", "--out", plain.toString(), "--batches", "2").code());
        try (InputStream in = Files.newInputStream(plain)) {
            assertNotEquals(0x1f, in.read());
        }
    }

    @Test
    void aBadWorkloadOptionIsAUsageErrorAndWritesNothing(@TempDir Path dir) {
        assertTrue(Workloads.all().containsKey("conflictset-point"));
        CliRun run = CliRun.of("gen", "conflictset-point", "--out", dir.resolve("x.trace").toString(), "--colour", "red");
        assertEquals(2, run.code(), run::toString);
        assertEquals(List.of("error: unknown option '--colour' (see fdbresolver gen --help)"), run.errLines());
        // an option of another workload: parsed, then refused by this one
        assertTrue(Workloads.get("skiplist-layouts").options().stream().anyMatch(o -> o.name().equals("layout")));
        CliRun other = CliRun.of("gen", "conflictset-point", "--out", dir.resolve("x.trace").toString(), "--layout", "prefix");
        assertEquals(2, other.code(), other::toString);
        assertEquals(1, other.errLines().size(), other.err());
        assertTrue(other.err().startsWith("error: workload conflictset-point: unknown option --layout"), other.err());
        assertEquals(List.of(), CliTest.list(dir));
    }

    @Test
    void genNeedsOut() {
        CliRun run = CliRun.of("gen", "random");
        assertEquals(2, run.code());
        assertEquals(List.of("error: missing required option: '--out=FILE' (see fdbresolver gen --help)"), run.errLines());
    }
}
