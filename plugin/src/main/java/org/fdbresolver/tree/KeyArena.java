package org.fdbresolver.tree;

import java.util.Arrays;

/**
 * Packed storage for the bytes of keys that are not inline ({@link KeyRefs#fitsInline}): key blocks
 * ({@code byte[]} slabs of {@code blockBytes}) cut into 8-byte-aligned chunks, each holding one key.
 * A chunk is addressed by an int (its byte address / 8), so 2^31 units address 16 GiB.
 *
 * <p>Chunk layout: {@code [0..4)} header = {@code refs << LEN_BITS | length}, {@code [4..4+length)} the
 * key bytes. A chunk is shared by at most a few references (a point write {@code [k, k\0)} stores
 * {@code k\0} once and both entries point at it), hence the reference count. Freed chunks go on a
 * free list per size class (chunk bytes / 8); a free chunk keeps its next-free link at offset 4.
 *
 * <p>{@link #bytesInUse()} is exact by construction: the sum of the chunk sizes handed out and not
 * yet freed. Blocks are never returned to the JVM; {@link #reservedBytes()} is what they occupy and
 * never exceeds the limit given at construction.
 */
final class KeyArena {
    static final int HEADER = 4;
    static final int LEN_BITS = 20;
    static final int LEN_MASK = (1 << LEN_BITS) - 1;
    private static final int NIL = -1;

    private final int blockShift;
    private final int blockBytes;
    private final int maxBlocks;
    private byte[][] blocks = new byte[4][];
    private int blockCount;
    /** Byte address of the next bump allocation and the end of its block. */
    private long bump;
    private long bumpEnd;
    private int[] freeHeads;
    private long bytesInUse;
    private long freeListBytes;

    KeyArena(int blockBytes, long limitBytes, int maxKeyBytes) {
        int needed = chunkBytes(maxKeyBytes);
        int size = Integer.highestOneBit(Math.max(blockBytes, needed) - 1) << 1;
        this.blockShift = Integer.numberOfTrailingZeros(size);
        this.blockBytes = size;
        this.maxBlocks = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(1, limitBytes / size));
        this.freeHeads = new int[needed / 8 + 1];
        Arrays.fill(freeHeads, NIL);
    }

    static int chunkBytes(int len) {
        return (HEADER + len + 7) & ~7;
    }

    int blockBytes() {
        return blockBytes;
    }

    long bytesInUse() {
        return bytesInUse;
    }

    long reservedBytes() {
        return (long) blockCount * blockBytes;
    }

    /** Bytes that allocations are guaranteed to find: the bump region and blocks not yet created. */
    long guaranteedFreeBytes() {
        return (bumpEnd - bump) + (long) (maxBlocks - blockCount) * blockBytes;
    }

    /** Copies {@code len} key bytes into a new chunk with one reference; returns its unit address. */
    int allocate(byte[] src, int off, int len) {
        int unit = reserve(len);
        fill(unit, src, off, len, 1);
        return unit;
    }

    /**
     * Takes a chunk for a key of {@code len} bytes (counted as in use from now on) without writing it: {@link #fill}
     * writes it later, possibly on another thread, before anything reads it.
     */
    int reserve(int len) {
        int size = chunkBytes(len);
        int cls = size >>> 3;
        long at;
        int head = freeHeads[cls];
        if (head != NIL) {
            at = (long) head << 3;
            freeHeads[cls] = readInt(at + HEADER);
            freeListBytes -= size;
        } else {
            if (bump + size > bumpEnd) {
                newBlock();
            }
            at = bump;
            bump += size;
        }
        bytesInUse += size;
        return (int) (at >>> 3);
    }

    /** Writes a {@link #reserve}d chunk: {@code refs} references, the key's {@code len} bytes. */
    void fill(int unit, byte[] src, int off, int len, int refs) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        writeHeader(b, o, refs, len);
        System.arraycopy(src, off, b, o + HEADER, len);
    }

    private void newBlock() {
        if (blockCount == maxBlocks) {
            throw new IllegalStateException("key arena is full (" + reservedBytes() + " bytes): the budget check let too much in");
        }
        // The unused tail of the current block becomes a free chunk of its size class.
        long tail = bumpEnd - bump;
        if (tail >= 8) {
            int cls = (int) (tail >>> 3);
            if (cls < freeHeads.length) {
                writeInt(bump + HEADER, freeHeads[cls]);
                freeHeads[cls] = (int) (bump >>> 3);
                freeListBytes += tail;
            }
        }
        if (blockCount == blocks.length) {
            blocks = Arrays.copyOf(blocks, blocks.length * 2);
        }
        blocks[blockCount] = new byte[blockBytes];
        bump = (long) blockCount << blockShift;
        bumpEnd = bump + blockBytes;
        blockCount++;
    }

    void retain(int unit) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        int h = header(b, o);
        writeHeader(b, o, (h >>> LEN_BITS) + 1, h & LEN_MASK);
    }

    /** Drops one reference; the chunk is freed when none is left. */
    void release(int unit) {
        long at = (long) unit << 3;
        byte[] b = blocks[(int) (at >>> blockShift)];
        int o = (int) (at & (blockBytes - 1));
        int h = header(b, o);
        int refs = (h >>> LEN_BITS) - 1;
        int len = h & LEN_MASK;
        if (refs > 0) {
            writeHeader(b, o, refs, len);
            return;
        }
        int size = chunkBytes(len);
        int cls = size >>> 3;
        writeHeader(b, o, 0, 0);
        writeInt(at + HEADER, freeHeads[cls]);
        freeHeads[cls] = unit;
        bytesInUse -= size;
        freeListBytes += size;
    }

    int refs(int unit) {
        long at = (long) unit << 3;
        return header(blocks[(int) (at >>> blockShift)], (int) (at & (blockBytes - 1))) >>> LEN_BITS;
    }

    /** The stored length of the chunk at {@code unit}. */
    int length(int unit) {
        long at = (long) unit << 3;
        return header(blocks[(int) (at >>> blockShift)], (int) (at & (blockBytes - 1))) & LEN_MASK;
    }

    /** The block holding chunk {@code unit}; its key bytes start at {@link #offset(int)}. */
    byte[] block(int unit) {
        return blocks[(int) (((long) unit << 3) >>> blockShift)];
    }

    int offset(int unit) {
        return (int) (((long) unit << 3) & (blockBytes - 1)) + HEADER;
    }

    /** Forgets every chunk and block. */
    void clear() {
        blocks = new byte[4][];
        blockCount = 0;
        bump = 0;
        bumpEnd = 0;
        Arrays.fill(freeHeads, NIL);
        bytesInUse = 0;
        freeListBytes = 0;
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
