package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Locale;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * The shapes the other generators miss, one per run ({@code --shape}), for the differential fuzzer
 * ({@code fdbresolver fuzz}): keys of mixed lengths up to 10 KiB, long shared prefixes, duplicate and
 * overlapping ranges, empty ranges, versions near 2^63, snapshots at and around the oldest version, batches
 * of one transaction and of 50,000. Every shape draws keys, ranges, snapshots and versions the same way
 * apart from what it stresses, so each rule of docs/formats.md is exercised in every shape.
 */
final class EdgeWorkload extends BatchStream {
    /** What a run stresses. */
    enum Shape {
        /** Keys of 0 bytes to 10 KiB, cut from three long strings so that long keys share prefixes and extend short ones. */
        MIXED_KEYS,
        /** Every key is one of four long prefixes (64 bytes to 4 KiB, some differing only in their last byte) plus 0..3 bytes. */
        SHARED_PREFIX,
        /** Ranges repeated, nested, sharing a begin or an end, or starting where another ends, within and across transactions. */
        OVERLAPS,
        /** Many empty reads and writes {@code [k, k)}, with writes ending or starting exactly at such a {@code k}. */
        EMPTY_RANGES,
        /** Versions from a few hundred jumping to 2^62 and halving their distance to 2^63 - 1 until they reach it. */
        HIGH_VERSIONS,
        /** Most snapshots at the oldest version, one below or above it, the batch's version or negative; the oldest version jumps. */
        OLDEST_BOUNDARY,
        /** One transaction per batch: every conflict crosses batches. */
        SINGLE_TRANSACTION,
        /** 50,000 transactions per batch over a key space small enough for many conflicts within the batch. */
        HUGE_BATCHES;

        String optionValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static String[] optionValues() {
            Shape[] all = values();
            String[] names = new String[all.length];
            for (int i = 0; i < all.length; i++) {
                names[i] = all[i].optionValue();
            }
            return names;
        }

        static Shape of(String optionValue) {
            return valueOf(optionValue.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    static final int LONGEST_KEY = 10 * 1024;
    static final int HUGE_BATCH_TRANSACTIONS = 50_000;
    private static final byte[] SMALL_ALPHABET = {0x00, 'a', 'b', (byte) 0xFF};
    private static final long WINDOW = 100;
    private static final int POOL = 16;

    private final Shape shape;
    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final double reportFraction;
    /** Long strings whose prefixes are the mixed-length keys. */
    private final byte[][] stems;
    /** The shared prefixes of {@link Shape#SHARED_PREFIX}. */
    private final byte[][] prefixes;
    private final byte[] hugeAlphabet = RandomWorkload.alphabet(16);
    /** Recent ranges, for duplicates and overlaps. */
    private final KeyRange[] pool = new KeyRange[POOL];
    private int pooled;
    /** The last empty range's key, for writes that end or start exactly there. */
    private ByteString lastEmptyKey = ByteString.EMPTY;

    private long version;
    private long oldest;
    private long previousVersion;

    private EdgeWorkload(String name, long seed, long batches, OptionReader o, Shape shape, double reportFraction) {
        super(name, seed, batches, o.used());
        this.shape = shape;
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.reportFraction = reportFraction;
        this.stems = new byte[3][];
        for (int i = 0; i < stems.length; i++) {
            stems[i] = new byte[LONGEST_KEY];
            for (int j = 0; j < LONGEST_KEY; j++) {
                // Runs of one byte with a change now and then: long equal stretches, as real key prefixes have.
                stems[i][j] = j > 0 && !rng.chance(0.05) ? stems[i][j - 1] : SMALL_ALPHABET[rng.nextInt(SMALL_ALPHABET.length)];
            }
        }
        int p = (int) rng.between(64, 4096);
        byte[] p0 = filled(p, 'p');
        byte[] p1 = p0.clone();
        p1[p - 1] = 'q';
        byte[] p2 = java.util.Arrays.copyOf(p0, p + 100);
        java.util.Arrays.fill(p2, p, p + 100, (byte) 'r');
        this.prefixes = new byte[][] {p0, p1, p2, filled((int) rng.between(64, 2048), 'z')};
    }

    private static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) c);
        return b;
    }

    @Override
    Batch generate(long index) {
        advanceVersions(index);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(oldest);
        int txns = switch (shape) {
            case SINGLE_TRANSACTION -> 1;
            case HUGE_BATCHES -> HUGE_BATCH_TRANSACTIONS;
            case SHARED_PREFIX -> rng.nextInt(41);
            case HIGH_VERSIONS -> rng.nextInt(17);
            default -> rng.nextInt(25);
        };
        for (int t = 0; t < txns; t++) {
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(snapshot());
            int maxReads = shape == Shape.HUGE_BATCHES ? 2 : shape == Shape.OVERLAPS ? 6 : 3;
            int reads = (shape == Shape.OVERLAPS ? 1 : 0) + rng.nextInt(maxReads + 1);
            for (int r = 0; r < reads; r++) {
                tx.addReads(range());
            }
            int writes = rng.nextInt(maxReads + 1);
            for (int w = 0; w < writes; w++) {
                tx.addWrites(range());
            }
            if (reports.chance(reportFraction)) {
                tx.setReportConflictingKeys(true);
            }
            b.addTransactions(tx);
        }
        previousVersion = version;
        return b.build();
    }

    /** The batch's version and new oldest version; both only ever grow, the oldest never past the version. */
    private void advanceVersions(long index) {
        if (shape == Shape.HIGH_VERSIONS) {
            long remaining = batchCount() - 1 - index; // batches after this one, each needing a version of its own
            long room = Long.MAX_VALUE - version - remaining;
            long step;
            if (index == 0) {
                step = rng.between(1, 1000);
            } else if (version < (1L << 62) && index >= 3 && rng.chance(0.2)) {
                step = (1L << 62) - version; // the jump from small versions to 2^62
            } else if (version >= (1L << 62) && rng.chance(0.02)) {
                step = Math.max(1, room / 2); // halve the distance to 2^63 - 1
            } else {
                step = rng.between(1, 20);
            }
            version += Math.max(1, Math.min(step, room));
        } else {
            version += index == 0 ? rng.between(0, 50) : rng.between(1, 20);
        }
        long next = Math.max(0, version - WINDOW);
        if (shape == Shape.OLDEST_BOUNDARY || shape == Shape.HIGH_VERSIONS) {
            double u = rng.nextDouble();
            if (u < 0.1) {
                next = version; // every older read is too old, reads at this version pass
            } else if (u < 0.2) {
                next = oldest; // the oldest version stays where it was
            }
        }
        oldest = Math.max(oldest, Math.min(next, version));
    }

    private long snapshot() {
        double boundary = shape == Shape.OLDEST_BOUNDARY ? 0.6 : 0.25;
        double u = rng.nextDouble();
        if (u < boundary) {
            double v = u / boundary;
            if (v < 0.35) {
                return oldest; // checked
            } else if (v < 0.55) {
                return oldest - 1; // too old when it reads
            } else if (v < 0.7) {
                return oldest + 1;
            } else if (v < 0.85) {
                return previousVersion;
            } else if (v < 0.9) {
                return version;
            } else if (v < 0.95) {
                return -rng.between(1, 1000);
            } else {
                return Long.MIN_VALUE;
            }
        }
        long lag = rng.between(0, WINDOW + WINDOW / 5);
        return version - lag; // below the oldest version about a sixth of the time
    }

    private KeyRange range() {
        double u = rng.nextDouble();
        double dup = shape == Shape.OVERLAPS ? 0.5 : 0.1;
        double empty = shape == Shape.EMPTY_RANGES ? 0.4 : 0.1;
        KeyRange r;
        if (u < dup && pooled > 0) {
            r = fromPool();
        } else if (u < dup + empty) {
            ByteString k = key();
            lastEmptyKey = k;
            r = KeyCodec.range(k, k);
        } else if (shape == Shape.EMPTY_RANGES && u < dup + empty + 0.2) {
            // A range ending or starting exactly at the last empty key: the empty-read rule's edge.
            ByteString k = key();
            r = ordered(k, lastEmptyKey);
        } else if (u < 0.55) {
            r = KeyCodec.point(key());
        } else {
            r = ordered(key(), key());
        }
        pool[pooled++ % POOL] = r;
        return r;
    }

    /** A recent range again, or one that overlaps it, nests in it or touches it. */
    private KeyRange fromPool() {
        KeyRange p = pool[rng.nextInt(Math.min(pooled, POOL))];
        return switch (rng.nextInt(5)) {
            case 0, 1 -> p; // the same range again
            case 2 -> ordered(p.getBegin(), key()); // the same begin
            case 3 -> ordered(key(), p.getEnd()); // the same end
            default -> ordered(p.getEnd(), key()); // starts where it ends
        };
    }

    private static KeyRange ordered(ByteString a, ByteString b) {
        return ByteString.unsignedLexicographicalComparator().compare(a, b) <= 0 ? KeyCodec.range(a, b) : KeyCodec.range(b, a);
    }

    private ByteString key() {
        return switch (shape) {
            case MIXED_KEYS -> mixedLengthKey();
            case SHARED_PREFIX -> prefixedKey();
            case HUGE_BATCHES -> symbols(hugeAlphabet, (int) rng.between(1, 4));
            default -> rng.chance(0.05) ? mixedLengthKey() : symbols(SMALL_ALPHABET, rng.nextInt(4));
        };
    }

    private ByteString symbols(byte[] alphabet, int length) {
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            k[i] = alphabet[rng.nextInt(alphabet.length)];
        }
        return KeyCodec.wrap(k);
    }

    /** A prefix of one of the stems, of a length from 0 to 10 KiB (short ones most often), its last byte sometimes changed. */
    private ByteString mixedLengthKey() {
        double u = rng.nextDouble();
        int length = (int) (u < 0.35 ? rng.between(0, 3) : u < 0.6 ? rng.between(4, 32) : u < 0.8 ? rng.between(33, 512)
                : u < 0.95 ? rng.between(513, 4096) : rng.between(4097, LONGEST_KEY));
        byte[] k = java.util.Arrays.copyOf(stems[rng.nextInt(stems.length)], length);
        if (length > 0 && rng.chance(0.5)) {
            k[length - 1] = SMALL_ALPHABET[rng.nextInt(SMALL_ALPHABET.length)];
        }
        return KeyCodec.wrap(k);
    }

    private ByteString prefixedKey() {
        byte[] prefix = prefixes[rng.nextInt(prefixes.length)];
        int suffix = rng.nextInt(4);
        byte[] k = java.util.Arrays.copyOf(prefix, prefix.length + suffix);
        for (int i = 0; i < suffix; i++) {
            k[prefix.length + i] = SMALL_ALPHABET[rng.nextInt(SMALL_ALPHABET.length)];
        }
        return KeyCodec.wrap(k);
    }

    static final class Factory implements WorkloadFactory {
        static final String SHAPE = "shape";

        @Override
        public String name() {
            return "edge";
        }

        @Override
        public String description() {
            return "what the other generators miss, one shape per run: long and mixed keys, overlaps, high versions, ...";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(
                    new WorkloadOption(SHAPE, Shape.MIXED_KEYS.optionValue(), "one of " + String.join(", ", Shape.optionValues())
                            + " (docs/workloads.md)"),
                    CommonOptions.reportFraction("0.3"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            Shape shape = Shape.of(o.choice(SHAPE, Shape.optionValues()));
            long batches = o.batches(params, shape == Shape.HUGE_BATCHES ? 4 : 200);
            if (batches > 1L << 40) {
                throw new IllegalArgumentException("workload edge: --batches " + batches + " is over 2^40: the versions would run out");
            }
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            o.constant("window", WINDOW);
            return new EdgeWorkload(name(), seed, batches, o, shape, report);
        }
    }
}
