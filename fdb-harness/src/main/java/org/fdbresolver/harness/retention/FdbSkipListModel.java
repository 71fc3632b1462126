package org.fdbresolver.harness.retention;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.api.Decision;

/**
 * The memory FoundationDB's skip list ({@code fdbserver/resolver/ConflictSet.cpp}) would hold after each
 * batch, computed without FoundationDB: it replays the skip list's changes to its node set, node for node,
 * from the batch and its decisions (FoundationDB's own, which every engine here gives). Used where the native
 * comparator ({@code fdbresolver_fdb_skiplist}) is not built; the two agree byte for byte on the traces
 * checked in docs/retention.md.
 *
 * <p>What it replays, as ConflictSet.cpp does it:
 * <ul>
 *   <li><b>combine</b>: the write ranges of the committed transactions, their endpoints sorted by key with
 *       an end before a begin at the same key, swept with a count of open ranges: a range opens when the count
 *       reaches 1 and closes when it returns to 0 (so touching ranges stay two ranges);</li>
 *   <li><b>merge</b> ({@code SkipList::addConflictRanges}), last range first: a node at the range's end
 *       (unless one is there) with the version in force at the end, the nodes in {@code [begin, end)}
 *       removed, a node at the begin with the batch's version;</li>
 *   <li><b>removeBefore</b>, when {@code newOldestVersion} rises: from the node after the remembered
 *       removal key, {@code 3 × combined ranges + 10} nodes examined; a node older than the oldest version
 *       whose predecessor (as examined) is older too is removed; the removal key moves on, and wraps to the
 *       start at the end of the list;</li>
 *   <li><b>node sizes</b>: 8 bytes of header, the key, and {@code (level + 1) × 16} bytes of pointers and
 *       versions, taken from a 64- or 128-byte FastAllocator class or allocated exactly above 128; the level
 *       is drawn from the skip list's own generator ({@code g_seed = g_seed × 1664525 + 1013904223}, the
 *       trailing ones of its top 25 bits), in the order the skip list draws it; the list's head node
 *       (26 levels, no key) counts too.</li>
 * </ul>
 * Not counted (nor by the comparator): the allocator's per-thread caches and the batch's transient memory.
 */
public final class FdbSkipListModel {
    static final int MAX_LEVELS = 26;
    static final int NODE_HEADER_BYTES = 8;
    static final int BYTES_PER_LEVEL = 16;
    private static final byte[] EMPTY = new byte[0];
    private static final byte END = 1;
    private static final byte BEGIN = 2;

    /** A node's version (its level-0 max version) and level; its key is the map's key. */
    private static final class Node {
        final long version;
        final int level;

        Node(long version, int level) {
            this.version = version;
            this.level = level;
        }
    }

    private final TreeMap<byte[], Node> nodes = new TreeMap<>(Arrays::compareUnsigned);
    private int seed;
    private long bytes = allocatedBytes(0, MAX_LEVELS - 1);
    private long oldestVersion;
    private byte[] removalKey = EMPTY;

    // per-batch scratch
    private int[] points = new int[64];
    private Integer[] order = new Integer[64];
    private byte[][] combined = new byte[64][];

    /** Bytes the skip list's nodes hold now, its head node included. */
    public long bytes() {
        return bytes;
    }

    /** Nodes in the list, the head node not counted. */
    public int nodeCount() {
        return nodes.size();
    }

    /** Applies one decided batch: its committed writes at {@code now}, then the removal below {@code newOldestVersion}. */
    public void batch(ConflictBatch batch, BatchResult result, long now, long newOldestVersion) {
        int ranges = combine(batch, result);
        byte[][] c = combined;
        for (int r = ranges - 1; r >= 0; r--) {
            byte[] begin = c[2 * r];
            byte[] end = c[2 * r + 1];
            if (!nodes.containsKey(end)) {
                Map.Entry<byte[], Node> before = nodes.lowerEntry(end);
                insert(end, before == null ? 0 : before.getValue().version);
            }
            NavigableMap<byte[], Node> covered = nodes.subMap(begin, true, end, false);
            for (Map.Entry<byte[], Node> e : covered.entrySet()) {
                bytes -= allocatedBytes(e.getKey().length, e.getValue().level);
            }
            covered.clear();
            insert(begin, now);
        }
        if (newOldestVersion > oldestVersion) {
            oldestVersion = newOldestVersion;
            removeBefore(newOldestVersion, ranges * 3 + 10);
        }
    }

    /** FoundationDB's combineWriteConflictRanges over the committed transactions' writes; returns the range count. */
    private int combine(ConflictBatch batch, BatchResult result) {
        int n = 0;
        for (int t = 0, tn = batch.transactionCount(); t < tn; t++) {
            if (result.decisionCode(t) != Decision.COMMIT_CODE) {
                continue;
            }
            for (int w = batch.writeStart(t), we = batch.writeEnd(t); w < we; w++) {
                if (n + 2 > points.length) {
                    points = Arrays.copyOf(points, points.length * 2);
                }
                points[n++] = 2 * w + 1; // begin
                points[n++] = 2 * w; // end
            }
        }
        if (order.length < n) {
            order = new Integer[Math.max(n, order.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            order[i] = points[i];
        }
        byte[] keys = batch.keys();
        Arrays.sort(order, 0, n, (a, b) -> {
            int c = compare(batch, keys, a, b);
            return c != 0 ? c : Integer.compare(kind(a), kind(b));
        });
        int ranges = 0;
        int active = 0;
        for (int i = 0; i < n; i++) {
            int p = order[i];
            if (kind(p) == BEGIN) {
                if (++active == 1) {
                    if (2 * ranges + 2 > combined.length) {
                        combined = Arrays.copyOf(combined, combined.length * 2);
                    }
                    combined[2 * ranges] = key(batch, keys, p);
                    combined[2 * ranges + 1] = null;
                    ranges++;
                }
            } else if (--active == 0) {
                combined[2 * ranges - 1] = key(batch, keys, p);
            }
        }
        return ranges;
    }

    private static int kind(int point) {
        return (point & 1) == 1 ? BEGIN : END;
    }

    private static int offset(ConflictBatch batch, int point) {
        int w = point >>> 1;
        return (point & 1) == 1 ? batch.writeBeginOffset(w) : batch.writeEndOffset(w);
    }

    private static int length(ConflictBatch batch, int point) {
        int w = point >>> 1;
        return (point & 1) == 1 ? batch.writeBeginLength(w) : batch.writeEndLength(w);
    }

    private static int compare(ConflictBatch batch, byte[] keys, int a, int b) {
        int ao = offset(batch, a);
        int bo = offset(batch, b);
        return Arrays.compareUnsigned(keys, ao, ao + length(batch, a), keys, bo, bo + length(batch, b));
    }

    private static byte[] key(ConflictBatch batch, byte[] keys, int point) {
        int o = offset(batch, point);
        return Arrays.copyOfRange(keys, o, o + length(batch, point));
    }

    private void insert(byte[] key, long version) {
        int level = randomLevel();
        nodes.put(key, new Node(version, level));
        bytes += allocatedBytes(key.length, level);
    }

    /** SkipList::randomLevel with skfastrand: the trailing ones of the generator's top 25 bits. */
    int randomLevel() {
        seed = seed * 1664525 + 1013904223;
        int bits = seed >>> (32 - (MAX_LEVELS - 1));
        return Integer.numberOfTrailingZeros(~bits);
    }

    /** SkipList::removeBefore from the node after the removal key, then the next removal key. */
    private void removeBefore(long version, int nodeCount) {
        Iterator<Map.Entry<byte[], Node>> it = nodes.tailMap(removalKey, true).entrySet().iterator();
        boolean wasAbove = true;
        while (nodeCount-- > 0 && it.hasNext()) {
            Map.Entry<byte[], Node> x = it.next();
            boolean isAbove = x.getValue().version >= version;
            if (!isAbove && !wasAbove) {
                bytes -= allocatedBytes(x.getKey().length, x.getValue().level);
                it.remove();
            }
            wasAbove = isAbove;
        }
        removalKey = it.hasNext() ? it.next().getKey() : EMPTY;
    }

    /** The bytes a node takes from its allocator: a 64- or 128-byte class, or its exact size above that. */
    static int allocatedBytes(int keyLength, int level) {
        int size = NODE_HEADER_BYTES + keyLength + (level + 1) * BYTES_PER_LEVEL;
        return size <= 64 ? 64 : size <= 128 ? 128 : size;
    }
}
