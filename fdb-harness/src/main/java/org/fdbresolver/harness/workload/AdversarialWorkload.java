package org.fdbresolver.harness.workload;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Edge cases for conformance: each batch is built around one {@link Scenario} (the first batches
 * take every scenario once, in declaration order; later ones draw at random), plus a few random
 * transactions mixed in. Keys come from a tiny alphabet ({@code 0x00, 'a', 'b', 0xFF}, lengths 0..3)
 * so that conflicts, equal keys, prefixes and the empty key are frequent, and from long keys of
 * {@code long-key-length} bytes. Every range has {@code begin <= end}; versions step by 1..2×
 * {@code version-step}; new oldest is {@code max(previous, version - window)}, except that
 * {@link Scenario#OLDEST_AT_VERSION} raises it to the batch's version.
 */
final class AdversarialWorkload extends BatchStream {
    static final byte[] ALPHABET = {0x00, 'a', 'b', (byte) 0xFF};

    /** What a batch is built around. */
    enum Scenario {
        /** Zero transactions. */
        EMPTY_BATCH,
        /** T1 writes what T2 reads, T2 writes what T3 reads, ... (3 to 6 links). */
        CHAIN,
        /** Reads at exactly the oldest version and one below; write-only and read transactions with old and negative snapshots. */
        BOUNDARY_SNAPSHOTS,
        /** Duplicate and overlapping ranges inside one transaction, read and write. */
        DUPLICATES,
        /** Empty reads and writes {@code [k, k)}, with writes around {@code k} to test the empty-read rule. */
        EMPTY_RANGES,
        /** The empty key, 0x00 and 0xFF runs, and keys that are prefixes of each other. */
        EXTREME_KEYS,
        /** Keys of {@code long-key-length} bytes that share long prefixes with each other and with short keys. */
        LONG_KEYS,
        /** The oldest version jumps to the batch's version: reads at {@code version} pass, at {@code version - 1} are too old. */
        OLDEST_AT_VERSION,
        /** Random transactions only. */
        MIXED
    }

    private static final Scenario[] SCENARIOS = Scenario.values();

    private final SplitMix64 rng;
    private final SplitMix64 reports;
    private final long versionStep;
    private final long window;
    private final int longKeyLength;
    private final double reportFraction;
    private long version;
    private long oldest;
    private long previousVersion;
    /** The key written around by the last EMPTY_RANGES batch, read empty by the next one. */
    private ByteString lastEmptyKey;

    private AdversarialWorkload(String name, long seed, long batches, OptionReader o, long versionStep, long window,
            int longKeyLength, double reportFraction) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.reports = SplitMix64.stream(seed, CommonOptions.REPORT_STREAM);
        this.versionStep = versionStep;
        this.window = window;
        this.longKeyLength = longKeyLength;
        this.reportFraction = reportFraction;
    }

    /** The scenario of batch {@code index}: each one once in order first, then drawn from {@code rng}. */
    static Scenario scenarioOf(long index, SplitMix64 rng) {
        if (index < SCENARIOS.length) {
            return SCENARIOS[(int) index];
        }
        // MIXED twice as likely as any one edge case.
        int pick = rng.nextInt(SCENARIOS.length + 1);
        return pick >= SCENARIOS.length ? Scenario.MIXED : SCENARIOS[pick];
    }

    @Override
    Batch generate(long index) {
        Scenario scenario = scenarioOf(index, rng);
        previousVersion = version;
        version += rng.between(1, 2 * versionStep);
        oldest = Math.max(oldest, version - window);
        if (scenario == Scenario.OLDEST_AT_VERSION) {
            oldest = version;
        }
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(oldest);
        switch (scenario) {
            case EMPTY_BATCH -> {
                return b.build();
            }
            case CHAIN -> chain(b);
            case BOUNDARY_SNAPSHOTS -> boundarySnapshots(b);
            case DUPLICATES -> duplicates(b);
            case EMPTY_RANGES -> emptyRanges(b);
            case EXTREME_KEYS -> extremeKeys(b);
            case LONG_KEYS -> longKeys(b);
            case OLDEST_AT_VERSION -> oldestAtVersion(b);
            case MIXED -> {
                for (int i = (int) rng.between(1, 8); i > 0; i--) {
                    add(b, randomTransaction());
                }
            }
        }
        if (scenario != Scenario.MIXED) {
            for (int i = rng.nextInt(3); i > 0; i--) {
                add(b, randomTransaction());
            }
        }
        return b.build();
    }

    private void add(Batch.Builder b, Transaction.Builder tx) {
        if (reports.chance(reportFraction)) {
            tx.setReportConflictingKeys(true);
        }
        b.addTransactions(tx);
    }

    private Transaction.Builder tx(long snapshot) {
        return Transaction.newBuilder().setReadSnapshot(snapshot);
    }

    /** A snapshot that sees the last batch: no history conflict unless a write landed after it. */
    private long recent() {
        return Math.max(oldest, previousVersion - rng.nextLong(2));
    }

    private void chain(Batch.Builder b) {
        int links = (int) rng.between(3, 6);
        ByteString[] keys = new ByteString[links + 1];
        for (int i = 0; i <= links; i++) {
            keys[i] = shortKey();
        }
        for (int i = 0; i < links; i++) {
            Transaction.Builder t = tx(recent());
            if (i > 0) {
                // Read what the previous link wrote: as a point, or inside a wider range.
                t.addReads(rng.chance(0.5) ? KeyCodec.point(keys[i]) : KeyCodec.range(ByteString.EMPTY,
                        KeyCodec.successor(keys[i])));
            }
            t.addWrites(KeyCodec.point(keys[i + 1]));
            add(b, t);
        }
    }

    private void boundarySnapshots(Batch.Builder b) {
        add(b, tx(oldest).addReads(randomRange()).addWrites(randomRange()));       // exactly at oldest: checked
        add(b, tx(oldest - 1).addReads(randomRange()).addWrites(randomRange()));   // one below: too old
        add(b, tx(oldest - 1 - rng.nextLong(1000)).addWrites(randomRange()));      // write-only, old: never too old
        add(b, tx(-1 - rng.nextLong(1000)).addWrites(randomRange()));              // write-only, negative snapshot
        add(b, tx(-1 - rng.nextLong(1000)).addReads(randomRange()));               // reads, negative: too old
        add(b, tx(Long.MIN_VALUE).addReads(randomRange()).addWrites(randomRange()));
        add(b, tx(Long.MIN_VALUE).addWrites(randomRange()));
        add(b, tx(oldest).addReads(randomRange()));                                // read-only at the boundary
    }

    private void duplicates(Batch.Builder b) {
        KeyRange r = randomRange();
        KeyRange w = randomRange();
        ByteString[] ks = sortedKeys(3);
        Transaction.Builder t = tx(recent())
                .addReads(r).addReads(r)                                              // duplicate reads
                .addReads(KeyCodec.range(ks[0], ks[2])).addReads(KeyCodec.range(ks[1], ks[2])) // nested/overlapping
                .addWrites(w).addWrites(w)                                            // duplicate writes
                .addWrites(KeyCodec.range(ks[0], ks[1])).addWrites(KeyCodec.range(ks[0], ks[2]));
        add(b, t);
        // A second transaction reading over the first one's writes, itself with repeated ranges.
        add(b, tx(recent()).addReads(KeyCodec.range(ks[0], ks[2])).addReads(KeyCodec.range(ks[0], ks[2]))
                .addWrites(randomRange()));
    }

    private void emptyRanges(Batch.Builder b) {
        ByteString k = shortKey();
        ByteString lo = sortedKeys(1)[0];
        // Writes ending exactly at k ([lo, k): an empty read at k in a later batch conflicts with it)
        // and starting at k ([k, k+0x00): it does not); empty reads at k in this batch never conflict.
        Transaction.Builder writer = tx(recent()).addWrites(KeyCodec.point(k));
        if (ByteString.unsignedLexicographicalComparator().compare(lo, k) < 0) {
            writer.addWrites(KeyCodec.range(lo, k));
        }
        add(b, writer);
        add(b, tx(recent()).addReads(KeyCodec.range(k, k)).addWrites(KeyCodec.range(k, k)));
        add(b, tx(recent()).addReads(KeyCodec.range(ByteString.EMPTY, ByteString.EMPTY))
                .addWrites(KeyCodec.range(ByteString.EMPTY, ByteString.EMPTY)));
        if (lastEmptyKey != null) {
            // The key of the previous such batch: its writes are now history, visible from oldest.
            add(b, tx(oldest).addReads(KeyCodec.range(lastEmptyKey, lastEmptyKey)));
            add(b, tx(oldest).addReads(KeyCodec.range(lastEmptyKey, lastEmptyKey)).addReads(randomRange())
                    .addWrites(KeyCodec.range(lastEmptyKey, lastEmptyKey)));
        }
        lastEmptyKey = k;
    }

    private void extremeKeys(Batch.Builder b) {
        ByteString empty = ByteString.EMPTY;
        ByteString zero = bytes(0x00);
        ByteString zeroZero = bytes(0x00, 0x00);
        ByteString a = bytes('a');
        ByteString aZero = bytes('a', 0x00);
        ByteString aa = bytes('a', 'a');
        ByteString ff = bytes(0xFF);
        ByteString ffff = bytes(0xFF, 0xFF, 0xFF);
        add(b, tx(recent()).addReads(KeyCodec.range(empty, zero)).addWrites(KeyCodec.range(zero, zeroZero)));
        add(b, tx(recent()).addReads(KeyCodec.range(zero, zeroZero)).addWrites(KeyCodec.range(a, aZero)));
        add(b, tx(recent()).addReads(KeyCodec.range(aZero, aa)).addReads(KeyCodec.point(a))
                .addWrites(KeyCodec.range(ff, ffff)));
        add(b, tx(recent()).addReads(KeyCodec.range(empty, ffff)).addWrites(KeyCodec.point(empty)));
        add(b, tx(recent()).addReads(KeyCodec.point(ffff)).addReads(KeyCodec.range(ff, ff))
                .addWrites(KeyCodec.point(ff)));
    }

    private void longKeys(Batch.Builder b) {
        ByteString base = longKey((byte) 'a', -1);
        ByteString mid = longKey((byte) 'a', 'b');
        ByteString high = longKey((byte) 0xFF, 0x00);
        ByteString shortA = bytes('a');
        add(b, tx(recent()).addWrites(KeyCodec.point(base)).addWrites(KeyCodec.range(mid, high)));
        add(b, tx(recent()).addReads(KeyCodec.range(shortA, base)).addReads(KeyCodec.point(base))
                .addWrites(KeyCodec.range(base, KeyCodec.successor(base))));
        add(b, tx(recent()).addReads(KeyCodec.range(base, mid)).addReads(KeyCodec.range(high, high))
                .addWrites(KeyCodec.point(shortA)));
    }

    private void oldestAtVersion(Batch.Builder b) {
        add(b, tx(version).addReads(randomRange()).addWrites(randomRange()));     // at the new oldest: checked
        add(b, tx(version - 1).addReads(randomRange()).addWrites(randomRange())); // just below: too old
        add(b, tx(previousVersion).addWrites(randomRange()));                     // write-only: commits
    }

    private Transaction.Builder randomTransaction() {
        long snapshot = switch (rng.nextInt(10)) {
            case 0 -> oldest;
            case 1 -> oldest - 1;
            case 2 -> oldest - rng.between(0, window + 1);
            default -> recent() - rng.nextLong(2 * versionStep);
        };
        Transaction.Builder t = tx(snapshot);
        for (int i = rng.nextInt(4); i > 0; i--) {
            t.addReads(randomRange());
        }
        for (int i = rng.nextInt(4); i > 0; i--) {
            t.addWrites(randomRange());
        }
        return t;
    }

    private KeyRange randomRange() {
        return switch (rng.nextInt(10)) {
            case 0, 1, 2, 3 -> KeyCodec.point(shortKey());
            case 4 -> {
                ByteString k = shortKey();
                yield KeyCodec.range(k, k);
            }
            case 5 -> {
                ByteString k = longKey((byte) 'a', rng.chance(0.5) ? -1 : ALPHABET[rng.nextInt(ALPHABET.length)] & 0xff);
                yield rng.chance(0.5) ? KeyCodec.point(k) : KeyCodec.range(bytes('a'), k);
            }
            default -> {
                ByteString[] ks = sortedKeys(2);
                yield KeyCodec.range(ks[0], ks[1]);
            }
        };
    }

    private ByteString shortKey() {
        byte[] k = new byte[rng.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = ALPHABET[rng.nextInt(ALPHABET.length)];
        }
        return KeyCodec.wrap(k);
    }

    private ByteString[] sortedKeys(int n) {
        ByteString[] ks = new ByteString[n];
        for (int i = 0; i < n; i++) {
            ks[i] = shortKey();
        }
        Arrays.sort(ks, ByteString.unsignedLexicographicalComparator());
        return ks;
    }

    /** {@code long-key-length} copies of {@code fill}, then the byte {@code last} unless it is -1. */
    private ByteString longKey(byte fill, int last) {
        byte[] k = new byte[longKeyLength + (last >= 0 ? 1 : 0)];
        Arrays.fill(k, fill);
        if (k.length > longKeyLength) {
            k[longKeyLength] = (byte) last;
        }
        return KeyCodec.wrap(k);
    }

    private static ByteString bytes(int... values) {
        byte[] k = new byte[values.length];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) values[i];
        }
        return KeyCodec.wrap(k);
    }

    static final class Factory implements WorkloadFactory {
        @Override
        public String name() {
            return "adversarial";
        }

        @Override
        public String description() {
            return "edge cases: empty ranges and batches, prefix/empty/0x00/0xFF/10 KB keys, boundary and negative snapshots, chains, duplicates";
        }

        @Override
        public List<WorkloadOption> options() {
            return List.of(
                    new WorkloadOption("version-step", "100", "versions advance by 1..2*version-step per batch"),
                    CommonOptions.window("500"),
                    new WorkloadOption("long-key-length", "10240", "bytes in a long key (long keys may carry one more byte)"),
                    CommonOptions.reportFraction("0.3"));
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 300);
            long step = o.longValue("version-step", 1, 1L << 40);
            long window = o.longValue(CommonOptions.WINDOW, 0, 1L << 60);
            // Long keys may carry one more byte: up to 65,536 bytes, past the 64 KiB at which keys used to be refused.
            int longKey = o.intValue("long-key-length", 1, 16 << 20);
            double report = o.fraction(CommonOptions.REPORT_FRACTION);
            if (batches > 0 && batches > ((1L << 60) / (2 * step))) {
                throw o.invalid("version-step", "batches * version-step overflows the version range");
            }
            o.constant("alphabet", "00,61,62,ff");
            o.constant("short-key-length", "0..3");
            return new AdversarialWorkload(name(), seed, batches, o, step, window, longKey, report);
        }
    }
}
