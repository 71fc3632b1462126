package org.fdbresolver.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.fuzz.FuzzShapes;
import org.fdbresolver.harness.fuzz.Fuzzer;
import org.fdbresolver.harness.fuzz.Oracle;
import org.fdbresolver.harness.trace.DecisionHasher;
import org.fdbresolver.harness.trace.TraceReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzzer's proof that it can fail: {@link PlantedBugEngine} (the reference engine with one wrong comparison)
 * must be found by the fuzzer and shrunk to a trace of at most a few transactions, which still shows the bug when
 * replayed from the file written, with a listing that marks the difference.
 */
@Tag("fuzz")
class FuzzerFindsPlantedBugTest {
    /** "At most a few": the bug needs one write and one read of the same batch. */
    static final int FEW = 3;

    @Test
    void theFuzzerFindsThePlantedBugAndShrinksItToAFewTransactions(@TempDir Path dir) throws Exception {
        // Bounded by a count of cases, not a time (found in case 1, shrunk in 0.2 s here); the shrinking's hour is
        // only a guard against a hang, never what decides a pass.
        Fuzzer.Settings settings = new Fuzzer.Settings(1, 0, 100, 50_000_000, 0, 5000,
                FuzzShapes.choose(null, false), true, 3_600_000_000_000L, dir, "FuzzerFindsPlantedBugTest");
        Fuzzer.Result r;
        try (Oracle oracle = FuzzOracles.open()) {
            r = new Fuzzer(FuzzOracles.unregistered(PlantedBugEngine.NAME, PlantedBugEngine::create), oracle).run(settings, null);
        }
        Fuzzer.Found found = r.found();
        assertNotNull(found, "the fuzzer missed the planted bug in " + r.transactions() + " transactions");
        System.out.println("ok, the fuzzer finds the deliberately planted bug: in " + found.fuzzCase() + " at " + found.original().where() + " after "
                + r.transactions() + " transactions; shrunk from " + found.originalBatches() + " batches, "
                + found.originalTransactions() + " transactions to " + found.shrunkBatches() + " batches, "
                + found.shrunkTransactions() + " transactions in " + found.tests() + " tests ("
                + String.format("%.1f", found.shrinkNanos() / 1e9) + " s): " + found.shrunk());
        assertNotNull(found.shrunk(), "the shrunk trace no longer differs");
        assertTrue(found.shrunkTransactions() <= FEW, "shrunk only to " + found.shrunkTransactions() + " transactions");
        assertTrue(found.shrunkTransactions() < found.originalTransactions());

        // The written trace still shows the bug on its own: the planted engine and the reference decide it differently.
        Path trace = found.files().trace();
        assertNotEquals(decisionHash(trace, ConflictSet.wrap(ConflictSetConfig.builder().engine(PlantedBugEngine.NAME).build(),
                PlantedBugEngine.create())), decisionHash(trace, ConflictSet.open(ConflictSetConfig.builder().engine("reference").build())));
        String listing = Files.readString(found.files().listing());
        long marked = listing.lines().filter(line -> line.endsWith("<-- differs")).count();
        assertEquals(1, marked, "exactly one differing transaction is marked:\n" + listing);
    }

    private static String decisionHash(Path trace, ConflictSet cs) throws Exception {
        try (cs; TraceReader reader = TraceReader.open(trace)) {
            ConflictBatch batch = cs.newBatch();
            DecisionHasher hasher = new DecisionHasher();
            while (reader.nextInto(batch)) {
                hasher.add(batch.detectConflicts(reader.version(), reader.newOldestVersion()));
            }
            return hasher.decisionHash();
        }
    }
}
