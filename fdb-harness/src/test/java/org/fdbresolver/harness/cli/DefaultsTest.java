package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.Engines;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The defaults README promises (issue 7 item 4): {@code tree} decides unless told otherwise; the demo says how it timed. */
class DefaultsTest {
    @TempDir
    static Path dir;
    static Path trace;

    @BeforeAll
    static void generate() {
        assertTrue(Engines.all().containsKey("tree") && Engines.all().containsKey("reference"));
        trace = dir.resolve("t.trace");
        CliRun gen = CliRun.of("gen", "conflictset-point", "--batches", "6", "--txns", "50", "--out", trace.toString());
        assertEquals(0, gen.code(), gen::toString);
    }

    @Test
    void treeIsTheDefaultEngineOfResolveAndBench() {
        assertEquals("tree", ConflictSetConfig.DEFAULT_ENGINE);
        CliRun resolve = CliRun.of("resolve", trace.toString());
        assertEquals(0, resolve.code(), resolve::toString);
        assertEquals("tree", resolve.value("engine"));
        CliRun bench = CliRun.of("bench", trace.toString());
        assertEquals(0, bench.code(), bench::toString);
        assertEquals("tree", bench.value("engine"));
        assertEquals(resolve.value("decision-hash"), bench.value("decision-hash"));
        assertTrue(CliRun.of("resolve", "--help").out().contains("(default tree;"), "the help says so");
    }

    @Test
    void demoWithTheReferenceSaysItHasNothingToCompareWithoutClaimingItIsAlone() {
        CliRun run = CliRun.of("demo", "--trace", trace.toString(), "--engine", "reference");
        assertEquals(0, run.code(), run::toString);
        assertFalse(run.out().contains("only the reference engine is registered"), run.out());
        assertEquals("--engine reference is the oracle itself: nothing to compare it with (try --engine tree)", run.value("note"));
        assertEquals("n/a", run.value("agree"));
        assertFalse(run.values().containsKey("speedup"));
    }

    @Test
    void demoSaysItsRatesAreWarm() {
        CliRun run = CliRun.of("demo", "--trace", trace.toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals("warm: each engine decides the trace twice, only the second pass is timed", run.value("timing"));
        Long.parseLong(run.value("tree-transactions/sec"));
        Long.parseLong(run.value("reference-transactions/sec"));
        assertEquals("yes", run.value("agree"));
    }

    @Test
    void demoEngineOptionsGoToTheChosenEngineOnly() {
        CliRun run = CliRun.of("demo", "--trace", trace.toString(), "--engine-option", "nodeBytes=256");
        assertEquals(0, run.code(), run::toString);
        assertEquals("yes", run.value("agree"));
    }
}
