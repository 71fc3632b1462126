package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.COUNT_MASK;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.H_COUNT;
import static org.fdbresolver.tree.NodeStore.LEAF_HEADER_INTS;
import static org.fdbresolver.tree.NodeStore.NIL;

/**
 * A run of a batch's writes, all inside one leaf's key range, merged with the leaf's entries in one pass, as single
 * merges in key order would: entries in {@code [b, e)} go, {@code b} takes the batch's version, {@code e} (unless an
 * entry sits there) the version in force there: each partition's loop ({@link PartitionWriter}). What is the
 * partition's is behind {@link Keys}: where a written key's reference comes from (the chunk made for it before the
 * phase, or a suffix reference), how a dropped reference is released (logged for after the phase), and where the
 * version in force before the leaf is read (a partition's left boundary was read before the phase).
 *
 * <p>One instance a writer (a partition's is used by its thread only). Its arrays grow to the largest run met, once,
 * so the steady state allocates nothing.
 */
final class RunMerge {
    /** A writer's side of a merge. */
    interface Keys {
        /**
         * The reference write {@code x}'s end takes in a leaf whose own prefix is {@code local} bytes (0: global);
         * {@code keys} holds the batch's key bytes.
         */
        int endRef(int x, int local, byte[] keys);

        /**
         * The reference write {@code x}'s begin takes in the same leaf; {@code endRef} is the one its end took just
         * before ({@link NIL} when an entry sits at the end and the end took none): a point write's begin may share it.
         */
        int beginRef(int x, int local, int endRef, byte[] keys);

        /** Drops a reference of an entry the run removed. */
        void release(int ref);

        /** The version in force just before {@code leaf}'s first entry (the last entry of the leaves before it). */
        int versionBefore(int leaf);
    }

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final LeafEntries entries;
    /** The merged entries; when they overflow the leaf, the writer spills them ({@link #first}, {@link #outLen}). */
    final LeafEntries.Run out;
    /** A run's endpoints re-encoded for a leaf with a prefix of its own, at their endpoint indices. */
    private long[] runKey = new long[128];
    /** After {@link #apply}: the leaf's entries before the run's first begin, which stay in place. */
    int first;
    /** After {@link #apply} returned false: how many entries of {@link #out} follow them. */
    int outLen;

    RunMerge(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, LeafEntries entries) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.entries = entries;
        this.out = new LeafEntries.Run(store.leafCap);
    }

    /**
     * Merges writes {@code [i, j)} with {@code leaf}'s entries at relative version {@code v}. The writes' endpoints are
     * {@code keys[eo[e], eo[e] + el[e])} with inline longs {@code ek[e]} in the tree's encoding (begin {@code 2x}, end
     * {@code 2x + 1}); the first begin and the last end are admitted to the leaf's own prefix first (which may lower
     * it, {@link LeafPrefixes#admitRun}, references through {@code refs}). Returns true when the result was written
     * back into the leaf; false when it overflows: the leaf keeps its first {@link #first} entries, and the rest is
     * {@code out[0, outLen)} for the writer to spill.
     */
    boolean apply(int leaf, byte[] keys, long[] ek, int[] eo, int[] el, int i, int j, int v, AnchorRefs refs, Keys writer) {
        NodeStore s = store;
        KeyLayout kl = layout;
        int c = leaf >>> CHUNK_SHIFT;
        int base = (leaf & CHUNK_MASK) * s.leafCap;
        int n = s.lHdr[c][(leaf & CHUNK_MASK) * LEAF_HEADER_INTS + H_COUNT] & COUNT_MASK;
        long[] lk = s.lKey[c];
        long[] lvr = s.lVerRef[c];
        // The run in the leaf's encoding: its first begin and last end admitted to the leaf's own prefix (lowering
        // it if need be), and with them every key between.
        int skip = kl.leaf.admitRun(leaf, keys, eo[2 * i], el[2 * i], eo[2 * j - 1], el[2 * j - 1], refs);
        int local = skip == kl.skip() ? 0 : skip;
        if (local != 0) {
            ek = encodeRun(keys, eo, el, i, j, skip);
        }
        long[] ok = out.key;
        long[] ovr = out.verRef;
        int expired = versions.expiredBelow;
        int firstKept = search.leafSearchAt(leaf, skip, ek[2 * i], keys, eo[2 * i], el[2 * i], false);
        int src = base + firstKept;
        int end = base + n;
        int o = 0;
        for (int x = i; x < j; x++) {
            long bp = ek[2 * x];
            long ep = ek[2 * x + 1];
            int bOff = eo[2 * x];
            int bLen = el[2 * x];
            int eOff = eo[2 * x + 1];
            int eLen = el[2 * x + 1];
            // Entries below begin stay.
            while (src < end) {
                long p = lk[src];
                if ((bp != p ? (bp < p ? -1 : 1) : kl.tailAt(skip, keys, bOff, bLen, NodeStore.ref(lvr[src]))) <= 0) {
                    break;
                }
                ok[o] = p;
                ovr[o] = lvr[src];
                o++;
                src++;
            }
            // Entries in [begin, end) go; an entry exactly at begin keeps its key reference.
            int bRef = NIL;
            boolean removed = false;
            int lastRemoved = 0;
            if (src < end && lk[src] == bp && kl.tailAt(skip, keys, bOff, bLen, NodeStore.ref(lvr[src])) == 0) {
                bRef = NodeStore.ref(lvr[src]);
                lastRemoved = NodeStore.ver(lvr[src]);
                removed = true;
                src++;
            }
            int cmpE = 1;
            while (src < end) {
                long p = lk[src];
                long e = lvr[src];
                cmpE = ep != p ? (ep < p ? -1 : 1) : kl.tailAt(skip, keys, eOff, eLen, NodeStore.ref(e));
                if (cmpE <= 0) {
                    break;
                }
                lastRemoved = NodeStore.ver(e);
                removed = true;
                writer.release(NodeStore.ref(e));
                src++;
            }
            boolean exactE = src < end && cmpE == 0;
            int eRef = NIL;
            int vE = 0;
            if (!exactE) {
                // The version in force at end before this write: the last entry below end.
                vE = removed ? lastRemoved : o > 0 ? NodeStore.ver(ovr[o - 1])
                        : firstKept > 0 ? NodeStore.ver(lvr[base + firstKept - 1]) : writer.versionBefore(leaf);
                if (vE < expired) {
                    vE = GAP;
                }
                eRef = writer.endRef(x, local, keys);
            }
            if (bRef == NIL) {
                bRef = writer.beginRef(x, local, eRef, keys);
            }
            ok[o] = bp;
            ovr[o] = NodeStore.entry(v, bRef);
            o++;
            if (!exactE) {
                ok[o] = ep;
                ovr[o] = NodeStore.entry(vE, eRef);
                o++;
            }
        }
        first = firstKept;
        if (entries.writeBack(leaf, firstKept, out, o, src - base)) {
            kl.leaf.tightenIfTied(leaf, ek[2 * i], refs);
            return true;
        }
        // The leaf's new entries are its first `first` entries, then out[0, o + tail).
        outLen = o + (end - src);
        return false;
    }

    /** The endpoints of writes {@code [i, j)} re-encoded for a leaf that skips {@code skip} bytes, at their indices. */
    private long[] encodeRun(byte[] keys, int[] eo, int[] el, int i, int j, int skip) {
        if (runKey.length < 2 * j) {
            runKey = new long[Math.max(2 * j, 2 * runKey.length)];
        }
        long[] rk = runKey;
        for (int e = 2 * i; e < 2 * j; e++) {
            rk[e] = KeyRefs.prefix(keys, eo[e] + skip, el[e] - skip);
        }
        return rk;
    }
}
