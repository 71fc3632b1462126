package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fdbresolver.harness.fdb.FdbBuildLocation;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The two builds of FoundationDB's skip list agree (issue 30 item 4): the standalone comparator
 * ({@code scripts/build-skiplist}: FoundationDB's {@code ConflictSet.cpp} alone, against fdbresolver's stand-ins for
 * flow's headers) prints what the full build's ({@code scripts/build-fdb}, the reference) prints on every golden
 * trace — counts, decision and conflicting-keys hashes, node bytes — and the same peak node bytes at several windows
 * of the golden longtrace (what {@code retention --versus-fdb} and {@code size} read). Runs where both are built
 * ({@code scripts/test} builds the standalone one wherever FoundationDB's source is); reported as skipped elsewhere,
 * with the reason printed once on the console.
 */
class SkipListComparatorsAgreeTest {
    /** The lines that must be equal; timings differ. */
    private static final List<String> COMPARED = List.of("batches", "transactions", "commit", "conflict", "too-old",
            "history-bytes", "window", "max-history-bytes", "max-history-batch", "decision-hash", "conflicting-keys-hash");

    private static Path[] both;
    private static String whyNot;

    /** The full build's comparator and the standalone one, or aborts the calling test with the reason. */
    private static synchronized Path[] require() {
        if (both == null && whyNot == null) {
            Path root = FdbBuildLocation.repositoryRoot();
            FdbSkipListComparator full = FdbSkipListComparator.fullBuild(root);
            FdbSkipListComparator standalone = FdbSkipListComparator.standalone(root);
            if (full.found() && standalone.found()) {
                both = new Path[] {full.path(), standalone.path()};
            } else {
                whyNot = (full.found() ? "" : "FoundationDB's full build: " + full.whyNot())
                        + (full.found() || standalone.found() ? "" : "; ")
                        + (standalone.found() ? "" : "the standalone comparator: " + standalone.whyNot());
                System.out.println("NOT RUN: the standalone skip-list comparator against the full build's"
                        + " (SkipListComparatorsAgreeTest): " + whyNot);
            }
        }
        if (both == null) {
            Assumptions.abort(whyNot);
        }
        return both;
    }

    @TestFactory
    Stream<DynamicTest> theStandaloneComparatorPrintsWhatTheFullBuildsPrints() throws IOException {
        List<List<String>> runs = new ArrayList<>();
        Path longtrace = null;
        for (Golden.Entry entry : Golden.manifest()) {
            runs.add(List.of(entry.trace().toString()));
            if (entry.name().equals("longtrace")) {
                longtrace = entry.trace();
            }
        }
        if (longtrace != null) {
            for (long window : new long[] {0, 250_000, 2_500_000}) {
                runs.add(List.of(longtrace.toString(), "--window", Long.toString(window), "--max-history-every", "1"));
            }
            runs.add(List.of(longtrace.toString(), "--evict-caches", "65536"));
        }
        List<DynamicTest> tests = new ArrayList<>();
        if (longtrace != null) {
            // Evicting the caches between batches (bench --evict-caches' twin) changes the timing, never a decision.
            List<String> plain = List.of(longtrace.toString());
            List<String> evicted = List.of(longtrace.toString(), "--evict-caches", "65536");
            tests.add(DynamicTest.dynamicTest("longtrace --evict-caches decides as without", () -> {
                Path[] comparators = require();
                assertEquals(compared(FoundationDbSkipList.decide(comparators[1], plain)),
                        compared(FoundationDbSkipList.decide(comparators[1], evicted)));
            }));
        }
        for (List<String> arguments : runs) {
            tests.add(DynamicTest.dynamicTest(String.join(" ", arguments).replaceAll("^.*/", ""), () -> {
                Path[] comparators = require();
                Map<String, String> full = compared(FoundationDbSkipList.decide(comparators[0], arguments));
                Map<String, String> standalone = compared(FoundationDbSkipList.decide(comparators[1], arguments));
                assertEquals(full, standalone, "the standalone comparator " + comparators[1] + " against the full build's "
                        + comparators[0]);
            }));
        }
        return tests.stream();
    }

    /**
     * Both run the skip list over the allocator fdbserver links, jemalloc: over glibc's malloc it took up to twice as
     * long on the benchmark workloads (docs/tree.md, "The skip list's allocator"), and every ratio against it flattered
     * the engine. jemalloc's messages start {@code <jemalloc>:} in every binary that links it, stripped or not. Where
     * both are built, build-fdb has installed Debian's libjemalloc-dev, which build-skiplist links.
     */
    @Test
    void bothComparatorsLinkJemallocAsFdbserverDoes() throws IOException {
        for (Path comparator : require()) {
            assertTrue(contains(comparator, "<jemalloc>".getBytes(StandardCharsets.US_ASCII)),
                    () -> comparator + " does not link jemalloc");
        }
    }

    private static boolean contains(Path file, byte[] needle) throws IOException {
        byte[] buffer = new byte[1 << 20];
        int carried = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int read; (read = in.read(buffer, carried, buffer.length - carried)) > 0; ) {
                int end = carried + read;
                for (int i = 0; i + needle.length <= end; i++) {
                    if (Arrays.equals(buffer, i, i + needle.length, needle, 0, needle.length)) {
                        return true;
                    }
                }
                // Keep the last bytes: the needle may straddle two reads.
                carried = Math.min(needle.length - 1, end);
                System.arraycopy(buffer, end - carried, buffer, 0, carried);
            }
        }
        return false;
    }

    private static Map<String, String> compared(Map<String, String> lines) {
        Map<String, String> kept = new LinkedHashMap<>();
        for (String name : COMPARED) {
            if (lines.containsKey(name)) {
                kept.put(name, lines.get(name));
            }
        }
        assertTrue(kept.containsKey("decision-hash") && kept.containsKey("history-bytes"), () -> "no hashes in " + lines);
        return kept;
    }
}
