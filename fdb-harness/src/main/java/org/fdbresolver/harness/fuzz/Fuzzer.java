package org.fdbresolver.harness.fuzz;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.harness.workload.Workload;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.TraceHeader;

/**
 * The fuzzing run: case after case of the schedule ({@link FuzzShapes}), each a generated trace streamed through a
 * fresh engine and the oracle ({@link DifferentialRun}), until the transaction or time limit; at the first difference
 * the case is generated again up to the batch that differs, shrunk ({@link Shrinker}) and written as a reproduction
 * ({@link Reproduction}). Nothing is generated ahead: each case streams from its generator, one batch at a time.
 */
public final class Fuzzer {
    /**
     * What to run.
     *
     * @param seed             the base seed: case {@code k} has seed {@code seed + k}
     * @param fromCase         the first case's index (to rerun one case of an earlier run)
     * @param maxCases         stop after this many cases
     * @param transactions     stop once this many transactions have been compared
     * @param maxNanos         stop after this much time (0: no limit)
     * @param caseTransactions transactions per case (about: whole batches)
     * @param shapes           the shapes to take in turn (see {@link FuzzShapes#choose})
     * @param shrink           whether to shrink a difference
     * @param shrinkNanos      time the shrinking may take
     * @param out              where reproductions go
     * @param command          the command line, for the listing
     */
    public record Settings(long seed, long fromCase, long maxCases, long transactions, long maxNanos,
            long caseTransactions, List<String> shapes, boolean shrink, long shrinkNanos, Path out, String command) {
        public Settings {
            shapes = List.copyOf(shapes);
            if (shapes.isEmpty()) {
                throw new IllegalArgumentException("no shape to run");
            }
        }
    }

    /** Told after each batch compared, with the run's totals. */
    public interface Progress {
        void update(long transactions, long batches);
    }

    /** A difference found, and what became of it. */
    public record Found(FuzzCase fuzzCase, Difference original, long originalBatches, long originalTransactions,
            Difference shrunk, long shrunkBatches, long shrunkTransactions, int tests, boolean timedOut, long shrinkNanos,
            Reproduction.Written files) {
    }

    /**
     * One case as run: what it compared and how often the engine's budget answered TOO_OLD in it.
     *
     * @param budgetTooOld TOO_OLD answers of the engine where the oracle decided, allowed by the budget
     */
    public record CaseRun(FuzzCase fuzzCase, long batches, long transactions, long budgetTooOld) {
    }

    /**
     * What a run did.
     *
     * @param budgetTooOld TOO_OLD answers of the engine where the oracle decided, allowed by the engine's budget
     * @param differences  differing transactions (in the batch of the first difference; the run stops there)
     * @param byShape      transactions compared per shape
     * @param caseRuns     every case run, in order (a few numbers each: a run of 10^8 transactions has about 500)
     */
    public record Result(String engine, String oracle, long seed, long firstCase, long cases, long batches,
            long transactions, long budgetTooOld, long differences, Found found, long nanos,
            Map<String, Long> byShape, List<CaseRun> caseRuns) {
        public Result {
            caseRuns = List.copyOf(caseRuns);
        }
    }

    private final EngineSource engine;
    private final Oracle oracle;
    private final boolean treeEngine;

    public Fuzzer(EngineSource engine, Oracle oracle) {
        this.engine = engine;
        this.oracle = oracle;
        this.treeEngine = engine.name().equals("tree");
    }

    public Result run(Settings s, Progress progress) throws IOException {
        long start = System.nanoTime();
        DifferentialRun run = new DifferentialRun(engine, oracle);
        long[] totals = new long[2]; // transactions, batches of the cases finished
        long budgetTooOld = 0;
        long cases = 0;
        Map<String, Long> byShape = new LinkedHashMap<>();
        List<CaseRun> caseRuns = new ArrayList<>();
        for (String shape : s.shapes()) {
            byShape.put(shape, 0L);
        }
        Found found = null;
        long differences = 0;
        boolean stopped = false;
        for (long k = s.fromCase(); cases < s.maxCases() && !stopped && totals[0] < s.transactions(); k++) {
            FuzzCase c = FuzzShapes.caseAt(s.shapes(), k, s.seed(), s.caseTransactions(), treeEngine);
            Workload w = c.open();
            long before = totals[0];
            long beforeBatches = totals[1];
            boolean[] limit = {false};
            DifferentialRun.Outcome o;
            try {
                o = run.run(w.header(), w::nextBatch, Math.min(c.transactions(), s.transactions() - totals[0]), c.budget(),
                        c.engineOptions(), (batches, transactions) -> {
                            if (progress != null) {
                                progress.update(before + transactions, beforeBatches + batches);
                            }
                            if (s.maxNanos() > 0 && System.nanoTime() - start >= s.maxNanos()) {
                                limit[0] = true;
                                return false;
                            }
                            return true;
                        }, null);
            } catch (InvalidBatchException e) {
                throw new IllegalStateException(c + " generated an invalid batch (a generator bug): " + e.getMessage(), e);
            }
            cases++;
            totals[0] += o.transactions();
            totals[1] += o.batches();
            budgetTooOld += o.budgetTooOld();
            byShape.merge(c.shape(), o.transactions(), Long::sum);
            caseRuns.add(new CaseRun(c, o.batches(), o.transactions(), o.budgetTooOld()));
            stopped = limit[0] || (s.maxNanos() > 0 && System.nanoTime() - start >= s.maxNanos());
            if (o.first() != null) {
                differences = o.differing();
                found = reproduce(s, c, o);
                break;
            }
        }
        long nanos = System.nanoTime() - start - (found == null ? 0 : found.shrinkNanos());
        return new Result(engine.name(), oracle.description(), s.seed(), s.fromCase(), cases, totals[1], totals[0],
                budgetTooOld, differences, found, nanos, byShape, caseRuns);
    }

    /** The case again up to its first differing batch; shrunk when asked; written as a reproduction. */
    private Found reproduce(Settings s, FuzzCase c, DifferentialRun.Outcome o) throws IOException {
        long t0 = System.nanoTime();
        Workload w = c.open();
        TraceHeader header = w.header();
        List<Batch> prefix = new ArrayList<>();
        for (Batch b; prefix.size() <= o.first().batch() && (b = w.nextBatch()) != null; ) {
            prefix.add(b);
        }
        List<Batch> trace = prefix;
        Shrinker shrinker = null;
        if (s.shrink()) {
            shrinker = new Shrinker(candidate -> differs(header, candidate, c), t0 + s.shrinkNanos());
            trace = shrinker.shrink(prefix);
        }
        Reproduction.Recording recording = new Reproduction.Recording();
        DifferentialRun.Outcome shrunk = new DifferentialRun(engine, oracle).run(header, iterate(trace), Long.MAX_VALUE,
                c.budget(), c.engineOptions(), null, recording);
        long shrinkNanos = System.nanoTime() - t0;
        long shrunkTransactions = trace.stream().mapToLong(Batch::getTransactionsCount).sum();
        long prefixTransactions = prefix.stream().mapToLong(Batch::getTransactionsCount).sum();
        TraceHeader written = header.toBuilder().putParams("fuzz-case", String.valueOf(c.index()))
                .putParams("fuzz-first-difference", o.first().where())
                .putParams("fuzz-shrunk", s.shrink() ? "yes" : "no").build();
        List<String> heading = new ArrayList<>();
        heading.add("found by: " + s.command());
        heading.add("case: " + c);
        heading.add("generated by: " + c.genCommand() + " (its first " + prefix.size() + " batches)");
        heading.add("engine: " + engine.name() + engineBudget(c));
        heading.add("oracle: " + oracle.description());
        heading.add("first difference: " + o.first().where());
        if (shrinker != null) {
            heading.add("shrunk: from " + prefix.size() + " batches, " + prefixTransactions + " transactions to "
                    + trace.size() + " batches, " + shrunkTransactions + " transactions (" + shrinker.tests() + " tests, "
                    + String.format(java.util.Locale.ROOT, "%.1f", shrinkNanos / 1e9) + " s"
                    + (shrinker.timedOut() ? ", stopped by the time limit" : "") + ")");
        }
        heading.add("difference here: " + (shrunk.first() == null ? "none (this trace no longer differs)" : shrunk.first().where()));
        heading.add("replay: fdbresolver resolve TRACE --engine " + engine.name()
                + (c.budget() != null ? " --budget " + c.budget() : "")
                + c.engineOptions().entrySet().stream().map(e -> " --engine-option " + e.getKey() + "=" + e.getValue())
                        .reduce("", String::concat)
                + "; FoundationDB: fdbresolver_fdb_skiplist TRACE (both print decision-hash)");
        Reproduction.Written files = Reproduction.write(s.out(), Reproduction.name(s.seed(), c), written, trace, heading,
                recording, engine.name(), oracle.name());
        return new Found(c, o.first(), prefix.size(), prefixTransactions, shrunk.first(), trace.size(), shrunkTransactions,
                shrinker == null ? 0 : shrinker.tests(), shrinker != null && shrinker.timedOut(), shrinkNanos, files);
    }

    private String engineBudget(FuzzCase c) {
        String budget = engine.budgetText(c.budget());
        return (budget == null ? "" : " (budget " + budget + ")")
                + (c.engineOptions().isEmpty() ? "" : " with " + c.engineOptions());
    }

    private boolean differs(TraceHeader header, List<Batch> candidate, FuzzCase c) throws IOException {
        try {
            return new DifferentialRun(engine, oracle).run(header, iterate(candidate), Long.MAX_VALUE, c.budget(),
                    c.engineOptions(), null, null).first() != null;
        } catch (InvalidBatchException e) {
            return false; // not a trace the rules allow: no evidence either way
        }
    }

    private static Supplier<Batch> iterate(List<Batch> batches) {
        Iterator<Batch> it = batches.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }
}
