package org.fdbresolver.tree;

import java.util.Arrays;

/**
 * Packed storage for the bytes of keys that are not inline ({@link KeyRefs#fitsInline}): key blocks
 * ({@code byte[]} slabs of {@code blockBytes}) cut into 8-byte-aligned chunks, each holding one key, and,
 * for keys too long to share a block ({@link #bigChunkBytes()} and up), an array of their own. A chunk is
 * addressed by an int unit (its byte address / 8); a large key's array takes the address of a whole block
 * slot, so the readers' arithmetic ({@link #block}, {@link #offset}) is the same for both. Keys of any
 * length up to what one Java array holds are stored: FoundationDB itself sets no limit on conflict-range
 * keys, so neither does the engine.
 *
 * <p>Chunk layout: {@code [0..4)} header = {@code refs << LEN_BITS | length}, {@code [4..4+length)} the
 * key bytes. A large key's header holds {@link #LEN_MASK} as its length, and its length is its array's
 * less the header. A chunk is shared by the entries that hold its key (a point write {@code [k, k\0)} stores
 * {@code k\0} once and both entries point at it) and by the local leaves anchored on it ({@link LeafPrefixes}),
 * hence the reference count. The header has room for {@link #HEADER_REFS_MAX} references; a chunk anchoring more
 * leaves than that keeps the rest in {@link SaturatedRefs}. Freed chunks go on a free list
 * per size class (chunk bytes / 8), unrolled ({@link #pushFree}): a free chunk at the head of its class's list
 * holds, after a count and the next head's link, the units of further free chunks, as many as its size has room
 * for. A freed large key's array goes back to the JVM at once, and its slot is reused.
 *
 * <p>{@link #bytesInUse()} is exact by construction: the sum of the chunk sizes handed out and not yet
 * freed ({@link #chunkBytes} of each). Blocks are never returned to the JVM (until {@link #clear}); every
 * array taken is counted against the {@link Reservation} shared with the node pools.
 */
final class KeyArena {
    static final int HEADER = 4;
    static final int LEN_BITS = 20;
    static final int LEN_MASK = (1 << LEN_BITS) - 1;
    /** The most references a chunk's header counts; more are counted in {@link #saturated}. */
    static final int HEADER_REFS_MAX = (1 << (32 - LEN_BITS)) - 1;
    private static final int NIL = -1;
    /** Units are ints and references are {@code unit << 1}: byte addresses stay below 2^33. */
    private static final long ADDRESS_LIMIT = 1L << 33;

    private final int blockShift;
    private final int blockBytes;
    /** Chunks of this size and up get an array of their own (a quarter block, so a block wastes at most a quarter). */
    private final int bigChunkBytes;
    /** Block slots the address space has room for. */
    private final int maxSlots;
    private final Reservation reservation;
    private byte[][] blocks = new byte[4][];
    /** Block slots handed out, for blocks and large keys. */
    private int slotCount;
    /** Slots of freed large keys, for reuse. */
    private int[] freeSlots = new int[4];
    private int freeSlotCount;
    /** Byte address of the next bump allocation and the end of its block. */
    private long bump;
    private long bumpEnd;
    private int[] freeHeads;
    private long bytesInUse;
    private long freeListBytes;
    /** Heap taken by this arena's arrays, headers included (what it holds of the reservation). */
    private long reservedBytes;
    /** Chunks stored by length class ({@code 32 - numberOfLeadingZeros(length)}): bounds the longest key held. */
    private final long[] lengthClassCounts = new long[33];
    /** Bit c set: length class c holds a chunk (the bounds below visit those classes only, not all 33, per batch). */
    private long heldClasses;
    /** References past {@link #HEADER_REFS_MAX} of the chunks whose headers are full. */
    private final SaturatedRefs saturated = new SaturatedRefs();

    KeyArena(int blockBytes, Reservation reservation) {
        int size = Integer.highestOneBit(Math.max(64, blockBytes) - 1) << 1;
        this.blockShift = Integer.numberOfTrailingZeros(size);
        this.blockBytes = size;
        this.bigChunkBytes = Math.min(size / 4, 1 << 19);
        this.maxSlots = (int) Math.min(Integer.MAX_VALUE / 2, ADDRESS_LIMIT >>> blockShift);
        this.reservation = reservation;
        this.freeHeads = new int[bigChunkBytes / 8];
        Arrays.fill(freeHeads, NIL);
    }

    /** The bytes a key of {@code len} bytes counts towards the history: its chunk, header and padding included. */
    static int chunkBytes(int len) {
        return (int) ((HEADER + (long) len + 7) & ~7L);
    }

    int blockBytes() {
        return blockBytes;
    }

    /** Chunk size from which a key gets an array of its own. */
    int bigChunkBytes() {
        return bigChunkBytes;
    }

    long bytesInUse() {
        return bytesInUse;
    }

    /** Heap taken by the key blocks and the large keys' arrays (array headers included). */
    long reservedBytes() {
        return reservedBytes;
    }

    /**
     * At most how much new memory allocating chunks of {@code keyBytes} in all (as {@link #chunkBytes} counts
     * them) takes from the reservation: as if none came from a free list, every new block lost up to a
     * quarter to its tail, and every chunk were a large key's array with its header.
     */
    long reservationNeeded(long keyBytes) {
        long tail = bumpEnd - bump;
        if (keyBytes <= tail) {
            return 0;
        }
        long rest = keyBytes - tail;
        long blocksNeeded = (rest + (blockBytes - bigChunkBytes) - 1) / (blockBytes - bigChunkBytes);
        long bigHeaders = (rest / bigChunkBytes + 1) * (Reservation.ARRAY_HEADER_BYTES + 8);
        return blocksNeeded * (blockBytes + Reservation.ARRAY_HEADER_BYTES) + bigHeaders;
    }

    /** Block slots the address space still has for {@code keyBytes} more (guards the int units). */
    boolean hasAddressesFor(long keyBytes) {
        long slotsNeeded = keyBytes / Math.max(1, bigChunkBytes) + keyBytes / blockBytes + 2;
        return (long) slotCount - freeSlotCount + slotsNeeded <= maxSlots;
    }

    /** An upper bound of the longest key held (a power of two above it, or 0 when none is held). */
    int longestKeyBound() {
        long held = heldClasses & ~1L;
        if (held == 0) {
            return 0;
        }
        int c = 63 - Long.numberOfLeadingZeros(held);
        return (int) Math.min(Integer.MAX_VALUE, (1L << c) - 1);
    }

    /**
     * An upper bound of the summed lengths of the {@code count} longest keys held: how long {@code count}
     * new separators cut from them could be at most.
     */
    long longestKeysBound(long count) {
        long bytes = 0;
        for (long held = heldClasses & ~1L; held != 0 && count > 0; ) {
            int c = 63 - Long.numberOfLeadingZeros(held);
            held &= ~(1L << c);
            long n = Math.min(count, lengthClassCounts[c]);
            bytes += n * ((1L << c) - 1);
            count -= n;
        }
        return bytes;
    }

    /** Copies {@code len} key bytes into a new chunk with one reference; returns its unit address. */
    int allocate(byte[] src, int off, int len) {
        int unit = reserve(len);
        fill(unit, src, off, len, 1);
        return unit;
    }

    /**
     * Takes a chunk for a key of {@code len} bytes without writing it: {@link #fill} writes it later, possibly on
     * another thread, before anything reads it. Everything shared is done here, by one thread: the free lists, the
     * bump pointer, new blocks, a large key's array and slot, the reservation, and the counts (bytes in use and the
     * length class are the key's from now on), so that {@code fill}s of different chunks may run at once.
     */
    int reserve(int len) {
        int size = chunkBytes(len);
        if (size >= bigChunkBytes) {
            int unit = reserveBig(len);
            counted(size, len);
            return unit;
        }
        int cls = size >>> 3;
        long at;
        int head = freeHeads[cls];
        if (head != NIL) {
            at = (long) popFree(cls, head) << 3;
            freeListBytes -= size;
        } else {
            if (bump + size > bumpEnd) {
                newBlock();
            }
            at = bump;
            bump += size;
        }
        counted(size, len);
        return (int) (at >>> 3);
    }

    /** A chunk of {@code size} bytes for a key of {@code len} is in use (after it was taken, so a throw counts nothing). */
    private void counted(int size, int len) {
        bytesInUse += size;
        int c = 32 - Integer.numberOfLeadingZeros(len);
        lengthClassCounts[c]++;
        heldClasses |= 1L << c;
    }

    /**
     * Writes a {@link #reserve}d chunk: {@code refs} references, the key's {@code len} bytes (the length
     * {@code reserve} was given). Touches that chunk's bytes only.
     */
    void fill(int unit, byte[] src, int off, int len, int refs) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        // A large key's array is its own (o is 0): its length is the array's, the header holds the sentinel.
        writeHeader(b, o, refs, chunkBytes(len) >= bigChunkBytes ? LEN_MASK : len);
        System.arraycopy(src, off, b, o + HEADER, len);
    }

    /** A large key's array of its own, at the start of a block slot (written by {@link #fill}). */
    private int reserveBig(int len) {
        int slot = takeSlot();
        long taken = HEADER + (long) len + Reservation.ARRAY_HEADER_BYTES;
        reservation.take(taken);
        reservedBytes += taken;
        blocks[slot] = new byte[HEADER + len];
        return (int) (((long) slot << blockShift) >>> 3);
    }

    private int takeSlot() {
        if (freeSlotCount > 0) {
            return freeSlots[--freeSlotCount];
        }
        if (slotCount == maxSlots) {
            throw new IllegalStateException("key arena has no address left (" + maxSlots + " block slots): the budget "
                    + "check let too much in");
        }
        if (slotCount == blocks.length) {
            blocks = Arrays.copyOf(blocks, blocks.length * 2);
        }
        return slotCount++;
    }

    private void newBlock() {
        int slot = takeSlot();
        reservation.take(blockBytes + Reservation.ARRAY_HEADER_BYTES);
        reservedBytes += blockBytes + Reservation.ARRAY_HEADER_BYTES;
        // The unused tail of the current block becomes a free chunk of its size class.
        long tail = bumpEnd - bump;
        if (tail >= 8) {
            int cls = (int) (tail >>> 3);
            if (cls < freeHeads.length) {
                pushFree(cls, (int) (bump >>> 3));
                freeListBytes += tail;
            }
        }
        blocks[slot] = new byte[blockBytes];
        bump = (long) slot << blockShift;
        bumpEnd = bump + blockBytes;
    }

    void retain(int unit) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        int h = header(b, o);
        int refs = h >>> LEN_BITS;
        if (refs == HEADER_REFS_MAX) {
            saturated.add(unit);
        } else {
            writeHeader(b, o, refs + 1, h & LEN_MASK);
        }
    }

    /** Releases sweeps hand over at once: their chunks' headers are loaded this many at a time before any is released. */
    static final int RELEASE_WAYS = 16;
    /** What {@link #releaseAll}'s loads read, kept so that the JIT cannot drop them. */
    private long touched;

    /**
     * Drops one reference for each key reference {@code refs[from, to)} (inline ones hold none), in order: as
     * {@link #release} one by one, but each {@link #RELEASE_WAYS} chunks' header lines are loaded together first, so
     * that their misses overlap instead of each release waiting for its own. A sweep releases the keys of entries
     * written long ago, whose chunks are rarely cached: on the generated flood (keys of 50–55 bytes, every one in a
     * chunk, the window full) JFR put two thirds of {@code removeBefore}'s samples on those releases, and loading
     * ahead cut the phase by 5–7 % (docs/tree.md, "Experiments on tuple keys and the flood").
     */
    void releaseAll(int[] refs, int from, int to) {
        long t = 0;
        for (int i = from; i < to; i += RELEASE_WAYS) {
            int end = Math.min(to, i + RELEASE_WAYS);
            for (int j = i; j < end; j++) {
                int ref = refs[j];
                if (ref >= 0) {
                    long at = (long) (ref >>> 1) << 3;
                    t += blocks[(int) (at >>> blockShift)][(int) (at & (blockBytes - 1))];
                }
            }
            for (int j = i; j < end; j++) {
                int ref = refs[j];
                if (ref >= 0) {
                    release(ref >>> 1);
                }
            }
        }
        touched += t;
    }

    /** Drops one reference; the chunk is freed when none is left. */
    void release(int unit) {
        long at = (long) unit << 3;
        int slot = (int) (at >>> blockShift);
        byte[] b = blocks[slot];
        int o = (int) (at & (blockBytes - 1));
        int h = header(b, o);
        if (h >>> LEN_BITS == HEADER_REFS_MAX && saturated.remove(unit)) {
            return;
        }
        int refs = (h >>> LEN_BITS) - 1;
        int lenField = h & LEN_MASK;
        if (refs > 0) {
            writeHeader(b, o, refs, lenField);
            return;
        }
        if (lenField == LEN_MASK) {
            int len = b.length - HEADER;
            blocks[slot] = null;
            reservation.give(b.length + Reservation.ARRAY_HEADER_BYTES);
            reservedBytes -= b.length + Reservation.ARRAY_HEADER_BYTES;
            if (freeSlotCount == freeSlots.length) {
                freeSlots = Arrays.copyOf(freeSlots, freeSlots.length * 2);
            }
            freeSlots[freeSlotCount++] = slot;
            bytesInUse -= chunkBytes(len);
            uncount(len);
            return;
        }
        int size = chunkBytes(lenField);
        int cls = size >>> 3;
        pushFree(cls, unit);
        bytesInUse -= size;
        freeListBytes += size;
        uncount(lenField);
    }

    /**
     * Puts free chunk {@code unit} of size class {@code cls} on its class's list: into the head chunk's room when it
     * has some, else as the new head (count 0, linked to the old head). The head chunk's layout: {@code [0..4)} how
     * many units it holds, {@code [4..8)} the next head, {@code [8..)} the units, four bytes each.
     *
     * <p>Why unrolled: with one link per free chunk, taking chunks for a batch's new keys walked the list one cache
     * miss after another (each chunk freed long ago by the sweeper, its link read to find the next): a fifth of
     * {@code mergeWrite}'s time on the container cluster's flood (docs/tree.md). From the head's room, the units come
     * from one chunk the pushes and pops keep cached, and the chunks handed out are written (not read) first.
     */
    private void pushFree(int cls, int unit) {
        int head = freeHeads[cls];
        long h = (long) head << 3;
        int room = (cls * 8 - 8) / 4;
        if (head != NIL && room > 0) {
            int n = readInt(h);
            if (n < room) {
                writeInt(h + 8 + 4L * n, unit);
                writeInt(h, n + 1);
                return;
            }
        }
        long at = (long) unit << 3;
        writeInt(at, 0);
        writeInt(at + HEADER, head);
        freeHeads[cls] = unit;
    }

    /** Takes a free chunk of class {@code cls} whose list has head {@code head}: the last unit the head holds, else the head. */
    private int popFree(int cls, int head) {
        long h = (long) head << 3;
        int n = readInt(h);
        if (n > 0) {
            writeInt(h, n - 1);
            return readInt(h + 8 + 4L * (n - 1));
        }
        freeHeads[cls] = readInt(h + HEADER);
        return head;
    }

    private void uncount(int len) {
        int c = 32 - Integer.numberOfLeadingZeros(len);
        if (--lengthClassCounts[c] == 0) {
            heldClasses &= ~(1L << c);
        }
    }

    int refs(int unit) {
        long at = (long) unit << 3;
        int refs = header(blocks[(int) (at >>> blockShift)], (int) (at & (blockBytes - 1))) >>> LEN_BITS;
        return refs == HEADER_REFS_MAX ? refs + saturated.count(unit) : refs;
    }

    /** The stored length of the chunk at {@code unit}. */
    int length(int unit) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int len = header(b, (int) (at & (blockBytes - 1))) & LEN_MASK;
        return len != LEN_MASK ? len : b.length - HEADER;
    }

    /** The block holding chunk {@code unit}; its key bytes start at {@link #offset(int)}. */
    byte[] block(int unit) {
        return blocks[(int) (((long) unit << 3) >>> blockShift)];
    }

    int offset(int unit) {
        return (int) (((long) unit << 3) & (blockBytes - 1)) + HEADER;
    }

    /** Forgets every chunk and block, and gives their memory back. */
    void clear() {
        reservation.give(reservedBytes);
        reservedBytes = 0;
        blocks = new byte[4][];
        slotCount = 0;
        freeSlots = new int[4];
        freeSlotCount = 0;
        bump = 0;
        bumpEnd = 0;
        Arrays.fill(freeHeads, NIL);
        bytesInUse = 0;
        freeListBytes = 0;
        Arrays.fill(lengthClassCounts, 0);
        heldClasses = 0;
        saturated.clear();
    }

    /**
     * The references of chunks whose headers are full, past the header's {@link #HEADER_REFS_MAX}: an open-addressing
     * table of units and counts. A chunk reaches it when more than four thousand leaves are anchored on it: under a
     * long shared prefix with {@code leafPrefixMinGain} 1, every key of a leaf can be a suffix key, and each leaf split
     * from it keeps its anchor (docs/tree.md). It holds at most one entry per that many leaves, so it is small and
     * not counted against the budget; a hand-written table because {@code retain} and {@code release} run in the
     * write path, which allocates nothing in steady state, and the JDK has no map of primitive ints.
     */
    private static final class SaturatedRefs {
        private static final int EMPTY = -1;
        private int[] units = emptyTable(16);
        private int[] counts = new int[16];
        private int size;

        /** One more reference of {@code unit}. */
        void add(int unit) {
            int i = find(unit);
            if (units[i] == unit) {
                counts[i]++;
                return;
            }
            if (2 * (size + 1) > units.length) {
                grow();
                i = find(unit);
            }
            units[i] = unit;
            counts[i] = 1;
            size++;
        }

        /** Drops one reference of {@code unit} counted here; false when it has none here (its header counts them all). */
        boolean remove(int unit) {
            int i = find(unit);
            if (units[i] != unit) {
                return false;
            }
            if (--counts[i] == 0) {
                delete(i);
            }
            return true;
        }

        int count(int unit) {
            int i = find(unit);
            return units[i] == unit ? counts[i] : 0;
        }

        void clear() {
            Arrays.fill(units, EMPTY);
            size = 0;
        }

        /** The slot of {@code unit}, or the empty slot where it would go. */
        private int find(int unit) {
            int mask = units.length - 1;
            int i = mix(unit) & mask;
            while (units[i] != EMPTY && units[i] != unit) {
                i = (i + 1) & mask;
            }
            return i;
        }

        /** Empties slot {@code i}, moving later entries of its probe run back so that every entry stays findable. */
        private void delete(int i) {
            int mask = units.length - 1;
            int hole = i;
            for (int j = (i + 1) & mask; units[j] != EMPTY; j = (j + 1) & mask) {
                int home = mix(units[j]) & mask;
                // Move j into the hole unless its home lies cyclically in (hole, j].
                if (((j - home) & mask) >= ((j - hole) & mask)) {
                    units[hole] = units[j];
                    counts[hole] = counts[j];
                    hole = j;
                }
            }
            units[hole] = EMPTY;
            size--;
        }

        private void grow() {
            int[] oldUnits = units;
            int[] oldCounts = counts;
            units = emptyTable(oldUnits.length * 2);
            counts = new int[oldUnits.length * 2];
            for (int i = 0; i < oldUnits.length; i++) {
                if (oldUnits[i] != EMPTY) {
                    int j = find(oldUnits[i]);
                    units[j] = oldUnits[i];
                    counts[j] = oldCounts[i];
                }
            }
        }

        private static int[] emptyTable(int n) {
            int[] t = new int[n];
            Arrays.fill(t, EMPTY);
            return t;
        }

        private static int mix(int unit) {
            return unit * 0x9E3779B9 >>> 7;
        }
    }

    long freeListBytes() {
        return freeListBytes;
    }

    private static int header(byte[] b, int o) {
        return (b[o] & 0xFF) << 24 | (b[o + 1] & 0xFF) << 16 | (b[o + 2] & 0xFF) << 8 | (b[o + 3] & 0xFF);
    }

    private static void writeHeader(byte[] b, int o, int refs, int len) {
        int h = refs << LEN_BITS | len;
        b[o] = (byte) (h >>> 24);
        b[o + 1] = (byte) (h >>> 16);
        b[o + 2] = (byte) (h >>> 8);
        b[o + 3] = (byte) h;
    }

    private int readInt(long at) {
        return header(blocks[(int) (at >>> blockShift)], (int) (at & (blockBytes - 1)));
    }

    private void writeInt(long at, int v) {
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        b[o] = (byte) (v >>> 24);
        b[o + 1] = (byte) (v >>> 16);
        b[o + 2] = (byte) (v >>> 8);
        b[o + 3] = (byte) v;
    }
}
