package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What every registered generator promises: determinism, validity, a complete header, option checks. */
class WorkloadContractTest {

    /** Options that shrink each workload's batches so that the contract checks stay fast. */
    static final Map<String, Map<String, String>> SMALL = Map.ofEntries(
            Map.entry("skiplisttest", Map.of()),
            Map.entry("skiplist-layouts", Map.of("ranges-per-batch", "200", "layout", "suffix", "key-length", "32")),
            Map.entry("conflictset-point", Map.of("txns", "50", "window", "3000")),
            Map.entry("conflictset-range", Map.of("txns", "50", "window", "3000")),
            Map.entry("custom-point", Map.of("reads-per-batch", "200", "write-draws", "50")),
            Map.entry("custom-range", Map.of("reads-per-batch", "200", "write-draws", "50")),
            Map.entry("longtrace", Map.of("txns", "200", "window", "100000")),
            Map.entry("tuple", Map.of("txns", "100", "window", "3000")),
            Map.entry("flood", Map.of("flood-keys", "20", "window", "30000")),
            Map.entry("adversarial", Map.of()),
            Map.entry("random", Map.of()),
            Map.entry("edge", Map.of("shape", "high-versions")));

    static final long BATCHES = 12;

    static Stream<String> names() {
        return Workloads.all().keySet().stream();
    }

    static Map<String, String> small(String name) {
        Map<String, String> m = SMALL.get(name);
        assertNotNull(m, "add small options for workload " + name + " to WorkloadContractTest.SMALL");
        return m;
    }

    @ParameterizedTest
    @MethodSource("names")
    void sameParametersGiveTheSameBytes(String name) {
        byte[] a = TraceChecks.bytes(TraceChecks.create(name, 5, BATCHES, small(name)));
        byte[] b = TraceChecks.bytes(TraceChecks.create(name, 5, BATCHES, small(name)));
        assertArrayEquals(a, b);
    }

    @ParameterizedTest
    @MethodSource("names")
    void anotherSeedGivesOtherBytes(String name) {
        byte[] a = TraceChecks.bytes(TraceChecks.create(name, 5, BATCHES, small(name)));
        byte[] b = TraceChecks.bytes(TraceChecks.create(name, 6, BATCHES, small(name)));
        assertFalse(Arrays.equals(a, b));
    }

    @ParameterizedTest
    @MethodSource("names")
    void everyBatchIsValid(String name) {
        for (long seed = 1; seed <= 3; seed++) {
            TraceChecks.assertValid(TraceChecks.drain(TraceChecks.create(name, seed, BATCHES, small(name))));
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void headerRecordsEveryParameter(String name) {
        WorkloadFactory f = Workloads.get(name);
        Workload w = TraceChecks.create(name, 77, 3, small(name));
        TraceHeader h = w.header();
        assertEquals("fdb-resolver-trace/1", h.getFormat());
        assertEquals(name, h.getWorkload());
        assertEquals(77, h.getSeed());
        assertEquals("3", h.getParamsMap().get("batches"));
        assertEquals("77", h.getParamsMap().get("seed"));
        assertEquals("splitmix64", h.getParamsMap().get("prng"));
        for (WorkloadOption o : f.options()) {
            assertTrue(h.getParamsMap().containsKey(o.name()), name + " header lacks option " + o.name());
        }
        for (Map.Entry<String, String> e : small(name).entrySet()) {
            assertEquals(e.getValue(), h.getParamsMap().get(e.getKey()), "header holds the value used for " + e.getKey());
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void zeroBatchesIsAnEmptyRun(String name) {
        Workload w = TraceChecks.create(name, 1, 0, small(name));
        assertEquals(0, w.batchCount());
        assertEquals(null, w.nextBatch());
    }

    @ParameterizedTest
    @MethodSource("names")
    void unknownOptionsAreRejectedByName(String name) {
        Map<String, String> m = new HashMap<>(small(name));
        m.put("no-such-option", "1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TraceChecks.create(name, 1, 1, m));
        assertTrue(e.getMessage().contains("no-such-option"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Workloads.get(name).create(new WorkloadParams(java.util.OptionalLong.empty(),
                        java.util.OptionalLong.of(-1), Map.of())));
    }

    @ParameterizedTest
    @MethodSource("names")
    void badValuesAreRejectedByName(String name) {
        for (WorkloadOption o : Workloads.get(name).options()) {
            for (String bad : List.of("not-a-number", "-5", "1e999")) {
                Map<String, String> m = new HashMap<>(small(name));
                m.put(o.name(), bad);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> TraceChecks.create(name, 1, 1, m), name + " accepted --" + o.name() + " " + bad);
                assertTrue(e.getMessage().contains("--" + o.name()), e.getMessage());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("names")
    void defaultsAreAcceptedAndDeclared(String name) {
        WorkloadFactory f = Workloads.get(name);
        assertFalse(f.description().isBlank());
        Workload w = f.create(WorkloadParams.defaults());
        assertTrue(w.batchCount() > 0);
        for (WorkloadOption o : f.options()) {
            assertEquals(o.defaultValue(), normalized(o.defaultValue(), w.header().getParamsMap().get(o.name())),
                    "default of --" + o.name() + " is what the header records");
        }
    }

    /** Numbers are recorded canonically ("0" may become "0.0"); compare by value then. */
    private static String normalized(String declared, String recorded) {
        try {
            return Double.parseDouble(declared) == Double.parseDouble(recorded) ? declared : recorded;
        } catch (NumberFormatException e) {
            return recorded;
        }
    }

    @Test
    void unknownWorkloadIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Workloads.get("nope"));
        assertTrue(e.getMessage().contains("nope"));
    }

    @Test
    void reportFractionOnlyChangesTheFlags() {
        List<Batch> none = TraceChecks.drain(TraceChecks.create("conflictset-range", 3, 4, Map.of("txns", "100")));
        List<Batch> some = TraceChecks.drain(TraceChecks.create("conflictset-range", 3, 4,
                Map.of("txns", "100", "report-fraction", "0.5")));
        int flagged = 0;
        for (int i = 0; i < none.size(); i++) {
            Batch.Builder cleared = some.get(i).toBuilder();
            for (var tx : cleared.getTransactionsBuilderList()) {
                flagged += tx.getReportConflictingKeys() ? 1 : 0;
                tx.clearReportConflictingKeys();
            }
            assertEquals(none.get(i), cleared.build());
        }
        assertTrue(flagged > 120 && flagged < 280, "about half of 400 flagged, got " + flagged);
    }
}
