package org.fdbresolver.bridge;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.bridge.capture.Capture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** fdb-sim's slow-capture fault: engine {@code test-faulty}'s {@code capture_delay_millis} installs the slow writer. */
class SlowCapturesTest {
    @AfterEach
    void putBackTheOpener() {
        NativeResolver.captureOpener = Capture::open;
    }

    @Test
    void theFaultyEnginesOptionMakesLaterCapturesSlow() {
        NativeResolver.CaptureOpener plain = NativeResolver.captureOpener;
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("test-faulty").option("fault", "throw").build())) {
            assertSame(plain, NativeResolver.captureOpener, "no option, no slow captures");
        }
        try (ConflictSet cs = ConflictSet.open(ConflictSetConfig.builder().engine("test-faulty").option("fault", "throw")
                .option("capture_delay_millis", "20").build())) {
            assertNotSame(plain, NativeResolver.captureOpener, "the option installs the slow opener");
        }
    }
}
