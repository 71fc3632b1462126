package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.fdb.FdbBuildLocation;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java model of FoundationDB's skip-list memory against FoundationDB's own skip list (the comparator
 * {@code fdbresolver_fdb_skiplist} that {@code scripts/build-fdb} builds): the same peak node bytes, to the
 * byte, at several windows of the golden longtrace. Runs where the comparator is named by
 * {@code FDBRESOLVER_FDB_SKIPLIST} or {@code scripts/build-fdb --where} finds it built; reported as
 * skipped, with the reason, elsewhere.
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

    private static Path comparator() {
        String named = System.getenv("FDBRESOLVER_FDB_SKIPLIST");
        if (named != null && !named.isBlank()) {
            return Path.of(named);
        }
        Path built;
        try {
            built = FdbBuildLocation.ask(FdbBuildLocation.repositoryRoot()).path("fdb-skiplist");
        } catch (IOException e) {
            built = null;
        }
        if (built == null || !Files.isExecutable(built)) {
            Assumptions.abort("FoundationDB's skip list is not built (scripts/build-fdb; or FDBRESOLVER_FDB_SKIPLIST=PATH)");
        }
        return built;
    }
}
