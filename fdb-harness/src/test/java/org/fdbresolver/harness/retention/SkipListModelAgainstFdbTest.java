package org.fdbresolver.harness.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.harness.trace.GoldenFiles;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java model of FoundationDB's skip-list memory against FoundationDB's own skip list (the comparator
 * {@code fdbresolver_fdb_skiplist} that {@code scripts/build-fdb} builds): the same peak node bytes, to the
 * byte, at several windows of the golden longtrace. Runs where the comparator is named by
 * {@code FDBRESOLVER_FDB_SKIPLIST} (scripts/test sets it where scripts/build-fdb has built FoundationDB); reported
 * as skipped elsewhere.
 */
@EnabledIfEnvironmentVariable(named = "FDBRESOLVER_FDB_SKIPLIST", matches = ".+")
class SkipListModelAgainstFdbTest {

    @ParameterizedTest(name = "window {0} versions")
    @ValueSource(longs = {0, 31_250, 250_000, 1_000_000, 2_500_000, 600_000_000})
    void peakBytesAreFoundationDbsToTheByte(long window) throws IOException {
        Path trace = GoldenFiles.dir().resolve("longtrace.trace.gz");
        Path comparator = Path.of(System.getenv("FDBRESOLVER_FDB_SKIPLIST"));
        long fdb = new NativeMeter(comparator, trace, 1).peakBytes(window);
        long model = new ModelMeter(trace, ConflictSetConfig.builder().engine("tree").build(), (a, b, c) -> { })
                .peakBytes(window);
        assertEquals(fdb, model);
    }
}
