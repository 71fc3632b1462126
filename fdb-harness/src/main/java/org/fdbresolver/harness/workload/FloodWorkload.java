package org.fdbresolver.harness.workload;

import com.apple.foundationdb.tuple.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * The container cluster's write flood beside its bank ({@code scripts/fdb-cluster-bench --flood N}, docs/cluster.md),
 * as a generator: the one traffic shape on which the engine has been measured behind FoundationDB's skip list, made
 * reproducible without a cluster. It models the shape of that run's batches, not their timing: a capture of the
 * cluster remains the real thing, this is what a capture's absence leaves.
 *
 * <p><b>Flood.</b> {@code writers} writers, each committing blind transactions of {@code flood-keys} new keys
 * {@code "flood/" + writer + "/" + n + "/" + 40 × 'x'} (UTF-8, {@code n} counting up from 0 in decimal, as
 * {@code ClusterBenchmarkIT} writes them): point writes and no reads. In each batch each writer commits its next
 * transaction with probability {@code flood-chance}. The keys of one writer ascend but at each new decimal digit
 * (after {@code .../99/...} comes {@code .../100/...}, which sorts before {@code .../11/...}), as in the cluster.
 *
 * <p><b>Bank.</b> Besides, 0 to {@code transfers} (uniform) of the bank's transfers a batch, as {@code BankWorkload}
 * makes them through fdb-java's tuple layer: a client in {@code [0, clients)} moves money between two distinct
 * accounts in {@code [0, accounts)}; it reads its transfer's record ({@code ("fdbresolver-bank", "transfer", run,
 * client, seq)}) and both balances ({@code ("fdbresolver-bank", "account", a)}) and writes all three. Each client's
 * {@code seq} counts up (a conflict's retry is not modelled: a generator does not know the decisions).
 *
 * <p><b>Versions</b> as {@code conflictset-point} ({@link LaggedVersions}), with a default step of 2,000 (a batch
 * every 2 ms at FoundationDB's million versions a second) and FoundationDB's 5-second window: history holds the last
 * 2,500 batches' writes. Flood transactions read nothing, so their snapshot does not matter; they get one anyway.
 */
final class FloodWorkload extends BatchStream {
    static final String TAIL = "x".repeat(40);
    static final long RUN = 1;

    private final SplitMix64 rng;
    private final int writers;
    private final int floodKeys;
    private final double floodChance;
    private final int transfers;
    private final int accounts;
    private final int clients;
    private final LaggedVersions versions;
    private final long[] floodNext;
    private final long[] clientSeq;

    private FloodWorkload(String name, long seed, long batches, OptionReader o, int writers, int floodKeys,
            double floodChance, int transfers, int accounts, int clients, LaggedVersions versions) {
        super(name, seed, batches, o.used());
        this.rng = new SplitMix64(seed);
        this.writers = writers;
        this.floodKeys = floodKeys;
        this.floodChance = floodChance;
        this.transfers = transfers;
        this.accounts = accounts;
        this.clients = clients;
        this.versions = versions;
        this.floodNext = new long[writers];
        this.clientSeq = new long[clients];
    }

    /** A flood writer's {@code n}-th key. */
    static byte[] floodKey(int writer, long n) {
        return ("flood/" + writer + "/" + n + "/" + TAIL).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] accountKey(long account) {
        return Tuple.from("fdbresolver-bank", "account", account).pack();
    }

    static byte[] transferKey(long client, long seq) {
        return Tuple.from("fdbresolver-bank", "transfer", RUN, client, seq).pack();
    }

    @Override
    Batch generate(long index) {
        long version = versions.version(index);
        Batch.Builder b = Batch.newBuilder().setVersion(version).setNewOldestVersion(versions.newOldestVersion(version));
        int bank = (int) rng.between(0, transfers);
        for (int t = 0; t < bank; t++) {
            int client = rng.nextInt(clients);
            long from = rng.nextInt(accounts);
            long to = (from + 1 + rng.nextInt(accounts - 1)) % accounts;
            KeyRange record = KeyCodec.point(KeyCodec.wrap(transferKey(client, clientSeq[client]++)));
            KeyRange fromBalance = KeyCodec.point(KeyCodec.wrap(accountKey(from)));
            KeyRange toBalance = KeyCodec.point(KeyCodec.wrap(accountKey(to)));
            b.addTransactions(Transaction.newBuilder().setReadSnapshot(versions.readSnapshot(version, rng))
                    .addReads(record).addReads(fromBalance).addReads(toBalance)
                    .addWrites(fromBalance).addWrites(toBalance).addWrites(record));
        }
        for (int w = 0; w < writers; w++) {
            if (!rng.chance(floodChance)) {
                continue;
            }
            Transaction.Builder tx = Transaction.newBuilder().setReadSnapshot(versions.readSnapshot(version, rng));
            for (int k = 0; k < floodKeys; k++) {
                tx.addWrites(KeyCodec.point(KeyCodec.wrap(floodKey(w, floodNext[w]++))));
            }
            b.addTransactions(tx);
        }
        return b.build();
    }

    static final class Factory implements WorkloadFactory {
        @Override
        public String name() {
            return "flood";
        }

        @Override
        public String description() {
            return "the container cluster's write flood beside its bank: 4 writers of 200 new 50-55-byte keys a "
                    + "transaction, 0-6 tuple-layer bank transfers a batch";
        }

        @Override
        public List<WorkloadOption> options() {
            List<WorkloadOption> list = new ArrayList<>(List.of(
                    new WorkloadOption("writers", "4", "flood writers, 0..1000"),
                    new WorkloadOption("flood-keys", "200", "new keys in each flood transaction (point writes)"),
                    new WorkloadOption("flood-chance", "0.25", "chance that a writer commits a transaction in a batch"),
                    new WorkloadOption("transfers", "6", "bank transfers a batch: uniform in [0, transfers]"),
                    new WorkloadOption("accounts", "100", "bank accounts, 2.."),
                    new WorkloadOption("clients", "16", "bank clients (each numbers its transfers)")));
            list.addAll(LaggedVersions.options("2000")); // a batch every 2 ms
            return List.copyOf(list);
        }

        @Override
        public Workload create(WorkloadParams params) {
            OptionReader o = new OptionReader(name(), params, options());
            long seed = o.seed(params, 1);
            long batches = o.batches(params, 10_000);
            int writers = o.intValue("writers", 0, 1000);
            int floodKeys = o.intValue("flood-keys", 0, 1_000_000);
            double floodChance = o.fraction("flood-chance");
            int transfers = o.intValue("transfers", 0, 100_000);
            int accounts = o.intValue("accounts", 2, 1 << 30);
            int clients = o.intValue("clients", 1, 1 << 20);
            LaggedVersions versions = LaggedVersions.read(o, batches);
            o.constant("key-encoding", "flood: utf-8 text; bank: fdb-tuple");
            o.constant("flood-key", "flood/<writer>/<n>/xxx... (40 x)");
            return new FloodWorkload(name(), seed, batches, o, writers, floodKeys, floodChance, transfers, accounts,
                    clients, versions);
        }
    }
}
