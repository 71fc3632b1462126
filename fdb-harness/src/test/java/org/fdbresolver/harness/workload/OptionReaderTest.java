package org.fdbresolver.harness.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OptionReaderTest {
    private static final List<WorkloadOption> DECLARED = List.of(
            new WorkloadOption("window", "100", "w"),
            new WorkloadOption("fraction", "0.5", "f"),
            new WorkloadOption("layout", "prefix", "l"));

    private static OptionReader reader(Map<String, String> options) {
        return new OptionReader("test", new WorkloadParams(OptionalLong.empty(), OptionalLong.empty(), options), DECLARED);
    }

    @Test
    void defaultsAndGivenValuesAreParsedAndRecorded() {
        OptionReader o = reader(Map.of("--window", "5_000_000"));
        assertEquals(5_000_000, o.longValue("window", 0, Long.MAX_VALUE));
        assertEquals(0.5, o.fraction("fraction"));
        assertEquals("prefix", o.choice("layout", "prefix", "suffix"));
        assertEquals(Map.of("window", "5000000", "fraction", "0.5", "layout", "prefix"), o.used());
    }

    @Test
    void errorsNameTheOptionAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader(Map.of("windw", "1")));
        assertTrue(e.getMessage().contains("--windw") && e.getMessage().contains("--window"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> reader(Map.of("window", "ten")).longValue("window", 0, 9));
        assertEquals("workload test: option --window: expected an integer in [0, 9], got 'ten'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> reader(Map.of("window", "10")).longValue("window", 0, 9));
        assertTrue(e.getMessage().contains("--window"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> reader(Map.of("fraction", "NaN")).fraction("fraction"));
        assertTrue(e.getMessage().contains("--fraction"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> reader(Map.of("layout", "mid")).choice("layout", "prefix"));
        assertTrue(e.getMessage().contains("--layout") && e.getMessage().contains("'mid'"), e.getMessage());
    }

    @Test
    void negativeBatchCountIsRejected() {
        OptionReader o = reader(Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> o.batches(new WorkloadParams(OptionalLong.empty(), OptionalLong.of(-3), Map.of()), 10));
        assertTrue(e.getMessage().contains("--batches"), e.getMessage());
    }
}
