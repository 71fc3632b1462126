package org.fdbresolver.pipeline;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads one batch's phases are split across: the calling thread and {@code threads - 1} daemon
 * workers, made once when the engine opens and stopped by {@link #close()}. {@link #run} hands out the
 * parts of one phase — the caller takes parts too — and returns when every part is done, so a phase is a
 * fork and a join and nothing is created per batch: the task is an object the caller keeps, parts are
 * claimed from a counter tagged with the phase's generation, and waiting is a short spin, then
 * {@link LockSupport#park}.
 *
 * <p>What a part does must not depend on which thread runs it: callers split work by the batch and the
 * tree (never by the thread count) wherever the split can change what the history holds.
 */
public final class BatchWorkers implements AutoCloseable {
    /**
     * Parts per thread a phase is usually cut into: more than one, so that a thread the system delays holds up
     * little of the phase (the others take its parts).
     */
    public static final int MAX_PARTS_PER_THREAD = 4;

    /** One phase's work, split into parts {@code 0 .. parts - 1}. */
    public interface Task {
        void run(int part);
    }

    /**
     * How long a thread spins before it parks: long enough to bridge the gap between two phases of one batch
     * (the serial steps in between take tens of microseconds), short enough not to hold a core between batches.
     */
    private static final long SPIN_NANOS = 50_000;

    private final Thread[] workers;
    private volatile boolean closed;
    /** Bumped by each {@link #run}; a worker works when it sees a new value. */
    private volatile int generation;
    /**
     * The phase's task and parts. Volatile: a worker that reads the next phase's values must also see that
     * {@link #claim} was closed before they were written (see {@link #run}).
     */
    private volatile Task task;
    private volatile int parts;
    /** {@code generation << 32 | next part}: a worker claims a part of the generation it read, never a later one. */
    private final AtomicLong claim = new AtomicLong();
    private final AtomicInteger unfinished = new AtomicInteger();
    private volatile Thread caller;
    private volatile Throwable failure;

    /** @param threads the threads a phase may use, the caller's included (1: no workers) */
    public BatchWorkers(int threads, String name) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        workers = new Thread[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            Thread t = new Thread(this::work, name + "-" + (i + 1));
            t.setDaemon(true);
            workers[i] = t;
        }
        for (Thread t : workers) {
            t.start();
        }
    }

    /** Threads a phase can use, the caller's included. */
    public int threads() {
        return workers.length + 1;
    }

    /**
     * Runs {@code task} for parts {@code 0 .. parts - 1} on the caller and the workers, and returns when all
     * are done; an exception thrown by a part is rethrown here (after every part has finished). Not reentrant:
     * one phase at a time, from one thread.
     */
    public void run(Task task, int parts) {
        if (parts <= 0) {
            return;
        }
        if (parts == 1 || workers.length == 0) {
            for (int p = 0; p < parts; p++) {
                task.run(p);
            }
            return;
        }
        int g = generation + 1;
        // Closes the previous generation before its task and parts change: a worker still on it (it read the
        // generation, then was descheduled) could otherwise read this phase's task or parts, claim a part under the
        // old generation's count, and run it before this phase is set up, or twice, or count it off this phase.
        claim.set((long) g << 32 | Integer.MAX_VALUE);
        this.task = task;
        this.parts = parts;
        this.failure = null;
        this.caller = Thread.currentThread();
        unfinished.set(parts);
        claim.set((long) g << 32);
        generation = g; // publishes the fields above to the workers
        for (Thread t : workers) {
            LockSupport.unpark(t);
        }
        claimParts(g, task, parts);
        long start = 0;
        for (int spin = 0; unfinished.get() > 0; spin++) {
            if ((spin & 63) != 0) {
                Thread.onSpinWait();
            } else if (start == 0) {
                start = System.nanoTime();
            } else if (System.nanoTime() - start > SPIN_NANOS) {
                LockSupport.park(this);
            }
        }
        this.task = null;
        Throwable f = failure;
        if (f != null) {
            failure = null;
            if (f instanceof RuntimeException e) {
                throw e;
            }
            if (f instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(f);
        }
    }

    /** Runs parts of generation {@code g} until none is left (or a later generation has begun). */
    private void claimParts(int g, Task task, int parts) {
        while (true) {
            long c = claim.get();
            int p = (int) c;
            if ((int) (c >>> 32) != g || p >= parts) {
                return;
            }
            if (!claim.compareAndSet(c, c + 1)) {
                continue;
            }
            try {
                task.run(p);
            } catch (Throwable e) {
                if (failure == null) {
                    failure = e;
                }
            }
            if (unfinished.decrementAndGet() == 0) {
                LockSupport.unpark(caller);
            }
        }
    }

    private void work() {
        int seen = generation;
        while (true) {
            long start = 0;
            int g;
            for (int spin = 0; (g = generation) == seen && !closed; spin++) {
                if ((spin & 63) != 0) {
                    Thread.onSpinWait();
                } else if (start == 0) {
                    start = System.nanoTime();
                } else if (System.nanoTime() - start > SPIN_NANOS) {
                    LockSupport.park(this); // run() unparks every worker after bumping the generation
                }
            }
            if (closed) {
                return;
            }
            seen = g;
            Task t = task;
            int n = parts;
            if (t != null) {
                claimParts(g, t, n);
            }
        }
    }

    /**
     * Stops the workers and waits (briefly) for them to end. They are daemons: a conflict set never closed does not
     * keep the JVM alive.
     */
    @Override
    public void close() {
        closed = true;
        for (Thread t : workers) {
            LockSupport.unpark(t);
        }
        boolean interrupted = false;
        for (Thread t : workers) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
