package org.fdbresolver.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The endpoint sort against {@link Arrays#compareUnsigned} on keys that share long prefixes (so the
 * sort keys start after the batch's common prefix), are prefixes of each other, hold 0x00 and 0xFF,
 * or are empty — by radix passes, by comparison (small batches) and the default mix of the two.
 */
class EndpointSorterTest {
    private static final byte[] ALPHABET = {0x00, 0x01, 'a', (byte) 0x7F, (byte) 0xFF};
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12) * 20;
    private static final BatchWorkers WORKERS = new BatchWorkers(3, "sorter-test");

    /** Radix passes only, the default mix (comparison for small batches), comparison only: the same order. */
    static IntStream directSortEndpoints() {
        return IntStream.of(0, EndpointSorter.DEFAULT_DIRECT_SORT_ENDPOINTS, Integer.MAX_VALUE);
    }

    @AfterAll
    static void stopWorkers() {
        WORKERS.close();
    }

    /**
     * The sort across threads ({@link EndpointSorter#sortAcross}, endpoints put in slices) against the one-thread
     * sort of the same endpoints: the same common prefix, ranks, distinct keys and sorted order (tags), whatever
     * the number of slices.
     */
    private static void checkAcross(EndpointSorter one, byte[] region, int[] off, List<byte[]> keys, String where) {
        int n = keys.size();
        for (int parts : new int[] {1, 2, 5, 12}) {
            EndpointSorter across = new EndpointSorter();
            across.prepare(region, n);
            for (int p = 0; p < parts; p++) {
                int from = n * p / parts;
                int to = n * (p + 1) / parts;
                long d = 0;
                int ld = 0;
                int min = Integer.MAX_VALUE;
                boolean tails = false;
                for (int i = from; i < to; i++) {
                    across.put(i, off[i], keys.get(i).length, i);
                    d |= across.prefixOf(i) ^ across.prefixOf(from);
                    ld |= keys.get(i).length ^ keys.get(from).length;
                    min = Math.min(min, keys.get(i).length);
                    tails |= EndpointSorter.hasLongTail(region, off[i], keys.get(i).length);
                }
                if (to > from) {
                    across.addStats(from, d, ld, min, tails);
                }
            }
            across.sortAcross(WORKERS, parts);
            String w = where + ", " + parts + " slices";
            assertEquals(one.commonPrefixLength(), across.commonPrefixLength(), w + ": common prefix");
            assertEquals(one.distinctCount(), across.distinctCount(), w + ": distinct keys");
            for (int i = 0; i < n; i++) {
                assertEquals(one.rank(i), across.rank(i), w + ": rank of key " + i);
                assertEquals(one.tagAt(i), across.tagAt(i), w + ": endpoint at sorted position " + i);
            }
            for (int r = 0; r < one.distinctCount(); r++) {
                assertEquals(one.keyOffset(r), across.keyOffset(r), w + ": key of rank " + r);
            }
        }
    }

    /**
     * The common prefix the sorter should skip: the bytes of the first 8 on which every key agrees when
     * zero-padded to 8, if some key has bytes past its 8th (other than a point end's 0x00); when they
     * agree on all 8 and every key is that long, the true common prefix.
     */
    private static int expectedCommonPrefix(List<byte[]> keys) {
        if (keys.size() < 2) {
            return 0;
        }
        boolean longTails = false;
        for (byte[] k : keys) {
            longTails |= k.length > 9 || k.length == 9 && k[8] != 0;
        }
        int padded = 8;
        int minLength = Integer.MAX_VALUE;
        byte[] first = Arrays.copyOf(keys.get(0), 8);
        for (byte[] k : keys) {
            int m = Arrays.mismatch(first, Arrays.copyOf(k, 8));
            padded = Math.min(padded, m < 0 ? 8 : m);
            minLength = Math.min(minLength, k.length);
        }
        if (padded < 8) {
            return longTails ? padded : 0;
        }
        if (minLength < 8) {
            return 0;
        }
        int common = keys.get(0).length;
        for (byte[] k : keys) {
            int m = Arrays.mismatch(keys.get(0), k);
            common = Math.min(common, m < 0 ? k.length : m);
        }
        return common;
    }

    /** Keys that all begin with zeros, as 12-byte ASCII decimal keys do, and then differ in a few bits. */
    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void ranksFollowUnsignedByteOrderForDecimalKeys(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = 1 + rnd.nextInt(3000);
            List<byte[]> keys = new ArrayList<>();
            long range = rnd.nextBoolean() ? 10_000_000L : 1L + rnd.nextInt(1000);
            for (int i = 0; i < n; i++) {
                String digits = String.format("%012d", rnd.nextLong(range));
                byte[] k = digits.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                keys.add(rnd.nextInt(4) == 0 ? Arrays.copyOf(k, k.length + 1) : k); // [k, k\0) ends
            }
            check(sorter, keys, "decimal seed " + seed);
        }
    }

    /**
     * Keys of random bytes (all 64 bits of the sort key vary, so the radix sort runs instead of the packed
     * one), of 0–12 bytes, some repeated, some prefixes of others.
     */
    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void ranksFollowUnsignedByteOrderForRandomKeys(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = 2 + rnd.nextInt(2000);
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (i > 0 && rnd.nextInt(10) == 0) {
                    byte[] other = keys.get(rnd.nextInt(i));
                    keys.add(Arrays.copyOf(other, rnd.nextInt(other.length + 1)));
                    continue;
                }
                byte[] k = new byte[rnd.nextInt(13)];
                for (int j = 0; j < k.length; j++) {
                    k[j] = (byte) rnd.nextInt(256);
                }
                keys.add(k);
            }
            check(sorter, keys, "random seed " + seed);
        }
    }

    /**
     * Keys of at most 8 bytes and point ends {@code k\0} of them (sorted by their 8 padded bytes, then
     * length: no equal sort keys left to order by bytes), over a small alphabet heavy in 0x00, so that
     * keys that are prefixes of each other with zeros after them are frequent.
     */
    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void ranksFollowUnsignedByteOrderForShortKeysAndPointEnds(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = 2 + rnd.nextInt(rnd.nextBoolean() ? 30 : 6000);
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] k = new byte[rnd.nextInt(9)];
                for (int j = 0; j < k.length; j++) {
                    k[j] = rnd.nextInt(3) == 0 ? 0 : ALPHABET[rnd.nextInt(ALPHABET.length)];
                }
                keys.add(k.length == 8 && rnd.nextBoolean() ? Arrays.copyOf(k, 9) : k);
            }
            check(sorter, keys, "short seed " + seed);
        }
    }

    private static void check(EndpointSorter sorter, List<byte[]> keys, String where) {
        int n = keys.size();
        ByteArrayOutputStream region = new ByteArrayOutputStream();
        int[] off = new int[n];
        for (int i = 0; i < n; i++) {
            off[i] = region.size();
            region.writeBytes(keys.get(i));
        }
        byte[] bytes = region.toByteArray();
        sorter.reset(bytes);
        int[] id = new int[n];
        for (int i = 0; i < n; i++) {
            id[i] = sorter.add(off[i], keys.get(i).length, i);
        }
        sorter.sort();
        checkAcross(sorter, bytes, off, keys, where);
        assertEquals(expectedCommonPrefix(keys), sorter.commonPrefixLength(), where + ": common prefix");
        List<byte[]> distinct = new ArrayList<>(new java.util.TreeSet<byte[]>(Arrays::compareUnsigned) {
            {
                addAll(keys);
            }
        });
        assertEquals(distinct.size(), sorter.distinctCount(), where + ": distinct keys");
        for (int i = 0; i < n; i++) {
            int expected = java.util.Collections.binarySearch(distinct, keys.get(i), Arrays::compareUnsigned);
            assertEquals(expected, sorter.rank(id[i]), where + ": rank of key " + i);
        }
    }

    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void ranksFollowUnsignedByteOrderWithSharedPrefixes(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            byte[] family = new byte[rnd.nextInt(41)];
            for (int i = 0; i < family.length; i++) {
                family[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
            }
            List<byte[]> keys = new ArrayList<>();
            int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 20 : 400);
            for (int i = 0; i < n; i++) {
                byte[] k;
                if (rnd.nextInt(50) == 0) {
                    k = Arrays.copyOf(family, rnd.nextInt(family.length + 1)); // a prefix of the family
                } else {
                    int tail = rnd.nextInt(4) == 0 ? 9 + rnd.nextInt(4) : rnd.nextInt(4);
                    k = Arrays.copyOf(family, family.length + tail);
                    for (int j = family.length; j < k.length; j++) {
                        k[j] = ALPHABET[rnd.nextInt(ALPHABET.length)];
                    }
                }
                keys.add(k);
            }
            ByteArrayOutputStream region = new ByteArrayOutputStream();
            int[] off = new int[n];
            for (int i = 0; i < n; i++) {
                off[i] = region.size();
                region.writeBytes(keys.get(i));
            }
            byte[] bytes = region.toByteArray();
            sorter.reset(bytes);
            int[] id = new int[n];
            for (int i = 0; i < n; i++) {
                id[i] = sorter.add(off[i], keys.get(i).length, i);
            }
            sorter.sort();
            String where = "seed " + seed;
            checkAcross(sorter, bytes, off, keys, where);
            assertEquals(expectedCommonPrefix(keys), sorter.commonPrefixLength(), where + ": common prefix");
            List<byte[]> distinct = new ArrayList<>(keys);
            distinct.sort(Arrays::compareUnsigned);
            distinct.removeIf(new java.util.function.Predicate<>() {
                byte[] last;

                @Override
                public boolean test(byte[] k) {
                    boolean dup = last != null && Arrays.equals(last, k);
                    last = k;
                    return dup;
                }
            });
            assertEquals(distinct.size(), sorter.distinctCount(), where + ": distinct keys");
            for (int i = 0; i < n; i++) {
                int expected = java.util.Collections.binarySearch(distinct, keys.get(i), Arrays::compareUnsigned);
                assertEquals(expected, sorter.rank(id[i]), where + ": rank of key " + i);
            }
        }
    }

    /**
     * Tuple-layer keys as a batch mixes them: several subspace prefixes of 12–48 bytes (some extending others), then
     * record ids, index strings with escaped 0x00 and the id, the subspace alone (a key ending exactly where its run's
     * keys stop agreeing), its {@code \xFF} end, truncations, duplicates and point ends {@code k\0}. Endpoints of one
     * subspace tie on their sort key, so the sort orders them by {@code refineTies}: the sorted order (equal keys in
     * the order they were added) and ranks must be those of a plain sort of the byte arrays, on one thread and across.
     */
    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void sortedOrderFollowsUnsignedByteOrderForTupleKeys(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        for (int seed = 0; seed < SEEDS / 4; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            byte[][] subspaces = new byte[1 + rnd.nextInt(12)][];
            for (int s = 0; s < subspaces.length; s++) {
                if (s > 0 && rnd.nextInt(4) == 0) {
                    // Extends another subspace (a nested directory): its keys tie with the other's on their sort key.
                    byte[] parent = subspaces[rnd.nextInt(s)];
                    subspaces[s] = Arrays.copyOf(parent, Math.min(48, parent.length + 1 + rnd.nextInt(8)));
                    for (int j = parent.length; j < subspaces[s].length; j++) {
                        subspaces[s][j] = ALPHABET[rnd.nextInt(ALPHABET.length)];
                    }
                    continue;
                }
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.writeBytes(new byte[] {0x02, 'a', 'p', 'p', 0x00, 0x02});
                while (b.size() < 9 + rnd.nextInt(38)) {
                    b.write(rnd.nextInt(4) == 0 ? 0x00 : 'a' + rnd.nextInt(3));
                }
                b.writeBytes(new byte[] {0x00, 0x15, (byte) s});
                subspaces[s] = b.toByteArray();
            }
            int n = 1 + rnd.nextInt(rnd.nextInt(3) == 0 ? 60 : 5000);
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] sub = subspaces[rnd.nextInt(subspaces.length)];
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.writeBytes(sub);
                int kind = rnd.nextInt(20);
                if (i > 0 && kind == 0) {
                    keys.add(keys.get(rnd.nextInt(i)).clone()); // a duplicate
                    continue;
                } else if (i > 0 && kind == 1) {
                    byte[] other = keys.get(rnd.nextInt(i));
                    keys.add(Arrays.copyOf(other, rnd.nextInt(other.length + 1))); // a prefix of another key
                    continue;
                } else if (i > 0 && kind == 2) {
                    byte[] other = keys.get(rnd.nextInt(i));
                    keys.add(Arrays.copyOf(other, other.length + 1)); // a point end k\0
                    continue;
                } else if (kind == 3) {
                    keys.add(sub.clone()); // the subspace alone: the begin of a read of all of it
                    continue;
                } else if (kind == 4) {
                    b.write(0xFF); // the subspace's end
                    keys.add(b.toByteArray());
                    continue;
                }
                if (kind < 12) {
                    // An index value: a string whose 0x00 bytes are escaped as 0x00 0xFF, ended by 0x00.
                    b.write(0x02);
                    for (int j = rnd.nextInt(rnd.nextBoolean() ? 3 : 20); j > 0; j--) {
                        int c = rnd.nextInt(8) == 0 ? 0 : 'a' + rnd.nextInt(rnd.nextBoolean() ? 2 : 26);
                        b.write(c);
                        if (c == 0) {
                            b.write(0xFF);
                        }
                    }
                    b.write(0x00);
                }
                // The record id: an integer of 1-4 bytes (type codes 0x15-0x18), few distinct values so some repeat.
                int bytes = 1 + rnd.nextInt(4);
                b.write(0x14 + bytes);
                long id = rnd.nextLong(1L << (8 * bytes));
                for (int j = bytes - 1; j >= 0; j--) {
                    b.write((int) (id >>> (8 * j)));
                }
                keys.add(b.toByteArray());
            }
            checkSortedOrder(sorter, keys, "tuple seed " + seed);
        }
    }

    /**
     * Keys as the golden bank capture's: 19 shared bytes, then two subspaces ({@code account\x00} and an integer, {@code
     * transfer\x00} and two), point ends, duplicates and a subspace alone (a prefix of its keys). Their differing bits fit one
     * {@code long}, so the sort packs the whole keys ({@link EndpointSorter#sortedPacked()}) and orders them by radix
     * passes alone: the order and ranks must be a plain sort's.
     */
    @Test
    void packedWholeKeysSortAsPlainBytes() {
        byte[] root = "\u0002fdbresolver-bank\u0000\u0002".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] account = "account\u0000".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] transfer = "transfer\u0000".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        EndpointSorter sorter = new EndpointSorter();
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = EndpointSorter.DEFAULT_DIRECT_SORT_ENDPOINTS + 1 + rnd.nextInt(rnd.nextBoolean() ? 100 : 6000);
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.writeBytes(root);
                int kind = rnd.nextInt(20);
                if (i > 0 && kind == 0) {
                    keys.add(keys.get(rnd.nextInt(i)).clone());
                    continue;
                } else if (kind == 1) {
                    b.writeBytes(rnd.nextBoolean() ? account : transfer); // a subspace alone: a prefix of its keys
                } else if (kind < 12) {
                    b.writeBytes(account);
                    b.write(0x15);
                    b.write(rnd.nextInt(100));
                } else {
                    b.writeBytes(transfer);
                    b.write(0x14);
                    b.write(0x15);
                    b.write(rnd.nextInt(16));
                    b.write(0x15);
                    b.write(rnd.nextInt(100));
                }
                if (rnd.nextBoolean()) {
                    b.write(0x00); // the point range's end
                }
                keys.add(b.toByteArray());
            }
            checkSortedOrder(sorter, keys, "bank seed " + seed);
            assertTrue(sorter.sortedPacked(), "bank seed " + seed + ": packed");
        }
    }

    /**
     * Ranges as a batch adds them, begin then end, most of them point ranges {@code [k, k\0)} whose ends are kept out
     * of the sort ({@link EndpointSorter#addPointEnd}) and ranked after it: their end stored apart from the begin or
     * sharing its bytes (as {@code ConflictBatch} stores a point range), and among them keys that are themselves some
     * point end's {@code k\0}, so that an end shares its rank with the next key. Keys short and long, over an alphabet
     * heavy in 0x00, so that the direct, radix, refined and packed sorts all run. Every endpoint's rank must be its key's
     * rank among the distinct keys, each rank's key bytes that key, and the reads' begins in sorted order.
     */
    @ParameterizedTest(name = "directSortEndpoints={0}")
    @MethodSource("directSortEndpoints")
    void pointEndsRankRightAfterTheirBegins(int directSortEndpoints) {
        EndpointSorter sorter = new EndpointSorter(directSortEndpoints);
        byte[] shared = "\u0002app\u0000\u0002records\u0000\u0015".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int ranges = 1 + rnd.nextInt(rnd.nextBoolean() ? 20 : 3000);
            boolean longKeys = rnd.nextBoolean();
            ByteArrayOutputStream region = new ByteArrayOutputStream();
            List<byte[]> keys = new ArrayList<>();
            int[] off = new int[2 * ranges];
            int[] len = new int[2 * ranges];
            boolean[] point = new boolean[ranges];
            int pointEnds = 0;
            for (int r = 0; r < ranges; r++) {
                byte[] k;
                if (r > 0 && rnd.nextInt(8) == 0) {
                    byte[] earlier = keys.get(2 * rnd.nextInt(r));
                    // A key that is an earlier point end's k\0, or that earlier key again.
                    k = rnd.nextBoolean() ? Arrays.copyOf(earlier, earlier.length + 1) : earlier.clone();
                } else {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    if (longKeys) {
                        b.writeBytes(shared);
                    }
                    for (int j = rnd.nextInt(longKeys ? 4 : 10); j > 0; j--) {
                        b.write(rnd.nextInt(3) == 0 ? 0 : ALPHABET[rnd.nextInt(ALPHABET.length)]);
                    }
                    k = b.toByteArray();
                }
                byte[] end;
                point[r] = rnd.nextInt(4) != 0;
                if (point[r]) {
                    end = Arrays.copyOf(k, k.length + 1);
                    pointEnds++;
                } else {
                    end = Arrays.copyOf(k, k.length + 1);
                    end[k.length] = (byte) (1 + rnd.nextInt(255));
                }
                keys.add(k);
                keys.add(end);
                if (point[r] && rnd.nextBoolean()) {
                    // Stored once, both ends pointing into it.
                    off[2 * r] = off[2 * r + 1] = region.size();
                    region.writeBytes(end);
                } else {
                    off[2 * r] = region.size();
                    region.writeBytes(k);
                    off[2 * r + 1] = region.size();
                    region.writeBytes(end);
                }
                len[2 * r] = k.length;
                len[2 * r + 1] = end.length;
            }
            byte[] bytes = region.toByteArray();
            String where = (longKeys ? "long" : "short") + " seed " + seed;
            sorter.reset(bytes);
            int[] id = new int[2 * ranges];
            for (int r = 0; r < ranges; r++) {
                int b = sorter.add(off[2 * r], len[2 * r], r);
                id[2 * r] = b;
                boolean isPoint = sorter.isPointEnd(b, off[2 * r + 1], len[2 * r + 1]);
                assertEquals(point[r], isPoint, where + ": range " + r + " is a point range");
                id[2 * r + 1] = isPoint ? sorter.addPointEnd(b, off[2 * r + 1], len[2 * r + 1]) : sorter.add(off[2 * r + 1], len[2 * r + 1]);
            }
            sorter.sort();
            assertEquals(2 * ranges - pointEnds, sorter.count(), where + ": endpoints sorted (point ends kept aside)");
            java.util.TreeSet<byte[]> set = new java.util.TreeSet<>(Arrays::compareUnsigned);
            set.addAll(keys);
            List<byte[]> distinct = new ArrayList<>(set);
            assertEquals(distinct.size(), sorter.distinctCount(), where + ": distinct keys");
            for (int i = 0; i < 2 * ranges; i++) {
                int expected = java.util.Collections.binarySearch(distinct, keys.get(i), Arrays::compareUnsigned);
                assertEquals(expected, sorter.rank(id[i]), where + ": rank of endpoint " + i);
            }
            for (int rk = 0; rk < distinct.size(); rk++) {
                int o = sorter.keyOffset(rk);
                assertArrayEquals(distinct.get(rk), Arrays.copyOfRange(bytes, o, o + sorter.keyLength(rk)), where + ": key of rank " + rk);
            }
            int previous = -1;
            int seen = 0;
            for (int i = 0; i < sorter.count(); i++) {
                int r = sorter.tagAt(i);
                if (r >= 0) {
                    if (previous >= 0) {
                        int c = Arrays.compareUnsigned(keys.get(2 * previous), keys.get(2 * r));
                        assertTrue(c < 0 || c == 0 && previous < r, where + ": begins in sorted order at " + i);
                    }
                    previous = r;
                    seen++;
                }
            }
            assertEquals(ranges, seen, where + ": every begin in the sorted order");
        }
    }

    /**
     * {@link #check}, and the sorted order against a plain sort: by unsigned bytes, equal keys by the order they were
     * added (the tags).
     */
    private static void checkSortedOrder(EndpointSorter sorter, List<byte[]> keys, String where) {
        check(sorter, keys, where);
        Integer[] expected = new Integer[keys.size()];
        Arrays.setAll(expected, i -> i);
        Arrays.sort(expected, (a, b) -> {
            int c = Arrays.compareUnsigned(keys.get(a), keys.get(b));
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], sorter.tagAt(i), where + ": endpoint at sorted position " + i);
        }
    }
}
