package org.fdbresolver.harness.fuzz;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Reduces a trace on which the engine and the oracle differ to a small one on which they still differ, by delta
 * debugging (Zeller and Hildebrandt's ddmin: try halves, then complements, then finer pieces): over batches, then
 * transactions, then ranges, then the bytes of each key, then the versions; and again while a round still removes
 * something. Every candidate is a valid trace (a range whose ends would cross is never tried): removing batches
 * keeps versions increasing, a key's shorter form replaces it everywhere, in every key it begins too, so points stay
 * points and shared prefixes stay shared. The difference that remains may be another one than the first: any
 * difference is a bug.
 */
final class Shrinker {
    /** Whether the two sides still differ on a candidate. */
    interface Test {
        boolean differs(List<Batch> candidate) throws IOException;
    }

    /** Tests one key's bytes may take; long keys that must stay long would otherwise cost a test per byte. */
    private static final int TESTS_PER_KEY = 300;

    private final Test test;
    private final long deadline;
    private int tests;
    private boolean timedOut;

    /** @param deadline {@link System#nanoTime()} after which no test is started */
    Shrinker(Test test, long deadline) {
        this.test = test;
        this.deadline = deadline;
    }

    int tests() {
        return tests;
    }

    boolean timedOut() {
        return timedOut;
    }

    List<Batch> shrink(List<Batch> trace) throws IOException {
        List<Batch> current = trace;
        for (int round = 0; round < 10 && !timeUp(); round++) {
            long before = size(current);
            current = batches(current);
            current = transactions(current);
            current = ranges(current);
            current = keys(current);
            current = versions(current);
            if (size(current) == before && round > 0) {
                break;
            }
        }
        return current;
    }

    /** A measure that falls whenever a phase removes anything: batches, transactions, ranges and key bytes. */
    private static long size(List<Batch> trace) {
        long n = trace.size();
        for (Batch b : trace) {
            n += b.getTransactionsCount();
            for (Transaction t : b.getTransactionsList()) {
                for (KeyRange r : t.getReadsList()) {
                    n += 1 + r.getBegin().size() + r.getEnd().size();
                }
                for (KeyRange r : t.getWritesList()) {
                    n += 1 + r.getBegin().size() + r.getEnd().size();
                }
            }
        }
        return n;
    }

    private boolean timeUp() {
        if (System.nanoTime() - deadline > 0) {
            timedOut = true;
        }
        return timedOut;
    }

    private boolean differs(List<Batch> candidate) throws IOException {
        tests++;
        return test.differs(candidate);
    }

    // ---- the phases ----

    private List<Batch> batches(List<Batch> trace) throws IOException {
        List<Integer> units = new ArrayList<>();
        for (int i = 0; i < trace.size(); i++) {
            units.add(i);
        }
        return build(ddmin(units, kept -> pick(trace, kept)), kept -> pick(trace, kept));
    }

    private static List<Batch> pick(List<Batch> trace, List<Integer> kept) {
        List<Batch> out = new ArrayList<>(kept.size());
        for (int i : kept) {
            out.add(trace.get(i));
        }
        return out;
    }

    private record TxRef(int batch, int transaction) {
    }

    private List<Batch> transactions(List<Batch> trace) throws IOException {
        List<TxRef> units = new ArrayList<>();
        for (int b = 0; b < trace.size(); b++) {
            for (int t = 0; t < trace.get(b).getTransactionsCount(); t++) {
                units.add(new TxRef(b, t));
            }
        }
        Function<List<TxRef>, List<Batch>> build = kept -> {
            List<Batch.Builder> out = new ArrayList<>(trace.size());
            for (Batch b : trace) {
                out.add(b.toBuilder().clearTransactions());
            }
            for (TxRef r : kept) {
                out.get(r.batch()).addTransactions(trace.get(r.batch()).getTransactions(r.transaction()));
            }
            return out.stream().map(Batch.Builder::build).toList();
        };
        return build(ddmin(units, build), build);
    }

    private record RangeRef(int batch, int transaction, boolean write, int index) {
    }

    private List<Batch> ranges(List<Batch> trace) throws IOException {
        List<RangeRef> units = new ArrayList<>();
        for (int b = 0; b < trace.size(); b++) {
            for (int t = 0; t < trace.get(b).getTransactionsCount(); t++) {
                Transaction tx = trace.get(b).getTransactions(t);
                for (int i = 0; i < tx.getReadsCount(); i++) {
                    units.add(new RangeRef(b, t, false, i));
                }
                for (int i = 0; i < tx.getWritesCount(); i++) {
                    units.add(new RangeRef(b, t, true, i));
                }
            }
        }
        Function<List<RangeRef>, List<Batch>> build = kept -> {
            Set<RangeRef> keep = new java.util.HashSet<>(kept);
            List<Batch> out = new ArrayList<>(trace.size());
            for (int b = 0; b < trace.size(); b++) {
                Batch.Builder nb = trace.get(b).toBuilder().clearTransactions();
                for (int t = 0; t < trace.get(b).getTransactionsCount(); t++) {
                    Transaction tx = trace.get(b).getTransactions(t);
                    Transaction.Builder nt = tx.toBuilder().clearReads().clearWrites();
                    for (int i = 0; i < tx.getReadsCount(); i++) {
                        if (keep.contains(new RangeRef(b, t, false, i))) {
                            nt.addReads(tx.getReads(i));
                        }
                    }
                    for (int i = 0; i < tx.getWritesCount(); i++) {
                        if (keep.contains(new RangeRef(b, t, true, i))) {
                            nt.addWrites(tx.getWrites(i));
                        }
                    }
                    nb.addTransactions(nt);
                }
                out.add(nb.build());
            }
            return out;
        };
        return build(ddmin(units, build), build);
    }

    /** Each key, shortest first: first its shortest prefix that still differs, then ddmin over its remaining bytes. */
    private List<Batch> keys(List<Batch> trace) throws IOException {
        TreeSet<ByteString> distinct = new TreeSet<>(ByteString.unsignedLexicographicalComparator());
        forEachRange(trace, r -> {
            distinct.add(r.getBegin());
            distinct.add(r.getEnd());
        });
        List<ByteString> byLength = new ArrayList<>(distinct);
        // Shortest first: a key's shorter form is carried into every key it begins (a point's end k "\x00" follows k),
        // so those extensions are then shrunk from where their prefix left them.
        byLength.sort(Comparator.comparingInt(ByteString::size));
        List<Batch> current = trace;
        Set<ByteString> done = new LinkedHashSet<>();
        for (ByteString original : byLength) {
            if (timeUp()) {
                break;
            }
            ByteString key = original;
            if (key.isEmpty() || done.contains(key) || !present(current, key)) {
                continue;
            }
            int before = tests;
            List<Batch> base = current;
            ByteString from = key;
            // Shortest prefixes first: 0, 1, 2, 4, ... bytes, then the whole key minus what ddmin can drop.
            for (int len = 0; len < key.size() && tests - before < TESTS_PER_KEY; len = len == 0 ? 1 : len * 2) {
                List<Batch> candidate = rename(base, from, key.substring(0, len));
                if (candidate != null && differs(candidate)) {
                    current = candidate;
                    key = key.substring(0, len);
                    break;
                }
            }
            if (key.size() > 1 && tests - before < TESTS_PER_KEY) {
                List<Integer> positions = new ArrayList<>();
                for (int i = 0; i < key.size(); i++) {
                    positions.add(i);
                }
                List<Batch> renamedBase = current;
                ByteString renamedFrom = key;
                int budget = before + TESTS_PER_KEY;
                Function<List<Integer>, List<Batch>> build = kept -> rename(renamedBase, renamedFrom, select(renamedFrom, kept));
                List<Integer> kept = ddmin(positions, build, budget);
                List<Batch> shrunk = build.apply(kept);
                if (shrunk != null && kept.size() < key.size()) {
                    current = shrunk;
                    key = select(renamedFrom, kept);
                }
            }
            done.add(key);
        }
        return current;
    }

    private static ByteString select(ByteString key, List<Integer> positions) {
        byte[] out = new byte[positions.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = key.byteAt(positions.get(i));
        }
        return ByteString.copyFrom(out);
    }

    private static boolean present(List<Batch> trace, ByteString key) {
        boolean[] found = {false};
        forEachRange(trace, r -> found[0] |= r.getBegin().equals(key) || r.getEnd().equals(key));
        return found[0];
    }

    /**
     * The trace with {@code from} replaced by {@code to} at the start of every key it begins (itself included), or
     * null when a range's ends would cross.
     */
    private static List<Batch> rename(List<Batch> trace, ByteString from, ByteString to) {
        Map<ByteString, ByteString> memo = new HashMap<>();
        Function<ByteString, ByteString> map = k -> memo.computeIfAbsent(k,
                x -> x.startsWith(from) ? to.concat(x.substring(from.size())) : x);
        List<Batch> out = new ArrayList<>(trace.size());
        for (Batch b : trace) {
            Batch.Builder nb = b.toBuilder().clearTransactions();
            for (Transaction tx : b.getTransactionsList()) {
                Transaction.Builder nt = tx.toBuilder().clearReads().clearWrites();
                for (KeyRange r : tx.getReadsList()) {
                    KeyRange m = mapped(r, map);
                    if (m == null) {
                        return null;
                    }
                    nt.addReads(m);
                }
                for (KeyRange r : tx.getWritesList()) {
                    KeyRange m = mapped(r, map);
                    if (m == null) {
                        return null;
                    }
                    nt.addWrites(m);
                }
                nb.addTransactions(nt);
            }
            out.add(nb.build());
        }
        return out;
    }

    private static KeyRange mapped(KeyRange r, Function<ByteString, ByteString> map) {
        ByteString b = map.apply(r.getBegin());
        ByteString e = map.apply(r.getEnd());
        if (ByteString.unsignedLexicographicalComparator().compare(b, e) > 0) {
            return null;
        }
        return KeyRange.newBuilder().setBegin(b).setEnd(e).build();
    }

    private static void forEachRange(List<Batch> trace, java.util.function.Consumer<KeyRange> action) {
        for (Batch b : trace) {
            for (Transaction tx : b.getTransactionsList()) {
                tx.getReadsList().forEach(action);
                tx.getWritesList().forEach(action);
            }
        }
    }

    /**
     * Small versions for a reader: every version, oldest version and snapshot replaced by ten times its rank among
     * them all, which keeps every comparison the rules make; kept only if the sides still differ (a difference may
     * need versions near 2^63, or a negative snapshot).
     */
    private List<Batch> versions(List<Batch> trace) throws IOException {
        if (timeUp()) {
            return trace;
        }
        TreeSet<Long> values = new TreeSet<>();
        for (Batch b : trace) {
            values.add(b.getVersion());
            values.add(b.getNewOldestVersion());
            for (Transaction tx : b.getTransactionsList()) {
                values.add(tx.getReadSnapshot());
            }
        }
        // The i-th smallest value becomes 10 i: room between versions for a reader, every order kept.
        Map<Long, Long> rank = new HashMap<>();
        long r = 0;
        for (long v : values) {
            rank.put(v, 10 * r++);
        }
        boolean changes = false;
        List<Batch> out = new ArrayList<>(trace.size());
        for (Batch b : trace) {
            Batch.Builder nb = b.toBuilder().setVersion(rank.get(b.getVersion())).setNewOldestVersion(rank.get(b.getNewOldestVersion()));
            for (int t = 0; t < b.getTransactionsCount(); t++) {
                nb.setTransactions(t, b.getTransactions(t).toBuilder().setReadSnapshot(rank.get(b.getTransactions(t).getReadSnapshot())));
            }
            Batch nbBuilt = nb.build();
            changes |= !nbBuilt.equals(b);
            out.add(nbBuilt);
        }
        return changes && differs(out) ? out : trace;
    }

    // ---- ddmin ----

    private <T> List<T> ddmin(List<T> units, Function<List<T>, List<Batch>> build) throws IOException {
        return ddmin(units, build, Integer.MAX_VALUE);
    }

    /** Zeller's ddmin: the smallest piece list it finds on which the test still fails; {@code maxTests} caps the tests. */
    private <T> List<T> ddmin(List<T> units, Function<List<T>, List<Batch>> build, int maxTests) throws IOException {
        int n = 2;
        while (units.size() >= 2 && !timeUp() && tests < maxTests) {
            List<List<T>> chunks = split(units, n);
            List<T> next = null;
            for (List<T> c : chunks) {
                if (tests >= maxTests || timeUp()) {
                    break;
                }
                List<Batch> candidate = build.apply(c);
                if (candidate != null && differs(candidate)) {
                    next = c;
                    n = 2;
                    break;
                }
            }
            if (next == null && chunks.size() > 2) {
                for (int k = 0; k < chunks.size() && tests < maxTests && !timeUp(); k++) {
                    List<T> complement = new ArrayList<>(units.size());
                    for (int m = 0; m < chunks.size(); m++) {
                        if (m != k) {
                            complement.addAll(chunks.get(m));
                        }
                    }
                    List<Batch> candidate = build.apply(complement);
                    if (candidate != null && differs(candidate)) {
                        next = complement;
                        n = Math.max(n - 1, 2);
                        break;
                    }
                }
            }
            if (next != null) {
                units = next;
            } else if (n >= units.size()) {
                break;
            } else {
                n = Math.min(units.size(), n * 2);
            }
        }
        // One piece left: perhaps none at all is needed (an empty transaction list, a key of no bytes).
        if (units.size() == 1 && tests < maxTests && !timeUp()) {
            List<Batch> candidate = build.apply(List.of());
            if (candidate != null && differs(candidate)) {
                units = List.of();
            }
        }
        return units;
    }

    private static <T> List<List<T>> split(List<T> units, int n) {
        List<List<T>> chunks = new ArrayList<>(n);
        int size = units.size();
        for (int i = 0; i < n; i++) {
            int from = (int) ((long) size * i / n);
            int to = (int) ((long) size * (i + 1) / n);
            if (to > from) {
                chunks.add(units.subList(from, to));
            }
        }
        return chunks;
    }

    private static <T> List<Batch> build(List<T> kept, Function<List<T>, List<Batch>> build) {
        return build.apply(kept);
    }
}
