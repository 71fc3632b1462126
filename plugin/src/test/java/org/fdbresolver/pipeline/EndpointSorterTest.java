package org.fdbresolver.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The endpoint sort against {@link Arrays#compareUnsigned} on keys that share long prefixes (so the
 * sort keys start after the batch's common prefix), are prefixes of each other, hold 0x00 and 0xFF,
 * or are empty.
 */
class EndpointSorterTest {
    private static final byte[] ALPHABET = {0x00, 0x01, 'a', (byte) 0x7F, (byte) 0xFF};
    private static final int SEEDS = Integer.getInteger("tree.seeds", 12) * 20;

    @Test
    void ranksFollowUnsignedByteOrderWithSharedPrefixes() {
        EndpointSorter sorter = new EndpointSorter();
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
            sorter.reset(region.toByteArray());
            int[] id = new int[n];
            for (int i = 0; i < n; i++) {
                id[i] = sorter.add(off[i], keys.get(i).length);
            }
            sorter.sort();
            String where = "seed " + seed;
            int common = keys.get(0).length;
            for (byte[] k : keys) {
                int m = Arrays.mismatch(keys.get(0), k);
                common = Math.min(common, m < 0 ? k.length : m);
            }
            assertEquals(n > 1 && common >= 8 ? common : 0, sorter.commonPrefixLength(), where + ": common prefix");
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
}
