package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.History;

/**
 * The memory budget. Before a batch's merges, room is made for what the batch's writes need — an
 * estimate from the leaves they land in ({@link TreeWriter#plan}) — and every step of the merge (a run
 * of writes into one leaf, or one write) is checked against the budget before it allocates
 * ({@link #ensureRoom}), so the history never holds more than the budget whatever the estimate said.
 *
 * <p>When there is no room, the oldest history goes: a histogram of the entries' versions picks a
 * boundary, the retained boundary rises to it (never decreases) and a full sweep turns everything older
 * into gaps and frees it; eviction aims {@code budget / 32} below what is needed, so that it is not
 * paid every batch, and stops as soon as what is needed fits. When even an empty history cannot hold a
 * step, everything is forgotten, the batch's remaining writes are not stored and the boundary rises
 * above {@code now}, so that every reader that could have conflicted with them is TOO_OLD; that is
 * counted ({@link #forgottenBatches()}) and logged, never silent.
 */
final class MemoryBudget {
    private static final System.Logger LOG = System.getLogger(MemoryBudget.class.getName());

    private final NodeStore store;
    private final KeyLayout layout;
    private final VersionWindow versions;
    private final Reclaimer reclaimer;
    private final long budget;
    /** A history that draws on the same budget (the engine's uncertain writes), or null. */
    private History sharer;
    private final long[] histogram = new long[1024];
    /** Bounds the length of every key the tree holds or the batch writes, hence of a new separator (set per batch). */
    private int maxKeyLength;
    private int batchKeyLength;
    private boolean dropBatchWrites;
    private long evictions;
    private long forgottenBatches;

    MemoryBudget(NodeStore store, KeyLayout layout, VersionWindow versions, Reclaimer reclaimer, long budget) {
        this.store = store;
        this.layout = layout;
        this.versions = versions;
        this.reclaimer = reclaimer;
        this.budget = budget;
    }

    long budgetBytes() {
        return budget;
    }

    /** Whether the current batch's writes are dropped (not even an empty history holds them). */
    boolean dropsBatchWrites() {
        return dropBatchWrites;
    }

    /** Times the oldest history was dropped to make room (each a sweep of the whole tree). */
    long evictions() {
        return evictions;
    }

    /** Batches whose writes did not fit even into an empty history: all history was forgotten. */
    long forgottenBatches() {
        return forgottenBatches;
    }

    int maxKeyLength() {
        return maxKeyLength;
    }

    /** Lets {@code other} draw on this budget too: what it holds is not available here. */
    void shareWith(History other) {
        this.sharer = other;
    }

    /** The budget less what a sharing history holds now. */
    long budgetNow() {
        return sharer == null ? budget : budget - sharer.historyBytes();
    }

    /**
     * Starts a batch: rebases the versions if {@code now} needs it, and makes room for the planned
     * {@code leaves}, {@code inners} and {@code keyBytes} plus {@code otherBytes} that a sharing history
     * will add. Best effort: the per-step checks decide.
     */
    void prepare(long now, int batchMaxKeyLength, long leaves, long inners, long keyBytes, long otherBytes) {
        dropBatchWrites = false;
        noteKeyLength(batchMaxKeyLength);
        if (!fits(leaves, inners, keyBytes + otherBytes)) {
            evict(now, leaves, inners, keyBytes + otherBytes);
        }
    }

    /**
     * Sets the key-length bound for the batch ahead of {@link #prepare} (the plan's separator estimate uses it):
     * the longest of the batch's keys, the inline ones and those the key arena holds.
     */
    void noteKeyLength(int batchMaxKeyLength) {
        maxKeyLength = Math.max(Math.max(batchMaxKeyLength, KeyRefs.MAX_INLINE_LENGTH), store.arena.longestKeyBound());
        batchKeyLength = batchMaxKeyLength;
    }

    /**
     * At most the key bytes of {@code count} new separators: each is cut from a key the tree holds or the batch
     * writes, so no longer than the batch's longest key or one of the {@code count} longest keys held.
     */
    long separatorBytesBound(long count) {
        if (maxKeyLength <= KeyRefs.INLINE_BYTES) {
            return 0;
        }
        long everyOneLongest = count * KeyArena.chunkBytes(maxKeyLength);
        long fromBatch = count * KeyArena.chunkBytes(Math.max(batchKeyLength, KeyRefs.MAX_INLINE_LENGTH));
        long fromHeld = store.arena.longestKeysBound(count) + count * (KeyArena.HEADER + 7);
        return Math.min(everyOneLongest, fromBatch + fromHeld);
    }

    /**
     * Before one step of the merge, which adds at most {@code leaves}, {@code inners} and
     * {@code keyBytes}: true when it fits, after dropping the oldest history if it must (aiming to leave
     * room for {@code laterBytes} that later steps need too); false when not even an empty history holds
     * it — then everything is forgotten and the batch's remaining writes are dropped.
     */
    boolean ensureRoom(long now, long leaves, long inners, long keyBytes, long laterBytes) {
        if (dropBatchWrites) {
            return false;
        }
        if (fits(leaves, inners, keyBytes)) {
            return true;
        }
        evict(now, leaves, inners, keyBytes + laterBytes);
        if (fits(leaves, inners, keyBytes)) {
            return true;
        }
        // Not even an empty history holds this batch's writes: forget everything, including them, and
        // make every snapshot that could conflict with them TOO_OLD.
        forgetAll();
        dropBatchWrites = true;
        versions.retain(now + 1);
        forgottenBatches++;
        if (Long.bitCount(forgottenBatches) == 1) {
            LOG.log(System.Logger.Level.WARNING, "memory budget of {0} bytes cannot hold the writes of the batch at "
                    + "version {1} ({2} nodes of {3} bytes and {4} key bytes for one step): all history was forgotten "
                    + "and every reader below version {5} is TOO_OLD ({6} such batches so far); raise the budget",
                    budget, now, leaves + inners, store.nodeBytes, keyBytes, now + 1, forgottenBatches);
        }
        return false;
    }

    /** Whether additions of this size fit now, without dropping any history (false once the batch's writes are dropped). */
    boolean fitsWithoutEviction(long leaves, long inners, long keyBytes) {
        return !dropBatchWrites && fits(leaves, inners, keyBytes);
    }

    private boolean fits(long leaves, long inners, long keyBytes) {
        NodeStore s = store;
        return s.historyBytes() + (leaves + inners) * s.nodeBytes + keyBytes <= budgetNow()
                && s.reservationNeeded(leaves, inners, keyBytes) <= s.reservation.available()
                && s.arena.hasAddressesFor(keyBytes)
                && s.leavesInUse + leaves <= s.maxLeaves && s.innersInUse + inners <= s.maxInners;
    }

    /** Drops the oldest history until the given additions fit, aiming {@code budget / 32} lower. */
    private void evict(long now, long leaves, long inners, long keyBytes) {
        long need = (leaves + inners) * store.nodeBytes + keyBytes;
        for (int attempt = 0; attempt < 8 && !fits(leaves, inners, keyBytes); attempt++) {
            long target = Math.max(0, budgetNow() - need - budget / 32);
            if (!dropOldest(now, target)) {
                break;
            }
        }
    }

    /**
     * Raises the retained boundary so that about {@code targetBytes} remain, and sweeps the whole tree.
     * The boundary comes from a histogram of the live entries' versions over the range they span (one
     * pass to find the range, one to count), at the version below which the share of entries to drop
     * lies. Returns false when nothing older than {@code now} is left to drop.
     */
    private boolean dropOldest(long now, long targetBytes) {
        NodeStore s = store;
        long bytes = s.historyBytes();
        if (bytes <= targetBytes) {
            return true;
        }
        int expiredBelow = versions.expiredBelow;
        int nowRel = versions.relative(now);
        int minRel = Integer.MAX_VALUE;
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            int[] lv = s.lVer[c];
            for (int j = 0, n = s.leafCount(leaf); j < n; j++) {
                int v = lv[b + j];
                if (v != GAP && v >= expiredBelow && v < minRel) {
                    minRel = v;
                }
            }
        }
        long lo = Math.max(versions.retained, minRel == Integer.MAX_VALUE ? now : versions.base + minRel);
        if (lo >= now) {
            // Nothing older than this batch is left: what is in the way is the batch's own writes.
            return false;
        }
        evictions++;
        // Histogram of the live entries older than now by version over [lo, now).
        long[] hist = histogram;
        Arrays.fill(hist, 0);
        long total = 0;
        long span = now - lo;
        long base = versions.base;
        int buckets = hist.length;
        for (int leaf = s.leftmostLeaf(); leaf != NIL; leaf = s.leafNext(leaf)) {
            int c = leaf >>> CHUNK_SHIFT;
            int b = (leaf & CHUNK_MASK) * s.leafCap;
            int[] lv = s.lVer[c];
            for (int j = 0, n = s.leafCount(leaf); j < n; j++) {
                int v = lv[b + j];
                if (v == GAP || v < expiredBelow) {
                    continue;
                }
                total++;
                if (v < nowRel) {
                    hist[(int) Math.min(buckets - 1, (base + v - lo) * buckets / span)]++;
                }
            }
        }
        // Entries stand for equal shares of the bytes: drop the oldest share that leaves the target.
        long need = (long) Math.ceil((1.0 - (double) targetBytes / bytes) * total);
        long acc = 0;
        int bucket = 0;
        while (bucket < buckets && acc < need) {
            acc += hist[bucket++];
        }
        long boundary = lo + (span * bucket + buckets - 1) / buckets;
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
