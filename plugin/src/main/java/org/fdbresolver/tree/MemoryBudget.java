package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.History;

/**
 * The memory budget. Before a batch's merges, room is made for what the batch's writes need — an
 * estimate from the leaves they land in ({@link BatchWriter#plan}) — and the write path checks the most it can add
 * before it allocates: the whole batch's partitions without dropping anything ({@link #fitsWithoutEviction}), else
 * each piece of the batch, or each single write, making room first ({@link #ensureRoom}); so the history never holds
 * more than the budget whatever the estimate said.
 *
 * <p><b>Ahead of need, bounded per batch.</b> Once the history (with a sharing history's bytes) passes the high-water
 * mark, {@code budget - budget / 16}, the retained boundary is raised ({@link #sweepWork}) to the version below
 * which the last census of the sweeper ({@link Reclaimer}) puts the oldest entries worth the excess over
 * {@code budget - budget / 8}, and a new pass of the sweeper begins at the first key, at
 * {@value #CATCH_UP_WORK_PER_RANGE} entries per merged write, fast enough to free that share before the batches
 * grow the history by the headroom; the next raise waits for that pass to end. So no batch does more than its
 * own size's share of the eviction: FoundationDB's skip list bounds {@code removeBefore} the same way.
 *
 * <p><b>A full sweep as the fallback.</b> When a step still does not fit, the oldest history goes at once: a
 * histogram of the entries' versions picks a boundary, the retained boundary rises to it (never decreases) and
 * a full sweep turns everything older into gaps and frees it; eviction aims {@code budget / 32} below what is
 * needed and stops as soon as what is needed fits. That is O(history) in one batch: counted
 * ({@link #evictions()}); none in steady state on longtrace at 16 and 128 MiB (docs/tree.md, "Budget"). When even
 * an empty history cannot hold a step, everything is forgotten, the batch's remaining writes are not stored and
 * the boundary rises above {@code now}, so that every reader that could have conflicted with them is TOO_OLD;
 * that is counted ({@link #forgottenBatches()}) and logged, never silent.
 *
 * <p>Every decision here depends on the history's bytes, its entries and the sweeper's passes, all the same at
 * every thread count: so is what the budget forgets.
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
    /** Whether its warnings are logged: not for the warm-up's throwaway engines ({@link WarmUp}), whose budgets bind by design. */
    boolean warns = true;

    /** The history above {@code budget - budget / HEADROOM_PARTS} raises the boundary ahead of need. */
    static final int HEADROOM_PARTS = 16;
    /** Entries the sweeper visits per merged write while it catches up after a raise (normally 8). */
    static final long CATCH_UP_WORK_PER_RANGE = 64;
    /** Whether the boundary is raised ahead of need (false: only when a step does not fit, the uncertain history). */
    private boolean evictAhead = true;
    /** Raises ahead of need so far. */
    private long raises;
    /** Whether the pass begun by the last raise is under way (the sweeper goes faster, no other raise). */
    private boolean catchingUp;
    /** The sweeper's completed passes when the boundary was last raised ahead. */
    private long passesAtRaise;

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

    /**
     * Times the oldest history was dropped at once to make room for a step that did not fit (each a sweep of the
     * whole tree, the fallback when the raises ahead of need did not keep up).
     */
    long evictions() {
        return evictions;
    }

    /** Times the retained boundary was raised ahead of need (each freed over the batches of one sweeper's pass). */
    long raises() {
        return raises;
    }

    /** Raising the boundary ahead of need on (the default) or off (then only a step that does not fit evicts). */
    void evictAhead(boolean on) {
        evictAhead = on;
    }

    /**
     * After a batch's merge, before its sweep: the entries the sweep may visit, given the batch's
     * {@code mergedRanges}. Raises the retained boundary ahead of need when the history is past the high-water
     * mark and no earlier raise is still being swept, and then sweeps faster until the pass that raise began ends.
     * Work bounded by the batch: the boundary comes from the last census, never from a look at the tree.
     */
    long sweepWork(int mergedRanges) {
        // A batch adds at most 2 entries per merged write: 8 per write keep the sweep four times ahead of growth.
        // The fixed part is a quarter leaf, at least 16 (it was two leaves, 254 entries, whatever the batch: a tenth
        // of a small batch's time), enough to move on past read-only batches; catching up after a raise keeps two
        // leaves.
        long work = Math.max(16, store.leafCap / 4) + 8L * mergedRanges;
        if (!evictAhead) {
            return work;
        }
        if (catchingUp && reclaimer.passes > passesAtRaise) {
            catchingUp = false;
        }
        long total = budget - budgetNow() + store.historyBytes();
        if (!catchingUp && total > budget - budget / HEADROOM_PARTS && raiseAhead(total)) {
            catchingUp = true;
            passesAtRaise = reclaimer.passes;
        }
        return catchingUp ? Math.max(work, 2L * store.leafCap + CATCH_UP_WORK_PER_RANGE * mergedRanges) : work;
    }

    /**
     * Raises the retained boundary so that about {@code total - (budget - 2 × budget / HEADROOM_PARTS)} bytes
     * become reclaimable: the last census's oldest entries, as many as those bytes hold at its bytes per entry;
     * restarts the sweeper at the first key. False when there is no census to go by, or nothing to raise.
     */
    private boolean raiseAhead(long total) {
        Reclaimer r = reclaimer;
        if (!r.censusValid || r.censusEntries == 0 || r.censusBytes <= 0) {
            return false;
        }
        long excess = total - (budget - 2 * (budget / HEADROOM_PARTS));
        long entries = (long) Math.ceil((double) excess * r.censusEntries / r.censusBytes);
        long[] counts = r.census;
        long acc = 0;
        int bucket = 0;
        while (bucket < counts.length && acc < entries) {
            acc += counts[bucket++];
        }
        // Versions below the last bucket taken; never past what the census knew of.
        long rel = Math.min((long) r.censusLo + ((long) bucket << r.censusShift), (long) r.censusNewest + 1);
        long boundary = versions.base + rel;
        if (boundary <= versions.retained) {
            return false;
        }
        versions.retain(boundary);
        reclaimer.resetCursor();
        raises++;
        return true;
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
        if (warns && Long.bitCount(forgottenBatches) == 1) {
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
            long[] lvr = s.lVerRef[c];
            for (int j = 0, n = s.leafCount(leaf); j < n; j++) {
                int v = NodeStore.ver(lvr[b + j]);
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
            long[] lvr = s.lVerRef[c];
            for (int j = 0, n = s.leafCount(leaf); j < n; j++) {
                int v = NodeStore.ver(lvr[b + j]);
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
        reclaimer.forgetCensus();
        catchingUp = false;
    }
}
