package org.fdbresolver.harness.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the fuzzer generates: every workload generator (several option sets each, small key spaces beside the
 * defaults so that conflicts are frequent), the {@code edge} workload's shapes (what the generators miss), and the
 * engine under a small memory budget. Case {@code k} of a run takes shape {@code k mod S} of the chosen shapes and
 * seed {@code base + k}; a shape with several variants (option sets) takes them in turn, variant {@code (k div S) mod
 * V}, so consecutive cases of a shape differ in more than their seed.
 */
public final class FuzzShapes {
    /** A shape that runs only when the engine honours a memory budget. */
    public static final String SMALL_BUDGET = "small-budget";

    /** One case's generator settings, as a shape picks them for a seed. */
    private record Variant(String workload, Map<String, String> options, long transactionsPerBatch, Long budget,
            Map<String, String> engineOptions) {
        Variant(String workload, Map<String, String> options, long transactionsPerBatch) {
            this(workload, options, transactionsPerBatch, null, Map.of());
        }
    }

    /** A shape's settings for the case of seed {@code seed} that is its {@code round}-th in the run. */
    private interface Picker {
        Variant pick(long seed, long round, boolean treeEngine);
    }

    /** A named shape: its description for --help and how it picks a variant. */
    public record Shape(String name, String description, Picker picker) {
    }

    private static final Map<String, Shape> ALL = new LinkedHashMap<>();

    static {
        add("skiplisttest", "FoundationDB's skipListTest benchmark shape (2,500 one-read one-write transactions a batch)",
                (s, r, t) -> new Variant("skiplisttest", Map.of(), 2500));
        add("skiplist-layouts", "16..128-byte keys, prefix and suffix layouts, a small key space",
                (s, r, t) -> {
                    String[][] layouts = {{"prefix", "64"}, {"suffix", "128"}, {"prefix", "128"}, {"suffix", "32"}};
                    String[] l = layouts[(int) Math.floorMod(r, (long) layouts.length)];
                    return new Variant("skiplist-layouts", Map.of("layout", l[0], "key-length", l[1],
                            "ranges-per-batch", "2000", "keyspace", "20000"), 1000);
                });
        add("conflictset-point", "the ConflictSet benchmark, point ranges: defaults, a small key space, a short window",
                (s, r, t) -> new Variant("conflictset-point", pick(r, Map.of(),
                        Map.of("keyspace", "5000", "report-fraction", "0.3"),
                        Map.of("keyspace", "20000", "window", "2000", "report-fraction", "0.5")), 500));
        add("conflictset-range", "the ConflictSet benchmark, range reads: defaults, a small key space, a short window",
                (s, r, t) -> new Variant("conflictset-range", pick(r, Map.of(),
                        Map.of("keyspace", "50000", "report-fraction", "0.3"),
                        Map.of("keyspace", "200000", "window", "2500", "report-fraction", "0.5")), 500));
        add("custom-point", "the macBenchmark shape: thousands of one-read transactions and one large writer, points",
                (s, r, t) -> new Variant("custom-point", pick(r, Map.of(),
                        Map.of("keyspace", "100000", "reads-per-batch", "1000", "report-fraction", "0.3")), 1000));
        add("custom-range", "the macBenchmark shape with ranges",
                (s, r, t) -> new Variant("custom-range", pick(r, Map.of("keyspace", "100000"),
                        Map.of("keyspace", "1000000", "reads-per-batch", "1000", "report-fraction", "0.3")), 1000));
        add("longtrace", "a production-like trace: skewed keys, read lags reaching the window",
                (s, r, t) -> Math.floorMod(r, 2L) == 0 ? new Variant("longtrace", Map.of("report-fraction", "0.2"), 2048)
                        : new Variant("longtrace", Map.of("keyspace", "100000", "txns", "512", "report-fraction", "0.5"), 512));
        add("tuple", "tuple-layer keys: many subspaces with 12-48-byte prefixes; defaults, small key spaces",
                (s, r, t) -> new Variant("tuple", pick(r, Map.of("report-fraction", "0.2"),
                        Map.of("subspaces", "6", "keyspace", "2000", "index-values", "20", "report-fraction", "0.5")), 500));
        add("flood", "the cluster's write flood beside its bank: runs of new long keys sharing a tail, few transactions a batch",
                (s, r, t) -> new Variant("flood", pick(r, Map.of("flood-keys", "50", "window", "100000"),
                        Map.of("accounts", "10", "flood-keys", "20", "flood-chance", "0.5", "window", "20000",
                                "max-lag-batches", "20")), 4));
        add("adversarial", "the conformance edge-case generator: tiny alphabet, 10 KiB keys, boundary snapshots",
                (s, r, t) -> new Variant("adversarial", pick(r, Map.of(), Map.of("report-fraction", "1")), 5));
        add("random", "small randomized traces, parameters varied by seed",
                (s, r, t) -> {
                    int txns = 4 + Math.floorMod(s * 3, 20);
                    return new Variant("random", Map.of("alphabet", String.valueOf(1 + Math.floorMod(s * 7, 6)),
                            "key-length", String.valueOf(1 + Math.floorMod(s * 5, 4)), "txns", String.valueOf(txns),
                            "report-fraction", "0.5"), Math.max(1, txns / 2));
                });
        for (String[] edge : new String[][] {
                {"mixed-keys", "keys of 0 bytes to 10 KiB sharing prefixes", "12"},
                {"shared-prefix", "many ranges over keys sharing 64-byte to 4 KiB prefixes", "20"},
                {"overlaps", "duplicate, nested, overlapping and touching ranges", "12"},
                {"empty-ranges", "empty reads and writes, and writes ending or starting at them", "12"},
                {"high-versions", "versions jumping to 2^62 and on towards 2^63 - 1", "8"},
                {"oldest-boundary", "snapshots at, below and above the oldest version; the oldest version jumps", "12"},
                {"single-transaction", "batches of one transaction", "1"},
                {"huge-batches", "batches of 50,000 transactions", "50000"}}) {
            long perBatch = Long.parseLong(edge[2]);
            add(edge[0], edge[1] + " (workload edge)",
                    (s, r, t) -> new Variant("edge", Map.of("shape", edge[0]), perBatch));
        }
        // Budgets that bind within the first ten thousand transactions (the tree holds about 570, 840 and 430 KB of
        // the longtrace, conflictset-point and conflictset-range histories by then), the fastest first; the
        // conflictset ones keep about 11 batches, fewer than their reads lag (up to 20), so some reads fall below.
        add(SMALL_BUDGET, "the engine under a budget far below the trace's history (8 to 384 KiB): only extra TOO_OLD may differ",
                (s, r, tree) -> switch ((int) Math.floorMod(r, 4L)) {
                    case 0 -> new Variant("random", Map.of("alphabet", "200", "key-length", "8", "txns", "30",
                            "range-fraction", "0.01", "max-lag", "200", "window", "100000", "report-fraction", "0.5"),
                            15, 8L << 10, tree ? Map.of("nodeBytes", "256") : Map.of());
                    case 1 -> new Variant("longtrace", Map.of("window", "100000000", "lag-scale", "200000",
                            "report-fraction", "0.3"), 2048, 384L << 10, Map.of());
                    case 2 -> new Variant("conflictset-point", Map.of("txns", "100", "keyspace", "200000", "window",
                            "100000000", "max-lag-batches", "20", "report-fraction", "0.3"), 100, 96L << 10, Map.of());
                    default -> new Variant("conflictset-range", Map.of("txns", "100", "keyspace", "2000000", "window",
                            "100000000", "max-lag-batches", "20", "report-fraction", "0.3"), 100, 48L << 10, Map.of());
                });
    }

    private FuzzShapes() {
    }

    private static void add(String name, String description, Picker picker) {
        ALL.put(name, new Shape(name, description, picker));
    }

    /** Option sets taken in turn, one per round of the schedule. */
    @SafeVarargs
    private static Map<String, String> pick(long round, Map<String, String>... variants) {
        return variants[(int) Math.floorMod(round, (long) variants.length)];
    }

    /** Every shape, in schedule order. */
    public static Map<String, Shape> all() {
        return java.util.Collections.unmodifiableMap(ALL);
    }

    /**
     * The shapes named (null or empty: all), those needing a budget left out for an engine without one.
     *
     * @throws IllegalArgumentException for a name that is no shape
     */
    public static List<String> choose(List<String> names, boolean budgetEngine) {
        List<String> chosen = new ArrayList<>();
        for (String n : names == null || names.isEmpty() ? List.copyOf(ALL.keySet()) : names) {
            if (!ALL.containsKey(n)) {
                throw new IllegalArgumentException("unknown shape '" + n + "' (shapes: " + String.join(", ", ALL.keySet()) + ")");
            }
            if (!n.equals(SMALL_BUDGET) || budgetEngine) {
                chosen.add(n);
            }
        }
        return chosen;
    }

    /**
     * Case {@code index} of a run over {@code shapes}: shape {@code index mod shapes}, seed {@code baseSeed + index},
     * enough batches for about {@code transactions} transactions (at least one).
     */
    static FuzzCase caseAt(List<String> shapes, long index, long baseSeed, long transactions, boolean treeEngine) {
        String shape = shapes.get((int) Math.floorMod(index, (long) shapes.size()));
        long seed = baseSeed + index;
        Variant v = ALL.get(shape).picker().pick(seed, Math.floorDiv(index, (long) shapes.size()), treeEngine);
        long batches = Math.max(1, (transactions + v.transactionsPerBatch() - 1) / v.transactionsPerBatch());
        return new FuzzCase(index, shape, v.workload(), seed, batches, v.options(), transactions, v.budget(),
                v.engineOptions());
    }
}
