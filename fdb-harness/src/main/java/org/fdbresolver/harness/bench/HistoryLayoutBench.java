package org.fdbresolver.harness.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where the history should live: the tree's leaf layout ({@code NodeStore}: per leaf a sorted run of
 * order-preserving {@code long} keys and {@code int} versions) held in on-heap chunked primitive arrays, as
 * the engine holds it, against the same layout in off-heap {@link MemorySegment}s (FFM), as an engine that
 * keeps history outside the Java heap would. The two kernels are the tree's hot loops: a read's leaf step
 * (binary search of a key in a leaf, then the max version over the next entries it covers) and a write's
 * (shift a leaf's tail by one slot to insert). Leaves are picked at random over far more memory than the
 * caches hold, as a resolver's reads are.
 *
 * <p>Issue 15 asked which design is faster before choosing how the budget, the heap and fdbserver's
 * {@code --memory} are reconciled; docs/fdb-integration.md ("Memory") has the figures.
 *
 * <pre>
 * java -cp "fdb-harness/target/classes:plugin/target/classes:fdb-harness/target/lib/*" org.openjdk.jmh.Main HistoryLayoutBench
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xmx4g", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class HistoryLayoutBench {
    /** Entries per leaf: a 2048-byte node's ({@code (2048 - 16) / 16}). */
    static final int LEAF_CAP = 127;
    /** Leaves per chunk of the on-heap pools ({@code NodeStore.CHUNK_NODES}). */
    static final int CHUNK_NODES = 64;
    static final int PROBES = 4096;

    /** Leaves in the history: 2^18 leaves of 127 entries hold about 400 MB of keys and versions. */
    @Param({"262144"})
    public int leaves;

    private long[][] heapKeys;
    private int[][] heapVersions;
    /** The same on the heap in one array each (no chunk indirection): separates chunking from heap vs off-heap. */
    private long[] flatKeys;
    private int[] flatVersions;
    private Arena arena;
    private MemorySegment segKeys;
    private MemorySegment segVersions;
    private final int[] probeLeaf = new int[PROBES];
    private final long[] probeKey = new long[PROBES];
    private final int[] probeSlot = new int[PROBES];

    @Setup(Level.Trial)
    public void setUp() {
        int chunks = (leaves + CHUNK_NODES - 1) / CHUNK_NODES;
        heapKeys = new long[chunks][CHUNK_NODES * LEAF_CAP];
        heapVersions = new int[chunks][CHUNK_NODES * LEAF_CAP];
        flatKeys = new long[leaves * LEAF_CAP];
        flatVersions = new int[leaves * LEAF_CAP];
        arena = Arena.ofShared();
        long entries = (long) leaves * LEAF_CAP;
        segKeys = arena.allocate(entries * Long.BYTES, 64);
        segVersions = arena.allocate(entries * Integer.BYTES, 64);
        SplittableRandom rnd = new SplittableRandom(15);
        for (int h = 0; h < leaves; h++) {
            long key = (long) h << 32;
            for (int i = 0; i < LEAF_CAP; i++) {
                key += 1 + rnd.nextInt(1000);
                int version = rnd.nextInt(1 << 30);
                heapKeys[h / CHUNK_NODES][(h % CHUNK_NODES) * LEAF_CAP + i] = key;
                heapVersions[h / CHUNK_NODES][(h % CHUNK_NODES) * LEAF_CAP + i] = version;
                flatKeys[h * LEAF_CAP + i] = key;
                flatVersions[h * LEAF_CAP + i] = version;
                segKeys.setAtIndex(ValueLayout.JAVA_LONG, (long) h * LEAF_CAP + i, key);
                segVersions.setAtIndex(ValueLayout.JAVA_INT, (long) h * LEAF_CAP + i, version);
            }
        }
        for (int p = 0; p < PROBES; p++) {
            int h = rnd.nextInt(leaves);
            probeLeaf[p] = h;
            probeKey[p] = heapKeys[h / CHUNK_NODES][(h % CHUNK_NODES) * LEAF_CAP + rnd.nextInt(LEAF_CAP)] + rnd.nextInt(2);
            probeSlot[p] = rnd.nextInt(LEAF_CAP - 1);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** A read's leaf step on the heap: binary search, then the max version over up to 4 entries. */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long readStepHeap() {
        long sum = 0;
        for (int p = 0; p < PROBES; p++) {
            int h = probeLeaf[p];
            long[] keys = heapKeys[h >>> 6];
            int[] versions = heapVersions[h >>> 6];
            int base = (h & (CHUNK_NODES - 1)) * LEAF_CAP;
            long k = probeKey[p];
            int lo = base;
            int hi = base + LEAF_CAP - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (keys[mid] <= k) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            int from = Math.max(base, lo - 1);
            int to = Math.min(base + LEAF_CAP, from + 4);
            int max = Integer.MIN_VALUE;
            for (int i = from; i < to; i++) {
                max = Math.max(max, versions[i]);
            }
            sum += max;
        }
        return sum;
    }

    /** The read step on the heap without chunks: one array for all keys, one for all versions. */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long readStepHeapFlat() {
        long sum = 0;
        long[] keys = flatKeys;
        int[] versions = flatVersions;
        for (int p = 0; p < PROBES; p++) {
            int base = probeLeaf[p] * LEAF_CAP;
            long k = probeKey[p];
            int lo = base;
            int hi = base + LEAF_CAP - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (keys[mid] <= k) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            int from = Math.max(base, lo - 1);
            int to = Math.min(base + LEAF_CAP, from + 4);
            int max = Integer.MIN_VALUE;
            for (int i = from; i < to; i++) {
                max = Math.max(max, versions[i]);
            }
            sum += max;
        }
        return sum;
    }

    /** The same step off the heap, through FFM segments. */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long readStepOffHeap() {
        long sum = 0;
        MemorySegment keys = segKeys;
        MemorySegment versions = segVersions;
        for (int p = 0; p < PROBES; p++) {
            long base = (long) probeLeaf[p] * LEAF_CAP;
            long k = probeKey[p];
            long lo = base;
            long hi = base + LEAF_CAP - 1;
            while (lo <= hi) {
                long mid = (lo + hi) >>> 1;
                if (keys.getAtIndex(ValueLayout.JAVA_LONG, mid) <= k) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            long from = Math.max(base, lo - 1);
            long to = Math.min(base + LEAF_CAP, from + 4);
            int max = Integer.MIN_VALUE;
            for (long i = from; i < to; i++) {
                max = Math.max(max, versions.getAtIndex(ValueLayout.JAVA_INT, i));
            }
            sum += max;
        }
        return sum;
    }

    /** A write's leaf step on the heap: open one slot by shifting the leaf's tail (keys and versions). */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long writeStepHeap() {
        long sum = 0;
        for (int p = 0; p < PROBES; p++) {
            int h = probeLeaf[p];
            long[] keys = heapKeys[h >>> 6];
            int[] versions = heapVersions[h >>> 6];
            int at = (h & (CHUNK_NODES - 1)) * LEAF_CAP + probeSlot[p];
            int move = LEAF_CAP - 1 - probeSlot[p] - 1;
            System.arraycopy(keys, at, keys, at + 1, move);
            System.arraycopy(versions, at, versions, at + 1, move);
            sum += keys[at];
        }
        return sum;
    }

    /** The write step on the heap without chunks. */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long writeStepHeapFlat() {
        long sum = 0;
        long[] keys = flatKeys;
        int[] versions = flatVersions;
        for (int p = 0; p < PROBES; p++) {
            int at = probeLeaf[p] * LEAF_CAP + probeSlot[p];
            int move = LEAF_CAP - 1 - probeSlot[p] - 1;
            System.arraycopy(keys, at, keys, at + 1, move);
            System.arraycopy(versions, at, versions, at + 1, move);
            sum += keys[at];
        }
        return sum;
    }

    /** The same off the heap ({@link MemorySegment#copy}). */
    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long writeStepOffHeap() {
        long sum = 0;
        MemorySegment keys = segKeys;
        MemorySegment versions = segVersions;
        for (int p = 0; p < PROBES; p++) {
            long at = (long) probeLeaf[p] * LEAF_CAP + probeSlot[p];
            long move = LEAF_CAP - 1 - probeSlot[p] - 1;
            MemorySegment.copy(keys, at * Long.BYTES, keys, (at + 1) * Long.BYTES, move * Long.BYTES);
            MemorySegment.copy(versions, at * Integer.BYTES, versions, (at + 1) * Integer.BYTES, move * Integer.BYTES);
            sum += keys.getAtIndex(ValueLayout.JAVA_LONG, at);
        }
        return sum;
    }
}
