package org.fdbresolver.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Keys#compare} orders keys as {@link Arrays#compareUnsigned} does, on its word path and past it. */
class KeysTest {
    @Test
    void compareAgreesWithUnsignedByteOrder() {
        Random rnd = new Random(30);
        for (int round = 0; round < 200_000; round++) {
            int aLen = rnd.nextInt(Keys.WORD_COMPARE_BYTES + 12);
            int bLen = rnd.nextInt(4) == 0 ? aLen : rnd.nextInt(Keys.WORD_COMPARE_BYTES + 12);
            // Keys at the very end of their regions too: the word loads must not read past them.
            byte[] a = new byte[aLen + rnd.nextInt(3)];
            byte[] b = new byte[bLen + rnd.nextInt(3)];
            int aOff = a.length - aLen;
            int bOff = b.length - bLen;
            // Few distinct byte values, so that keys often share long prefixes; 0x00 and 0xFF among them.
            byte[] alphabet = {0, 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF};
            for (int i = 0; i < aLen; i++) {
                a[aOff + i] = alphabet[rnd.nextInt(alphabet.length)];
            }
            int shared = Math.min(aLen, bLen) == 0 ? 0 : rnd.nextInt(Math.min(aLen, bLen) + 1);
            System.arraycopy(a, aOff, b, bOff, shared);
            for (int i = shared; i < bLen; i++) {
                b[bOff + i] = alphabet[rnd.nextInt(alphabet.length)];
            }
            int want = Integer.signum(Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen));
            String where = "round " + round + ": " + Keys.format(a, aOff, aLen) + " vs " + Keys.format(b, bOff, bLen);
            assertEquals(want, Integer.signum(Keys.compare(a, aOff, aLen, b, bOff, bLen)), where);
            assertEquals(-want, Integer.signum(Keys.compare(b, bOff, bLen, a, aOff, aLen)), where);
        }
    }
}
