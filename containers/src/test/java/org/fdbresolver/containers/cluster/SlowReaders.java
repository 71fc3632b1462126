package org.fdbresolver.containers.cluster;

import com.apple.foundationdb.Database;
import com.apple.foundationdb.Transaction;
import com.apple.foundationdb.subspace.Subspace;
import com.apple.foundationdb.tuple.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Long transactions beside a workload: each reader reads a key of its own that nothing else writes, holds its read
 * version for {@code delay}, then writes another key of its own and commits, over and over. Nothing conflicts with
 * them, so the only answer that fails one is TOO_OLD: its read version fell out of the window the resolver keeps.
 * FoundationDB keeps five seconds (a delay below that never fails on a stock cluster); an engine whose memory budget
 * binds keeps less, and these count what that costs a long transaction ({@code transaction_too_old}, 1007).
 */
final class SlowReaders {
    /** What the readers' commits came to; {@link #minus} takes a window's share. */
    record Counts(long commits, long tooOld, long otherErrors) {
        Counts minus(Counts earlier) {
            return new Counts(commits - earlier.commits, tooOld - earlier.tooOld, otherErrors - earlier.otherErrors);
        }

        boolean isEmpty() {
            return commits == 0 && tooOld == 0 && otherErrors == 0;
        }

        @Override
        public String toString() {
            return commits + " / " + tooOld + " / " + otherErrors;
        }
    }

    private final Database db;
    private final int readers;
    private final Duration delay;
    private final Subspace keys = new Subspace(Tuple.from("fdbresolver-slow-readers"));
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong tooOld = new AtomicLong();
    private final AtomicLong otherErrors = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();

    SlowReaders(Database db, int readers, Duration delay) {
        if (readers < 0 || delay.isNegative()) {
            throw new IllegalArgumentException("slow readers: " + readers + ", delay " + delay);
        }
        this.db = db;
        this.readers = readers;
        this.delay = delay;
    }

    /** Writes each reader's key once, then starts the readers (none when there are none). */
    void start() {
        if (readers == 0) {
            return;
        }
        db.run(tr -> {
            for (int r = 0; r < readers; r++) {
                tr.set(keys.pack(Tuple.from(r, "read")), new byte[8]);
            }
            return null;
        });
        for (int r = 0; r < readers; r++) {
            int id = r;
            Thread t = new Thread(() -> readLoop(id), "slow-reader-" + r);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    private void readLoop(int id) {
        byte[] read = keys.pack(Tuple.from(id, "read"));
        byte[] written = keys.pack(Tuple.from(id, "written"));
        for (long n = 0; !stop.get(); n++) {
            try (Transaction tr = db.createTransaction()) {
                tr.get(read).join();
                Thread.sleep(delay.toMillis());
                tr.set(written, Tuple.from(n).pack());
                tr.commit().join();
                commits.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            } catch (CompletionException | com.apple.foundationdb.FDBException e) {
                if (FdbErrors.code(e) == FdbErrors.TRANSACTION_TOO_OLD) {
                    tooOld.incrementAndGet();
                } else {
                    otherErrors.incrementAndGet();
                }
            }
        }
    }

    Counts counts() {
        return new Counts(commits.get(), tooOld.get(), otherErrors.get());
    }

    /** Stops the readers and waits for them (a reader ends after its current transaction). */
    void stop() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(delay.toMillis() + 60_000);
        }
    }
}
