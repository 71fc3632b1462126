package org.fdbresolver.tree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fdbresolver.api.BatchResult;
import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.tree.BruteForceOracle.Range;
import org.fdbresolver.tree.BruteForceOracle.Tx;

/**
 * Random batches over a small key alphabet so that overlaps, shared prefixes, the empty key, 0x00 and
 * 0xFF bytes, empty ranges and point ranges are frequent; some keys are longer than 8 bytes (sharing
 * long prefixes) so that key blocks and tail comparisons are exercised.
 */
final class RandomTraces {
    private static final byte[] ALPHABET = {0x00, 0x01, 'a', 'b', (byte) 0x7F, (byte) 0xFF};
    private final SplittableRandom rnd;
    private final int maxShortLen;
    private final double longKeyFraction;
    /** Chance that a range is wide (two random keys) rather than empty, point or narrow. */
    double wideFraction = 0.2;
    /**
     * When set, every key begins with this shared prefix (then a short tail from the alphabet, or with
     * {@code longKeyFraction} a 9–12 byte tail so that tails compare beyond the inline bytes), except
     * for {@link #outlierFraction} of the keys: a prefix of it, possibly followed by a different byte.
     */
    byte[] family;
    double outlierFraction;
    /** Outliers only in reads (so only a read can leave the shared prefix). */
    boolean outliersInReadsOnly;
    private boolean generatingWrites;
    /**
     * When set (and {@link #family} is not), keys are 0–10 bytes, half of them 8 bytes, with bytes past
     * the 8th mostly 0x00: 8-byte keys, their point ends {@code k\0} (stored inline), 9-byte keys
     * ending in other bytes and 10-byte keys ending in 0x00s (in key blocks), all prefixes of each other.
     */
    boolean zeroTails;
    /**
     * When set, {@link #hugeFraction} of the keys are this long (one of the lengths, picked at random), all
     * sharing their bytes but the last {@link #hugeTailBytes}, so that comparisons run deep into them: keys far past a key block.
     */
    int[] hugeLengths;
    double hugeFraction;
    /** How many of a huge key's last bytes are random. */
    int hugeTailBytes = 2;
    /** Short keys only from now on (a trace whose key lengths change). */
    boolean hugeOff;
    /** Point ranges only ({@code [k, k\0)}): no write erases others, so the history only grows. */
    boolean pointsOnly;
    /**
     * When set (and {@link #family} is not), keys as the tuple layer writes them under several subspaces: one of
     * these prefixes (they share leading bytes with each other), then 0–5 bytes from the alphabet; with
     * {@link #outlierFraction}, a prefix cut short, possibly followed by another byte (a key between subspaces).
     */
    byte[][] subspaces;
    /**
     * With {@link #subspaces}: keys after the prefix of 0–14 bytes whose first 9 mostly agree (an index value's
     * shared head), so that keys compare past the 8 bytes after a leaf's own prefix ({@link LeafPrefixes}).
     */
    boolean longTails;

    RandomTraces(long seed, int maxShortLen, double longKeyFraction) {
        this.rnd = new SplittableRandom(seed);
        this.maxShortLen = maxShortLen;
        this.longKeyFraction = longKeyFraction;
    }

    /** A shared prefix of {@code len} bytes drawn from the alphabet (so 0x00 and 0xFF are common). */
    byte[] familyOf(int len) {
        byte[] f = new byte[len];
        for (int i = 0; i < len; i++) {
            f[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return f;
    }

    byte[] key() {
        if (hugeLengths != null && !hugeOff && rnd.nextDouble() < hugeFraction) {
            int len = hugeLengths[rnd.nextInt(hugeLengths.length)];
            byte[] k = new byte[len];
            Arrays.fill(k, (byte) 'h');
            for (int i = Math.max(0, len - hugeTailBytes); i < len; i++) {
                k[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
            }
            return k;
        }
        if (family != null) {
            return familyKey();
        }
        if (subspaces != null) {
            return subspaceKey();
        }
        if (zeroTails) {
            return zeroTailKey();
        }
        int len;
        byte[] prefix = new byte[0];
        if (rnd.nextDouble() < longKeyFraction) {
            // A long key: 8..14 fixed bytes then a short random tail, so equal 8-byte prefixes are common.
            prefix = new byte[8 + rnd.nextInt(7)];
            Arrays.fill(prefix, (byte) 'p');
            if (rnd.nextBoolean()) {
                prefix[7] = 0;
            }
            len = rnd.nextInt(3);
        } else {
            len = rnd.nextInt(maxShortLen + 1);
        }
        byte[] k = Arrays.copyOf(prefix, prefix.length + len);
        for (int i = prefix.length; i < k.length; i++) {
            k[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    /** The first 8 bytes of {@link #zeroTails} keys: few, so that equal inline longs are common. */
    private static final byte[][] STEMS = {
        {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0, 0, 0},
        {'a', 'b', 'a', 'b', 0, 0, (byte) 0xFF, 0}, {-1, -1, -1, -1, -1, -1, -1, -1}};

    private byte[] zeroTailKey() {
        int len = rnd.nextBoolean() ? 8 : rnd.nextInt(11);
        byte[] k = Arrays.copyOf(STEMS[rnd.nextInt(STEMS.length)], len);
        for (int i = 8; i < len; i++) {
            k[i] = rnd.nextInt(3) != 0 ? 0 : ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    /** {@code n} tuple-like prefixes of 12–30 bytes: a few application heads, then a table name and a number. */
    byte[][] subspacesOf(int n) {
        byte[][] heads = {{0x02, 'a', 'p', 'p', 0x00}, {0x02, 'a', 'p', 'x', 0x00}, {0x15, 0x07}};
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            byte[] head = heads[rnd.nextInt(heads.length)];
            int body = 7 + rnd.nextInt(18);
            byte[] k = Arrays.copyOf(head, Math.min(30, head.length + body));
            for (int j = head.length; j < k.length - 2; j++) {
                k[j] = (byte) ('a' + rnd.nextInt(3));
            }
            k[k.length - 2] = 0x00;
            k[k.length - 1] = (byte) (0x15 + rnd.nextInt(3));
            out[i] = k;
        }
        return out;
    }

    private byte[] subspaceKey() {
        byte[] prefix = subspaces[rnd.nextInt(subspaces.length)];
        if (rnd.nextDouble() < outlierFraction) {
            int m = rnd.nextInt(prefix.length + 1);
            byte[] k = Arrays.copyOf(prefix, m + (rnd.nextBoolean() ? 1 : 0));
            if (k.length > m) {
                k[m] = ALPHABET[rnd.nextInt(ALPHABET.length)];
            }
            return k;
        }
        int tail = rnd.nextInt(longTails ? 15 : 6);
        byte[] k = Arrays.copyOf(prefix, prefix.length + tail);
        for (int i = prefix.length; i < k.length; i++) {
            k[i] = longTails && i < prefix.length + 9 && rnd.nextInt(4) != 0 ? (byte) 'q' : ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    private byte[] familyKey() {
        if (rnd.nextDouble() < outlierFraction && !(outliersInReadsOnly && generatingWrites)) {
            int m = rnd.nextInt(family.length + 1);
            byte[] k = Arrays.copyOf(family, m + (m < family.length && rnd.nextBoolean() ? 1 : 0));
            if (k.length > m) {
                byte b;
                do {
                    b = ALPHABET[rnd.nextInt(ALPHABET.length)];
                } while (b == family[m]);
                k[m] = b;
            }
            return k;
        }
        int tail = rnd.nextDouble() < longKeyFraction ? 9 + rnd.nextInt(4) : rnd.nextInt(maxShortLen + 1);
        byte[] k = Arrays.copyOf(family, family.length + tail);
        for (int i = family.length; i < k.length; i++) {
            // Long tails mostly agree on their first bytes, so comparisons go past the inline ones.
            k[i] = tail > 8 && i < family.length + 8 && rnd.nextInt(4) != 0 ? (byte) 'q' : ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    Range range() {
        byte[] a = key();
        if (pointsOnly) {
            return new Range(a, Arrays.copyOf(a, a.length + 1));
        }
        int kind = rnd.nextDouble() < wideFraction ? 9 : rnd.nextInt(8);
        if (kind == 0) {
            return new Range(a, a);
        }
        if (kind <= 4) {
            return new Range(a, Arrays.copyOf(a, a.length + 1));
        }
        if (kind <= 7) {
            // A narrow range: a, extended by one byte, as its end.
            byte[] e = Arrays.copyOf(a, a.length + 1);
            e[a.length] = ALPHABET[1 + rnd.nextInt(ALPHABET.length - 1)];
            return new Range(a, e);
        }
        byte[] b = key();
        return BruteForceOracle.cmp(a, b) <= 0 ? new Range(a, b) : new Range(b, a);
    }

    List<Tx> batch(long now, long oldest, int maxTx) {
        int n = 1 + rnd.nextInt(maxTx);
        List<Tx> txs = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            long lag = rnd.nextInt(10) == 0 ? now - oldest + 1 + rnd.nextInt(5) : rnd.nextLong(Math.max(1, now - oldest + 1));
            long snapshot = now - lag;
            List<Range> reads = new ArrayList<>();
            List<Range> writes = new ArrayList<>();
            int nr = rnd.nextInt(4);
            int nw = rnd.nextInt(4);
            for (int i = 0; i < nr; i++) {
                reads.add(range());
            }
            generatingWrites = true;
            for (int i = 0; i < nw; i++) {
                writes.add(range());
            }
            generatingWrites = false;
            txs.add(new Tx(snapshot, reads, writes, rnd.nextInt(3) == 0));
        }
        return txs;
    }

    int nextInt(int bound) {
        return rnd.nextInt(bound);
    }

    static void fill(ConflictBatch batch, List<Tx> txs) {
        for (Tx tx : txs) {
            batch.addTransaction(tx.snapshot(), tx.report());
            for (Range r : tx.reads()) {
                batch.addRead(r.begin(), r.end());
            }
            for (Range w : tx.writes()) {
                batch.addWrite(w.begin(), w.end());
            }
        }
    }

    /** The result's conflicting reads as one array per transaction (null when none reported). */
    static List<int[]> reports(BatchResult r) {
        List<int[]> out = new ArrayList<>();
        for (int t = 0; t < r.transactionCount(); t++) {
            out.add(null);
        }
        for (int i = 0; i < r.conflictingTransactionCount(); i++) {
            int[] reads = new int[r.conflictingReadCount(i)];
            for (int j = 0; j < reads.length; j++) {
                reads[j] = r.conflictingRead(i, j);
            }
            out.set(r.conflictingTransaction(i), reads);
        }
        return out;
    }
}
