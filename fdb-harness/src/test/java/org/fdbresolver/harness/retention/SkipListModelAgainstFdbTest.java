package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.fdb.FdbSkipListComparator;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java model of FoundationDB's skip-list memory against FoundationDB's own skip list (the comparator
 * {@code fdbresolver_fdb_skiplist} that {@code scripts/build-fdb} builds): the same peak node bytes, to the
 * byte, at several windows of the golden longtrace. Runs where {@link FdbSkipListComparator} finds the
 * comparator ({@code FDBRESOLVER_FDB_SKIPLIST}, or built by {@code scripts/build-fdb}, or the standalone one of
 * {@code scripts/build-skiplist}); reported as skipped elsewhere, with the reason on the console once.
 */
class SkipListModelAgainstFdbTest {

    @ParameterizedTest(name = "window {0} versions")
    @ValueSource(longs = {0, 31_250, 250_000, 1_000_000, 2_500_000, 600_000_000})
    void peakBytesAreFoundationDbsToTheByte(long window) throws IOException {
        Path trace = GoldenFiles.dir().resolve("longtrace.trace.gz");
        Path comparator = comparator();
        long fdb = new NativeMeter(comparator, trace, 1).peakBytes(window);
        long model = new ModelMeter(trace, ConflictSetConfig.builder().engine("tree").build(), (a, b, c) -> { })
                .peakBytes(window);
        assertEquals(fdb, model);
    }

    private static FdbSkipListComparator lookup;

    /** The comparator, or aborts the test with the reason, printed on the console for the first test only. */
    private static synchronized Path comparator() {
        if (lookup == null) {
            lookup = FdbSkipListComparator.find();
            if (!lookup.found()) {
                System.out.println("NOT RUN: the skip-list memory model against FoundationDB's own skip list "
                        + "(SkipListModelAgainstFdbTest): " + lookup.whyNot());
            }
        }
        if (!lookup.found()) {
            Assumptions.abort(lookup.whyNot());
        }
        return lookup.path();
    }
}
