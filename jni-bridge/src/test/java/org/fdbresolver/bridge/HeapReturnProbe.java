package org.fdbresolver.bridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.ConflictSet;

/**
 * Run in a JVM of its own by {@link HeapReturnTest}: opens a resolver as the native side does, fills its history
 * with about 100 MiB, closes it, waits for the close to finish, and prints the committed heap before and after and
 * how many times the bridge collected to give the heap back and after the first open's warm-up ({@code name: value}
 * lines).
 */
public final class HeapReturnProbe {
    private HeapReturnProbe() {
    }

    public static void main(String[] args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment message = arena.allocate(4096);
            NativeResolver resolver = NativeResolver.open("tree", 512L << 20, 0, null, null, status.address(), message.address(), 4096);
            if (resolver == null) {
                throw new IllegalStateException("open failed: " + message.getString(0));
            }
            ConflictSet cs = resolver.conflictSetForTests();
            ConflictBatch batch = cs.newBatch();
            long version = 1;
            byte[] key = new byte[24];
            byte[] end = new byte[25];
            ByteBuffer bytes = ByteBuffer.wrap(key);
            for (int b = 0; b < 1_500; b++) {
                batch.clear();
                for (int t = 0; t < 1_000; t++) {
                    batch.addTransaction(version, false);
                    bytes.putLong(0, Long.reverse(b * 1_000L + t)).putLong(8, b).putLong(16, t);
                    System.arraycopy(key, 0, end, 0, key.length);
                    batch.addWrite(key, end);
                }
                version += 10;
                batch.detectConflicts(version, 0);
            }
            long history = cs.stats().historyBytes();
            System.gc();
            long before = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
            cs = null;
            batch = null;
            resolver.close(message.address(), 4096);
            resolver = null;
            if (NativeResolver.awaitCloses(30_000) != 0) {
                throw new IllegalStateException("the close did not finish");
            }
            long after = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
            System.out.println("history-bytes: " + history);
            System.out.println("committed-before: " + before);
            System.out.println("committed-after: " + after);
            System.out.println("heap-returns: " + HeapPlan.heapReturns.get());
            System.out.println("warm-up-collections: " + HeapPlan.warmUpCollections.get());
        }
    }
}
