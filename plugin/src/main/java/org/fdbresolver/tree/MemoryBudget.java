package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.History;

/**
 * The memory budget: before a batch's merges, room for the batch's writes is reserved; when it does not
 * fit, the oldest history goes — a histogram of the entries' versions picks a boundary, the retained
 * boundary rises to it (never decreases) and a full sweep turns everything older into gaps and frees
 * it. When even an empty history cannot hold the batch, everything is forgotten, the batch's writes are
 * not stored and the boundary rises above {@code now}, so that every reader that could have conflicted
 * with them is TOO_OLD.
 */
final class MemoryBudget {
    private final NodeStore store;
    private final KeyLayout layout;
    private final VersionWindow versions;
    private final Reclaimer reclaimer;
    private final long budget;
    /** A history that draws on the same budget (the engine's uncertain writes), or null. */
    private History sharer;
    private final long[] histogram = new long[64];
    private int maxKeyLength;
    private boolean dropBatchWrites;

    MemoryBudget(NodeStore store, KeyLayout layout, VersionWindow versions, Reclaimer reclaimer, long budget) {
        this.store = store;
        this.layout = layout;
        this.versions = versions;
        this.reclaimer = reclaimer;
        this.budget = budget;
    }

    /** Whether the current batch's writes are dropped (not even an empty history holds them). */
    boolean dropsBatchWrites() {
        return dropBatchWrites;
    }

    /** Lets {@code other} draw on this budget too: what it holds is not available here. */
    void shareWith(History other) {
        this.sharer = other;
    }

    /** The budget less what a sharing history holds now. */
    long budgetNow() {
        return sharer == null ? budget : budget - sharer.historyBytes();
    }

    /** See {@link History#prepareMerge}. */
    void prepareMerge(long now, int ranges, long longKeyBytes, int maxKeyLength) {
        NodeStore s = store;
        dropBatchWrites = false;
        this.maxKeyLength = Math.max(this.maxKeyLength, maxKeyLength);
        if (versions.needsRebase(now)) {
            versions.rebase(now);
        }
        // Worst case: every inserted entry splits a leaf; inner splits above them; a separator per split.
        long entries = 2L * ranges;
        long innerSplits = 2 * (entries / Math.max(1, s.innerCap / 2) + s.height + 2);
        long nodes = entries + innerSplits + 1;
        long sepBytes = this.maxKeyLength > KeyRefs.INLINE_BYTES ? nodes * KeyArena.chunkBytes(this.maxKeyLength) : 0;
        long keyReserve = longKeyBytes + sepBytes;
        long reserve = nodes * s.nodeBytes + keyReserve;
        if (fits(reserve, keyReserve, nodes)) {
            return;
        }
        // Drop the oldest history until the batch fits, leaving some headroom so this is not paid every batch.
        for (int attempt = 0; attempt < 8 && !fits(reserve, keyReserve, nodes); attempt++) {
            long room = budgetNow() - reserve;
            long target = Math.max(0, room - room / 4);
            if (!dropOldest(now, target)) {
                break;
            }
        }
        if (!fits(reserve, keyReserve, nodes)) {
            // Not even an empty history holds this batch: forget everything, including the batch's
            // writes, and make every snapshot that could conflict with them TOO_OLD.
            forgetAll();
            dropBatchWrites = !fits(reserve, keyReserve, nodes);
            versions.retain(dropBatchWrites ? now + 1 : now);
        }
    }

    private boolean fits(long reserve, long keyReserve, long nodes) {
        NodeStore s = store;
        return s.historyBytes() + reserve <= budgetNow()
                && s.arena.guaranteedFreeBytes() >= keyReserve
                && s.leavesInUse + nodes <= s.maxLeaves && s.innersInUse + nodes <= s.maxInners;
    }

    /**
     * Raises the retained boundary so that about {@code targetBytes} remain, and sweeps the whole tree.
     * Returns false when nothing more can be dropped.
     */
    private boolean dropOldest(long now, long targetBytes) {
        NodeStore s = store;
        long bytes = s.historyBytes();
        if (bytes <= targetBytes) {
            return true;
        }
        long lo = Math.max(versions.retained, versions.base);
        long hi = now;
        if (lo >= hi) {
            if (s.leavesInUse <= 1 && s.innersInUse == 0 && s.arena.bytesInUse() == 0) {
                return false;
            }
            forgetAll();
            versions.retain(now);
            return true;
        }
        // Histogram of entries by version over [lo, hi): each entry stands for its share of the bytes.
        Arrays.fill(histogram, 0);
        long total = 0;
        long span = hi - lo;
        int expiredBelow = versions.expiredBelow;
        long base = versions.base;
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            int[] lv = s.lVer[c];
            for (int j = 0, n = s.leafCount(leaf); j < n; j++) {
                int v = lv[b + j];
                if (v == GAP || v < expiredBelow) {
                    continue;
                }
                long abs = base + v;
                int bucket = (int) Math.min(histogram.length - 1, Math.max(0, (abs - lo) * histogram.length / span));
                histogram[bucket]++;
                total++;
            }
        }
        double drop = 1.0 - (double) targetBytes / bytes;
        long need = (long) Math.ceil(drop * total);
        long acc = 0;
        int bucket = 0;
        while (bucket < histogram.length && acc < need) {
            acc += histogram[bucket++];
        }
        long boundary = lo + (span * bucket + histogram.length - 1) / histogram.length;
        boundary = Math.max(boundary, versions.retained + 1);
        boundary = Math.min(boundary, now);
        versions.retain(boundary);
        reclaimer.resetCursor();
        reclaimer.sweep(Long.MAX_VALUE);
        return true;
    }

    /** Forgets every node, key and the shared prefix: the tree is one empty leaf. */
    void forgetAll() {
        store.clear();
        layout.reset();
        reclaimer.resetCursor();
    }
}
