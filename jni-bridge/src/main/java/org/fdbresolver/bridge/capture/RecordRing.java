package org.fdbresolver.bridge.capture;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;

/**
 * The bounded queue between the resolver's thread (one producer) and the capture's writer thread (one consumer):
 * one byte array allocated at open, holding records back to back in a ring, so that handing a batch over copies
 * its encoding once and allocates nothing. The capacity is the bound on what the writer may fall behind by.
 *
 * <p>A record is a 4-byte length and that many bytes, never split at the ring's end: when it does not fit before
 * the end, the producer marks the rest of the lap as skipped (a length of -1, or nothing when fewer than 4 bytes
 * remain) and starts at offset 0. Positions are byte counts since the start, never reset; the producer publishes
 * {@code head} only after writing the record, the consumer publishes {@code tail} only after using it, both
 * through volatile fields, which orders the bytes between the threads.
 */
final class RecordRing {
    static final int HEADER_BYTES = 4;
    private static final int SKIP = -1;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] ring;
    private final int capacity;
    private volatile long head;
    private volatile long tail;
    /** The consumer parks only with this set, so the producer wakes it only then (a volatile pair: no lost wake-up). */
    private volatile boolean consumerParked;
    private volatile Thread consumer;

    /** Where the record being written goes, between {@link #reserve} and {@link #publish}. */
    private long reservedEnd;

    RecordRing(int capacity) {
        this.ring = new byte[capacity];
        this.capacity = capacity;
    }

    byte[] array() {
        return ring;
    }

    int capacity() {
        return capacity;
    }

    /** The largest record the ring can always take once it drains: half of it, as a record may have to skip a lap's end. */
    int maxRecordBytes() {
        return capacity / 2 - HEADER_BYTES;
    }

    void consumer(Thread thread) {
        this.consumer = thread;
    }

    /**
     * Makes room for a record of {@code size} bytes, waiting for the consumer until {@code deadlineNanos}
     * ({@link System#nanoTime}); returns the offset where its bytes go, or -1 when the consumer did not free room
     * in time. Producer only; the size must be at most {@link #maxRecordBytes()}.
     */
    int reserve(int size, long deadlineNanos) {
        long h = head;
        int at = (int) (h % capacity);
        int needed = HEADER_BYTES + size;
        long skip = capacity - at >= needed ? 0 : capacity - at;
        while (h + skip + needed - tail > capacity) {
            wakeConsumer();
            if (System.nanoTime() - deadlineNanos >= 0) {
                return -1;
            }
            LockSupport.parkNanos(20_000);
        }
        if (skip > 0) {
            if (skip >= HEADER_BYTES) {
                INT.set(ring, at, SKIP);
            }
            at = 0;
        }
        INT.set(ring, at, size);
        reservedEnd = h + skip + needed;
        return at + HEADER_BYTES;
    }

    /**
     * Hands the reserved record to the consumer. Producer only. The consumer is woken only once a quarter of the
     * ring waits: it polls on its own otherwise ({@link #awaitRecord}), because a thread woken from here may take the
     * producer's core at once (Linux favours a task that slept), and the producer is the resolver, in the middle of a
     * batch. Measured on a busy two-core machine: waking on every record made each record cost 0.5-1 ms of wall time
     * (the writer compressing on the resolver's core) for 60-150 us of work.
     */
    void publish() {
        head = reservedEnd;
        if (consumerParked && head - tail > capacity / 4) {
            wakeConsumer();
        }
    }

    private void wakeConsumer() {
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
    }

    /** Whether a record is waiting. Consumer only. */
    boolean isEmpty() {
        return tail == head;
    }

    /**
     * The offset of the next record's bytes (its length is {@link #recordLength}), or -1 when none waits.
     * Consumer only; the record stays valid until {@link #release}.
     */
    int peek() {
        long t = tail;
        if (t == head) {
            return -1;
        }
        int at = (int) (t % capacity);
        if (capacity - at < HEADER_BYTES || (int) INT.get(ring, at) == SKIP) {
            tail = t + (capacity - at); // the rest of this lap was skipped: the record is at offset 0
            return peek();
        }
        return at + HEADER_BYTES;
    }

    int recordLength(int offset) {
        return (int) INT.get(ring, offset - HEADER_BYTES);
    }

    /** Frees the record {@link #peek} returned. Consumer only. */
    void release(int offset) {
        tail += HEADER_BYTES + recordLength(offset);
    }

    /**
     * Parks the consumer for up to {@code nanos} unless a record waits; the producer wakes it early only when the
     * ring fills (see {@link #publish}). Consumer only.
     */
    void awaitRecord(long nanos) {
        consumerParked = true;
        if (isEmpty()) {
            LockSupport.parkNanos(nanos);
        }
        consumerParked = false;
    }

    /** Bytes between the consumer and the producer, skipped lap ends included. */
    long queuedBytes() {
        return head - tail;
    }
}
