package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.SplittableRandom;
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

    /**
     * The keys take every branch the bridge's key copy and the key comparison have for a Resolver's keys: every
     * remainder of the length by 8 below 64 bytes, 64 bytes and more (a native copy), and keys sharing more than 32
     * bytes. A branch the warm-up never took was left out of the compiled code, and the first real batch that took
     * it deoptimised them.
     */
    @Test
    void itsKeysTakeEveryLengthBranchOfTheCopyAndTheComparison() {
        SplittableRandom rnd = new SplittableRandom(1);
        BitSet remainders = new BitSet();
        int longest = 0;
        int longestShared = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(1 << 16);
            byte[] previous = new byte[0];
            for (int i = 0; i < 2_000; i++) {
                int n = BridgeWarmUp.key(rnd, keys, 0);
                byte[] k = keys.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
                if (n < 64) {
                    remainders.set(n % 8);
                }
                longest = Math.max(longest, n);
                int shared = 0;
                while (shared < Math.min(k.length, previous.length) && k[shared] == previous[shared]) {
                    shared++;
                }
                longestShared = Math.max(longestShared, shared);
                previous = k;
            }
        }
        assertEquals(8, remainders.cardinality(), remainders::toString);
        assertTrue(longest >= 64, "longest key " + longest);
        assertTrue(longestShared > 32, "longest shared prefix " + longestShared);
    }
}
