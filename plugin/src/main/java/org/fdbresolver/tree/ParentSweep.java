package org.fdbresolver.tree;

import static org.fdbresolver.tree.NodeStore.CHUNK_MASK;
import static org.fdbresolver.tree.NodeStore.CHUNK_SHIFT;
import static org.fdbresolver.tree.NodeStore.GAP;
import static org.fdbresolver.tree.NodeStore.MAX_HEIGHT;
import static org.fdbresolver.tree.NodeStore.NIL;

import java.util.Arrays;
import org.fdbresolver.pipeline.BatchWorkers;

/**
 * Reclamation by whole leaf parents, several at once ({@link Reclaimer} does the same work one leaf at a time).
 * A batch's share of the sweep starts with the whole parents after the cursor whose leaves fit into the work (the
 * sweeper's measure: entries plus one per leaf); when that is at least two parents, they are cut into groups that
 * threads sweep at once, and the sweeper goes on from the next parent with the work left (counted as it counts:
 * before compaction, as the parents were collected), so the pace is the sweeper's. Within a parent the sweep is the sweeper's own: expired entries become gaps, an entry with its
 * predecessor's version goes, an empty leaf goes, a leaf that fits into its left sibling is merged into it. Only
 * the parent's own slots change; what crosses parents is taken before (the version of the last entry before each
 * parent, which compaction never changes) or done after, in key order, by one thread: unlinking and freeing the
 * leaves that went, the key chunks' releases, and the levels above (an empty parent goes, a small one merges into
 * its left sibling, and so on up, then a root of one child collapses). So the tree after the sweep does not depend
 * on how the parents were grouped, and so not on the thread count.
 */
final class ParentSweep implements BatchWorkers.Task {
    /** Groups per thread, as for the other phases. */
    private static final int GROUPS_PER_THREAD = BatchWorkers.MAX_PARTS_PER_THREAD;

    private final NodeStore store;
    private final KeyLayout layout;
    private final TreeSearch search;
    private final VersionWindow versions;
    private final Reclaimer reclaimer;
    private final BatchWorkers workers;

    // ---- the batch's parents, in key order, with their ancestors (level 2 .. height, at index level - 2) ----
    private int parents;
    private int[] parent = new int[16];
    private int[][] ancestors = new int[16][];
    /** The version in force before each parent's first leaf (expired: GAP), taken before the sweep. */
    private int[] versionBefore = new int[16];
    private boolean reachedEnd;
    private int groups;
    private Group[] group = new Group[0];

    ParentSweep(NodeStore store, KeyLayout layout, TreeSearch search, VersionWindow versions, Reclaimer reclaimer,
                BatchWorkers workers) {
        this.store = store;
        this.layout = layout;
        this.search = search;
        this.versions = versions;
        this.reclaimer = reclaimer;
        this.workers = workers;
    }

    /**
     * Sweeps the whole parents from the cursor that fit into {@code work} (the sweeper's measure: entries plus one
     * per leaf, before compaction) and returns the work left, counted as the sweeper counts (before compaction),
     * for the sweeper to go on with from the new cursor; or -1, having changed nothing, when that is fewer than two
     * parents or the tree has no level above the parents (the sweeper then does it all).
     */
    long sweep(long work) {
        NodeStore s = store;
        // Too little work for two parents of usual size (half their children, leaves a quarter full): the sweeper's,
        // without looking at any leaf (small batches, the most common inside FoundationDB, pay nothing here).
        if (s.height < 2 || work < 2L * (s.innerCap / 2) * (s.leafCap / 4 + 1)) {
            return -1;
        }
        collect(work);
        if (parents < 2) {
            return -1;
        }
        reclaimer.beginPassIfAtStart();
        for (int i = 0; i < parents; i++) {
            int first = s.child(parent[i], 0);
            int v = GAP;
            for (int h = s.leafPrev(first); h != NIL; h = s.leafPrev(h)) {
                int n = s.leafCount(h);
                if (n > 0) {
                    v = NodeStore.ver(s.lVerRef[h >>> CHUNK_SHIFT][(h & CHUNK_MASK) * s.leafCap + n - 1]);
                    break;
                }
            }
            versionBefore[i] = v < versions.expiredBelow ? GAP : v;
        }
        groups = workers == null ? 1 : Math.min(parents, GROUPS_PER_THREAD * workers.threads());
        if (group.length < groups) {
            Group[] g = Arrays.copyOf(group, groups);
            for (int i = group.length; i < groups; i++) {
                g[i] = new Group();
            }
            group = g;
        }
        if (workers != null && groups > 1) {
            workers.run(this, groups);
        } else {
            for (int g = 0; g < groups; g++) {
                run(g);
            }
        }
        long done = 0;
        for (int g = 0; g < groups; g++) {
            done += group[g].work;
        }
        finish();
        sweeps++;
        return reachedEnd ? 0 : Math.max(0, work - done);
    }

    /** Sweeps done by parents (tests). */
    long sweeps;

    @Override
    public void run(int g) {
        Group gr = group[g];
        gr.reset();
        reclaimer.countInto(gr, gr.counts);
        int from = (int) ((long) parents * g / groups);
        int to = (int) ((long) parents * (g + 1) / groups);
        // Every group starts from the version in force before its first parent, taken before the sweep (the same
        // value one group would carry there: compaction never changes the version in force at any key).
        gr.known = true;
        gr.prev = versionBefore[from];
        for (int i = from; i < to; i++) {
            gr.sweepParent(parent[i]);
        }
    }

    /**
     * The parents from the one holding the cursor on (from the first when there is no cursor) as long as their
     * leaves' entries (plus one per leaf) stay within {@code work}, or until the tree ends.
     */
    private void collect(long work) {
        NodeStore s = store;
        Reclaimer r = reclaimer;
        int height = s.height;
        int[] pathNode = this.pathNode;
        int[] pathIdx = this.pathIdx;
        // Descend to the parent holding the cursor (or the first), recording the path; then walk parents in order.
        int node = s.root;
        boolean seek = r.cursorLen >= 0;
        long cp = seek ? layout.inlineOf(r.cursorKey, 0, r.cursorLen) : 0;
        for (int level = height; level > 1; level--) {
            int slot = seek ? search.childSlot(node, cp, r.cursorKey, 0, r.cursorLen) : 0;
            pathNode[level] = node;
            pathIdx[level] = slot;
            node = s.child(node, slot);
        }
        parents = 0;
        reachedEnd = false;
        long done = 0;
        long next = entriesBelow(node);
        while (done + next <= work) {
            add(node, pathNode, height);
            done += next;
            // The next parent: up while the level's node has no slot after the path's, then down its first slots.
            int level = 2;
            while (level <= height && pathIdx[level] + 1 >= s.innerCount(pathNode[level])) {
                level++;
            }
            if (level > height) {
                reachedEnd = true;
                return;
            }
            pathIdx[level]++;
            node = s.child(pathNode[level], pathIdx[level]);
            for (int l = level - 1; l > 1; l--) {
                pathNode[l] = node;
                pathIdx[l] = 0;
                node = s.child(node, 0);
            }
            next = entriesBelow(node);
        }
        nextParent = node;
    }

    /** The sweeper's measure of a parent's work: its leaves' entries, plus one per leaf. */
    private long entriesBelow(int p) {
        NodeStore s = store;
        long n = 0;
        for (int i = 0, c = s.innerCount(p); i < c; i++) {
            n += s.leafCount(s.child(p, i)) + 1;
        }
        return n;
    }

    /** The parent after the last one collected (when the tree did not end first). */
    private int nextParent;

    private final int[] pathNode = new int[MAX_HEIGHT + 1];
    private final int[] pathIdx = new int[MAX_HEIGHT + 1];

    private void add(int p, int[] pathNode, int height) {
        if (parents == parent.length) {
            int n = parents * 2;
            parent = Arrays.copyOf(parent, n);
            ancestors = Arrays.copyOf(ancestors, n);
            versionBefore = Arrays.copyOf(versionBefore, n);
        }
        int[] a = ancestors[parents];
        if (a == null || a.length < height - 1) {
            a = ancestors[parents] = new int[Math.max(height - 1, 4)];
        }
        for (int level = 2; level <= height; level++) {
            a[level - 2] = pathNode[level];
        }
        parent[parents++] = p;
    }

    /**
     * After the groups: the leaves that went are unlinked, the anchors taken retained, the leaves freed and the key
     * chunks released, in key order;
     * then the levels above, as the sweeper does on its way back up; the cursor; a root of one child collapses.
     */
    private void finish() {
        NodeStore s = store;
        for (int g = 0; g < groups; g++) {
            Group gr = group[g];
            for (int i = 0; i < gr.gone; i++) {
                s.unlinkLeaf(gr.goneLeaf[i]);
            }
            // The anchors merged leaves took, before any release (a chunk one group anchors, another may release).
            for (int i = 0; i < gr.retains; i++) {
                s.arena.retain(gr.retained[i]);
            }
        }
        for (int g = 0; g < groups; g++) {
            Group gr = group[g];
            for (int i = 0; i < gr.gone; i++) {
                s.freeLeaf(gr.goneLeaf[i]);
            }
            s.arena.releaseAll(gr.released, 0, gr.releases);
            // The groups' census counts and work add up in any order: the pass's census is the same for any grouping.
            reclaimer.visited += gr.visited;
            if (gr.census != null) {
                reclaimer.countedOldest(gr.censusOldest);
                long[] into = reclaimer.counting;
                long[] counts = gr.counts;
                for (int i = 0; i < counts.length; i++) {
                    into[i] += counts[i];
                }
                Arrays.fill(counts, 0);
            }
        }
        // The cursor: the first key after the parents swept (none: the next sweep starts from the first key).
        reclaimer.resetCursor();
        if (!reachedEnd) {
            int next = nextParent;
            for (int leaf = s.child(next, 0); leaf != NIL; leaf = s.leafNext(leaf)) {
                if (s.leafCount(leaf) > 0) {
                    reclaimer.rememberFirstKey(leaf);
                    break;
                }
            }
        } else {
            reclaimer.endPass();
        }
        // Level by level: each node of the level below that the sweep touched, in its parent, in key order.
        int height = s.height;
        int[] below = parent;
        int belowCount = parents;
        int[] touched = this.touched;
        for (int level = 2; level <= height; level++) {
            int count = 0;
            for (int i = 0; i < belowCount; ) {
                int node = ancestors[i][level - 2];
                int j = i;
                while (j < belowCount && ancestors[j][level - 2] == node) {
                    j++;
                }
                fixChildren(node, below, i, j);
                if (count == touched.length) {
                    touched = this.touched = Arrays.copyOf(touched, count * 2);
                }
                touched[count++] = i;
                i = j;
            }
            // The next level's "below" nodes are this level's, one per run of parents (represented by its first).
            int[] nodes = this.levelNodes.length >= count ? this.levelNodes : (this.levelNodes = new int[count * 2]);
            for (int k = 0; k < count; k++) {
                nodes[k] = ancestors[touched[k]][level - 2];
            }
            // Re-index the ancestors so that entry k of the next level is run k of this one.
            for (int k = 0; k < count; k++) {
                int src = touched[k];
                if (src != k) {
                    int[] t = ancestors[k];
                    ancestors[k] = ancestors[src];
                    ancestors[src] = t;
                }
            }
            below = nodes;
            belowCount = count;
        }
        reclaimer.collapseRoot();
    }

    private int[] touched = new int[16];
    private int[] levelNodes = new int[16];

    /**
     * Children {@code below[from, to)} of inner node {@code node} (in key order), as the sweeper's climb treats
     * each: an empty child goes, else its slot takes its max and a child that fits into its left sibling is merged
     * into it.
     */
    private void fixChildren(int node, int[] below, int from, int to) {
        NodeStore s = store;
        int cap = s.innerCap;
        int c = node >>> CHUNK_SHIFT;
        int base = (node & CHUNK_MASK) * cap;
        int i = 0;
        for (int k = from; k < to; k++) {
            int child = below[k];
            while (i < s.iCount[c][node & CHUNK_MASK] && s.iChild[c][base + i] != child) {
                i++;
            }
            if (i == s.iCount[c][node & CHUNK_MASK]) {
                throw new IllegalStateException("inner node " + child + " is not a child of " + node);
            }
            if (s.innerCount(child) == 0) {
                s.removeInnerSlot(node, i);
                s.freeInner(child);
                continue;
            }
            s.iMax[c][base + i] = s.maxOfInner(child);
            if (i > 0) {
                int left = s.iChild[c][base + i - 1];
                if (s.innerCount(left) + s.innerCount(child) <= cap * 3 / 4) {
                    reclaimer.mergeInnerInto(node, i, left, child);
                    i--;
                    continue;
                }
            }
        }
    }

    /** One group's sweep of its parents and what it leaves for {@link #finish}. */
    private final class Group extends LeafCompaction implements AnchorRefs {
        /** The sweeper's measure of what this group swept: entries before compaction, plus one per leaf. */
        long work;
        int gone;
        int[] goneLeaf = new int[16];
        int releases;
        int[] released = new int[64];
        /** Anchor chunks newly referenced by merged leaves (retained after the groups, before the releases). */
        int retains;
        int[] retained = new int[16];
        /** This group's census counts, added to the pass's after the sweep. */
        final long[] counts = new long[Reclaimer.CENSUS_BUCKETS];

        void reset() {
            work = 0;
            gone = 0;
            releases = 0;
            retains = 0;
            visited = 0;
        }

        /** The sweeper's work on one parent's leaves (see {@link Reclaimer}), changing only the parent's slots. */
        void sweepParent(int h) {
            NodeStore s = store;
            int leafCap = s.leafCap;
            int c = h >>> CHUNK_SHIFT;
            int base = (h & CHUNK_MASK) * s.innerCap;
            int i = 0;
            while (i < s.iCount[c][h & CHUNK_MASK]) {
                int child = s.iChild[c][base + i];
                work += s.leafCount(child) + 1;
                int n = compactLeaf(child);
                s.iMax[c][base + i] = s.leafMax(child);
                if (n == 0) {
                    leafGone(child);
                    removeSlot(h, i);
                    continue;
                }
                if (i > 0) {
                    int left = s.iChild[c][base + i - 1];
                    if (s.leafCount(left) + n <= leafCap * 3 / 4 && layout.leaf.canUnify(left, child)) {
                        reclaimer.mergeLeafInto(left, child, this);
                        s.iMax[c][base + i - 1] = s.leafMax(left);
                        leafGone(child);
                        removeSlot(h, i);
                        continue;
                    }
                }
                i++;
            }
        }

        /** As the sweeper's compaction, with this group's predecessor and its releases logged. */
        private int compactLeaf(int leaf) {
            return compact(store, leaf, versions.expiredBelow);
        }

        /** {@link NodeStore#removeInnerSlot} with the separators' releases logged. */
        private void removeSlot(int h, int i) {
            NodeStore s = store;
            int c = h >>> CHUNK_SHIFT;
            int base = (h & CHUNK_MASK) * s.innerCap;
            int n = s.iCount[c][h & CHUNK_MASK];
            release(s.iRef[c][base + i]);
            int move = n - i - 1;
            System.arraycopy(s.iKey[c], base + i + 1, s.iKey[c], base + i, move);
            System.arraycopy(s.iRef[c], base + i + 1, s.iRef[c], base + i, move);
            System.arraycopy(s.iChild[c], base + i + 1, s.iChild[c], base + i, move);
            System.arraycopy(s.iMax[c], base + i + 1, s.iMax[c], base + i, move);
            n--;
            s.iCount[c][h & CHUNK_MASK] = n;
            if (n < 2) {
                s.iSkip[c][h & CHUNK_MASK] = 0; // no separator left to have a prefix (InnerPrefixes)
            }
            if (i == 0 && n > 0) {
                release(s.iRef[c][base]);
                s.iRef[c][base] = KeyRefs.EMPTY;
                s.iKey[c][base] = 0;
            }
        }

        private void leafGone(int leaf) {
            if (gone == goneLeaf.length) {
                goneLeaf = Arrays.copyOf(goneLeaf, gone * 2);
            }
            goneLeaf[gone++] = leaf;
        }

        @Override
        public void retainChunk(int unit) {
            if (retains == retained.length) {
                retained = Arrays.copyOf(retained, retains * 2);
            }
            retained[retains++] = unit;
        }

        @Override
        public void releaseChunk(int unit) {
            release(KeyRefs.arenaRef(unit, false));
        }

        @Override
        public int suffixFloor() {
            return 0;
        }

        @Override
        public void madeSuffixKey(int len) {
            throw new IllegalStateException("the sweeper's groups make no suffix key");
        }

        @Override
        public int storeSuffixKey(byte[] p, int pOff, int s, long inline, int len) {
            throw new IllegalStateException("the sweeper's groups lowered a leaf past a suffix key");
        }

        @Override
        void release(int ref) {
            if (ref >= 0) {
                if (releases == released.length) {
                    released = Arrays.copyOf(released, releases * 2);
                }
                released[releases++] = ref;
            }
        }
    }
}
