package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fdbresolver.api.ConflictSetConfig;
import org.junit.jupiter.api.Test;

/**
 * The bridge's warm-up drives its batches through the whole Java path of a call (call block, host-layout tables,
 * output) and they decide every way a Resolver's batches do.
 */
class BridgeWarmUpTest {
    @Test
    void resolvesEveryBatchThroughTheCallBlockWithEveryKindOfDecision() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").build();
        BridgeWarmUp.Outcome outcome = BridgeWarmUp.run(config, 400);
        assertEquals(400, outcome.batches());
        assertTrue(outcome.commits() > 0, "no commit: " + outcome);
        assertTrue(outcome.conflicts() > 0, "no conflict: " + outcome);
        assertTrue(outcome.tooOld() > 0, "no too-old: " + outcome);
    }

    @Test
    void isDeterministicAndTakesTheEnginesOptions() {
        ConflictSetConfig config = ConflictSetConfig.builder().engine("tree").option("nodeBytes", "256")
                .option("threads", "2").build();
        assertEquals(BridgeWarmUp.run(config, 150), BridgeWarmUp.run(config, 150));
    }
}
