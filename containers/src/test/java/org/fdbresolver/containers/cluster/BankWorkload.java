package org.fdbresolver.containers.cluster;

import com.apple.foundationdb.Database;
import com.apple.foundationdb.FDBException;
import com.apple.foundationdb.KeyValue;
import com.apple.foundationdb.Transaction;
import com.apple.foundationdb.subspace.Subspace;
import com.apple.foundationdb.tuple.ByteArrayUtil;
import com.apple.foundationdb.tuple.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Bank transfers among a few accounts from many concurrent clients, through fdb-java: the invariant a
 * wrong resolver breaks.
 *
 * <p>Each transfer reads two balances and writes both back, moving an amount from one to the other,
 * and records itself under a key of its own ({@code (run, client, seq)} → {@code (from, to, amount)}).
 * Transfers of one client are numbered and done one after the other; many clients run at once over
 * few accounts, so transactions conflict. A resolver that let two conflicting transfers both commit
 * would lose an update: the balances would no longer add up, and no longer equal the initial balances
 * replayed through the recorded transfers ({@link #audit()}).
 *
 * <p>Nothing commits twice: a commit that fails with {@code commit_unknown_result} (1021, a recovery
 * during the commit) may or may not have happened, so the retry first reads the transfer's own record
 * and stops when it is there — the standard FoundationDB idempotency pattern. The record is read in
 * every attempt, so it is in the read conflict set too. The audit checks that exactly the transfers the
 * clients counted as done are recorded, each once.
 *
 * <p>Every retry is counted by error code (1020 {@code not_committed} is a conflict the resolver found).
 * Latencies: the {@code commit()} call that succeeded, and the whole transfer with its retries.
 */
final class BankWorkload {
    private static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(10);

    /** The workload's shape. */
    record Settings(int accounts, long initialBalance, int clients, int maxAmount, long seed) {
        /** 100 accounts, 16 clients. */
        static Settings standard() {
            return new Settings(100, 1_000, 16, 50, 20261129L);
        }

        Settings withClients(int n) {
            return new Settings(accounts, initialBalance, n, maxAmount, seed);
        }
    }

    /** What one run did, as the clients saw it. */
    record Result(long transfers, long commitAttempts, Map<Integer, Long> errors, long confirmedAfterUnknown,
            Histogram commitLatencyMicros, Histogram transferLatencyMicros, Duration elapsed, List<String> violations,
            Throwable failure) {

        long conflicts() {
            return errors.getOrDefault(FdbErrors.NOT_COMMITTED, 0L);
        }

        long retries() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }

        double commitsPerSecond() {
            return transfers / (elapsed.toNanos() / 1e9);
        }

        /** Conflicts per commit attempt. */
        double conflictRate() {
            return commitAttempts == 0 ? 0 : (double) conflicts() / commitAttempts;
        }

        String summary() {
            return String.format("transfers %d in %.1f s (%.1f/s), commit attempts %d, conflicts %d (%.1f %%), retries by error %s, "
                    + "confirmed after commit_unknown_result %d, commit latency p50 %.2f ms p99 %.2f ms, transfer latency p50 %.2f ms p99 %.2f ms",
                    transfers, elapsed.toNanos() / 1e9, commitsPerSecond(), commitAttempts, conflicts(), 100 * conflictRate(), errors,
                    confirmedAfterUnknown, millis(commitLatencyMicros, 50), millis(commitLatencyMicros, 99),
                    millis(transferLatencyMicros, 50), millis(transferLatencyMicros, 99));
        }

        static double millis(Histogram h, double percentile) {
            return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
        }
    }

    /** The database's state against what the clients did; {@link #violations()} is empty when all is well. */
    record Audit(long sum, long expectedSum, int transferRecords, long transfersCounted, List<String> violations) {
    }

    private final Database db;
    private final Settings settings;
    private final Subspace accounts;
    private final Subspace transfers;
    /** Transfers each (run, client) completed: what the audit expects recorded. */
    private final Map<Tuple, Long> completed = new ConcurrentHashMap<>();
    private final AtomicLong transfersDone = new AtomicLong();
    private int runs;

    BankWorkload(Database db, Settings settings) {
        if (settings.accounts < 2) {
            throw new IllegalArgumentException("a transfer needs two accounts");
        }
        this.db = db;
        this.settings = settings;
        Subspace root = new Subspace(Tuple.from("fdbresolver-bank"));
        this.accounts = root.subspace(Tuple.from("account"));
        this.transfers = root.subspace(Tuple.from("transfer"));
    }

    /** Clears the workload's keys and opens every account with the initial balance. */
    void load() {
        db.run(tr -> {
            tr.clear(accounts.range());
            tr.clear(transfers.range());
            for (int a = 0; a < settings.accounts; a++) {
                tr.set(accounts.pack(a), ByteArrayUtil.encodeInt(settings.initialBalance));
            }
            return null;
        });
        completed.clear();
    }

    /** Transfers done so far by all runs (for a test that acts part-way through a run). */
    long transfersDone() {
        return transfersDone.get();
    }

    /**
     * Waits until {@code transfers} transfers are done by the run {@code running}, for a test that acts part-way
     * through it; fails if the run ends first or {@code timeout} passes.
     */
    void awaitTransfers(CompletableFuture<Result> running, long transfers, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (transfersDone() < transfers) {
            if (running.isDone()) {
                throw new AssertionError("the workload ended before " + transfers + " transfers: " + running.get().summary());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + transfers + " transfers within " + timeout);
            }
            Thread.sleep(50);
        }
    }

    /** Each client does {@code perClient} transfers. */
    Result runTransfers(int perClient, Duration timeout) {
        return run(perClient, 0, Long.MAX_VALUE, timeout);
    }

    /** Clients transfer for {@code warmup + measured}; only transfers started after the warm-up are measured. */
    Result runFor(Duration warmup, Duration measured) {
        long start = System.nanoTime();
        return run(Integer.MAX_VALUE, start + warmup.toNanos(), start + warmup.toNanos() + measured.toNanos(),
                warmup.plus(measured).plusMinutes(5));
    }

    private Result run(int perClient, long measureFrom, long stopAt, Duration timeout) {
        int run = runs++;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<ClientLog> logs = new ArrayList<>();
        List<ClientLog> unmeasuredLogs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(settings.clients, r -> {
            Thread t = new Thread(r, "bank-client");
            t.setDaemon(true);
            return t;
        });
        long started = System.nanoTime();
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < settings.clients; c++) {
            ClientLog measured = new ClientLog();
            ClientLog unmeasured = new ClientLog();
            logs.add(measured);
            unmeasuredLogs.add(unmeasured);
            int client = c;
            clients.add(pool.submit(() -> {
                int seq = 0;
                try {
                    for (; seq < perClient && failure.get() == null && System.nanoTime() < stopAt; seq++) {
                        long begin = System.nanoTime();
                        Outcome outcome = transfer(run, client, seq);
                        completed.put(Tuple.from(run, client), seq + 1L);
                        transfersDone.incrementAndGet();
                        // Measured: transfers wholly inside the measured window.
                        (begin >= measureFrom && System.nanoTime() <= stopAt ? measured : unmeasured).add(outcome);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, new IllegalStateException("client " + client + ", transfer " + seq + ": " + t, t));
                }
            }));
        }
        pool.shutdown();
        try {
            if (!pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                failure.compareAndSet(null, new IllegalStateException("the clients did not finish within " + timeout));
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
            failure.compareAndSet(null, e);
        }
        long measuredStart = Math.max(started, measureFrom);
        Duration elapsed = Duration.ofNanos(Math.min(System.nanoTime(), stopAt) - measuredStart);
        List<String> violations = new ArrayList<>();
        for (ClientLog log : unmeasuredLogs) {
            violations.addAll(log.violations);
        }
        return merge(logs, violations, elapsed, failure.get());
    }

    /**
     * One transfer, retried until it is known to be committed exactly once. Which accounts and amount
     * depend only on (run, client, seq), so every attempt does the same transfer.
     */
    private Outcome transfer(int run, int client, int seq) {
        SplittableRandom random = new SplittableRandom(settings.seed ^ (run * 0x9E3779B97F4A7C15L) ^ ((long) client << 32) ^ seq);
        int from = random.nextInt(settings.accounts);
        int to = (from + 1 + random.nextInt(settings.accounts - 1)) % settings.accounts;
        long amount = 1 + random.nextInt(settings.maxAmount);
        byte[] record = transfers.pack(Tuple.from(run, client, seq));
        byte[] fromKey = accounts.pack(from);
        byte[] toKey = accounts.pack(to);

        Outcome outcome = new Outcome();
        long begin = System.nanoTime();
        boolean maybeCommitted = false;
        Transaction tr = db.createTransaction();
        try {
            while (true) {
                try {
                    CompletableFuture<byte[]> previous = tr.get(record);
                    CompletableFuture<byte[]> fromBalance = tr.get(fromKey);
                    CompletableFuture<byte[]> toBalance = tr.get(toKey);
                    if (previous.join() != null) {
                        if (!maybeCommitted) {
                            outcome.violation = "transfer " + Tuple.from(run, client, seq)
                                    + " was recorded before any attempt could have committed it";
                        }
                        outcome.confirmedAfterUnknown = true;
                        break;
                    }
                    tr.set(fromKey, ByteArrayUtil.encodeInt(ByteArrayUtil.decodeInt(fromBalance.join()) - amount));
                    tr.set(toKey, ByteArrayUtil.encodeInt(ByteArrayUtil.decodeInt(toBalance.join()) + amount));
                    tr.set(record, Tuple.from(from, to, amount).pack());
                    outcome.commitAttempts++;
                    long commitStart = System.nanoTime();
                    tr.commit().join();
                    outcome.commitMicros = (System.nanoTime() - commitStart) / 1000;
                    break;
                } catch (CompletionException | FDBException e) {
                    FDBException error = fdbError(e);
                    outcome.errors.merge(error.getCode(), 1L, Long::sum);
                    if (error.getCode() == FdbErrors.COMMIT_UNKNOWN_RESULT) {
                        maybeCommitted = true;
                    }
                    tr = tr.onError(error).join(); // throws when the error is not retryable
                }
            }
        } finally {
            tr.close();
        }
        outcome.transferMicros = (System.nanoTime() - begin) / 1000;
        return outcome;
    }

    private static FDBException fdbError(RuntimeException e) {
        FDBException f = FdbErrors.of(e);
        if (f == null) {
            throw e;
        }
        return f;
    }

    /** Reads every balance and transfer record and checks them against each other and the clients' counts. */
    Audit audit() {
        List<KeyValue>[] read = db.read(tr -> {
            @SuppressWarnings({"unchecked", "rawtypes"})
            List<KeyValue>[] both = new List[] {tr.getRange(accounts.range()).asList().join(), tr.getRange(transfers.range()).asList().join()};
            return both;
        });
        List<String> violations = new ArrayList<>();
        long[] stored = new long[settings.accounts];
        int accountsFound = 0;
        for (KeyValue kv : read[0]) {
            int a = (int) accounts.unpack(kv.getKey()).getLong(0);
            stored[a] = ByteArrayUtil.decodeInt(kv.getValue());
            accountsFound++;
        }
        if (accountsFound != settings.accounts) {
            violations.add(accountsFound + " accounts stored, " + settings.accounts + " opened");
        }
        long[] replayed = new long[settings.accounts];
        java.util.Arrays.fill(replayed, settings.initialBalance);
        Map<Tuple, Long> recordedPerClient = new TreeMap<>();
        for (KeyValue kv : read[1]) {
            Tuple id = transfers.unpack(kv.getKey());
            Tuple t = Tuple.fromBytes(kv.getValue());
            replayed[(int) t.getLong(0)] -= t.getLong(2);
            replayed[(int) t.getLong(1)] += t.getLong(2);
            Tuple client = Tuple.from(id.getLong(0), id.getLong(1));
            long seq = id.getLong(2);
            long count = recordedPerClient.merge(client, 1L, Long::sum);
            if (seq != count - 1) {
                violations.add("transfer records of " + client + " are not 0, 1, 2, ...: record " + (count - 1) + " is seq " + seq);
            }
        }
        long sum = 0;
        int mismatched = 0;
        for (int a = 0; a < settings.accounts; a++) {
            sum += stored[a];
            if (stored[a] != replayed[a] && mismatched++ < 5) {
                violations.add("account " + a + " holds " + stored[a] + ", its recorded transfers make " + replayed[a]);
            }
        }
        if (mismatched > 5) {
            violations.add((mismatched - 5) + " more accounts differ from their recorded transfers");
        }
        long expectedSum = settings.initialBalance * settings.accounts;
        if (sum != expectedSum) {
            violations.add("the balances add up to " + sum + ", not " + expectedSum);
        }
        long counted = 0;
        for (Map.Entry<Tuple, Long> e : new TreeMap<>(completed).entrySet()) {
            counted += e.getValue();
            long recorded = recordedPerClient.getOrDefault(e.getKey(), 0L);
            if (recorded != e.getValue()) {
                violations.add("client " + e.getKey() + " completed " + e.getValue() + " transfers, " + recorded + " are recorded");
            }
        }
        for (Tuple client : recordedPerClient.keySet()) {
            if (!completed.containsKey(client)) {
                violations.add("transfers recorded for " + client + ", which completed none");
            }
        }
        return new Audit(sum, expectedSum, read[1].size(), counted, violations);
    }

    private static Result merge(List<ClientLog> logs, List<String> unmeasuredViolations, Duration elapsed, Throwable failure) {
        Histogram commit = new Histogram(MAX_LATENCY_MICROS, 3);
        Histogram transfer = new Histogram(MAX_LATENCY_MICROS, 3);
        Map<Integer, Long> errors = new TreeMap<>();
        List<String> violations = new ArrayList<>(unmeasuredViolations);
        long transfers = 0;
        long attempts = 0;
        long confirmed = 0;
        for (ClientLog log : logs) {
            commit.add(log.commitLatency);
            transfer.add(log.transferLatency);
            log.errors.forEach((code, n) -> errors.merge(code, n, Long::sum));
            violations.addAll(log.violations);
            transfers += log.transfers;
            attempts += log.commitAttempts;
            confirmed += log.confirmedAfterUnknown;
        }
        return new Result(transfers, attempts, Collections.unmodifiableMap(errors), confirmed, commit, transfer, elapsed,
                List.copyOf(violations), failure);
    }

    /** What one transfer took: its attempts and errors, its latencies. */
    private static final class Outcome {
        final Map<Integer, Long> errors = new TreeMap<>();
        long commitAttempts;
        /** The successful commit() call; -1 when an earlier attempt had committed (confirmed by its record). */
        long commitMicros = -1;
        long transferMicros;
        boolean confirmedAfterUnknown;
        String violation;
    }

    /** One client's counts; only its thread writes them until the run ends. */
    private static final class ClientLog {
        final Histogram commitLatency = new Histogram(MAX_LATENCY_MICROS, 3);
        final Histogram transferLatency = new Histogram(MAX_LATENCY_MICROS, 3);
        final Map<Integer, Long> errors = new TreeMap<>();
        final List<String> violations = new ArrayList<>();
        long transfers;
        long commitAttempts;
        long confirmedAfterUnknown;

        void add(Outcome o) {
            transfers++;
            commitAttempts += o.commitAttempts;
            o.errors.forEach((code, n) -> errors.merge(code, n, Long::sum));
            if (o.commitMicros >= 0) {
                commitLatency.recordValue(Math.min(MAX_LATENCY_MICROS, o.commitMicros));
            }
            transferLatency.recordValue(Math.min(MAX_LATENCY_MICROS, o.transferMicros));
            if (o.confirmedAfterUnknown) {
                confirmedAfterUnknown++;
            }
            if (o.violation != null) {
                violations.add(o.violation);
            }
        }
    }
}
