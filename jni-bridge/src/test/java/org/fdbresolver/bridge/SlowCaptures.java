package org.fdbresolver.bridge;

import org.fdbresolver.bridge.capture.Capture;

/**
 * Fault injection for FoundationDB's simulation (fdb-sim's {@code fault-close-slow-capture}, through engine
 * {@code test-faulty}'s option {@code capture_delay_millis}): every capture opened from now on in this JVM writes each
 * record that many milliseconds late, a disk far slower than the Resolver, so that the plugin's close comes while its
 * writer is behind. Tests only: the main code never calls it.
 */
public final class SlowCaptures {
    private SlowCaptures() {
    }

    public static void install(long delayMillis) {
        NativeResolver.captureOpener = (settings, engine, warnings) -> Capture.open(settings, engine, warnings, () -> {
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
