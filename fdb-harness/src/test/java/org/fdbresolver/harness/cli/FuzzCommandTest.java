package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.harness.fuzz.FakeStreamComparator;
import org.fdbresolver.harness.fuzz.FuzzShapes;
import org.fdbresolver.harness.trace.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fdbresolver fuzz}: its lines, its exit codes, the oracle it picks, a difference written as a reproduction. */
class FuzzCommandTest {
    @TempDir
    Path dir;

    @Test
    void aShortRunAgainstTheReferenceComparesEveryShapeAndSaysWhatItComparedWith() throws IOException {
        CliRun run = CliRun.of("fuzz", "--oracle", "reference", "--seed", "7", "--transactions", "40000",
                "--case-transactions", "2000", "--out", dir.toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals("0", run.value("differences"));
        assertEquals("7", run.value("seed"));
        assertTrue(run.value("oracle").startsWith("reference (the reference engine, standing in for FoundationDB's skip list: "
                + "chosen with --oracle reference)"), run::toString);
        assertTrue(Long.parseLong(run.value("transactions")) >= 40000, run::toString);
        assertTrue(run.value("case-seeds").startsWith("7.."), run::toString);
        assertEquals(String.join(",", FuzzShapes.all().keySet()), run.value("shapes"));
        for (String shape : FuzzShapes.all().keySet()) {
            assertTrue(run.value("shape-transactions").contains(shape + " "), run::toString);
        }
        List<String> names = new ArrayList<>(run.values().keySet());
        DocumentedOutputTest.assertDocumented("fuzz", names);
    }

    @Test
    void aDifferenceIsShrunkWrittenAndExitsOne() throws IOException {
        Path comparator = FakeStreamComparator.script(dir, "commit-all");
        CliRun run = CliRun.of("fuzz", "--fdb-skiplist", comparator.toString(), "--seed", "3", "--shapes", "random",
                "--case-transactions", "2000", "--out", dir.resolve("out").toString());
        assertEquals(1, run.code(), run::toString);
        assertTrue(run.value("oracle").startsWith("fdb-skiplist (FoundationDB's skip list, " + comparator + " --stream)"),
                run::toString);
        assertTrue(Long.parseLong(run.value("differences")) > 0, run::toString);
        assertTrue(run.value("first-difference").contains("tree "), run::toString);
        assertTrue(run.value("difference-shrunk").endsWith("fdb-skiplist COMMIT"), run::toString);
        Path trace = Path.of(run.value("reproduction"));
        Path listing = Path.of(run.value("listing"));
        assertTrue(Files.isRegularFile(trace) && Files.isRegularFile(listing), run::toString);
        long transactions = 0;
        try (TraceReader r = TraceReader.open(trace)) {
            for (var b = r.next(); b != null; b = r.next()) {
                transactions += b.getTransactionsCount();
            }
        }
        // Everything the fake commits that the rules do not: one transaction reading below the oldest version, or a
        // write and a read that conflicts with it.
        assertTrue(transactions >= 1 && transactions <= 2, "shrunk to " + transactions + " transactions");
        assertTrue(Files.readString(listing).contains("<-- differs"));
        DocumentedOutputTest.assertDocumented("fuzz", new ArrayList<>(run.values().keySet()));
    }

    @Test
    void anOldComparatorIsRefusedWhenAskedForAndSaidSoInAuto() throws IOException {
        Path old = FakeStreamComparator.script(dir, "no-stream");
        CliRun asked = CliRun.of("fuzz", "--oracle", "fdb-skiplist", "--fdb-skiplist", old.toString(), "--transactions", "10");
        assertEquals(2, asked.code(), asked::toString);
        assertTrue(asked.err().startsWith("error: --oracle fdb-skiplist: " + old + " has no --stream mode"), asked::toString);
    }

    @Test
    void usageErrors() {
        for (List<String> args : List.of(
                List.of("fuzz", "--shapes", "nope"),
                List.of("fuzz", "--transactions", "0"),
                List.of("fuzz", "--oracle", "frob"),
                List.of("fuzz", "--engine", "reference", "--shapes", "small-budget"),
                List.of("fuzz", "--engine", "no-such-engine"),
                List.of("fuzz", "--engine", "reference", "--budget", "1m"))) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(2, run.code(), run::toString);
            assertEquals(1, run.errLines().size(), run::toString);
            assertEquals("", run.out(), run::toString);
        }
        assertTrue(CliRun.of("fuzz", "--shapes", "nope").err().contains("unknown shape 'nope' (shapes: skiplisttest,"));
    }
}
