// Native tests of libfdbresolver through fdbresolver.hpp and fdbresolver.h, run by the JUnit test
// NativeBridgeTest (in `./mvnw test`) with the engine class path in FDBRESOLVER_CLASS_PATH and JVM
// options (-Xcheck:jni) in FDBRESOLVER_JVM_OPTIONS.
//
// usage: fdbresolver-bridge-test ENGINE [CASE...]   (no case: all). Prints "PASS name" or
// "FAIL name: why" per case and "N passed, M failed"; exits non-zero on any failure.
// ENGINE must decide correctly (docs/formats.md); the test engines "test-throwing" (throws for marked
// snapshots) and "test-brute" come from the jni-bridge test class path.

#include "fdbresolver.hpp"

#include <jni.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---- FDB-shaped test types: keys expose begin() (a byte pointer) and size() ----

struct Key {
    std::string bytes;
    const uint8_t* begin() const { return reinterpret_cast<const uint8_t*>(bytes.data()); }
    int size() const { return static_cast<int>(bytes.size()); }
};

struct Range {
    Key begin;
    Key end;
};

struct Transaction {
    int64_t read_snapshot = 0;
    std::vector<Range> read_conflict_ranges;
    std::vector<Range> write_conflict_ranges;
    bool report_conflicting_keys = false;
};

Range point(const std::string& k) { return Range{Key{k}, Key{k + std::string(1, '\0')}}; }
Range range(const std::string& b, const std::string& e) { return Range{Key{b}, Key{e}}; }

Transaction tx(int64_t snapshot, std::vector<Range> reads, std::vector<Range> writes, bool report = false) {
    Transaction t;
    t.read_snapshot = snapshot;
    t.read_conflict_ranges = std::move(reads);
    t.write_conflict_ranges = std::move(writes);
    t.report_conflicting_keys = report;
    return t;
}

struct TestBatch {
    int64_t version;
    int64_t oldest;
    std::vector<Transaction> transactions;
};

/** Decisions of one batch as a string of '0' '1' '2', then "|t:r,r;..." for conflicting reads. */
struct Outcome {
    fdbr_status status = FDBR_OK;
    std::string message;
    std::string decisions;
};

Outcome resolve(fdbresolver::ConflictSet* cs, const TestBatch& b) {
    Outcome o;
    std::map<int, std::vector<int>> conflicting;
    std::vector<int> commit, tooOld;
    fdbresolver::ConflictBatch batch(cs, &conflicting);
    for (const auto& t : b.transactions) batch.addTransaction(t, b.oldest);
    o.status = batch.tryDetectConflicts(b.version, b.oldest, commit, &tooOld);
    if (o.status != FDBR_OK) {
        o.message = batch.lastError();
        return o;
    }
    std::string d(b.transactions.size(), '1');
    for (int t : commit) d[t] = '0';
    for (int t : tooOld) d[t] = '2';
    o.decisions = d;
    for (const auto& e : conflicting) {
        o.decisions += "|" + std::to_string(e.first) + ":";
        for (int r : e.second) o.decisions += std::to_string(r) + ",";
    }
    return o;
}

std::string engineName;

fdbresolver::ConflictSet* open(const std::string& engine = engineName) {
    fdbresolver::Config c = fdbresolver::Config::fromEnvironment();
    c.engine = engine;
    return fdbresolver::newConflictSet(c);
}

/** A small history: writes at versions 10, 20, 30 on keys a..e, reads that see some of them. */
std::vector<TestBatch> scenario() {
    return {
        {10, 0, {tx(5, {}, {point("a"), range("c", "e")}), tx(5, {point("b")}, {point("b")})}},
        {20, 0, {tx(15, {point("a")}, {point("x")}, true), tx(5, {point("a"), point("z")}, {point("y")}, true),
                 tx(12, {range("b", "d")}, {point("q")})}},
        {30, 5, {tx(25, {point("x")}, {point("a")}), tx(3, {point("a")}, {}), tx(3, {}, {point("w")}),
                 tx(25, {range("", "zz")}, {point("m")}, true), tx(29, {point("m")}, {})}},
        {40, 10, {tx(10, {point("q"), point("a")}, {}, true), tx(35, {point("w")}, {point("w")})}},
    };
}

// ---- a minimal test framework ----

int passed = 0, failed = 0;

struct Failure {
    std::string why;
};

void expect(bool ok, const std::string& what) {
    if (!ok) throw Failure{what};
}

void expectEqual(const std::string& actual, const std::string& expected, const std::string& what) {
    if (actual != expected) throw Failure{what + ": got \"" + actual + "\", expected \"" + expected + "\""};
}

void run(const std::string& name, const std::function<void()>& body) {
    try {
        body();
        std::printf("PASS %s\n", name.c_str());
        passed++;
    } catch (const Failure& f) {
        std::printf("FAIL %s: %s\n", name.c_str(), f.why.c_str());
        failed++;
    } catch (const std::exception& e) {
        std::printf("FAIL %s: exception %s\n", name.c_str(), e.what());
        failed++;
    }
    std::fflush(stdout);
}

/** Decisions of the scenario's batches on a fresh conflict set, skipping none. */
std::vector<std::string> control(const std::vector<TestBatch>& batches) {
    fdbresolver::ConflictSet* cs = open();
    std::vector<std::string> out;
    for (const auto& b : batches) {
        Outcome o = resolve(cs, b);
        expect(o.status == FDBR_OK, "control batch failed: " + o.message);
        out.push_back(o.decisions);
    }
    fdbresolver::destroyConflictSet(cs);
    return out;
}

// ---- cases ----

void decisionsMatchExpected() {
    // Worked out by hand from docs/formats.md's rules:
    // batch 0: nothing to conflict with.
    // batch 1: t1 (snapshot 5) reads a, written at 10 -> conflict, reporting read 0.
    // batch 2: t1 snapshot 3 < oldest 5 with reads -> too old; t2 has no reads -> commit; t3 reads
    //          ["", zz) and t0 committed a write on a earlier in the batch -> conflict, reporting its
    //          first intra-batch read; t4 reads m, whose writer t3 conflicted -> commit.
    // batch 3: t0 (snapshot 10) reads q (written 20) and a (written 30) -> conflict on both, reported.
    std::vector<std::string> expected = {"00", "010|1:0,", "02010|3:0,", "10|0:0,1,"};
    std::vector<std::string> got = control(scenario());
    for (size_t i = 0; i < expected.size(); i++) {
        expectEqual(got[i], expected[i], "batch " + std::to_string(i));
    }
}

void javaExceptionBecomesStatus() {
    std::vector<TestBatch> batches = scenario();
    std::vector<std::string> expected = control(batches);
    fdbresolver::ConflictSet* cs = open("test-throwing");
    expectEqual(resolve(cs, batches[0]).decisions, expected[0], "batch 0");
    // A RuntimeException inside the engine, mid-run.
    TestBatch boom{15, 0, {tx(777777, {point("a")}, {point("zz")})}};
    Outcome o = resolve(cs, boom);
    expect(o.status == FDBR_ENGINE_ERROR, std::string("RuntimeException gave ") + fdbr_status_name(o.status));
    expect(o.message.find("simulated engine failure") != std::string::npos, "message: " + o.message);
    expect(o.message.find("IllegalStateException") != std::string::npos, "message names the class: " + o.message);
    // An Error (not an Exception) too.
    TestBatch error{16, 0, {tx(888888, {point("a")}, {point("zz")})}};
    o = resolve(cs, error);
    expect(o.status == FDBR_ENGINE_ERROR, std::string("Error gave ") + fdbr_status_name(o.status));
    expect(o.message.find("StackOverflowError") != std::string::npos, "message: " + o.message);
    // The following batches decide as if the failed ones never came.
    for (size_t i = 1; i < batches.size(); i++) {
        Outcome next = resolve(cs, batches[i]);
        expect(next.status == FDBR_OK, "batch after the exception: " + next.message);
        expectEqual(next.decisions, expected[i], "batch " + std::to_string(i) + " after the exception");
    }
    // The header's throwing form carries the status too.
    try {
        std::vector<int> commit;
        fdbresolver::ConflictBatch b(cs);
        b.addTransaction(tx(777777, {}, {}), 10);
        b.detectConflicts(100, 10, commit);
        throw Failure{"detectConflicts did not throw"};
    } catch (const fdbresolver::Error& e) {
        expect(e.status() == FDBR_ENGINE_ERROR, "Error.status()");
    }
    fdbresolver::destroyConflictSet(cs);
}

void invalidBatchChangesNothing() {
    std::vector<TestBatch> batches = scenario();
    std::vector<std::string> expected = control(batches);
    fdbresolver::ConflictSet* cs = open();
    expectEqual(resolve(cs, batches[0]).decisions, expected[0], "batch 0");
    // An inverted range in a batch that would otherwise commit writes (on "a", which batch 1 reads).
    TestBatch inverted{15, 0, {tx(12, {}, {point("a")}), tx(12, {range("k", "c")}, {})}};
    Outcome o = resolve(cs, inverted);
    expect(o.status == FDBR_INVALID_BATCH, std::string("inverted range gave ") + fdbr_status_name(o.status));
    expect(o.message.find("inverted") != std::string::npos, "message: " + o.message);
    expect(o.message.find("transaction 1") != std::string::npos, "message names the transaction: " + o.message);
    // Version not increasing; oldest above version; oldest going back.
    TestBatch stale{10, 0, {tx(5, {}, {point("a")})}};
    expect(resolve(cs, stale).status == FDBR_INVALID_BATCH, "repeated version accepted");
    TestBatch oldestAbove{18, 19, {tx(5, {}, {point("a")})}};
    expect(resolve(cs, oldestAbove).status == FDBR_INVALID_BATCH, "oldest > version accepted");
    for (size_t i = 1; i < batches.size(); i++) {
        Outcome next = resolve(cs, batches[i]);
        expect(next.status == FDBR_OK, "batch after the invalid one: " + next.message);
        expectEqual(next.decisions, expected[i], "batch " + std::to_string(i) + " after the invalid one");
    }
    fdbr_stats s = fdbresolver::getStats(cs);
    expect(s.batches == int64_t(batches.size()), "stats count rejected batches: " + std::to_string(s.batches));
    // One batch at a time per conflict set: a second one while the first is being built is refused.
    {
        fdbresolver::ConflictBatch first(cs);
        bool refused = false;
        try {
            fdbresolver::ConflictBatch second(cs);
        } catch (const fdbresolver::Error& e) {
            refused = e.status() == FDBR_INVALID_ARGUMENT;
        }
        expect(refused, "a second batch at once was accepted");
    }
    {
        fdbresolver::ConflictBatch afterwards(cs);  // the first one's end freed the conflict set
    }
    fdbresolver::destroyConflictSet(cs);
}

void badArguments() {
    fdbr_config c;
    fdbr_config_init(&c);
    c.engine = "no-such-engine";
    fdbr_resolver* r = nullptr;
    fdbr_status s = fdbr_open(&c, &r);
    expect(s == FDBR_INVALID_ARGUMENT, std::string("unknown engine gave ") + fdbr_status_name(s));
    expect(std::strstr(fdbr_last_error(), "unknown engine") != nullptr, std::string("message: ") + fdbr_last_error());
    expect(r == nullptr, "no handle on failure");
    const char* badOption = "not-name-value";
    c.engine = engineName.c_str();
    c.engine_options = &badOption;
    c.engine_option_count = 1;
    expect(fdbr_open(&c, &r) == FDBR_INVALID_ARGUMENT, "engine option without '='");
    expect(fdbr_open(nullptr, &r) == FDBR_INVALID_ARGUMENT, "NULL config");
    c.engine_options = nullptr;
    c.engine_option_count = 0;
    expect(fdbr_open(&c, &r) == FDBR_OK, std::string("open: ") + fdbr_last_error());
    fdbr_result result;
    expect(fdbr_resolve(r, 1, 0, nullptr, 1, nullptr, 0, &result) == FDBR_INVALID_ARGUMENT, "NULL table");
    // Counts that do not add up: a transaction claiming 2 reads with 1 range given.
    uint8_t key[2] = {'a', 0};
    fdbr_range range{key, key, 1, 2};
    fdbr_transaction t{5, 2, 0, 0, 0};
    s = fdbr_resolve(r, 1, 0, &t, 1, &range, 1, &result);
    expect(s == FDBR_INVALID_ARGUMENT, std::string("count mismatch gave ") + fdbr_status_name(s));
    expect(std::strstr(fdbr_last_error(), "overrun") != nullptr, std::string("message: ") + fdbr_last_error());
    // A 1 MiB key: accepted, as FoundationDB's Resolver accepts it (no key limit by default).
    std::vector<uint8_t> huge(1 << 20, 'k');
    fdbr_range hugeRange{huge.data(), huge.data(), uint32_t(huge.size()), uint32_t(huge.size())};
    t.read_count = 1;
    s = fdbr_resolve(r, 1, 0, &t, 1, &hugeRange, 1, &result);
    expect(s == FDBR_OK, std::string("a 1 MiB key gave ") + fdbr_status_name(s) + ": " + fdbr_last_error());
    // Over a configured limit: the batch is refused, and the resolver goes on as if it never came.
    fdbr_resolver* limited = nullptr;
    c.max_key_bytes = 1000;
    expect(fdbr_open(&c, &limited) == FDBR_OK, std::string("open with max_key_bytes: ") + fdbr_last_error());
    s = fdbr_resolve(limited, 1, 0, &t, 1, &hugeRange, 1, &result);
    expect(s == FDBR_INVALID_BATCH, std::string("a key over max_key_bytes gave ") + fdbr_status_name(s));
    s = fdbr_resolve(limited, 2, 0, &t, 1, &range, 1, &result);
    expect(s == FDBR_OK && result.decisions[0] == FDBR_COMMIT, std::string("after the refused batch: ") + fdbr_last_error());
    expect(fdbr_close(limited) == FDBR_OK, "close the limited one");
    // And the resolver still works.
    t.read_count = 1;
    s = fdbr_resolve(r, 2, 0, &t, 1, &range, 1, &result);
    expect(s == FDBR_OK, std::string("valid batch after errors: ") + fdbr_last_error());
    expect(result.transaction_count == 1 && result.decisions[0] == FDBR_COMMIT, "decision");
    expect(fdbr_close(r) == FDBR_OK, "close");
    expect(fdbr_close(nullptr) == FDBR_OK, "close(NULL)");
}

void closeAndReopen() {
    std::vector<TestBatch> batches = scenario();
    std::vector<std::string> expected = control(batches);
    for (int round = 0; round < 3; round++) {
        fdbresolver::ConflictSet* cs = open();
        for (size_t i = 0; i < batches.size(); i++) {
            expectEqual(resolve(cs, batches[i]).decisions, expected[i],
                        "round " + std::to_string(round) + " batch " + std::to_string(i));
        }
        fdbresolver::destroyConflictSet(cs);
    }
    // Two open at once are independent.
    fdbresolver::ConflictSet* a = open();
    fdbresolver::ConflictSet* b = open();
    expectEqual(resolve(a, batches[0]).decisions, expected[0], "a batch 0");
    expectEqual(resolve(b, batches[0]).decisions, expected[0], "b batch 0");
    expectEqual(resolve(a, batches[1]).decisions, expected[1], "a batch 1");
    fdbresolver::clearConflictSet(b, 15);
    // After clearing to 15 the history is gone and reads below 15 are too old.
    TestBatch afterClear = batches[1];
    afterClear.oldest = 15;
    expectEqual(resolve(b, afterClear).decisions, "022", "b batch 1 after clear");
    fdbresolver::destroyConflictSet(a);
    fdbresolver::destroyConflictSet(b);
}

void otherThreads() {
    std::vector<TestBatch> batches = scenario();
    std::vector<std::string> expected = control(batches);
    // One resolver, its batches resolved in turn by two threads (the caller orders them, as FDB does).
    fdbresolver::ConflictSet* cs = open();
    std::vector<std::string> got(batches.size());
    std::mutex turnMutex;
    size_t turn = 0;
    auto worker = [&](size_t parity) {
        for (;;) {
            std::lock_guard<std::mutex> lock(turnMutex);
            if (turn >= batches.size()) return;
            if (turn % 2 != parity) continue;
            got[turn] = resolve(cs, batches[turn]).decisions;
            turn++;
        }
    };
    std::thread t0(worker, 0), t1(worker, 1);
    t0.join();
    t1.join();
    for (size_t i = 0; i < batches.size(); i++) expectEqual(got[i], expected[i], "batch " + std::to_string(i));
    fdbresolver::destroyConflictSet(cs);

    // Two threads calling at once with no ordering of their own: the library serializes the calls.
    // Versions come from a shared counter, so a call may lose the race and be rejected as not
    // increasing; every other call succeeds and nothing crashes.
    fdbr_config c;
    fdbr_config_init(&c);
    c.engine = engineName.c_str();
    fdbr_resolver* r = nullptr;
    expect(fdbr_open(&c, &r) == FDBR_OK, std::string("open: ") + fdbr_last_error());
    std::atomic<int64_t> version{1};
    std::atomic<int> ok{0}, rejected{0}, other{0};
    auto hammer = [&](int id) {
        uint8_t key[3] = {'k', uint8_t('0' + id), 0};
        fdbr_range rr[2] = {{key, key, 2, 3}, {key, key, 2, 3}};
        fdbr_transaction t{0, 1, 1, FDBR_REPORT_CONFLICTING_KEYS, 0};
        for (int i = 0; i < 300; i++) {
            int64_t v = version.fetch_add(1);
            t.read_snapshot = v - 1;
            fdbr_result result;
            fdbr_status s = fdbr_resolve(r, v, 0, &t, 1, rr, 2, &result);
            if (s == FDBR_OK) {
                ok++;
            } else if (s == FDBR_INVALID_BATCH && std::strstr(fdbr_last_error(), "does not increase") != nullptr) {
                rejected++;
            } else {
                other++;
            }
            fdbr_stats st;
            if (fdbr_get_stats(r, &st) != FDBR_OK) other++;
        }
    };
    std::thread h0(hammer, 0), h1(hammer, 1);
    h0.join();
    h1.join();
    fdbr_stats st;
    expect(fdbr_get_stats(r, &st) == FDBR_OK, "stats");
    expect(other == 0, "unexpected statuses: " + std::to_string(other.load()));
    expect(st.batches == ok.load(), "batches " + std::to_string(st.batches) + " != successful calls " +
                                        std::to_string(ok.load()));
    expect(ok + rejected == 600, "calls lost");
    expect(fdbr_close(r) == FDBR_OK, "close");
    // Many short-lived threads: each is attached on its first call and detached when it ends.
    fdbresolver::ConflictSet* shared = open();
    for (int i = 0; i < 20; i++) {
        std::thread([&, i] {
            fdbr_stats s = fdbresolver::getStats(shared);
            (void)s;
            TestBatch b{int64_t(100 + i), 0, {tx(99, {point("p")}, {point("p")})}};
            Outcome o = resolve(shared, b);
            if (o.status != FDBR_OK) other++;
        }).join();
    }
    expect(other == 0, "short-lived threads failed");
    fdbresolver::destroyConflictSet(shared);
}

/** The host's own crash handler: reaching it means the JVM lost a signal that was its own. */
void hostCrashHandler(int) {
    const char text[] = "FAIL host-signal-handler: the host's SIGSEGV handler got the JVM's signal\n";
    ssize_t ignored = write(1, text, sizeof(text) - 1);
    (void)ignored;
    _exit(99);
}

void hostSignalHandlerInstalledLater() {
    // The JVM is running (open() started it); now the host installs its own crash handler, as a
    // server does. With libjsig linked first, the JVM's handler stays in front and chains to it.
    fdbresolver::ConflictSet* cs = open("test-throwing");
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = hostCrashHandler;
    sigemptyset(&action.sa_mask);
    expect(sigaction(SIGSEGV, &action, nullptr) == 0, "sigaction");
    expect(sigaction(SIGBUS, &action, nullptr) == 0, "sigaction");
    for (int i = 0; i < 3; i++) {
        TestBatch npe{int64_t(10 + i), 0, {tx(999999, {point("a")}, {})}};
        Outcome o = resolve(cs, npe);
        expect(o.status == FDBR_ENGINE_ERROR, std::string("null dereference gave ") + fdbr_status_name(o.status));
        expect(o.message.find("NullPointerException") != std::string::npos, "message: " + o.message);
    }
    std::vector<TestBatch> batches = scenario();
    std::vector<std::string> expected = control(batches);
    for (size_t i = 0; i < batches.size(); i++) {
        TestBatch b = batches[i];
        b.version += 100;
        Outcome o = resolve(cs, b);
        expect(o.status == FDBR_OK, "batch after the null dereferences: " + o.message);
    }
    fdbresolver::destroyConflictSet(cs);
}

/**
 * Misuses JNI on purpose (a call made with an exception pending and unchecked), which -Xcheck:jni must
 * report: NativeBridgeTest runs this case alone and expects the warning, so that the absence of warnings
 * in the other cases means something.
 */
void uncheckedJniMisuse() {
    fdbresolver::ConflictSet* cs = open();  // makes sure the JVM runs with the configured options
    JavaVM* vm = nullptr;
    jsize count = 0;
    expect(JNI_GetCreatedJavaVMs(&vm, 1, &count) == JNI_OK && count == 1, "no JVM");
    JNIEnv* env = nullptr;
    expect(vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_10) == JNI_OK, "GetEnv");
    jclass integer = env->FindClass("java/lang/Integer");
    jmethodID parseInt = env->GetStaticMethodID(integer, "parseInt", "(Ljava/lang/String;)I");
    jstring notANumber = env->NewStringUTF("not a number");
    env->CallStaticIntMethod(integer, parseInt, notANumber);  // throws; deliberately not checked
    jstring another = env->NewStringUTF("called with the exception pending");
    (void)another;
    env->ExceptionClear();
    fdbresolver::destroyConflictSet(cs);
}

void statistics() {
    fdbresolver::ConflictSet* cs = open();
    std::vector<TestBatch> batches = scenario();
    for (const auto& b : batches) expect(resolve(cs, b).status == FDBR_OK, "resolve");
    fdbr_stats s = fdbresolver::getStats(cs);
    expect(s.batches == 4, "batches " + std::to_string(s.batches));
    expect(s.transactions == 12, "transactions " + std::to_string(s.transactions));
    expect(s.retained_version >= 10, "retained version " + std::to_string(s.retained_version));
    expect(s.memory_budget_bytes > 0, "memory budget");
    expect(s.resolve_nanos >= s.engine_nanos && s.engine_nanos > 0, "times");
    // fdbr_get_batch_stats: decisions with TOO_OLD by cause (batch 30's transaction reading at 3 < 5 is
    // FoundationDB's), and the last batch (version 40, oldest 10, two transactions, neither too old).
    fdbr_batch_stats b;
    expect(fdbr_get_batch_stats(cs->resolver, &b) == FDBR_OK, std::string("batch stats: ") + fdbr_last_error());
    expect(fdbr_get_batch_stats(cs->resolver, nullptr) == FDBR_INVALID_ARGUMENT, "batch stats into NULL");
    expect(b.commits + b.conflicts + b.too_old_fdb + b.too_old_budget == 12, "decisions add up to the transactions");
    expect(b.too_old_fdb == 1, "too_old_fdb " + std::to_string(b.too_old_fdb));
    expect(b.too_old_budget == 0, "too_old_budget " + std::to_string(b.too_old_budget));
    expect(b.commits > 0 && b.conflicts > 0, "commits " + std::to_string(b.commits) + ", conflicts " + std::to_string(b.conflicts));
    expect(b.last_version == 40 && b.last_new_oldest_version == 10, "last batch " + std::to_string(b.last_version));
    expect(b.last_transactions == 2, "last transactions " + std::to_string(b.last_transactions));
    expect(b.last_too_old_fdb == 0 && b.last_too_old_budget == 0, "last batch's TOO_OLD");
    expect(b.last_engine_nanos > 0 && b.last_engine_nanos <= s.engine_nanos, "last batch's time");
    int64_t lastPhases = 0;
    for (int64_t p : b.last_phase_nanos) {
        expect(p >= 0, "a phase time");
        lastPhases += p;
    }
    expect(lastPhases <= b.last_engine_nanos, "the last batch's phases fit in its time");
    fdbresolver::destroyConflictSet(cs);
}

/** fdbr_engine_name names the engine that runs, the default one included, without a call into Java. */
void engineNames() {
    expect(fdbr_engine_name(nullptr) == nullptr, "fdbr_engine_name(NULL) is NULL");
    fdbr_config c;
    fdbr_config_init(&c);  // engine NULL: the default engine
    fdbr_resolver* r = nullptr;
    expect(fdbr_open(&c, &r) == FDBR_OK, std::string("open: ") + fdbr_last_error());
    expect(std::string(fdbr_engine_name(r)) == "tree", std::string("default engine: ") + fdbr_engine_name(r));
    expect(fdbr_close(r) == FDBR_OK, "close");
    fdbresolver::ConflictSet* cs = open();
    expect(fdbresolver::engineName(cs) == engineName, "engine name: " + fdbresolver::engineName(cs));
    fdbresolver::destroyConflictSet(cs);
}

/** This program's folder (target/native in the build tree), where libfdbresolver.so sits beside it. */
std::string programDir() {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    expect(n > 0, "readlink /proc/self/exe");
    self[n] = '\0';
    std::string dir(self);
    return dir.substr(0, dir.rfind('/'));
}

/** The decisions of the scenario through conflict set cs (closed afterwards). */
std::vector<std::string> decideScenario(fdbresolver::ConflictSet* cs) {
    std::vector<std::string> out;
    for (const auto& b : scenario()) {
        Outcome o = resolve(cs, b);
        expect(o.status == FDBR_OK, "batch failed: " + o.message);
        out.push_back(o.decisions);
    }
    fdbresolver::destroyConflictSet(cs);
    return out;
}

void openFromText() {
    std::vector<std::string> expected = control(scenario());
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(
        fdbresolver::Library::linked(), " engine = " + engineName + " ;memory_budget=64m\nmax_key_bytes=1k", &error);
    expect(cs != nullptr, "open: " + error);
    fdbr_stats s = fdbresolver::getStats(cs);
    expect(s.memory_budget_bytes == (int64_t(64) << 20), "memory_budget=64m gave " + std::to_string(s.memory_budget_bytes));
    std::vector<std::string> got = decideScenario(cs);
    for (size_t i = 0; i < expected.size(); i++) expectEqual(got[i], expected[i], "batch " + std::to_string(i));
    // Each bad text is refused with a message naming the setting, and opens nothing.
    const char* bad[][2] = {
        {"engine=reference;colour=blue", "unknown setting 'colour'"},
        {"engine=reference;memory_budget=-1", "memory_budget=-1"},
        {"engine=reference;memory_budget=12q", "memory_budget=12q"},
        {"engine=reference;memory_budget=999999999999999999999999", "memory_budget=9999"},
        {"engine=reference;memory_budget=99999999t", "memory_budget=99999999t"},
        {"engine=reference;keep_jvm_signal_handlers=yes", "keep_jvm_signal_handlers"},
        {"engine", "'engine' is not name=value"},
        {"engine=no-such-engine", "unknown engine"},
    };
    for (const auto& b : bad) {
        fdbr_resolver* r = nullptr;
        fdbr_status status = fdbr_open_text(b[0], &r);
        expect(status == FDBR_INVALID_ARGUMENT, std::string(b[0]) + " gave " + fdbr_status_name(status));
        expect(std::strstr(fdbr_last_error(), b[1]) != nullptr, std::string(b[0]) + ": message " + fdbr_last_error());
        expect(r == nullptr, std::string(b[0]) + ": a handle on failure");
    }
}

void loadedWithDlopen() {
    // What fdbserver does when its knob names the library: dlopen, then every call through it.
    std::vector<std::string> expected = control(scenario());
    std::string error;
    const fdbresolver::Library* library = fdbresolver::Library::load(programDir() + "/libfdbresolver.so", &error);
    expect(library != nullptr, "load: " + error);
    expect(library != &fdbresolver::Library::linked(), "load returned the linked functions");
    expect(fdbresolver::Library::load(programDir() + "/libfdbresolver.so", &error) == library, "a second load is the same");
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(*library, "engine=" + engineName, &error);
    expect(cs != nullptr, "open: " + error);
    std::vector<std::string> got = decideScenario(cs);
    for (size_t i = 0; i < expected.size(); i++) expectEqual(got[i], expected[i], "batch " + std::to_string(i));
    // A missing file and a library that is not fdbresolver's are refused with a reason.
    expect(fdbresolver::Library::load(programDir() + "/no-such-library.so", &error) == nullptr, "missing file loaded");
    expect(error.find("cannot load") != std::string::npos, "message: " + error);
    expect(fdbresolver::Library::load("libz.so.1", &error) == nullptr, "libz taken for fdbresolver");
    expect(error.find("lacks fdbr_") != std::string::npos, "message: " + error);
}

void installedClassPath() {
    // Run with no class path configured anywhere: the jars beside the library (D/../lib) must do.
    expect(std::getenv("FDBRESOLVER_CLASS_PATH") == nullptr, "FDBRESOLVER_CLASS_PATH is set");
    std::vector<std::string> expected = {"00", "010|1:0,", "02010|3:0,", "10|0:0,1,"};
    std::string error;
    fdbresolver::ConflictSet* cs =
        fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName, &error);
    expect(cs != nullptr, "open without a class path: " + error);
    std::vector<std::string> got = decideScenario(cs);
    for (size_t i = 0; i < expected.size(); i++) expectEqual(got[i], expected[i], "batch " + std::to_string(i));
}


// ---- the JVM's signals and memory (issue 15) ----

volatile sig_atomic_t hostUsr2Seen = 0;
void hostUsr2Handler(int) { hostUsr2Seen = 1; }

/** The handler installed for a signal now. */
void (*currentHandler(int sig))(int) {
    struct sigaction now;
    sigaction(sig, nullptr, &now);
    return now.sa_handler;
}

/**
 * The host (FoundationDB ends a process cleanly on SIGUSR2) installs its SIGUSR2 handler before the JVM starts;
 * the JVM must not take it over: its suspend/resume signal is moved to 60 (_JAVA_SR_SIGNUM).
 */
void suspendSignalLeftToTheHost() {
    struct sigaction sa{};
    sa.sa_handler = hostUsr2Handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, nullptr);
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName, &error);
    expect(cs != nullptr, "open: " + error);
    const char* signum = std::getenv("_JAVA_SR_SIGNUM");
    expect(signum != nullptr && std::string(signum) == "60", std::string("_JAVA_SR_SIGNUM=") + (signum ? signum : "(unset)"));
    expect(currentHandler(SIGUSR2) == hostUsr2Handler, "the JVM took SIGUSR2's handler");
    raise(SIGUSR2);
    expect(hostUsr2Seen == 1, "the host's SIGUSR2 handler did not run");
    // The JVM still works (it suspends threads with signal 60 now, e.g. for a safepoint's thread dump).
    std::vector<std::string> got = decideScenario(cs);  // (and closes it)
    expectEqual(got[0], "00", "batch 0");
}

/**
 * What the JVM changes in the host's process while it starts, and the host must keep: its C locale (FoundationDB
 * runs in "C"; a backup manifest was written otherwise in FoundationDB's simulation under the JVM's "C.UTF-8")
 * and its soft limit on open files. The environment asks for C.UTF-8 and the soft limit starts below the hard
 * one, so that the JVM has something to change. With jvm_locale=jvm (the control) the JVM's locale stays.
 */
void hostProcessStateKept(bool jvmLocale) {
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max > 256 ? 256 : files.rlim_max;
    expect(setrlimit(RLIMIT_NOFILE, &files) == 0, "setrlimit");
    setenv("LANG", "C.UTF-8", 1);
    unsetenv("LC_ALL");
    unsetenv("LC_CTYPE");
    const char* before = std::setlocale(LC_ALL, nullptr);
    expectEqual(std::string(before != nullptr ? before : "(null)"), "C", "the host's locale before the open");
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=" + engineName + (jvmLocale ? ";jvm_locale=jvm" : ""), &error);
    expect(cs != nullptr, "open: " + error);
    const char* after = std::setlocale(LC_ALL, nullptr);
    expectEqual(std::string(after != nullptr ? after : "(null)"), jvmLocale ? "C.UTF-8" : "C",
                "the process's locale after the open that started the JVM");
    rlimit now{};
    getrlimit(RLIMIT_NOFILE, &now);
    expect(now.rlim_cur == files.rlim_cur, "the soft limit on open files went from " + std::to_string(files.rlim_cur) +
                                               " to " + std::to_string(now.rlim_cur));
    std::vector<std::string> got = decideScenario(cs);  // the JVM still decides (and this closes it)
    expectEqual(got[0], "00", "batch 0");
}

/** JVM options in the host's environment reach the JVM: the open that started it says which, as a warning. */
void environmentOptionsNamed() {
    setenv("JAVA_TOOL_OPTIONS", "-Dfdbresolver.test.fromEnvironment=1", 1);
    unsetenv("_JAVA_OPTIONS");
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName, &error);
    expect(cs != nullptr, "open: " + error);
    std::string warnings = fdbresolver::takeWarnings(cs);
    expect(warnings.find("JAVA_TOOL_OPTIONS=-Dfdbresolver.test.fromEnvironment=1") != std::string::npos,
           "the open's warnings name the environment's options: '" + warnings + "'");
    fdbresolver::destroyConflictSet(cs);
}

// ---- a JVM that cannot start fails the open, and the process goes on (issue 32) ----

/**
 * The open with these settings must fail before any JVM starts, with a message holding each of words; HotSpot would
 * have ended the process (exit(1)) had the bridge called JNI_CreateJavaVM with them.
 */
void expectStartRefused(const std::string& settings, const std::vector<std::string>& words) {
    std::string error;
    fdbresolver::ConflictSet* cs =
        fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName + ";" + settings, &error);
    expect(cs == nullptr, "the open succeeded with " + settings);
    for (const std::string& w : words) {
        expect(error.find(w) != std::string::npos, "the message for " + settings + " lacks '" + w + "': " + error);
    }
    std::printf("refused as it should be: %s\n", error.c_str());
}

/** After the refusals the process is still here, and an open with sound settings starts the JVM and decides. */
void thenTheJvmStarts(const std::string& settings = "memory_budget=16m") {
    std::string error;
    fdbresolver::ConflictSet* cs =
        fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName + ";" + settings, &error);
    expect(cs != nullptr, "the open after the refused ones: " + error);
    std::vector<std::string> got = decideScenario(cs);  // (and closes it)
    expectEqual(got[0], "00", "batch 0");
}

/** -Xms above -Xmx, in the configuration: HotSpot ends the process with "Initial heap size set to a larger value". */
void jvmInitialHeapAboveMaximum() {
    expectStartRefused("jvm_option=-Xmx256m;jvm_option=-Xms512m",
                       {"-Xms512m (from jvm_option) is above the maximum -Xmx256m (from jvm_option)"});
    expectStartRefused("jvm_option=-XX:MaxHeapSize=300m;jvm_option=-XX:InitialHeapSize=1g",
                       {"-XX:InitialHeapSize=1g (from jvm_option) is above the maximum -XX:MaxHeapSize=300m"});
    thenTheJvmStarts("memory_budget=16m;jvm_option=-Xms256m;jvm_option=-Xmx256m");
}

/**
 * _JAVA_OPTIONS=-Xms2g (set for other Java programs) against the heap the bridge sizes from the budget; the
 * invocation API does not read JDK_JAVA_OPTIONS (the launcher's alone), so the trial start must not either.
 */
void jvmEnvironmentInitialHeap() {
    setenv("JDK_JAVA_OPTIONS", "-Xms2g", 1);
    setenv("_JAVA_OPTIONS", "-Xms2g", 1);
    expectStartRefused("memory_budget=64m",
                       {"-Xms2g (from _JAVA_OPTIONS) is above the maximum -Xmx264m (the bridge's, sized from memory_budget)"});
    unsetenv("_JAVA_OPTIONS");
    setenv("JAVA_TOOL_OPTIONS", "-Xms1g", 1);
    expectStartRefused("memory_budget=64m", {"-Xms1g (from JAVA_TOOL_OPTIONS) is above the maximum -Xmx264m"});
    unsetenv("JAVA_TOOL_OPTIONS");
    thenTheJvmStarts();  // JDK_JAVA_OPTIONS=-Xms2g is still set: neither the JVM nor the trial takes it
}

/** An address-space limit (fdbserver's --memory-vsize) below what the JVM reserves: HotSpot ends the process. */
void jvmAddressSpaceLimit() {
    rlimit before{};
    expect(getrlimit(RLIMIT_AS, &before) == 0, "getrlimit");
    rlimit low = before;
    low.rlim_cur = rlim_t(1) << 30;  // 1 GiB: below the compressed class space and the heap together
    expect(setrlimit(RLIMIT_AS, &low) == 0, "setrlimit");
    expectStartRefused("memory_budget=64m", {"address-space limit (RLIMIT_AS, 1024 MiB", "-Xmx264m"});
    expect(setrlimit(RLIMIT_AS, &before) == 0, "setrlimit back");
    thenTheJvmStarts();
}

/** Options that end, crash or stop the process on purpose, or dump the whole heap, wherever they come from. */
void jvmExitOptionsRefused() {
    expectStartRefused("jvm_option=-XX:+ExitOnOutOfMemoryError", {"-XX:+ExitOnOutOfMemoryError (from jvm_option) is refused"});
    expectStartRefused("jvm_option=-XX:+CrashOnOutOfMemoryError", {"-XX:+CrashOnOutOfMemoryError (from jvm_option) is refused"});
    expectStartRefused("jvm_option=-XX:+HeapDumpOnOutOfMemoryError", {"-XX:+HeapDumpOnOutOfMemoryError (from jvm_option) is refused"});
    expectStartRefused("jvm_option=-XX:OnOutOfMemoryError=kill -9 %p", {"-XX:OnOutOfMemoryError=kill -9 %p (from jvm_option) is refused"});
    expectStartRefused("jvm_option=-XX:+ShowMessageBoxOnError", {"-XX:+ShowMessageBoxOnError (from jvm_option) is refused"});
    expectStartRefused("jvm_option=-XX:VMOptionsFile=/etc/jvm.options", {"a file of further options"});
    expectStartRefused("jvm_option=nonsense", {"'nonsense' (jvm_option) is not a JVM option"});
    setenv("JAVA_TOOL_OPTIONS", "-XX:+HeapDumpOnOutOfMemoryError", 1);
    expectStartRefused("memory_budget=16m", {"-XX:+HeapDumpOnOutOfMemoryError (from JAVA_TOOL_OPTIONS) is refused"});
    unsetenv("JAVA_TOOL_OPTIONS");
    // The last occurrence counts, as in HotSpot: turned on, then off again, is off.
    thenTheJvmStarts("memory_budget=16m;jvm_option=-XX:+ExitOnOutOfMemoryError;jvm_option=-XX:-ExitOnOutOfMemoryError");
}

/** What no static check sees: the trial start in a child process finds it, and the open carries HotSpot's words. */
void jvmTrialStart() {
    expectStartRefused("jvm_option=-XX:+UseG1GC;jvm_option=-XX:+UseSerialGC",
                       {"tried first in a child process", "Error occurred during initialization of VM",
                        "Multiple garbage collectors selected"});
    expectStartRefused("jvm_option=-XX:SharedArchiveFile=/nonexistent/fdbresolver.jsa;jvm_option=-Xshare:on",
                       {"tried first in a child process", "Unable to use shared archive"});
    // A host that ignores SIGCHLD has its children reaped by the kernel, so the trial cannot learn the exit status
    // and judges by the child's words: still refused, and a sound start still passes.
    signal(SIGCHLD, SIG_IGN);
    expectStartRefused("jvm_option=-XX:+UseG1GC;jvm_option=-XX:+UseSerialGC",
                       {"tried first in a child process", "Multiple garbage collectors selected"});
    thenTheJvmStarts();
    signal(SIGCHLD, SIG_DFL);
}

/** The control: with jvm_suspend_signal=0 the JVM keeps its default, SIGUSR2, and replaces the host's handler. */
void suspendSignalDefaultTakesUsr2() {
    struct sigaction sa{};
    sa.sa_handler = hostUsr2Handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, nullptr);
    std::string error;
    fdbresolver::ConflictSet* cs =
        fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=" + engineName + ";jvm_suspend_signal=0", &error);
    expect(cs != nullptr, "open: " + error);
    expect(std::getenv("_JAVA_SR_SIGNUM") == nullptr, "_JAVA_SR_SIGNUM was set");
    expect(currentHandler(SIGUSR2) != hostUsr2Handler, "the JVM left SIGUSR2 alone even on its default");
    fdbresolver::destroyConflictSet(cs);
}

/**
 * Warnings go to the host (fdbr_take_warnings), not to stderr: JVM options a running JVM cannot take, an engine
 * without a memory bound, a budget below 1 MiB; and the counters come in one call with the memory figures.
 */
void warningsAndCounters() {
    std::string error;
    fdbresolver::ConflictSet* first = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=64m;jvm_option=-Xmx400m;jvm_option=-XX:+UseSerialGC", &error);
    expect(first != nullptr, "open: " + error);
    expectEqual(fdbresolver::takeWarnings(first), "", "warnings of the open that started the JVM");
    fdbresolver::Counters c = fdbresolver::getCounters(first);
    expect(c.memory.jvm_max_heap_bytes > (int64_t(250) << 20) && c.memory.jvm_max_heap_bytes <= (int64_t(400) << 20),
           "max heap " + std::to_string(c.memory.jvm_max_heap_bytes));
    expect(c.memory.history_heap_bound_bytes >= (int64_t(64) << 20) && c.memory.history_heap_bound_bytes < (int64_t(70) << 20),
           "history bound " + std::to_string(c.memory.history_heap_bound_bytes));
    expect(c.memory.heap_needed_bytes > c.memory.history_heap_bound_bytes, "heap needed " + std::to_string(c.memory.heap_needed_bytes));
    expect(c.memory.warnings_pending == 0 && c.stats.memory_budget_bytes == (int64_t(64) << 20), "counters");
    // Same options: nothing ignored. Others: named.
    fdbresolver::ConflictSet* same = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=8m;jvm_option=-XX:+UseSerialGC;jvm_option=-Xmx400m", &error);
    expect(same != nullptr, "open: " + error);
    expectEqual(fdbresolver::takeWarnings(same), "", "warnings with the JVM's own options");
    fdbresolver::ConflictSet* other = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=reference;jvm_option=-Xmx2g", &error);
    expect(other != nullptr, "open: " + error);
    expect(fdbresolver::getCounters(other).memory.warnings_pending == 2, "two warnings pending");
    std::string w = fdbresolver::takeWarnings(other);
    expect(w.find("jvm options [-Xmx2g] are ignored") != std::string::npos && w.find("[-Xmx400m -XX:+UseSerialGC]") != std::string::npos,
           "ignored options: " + w);
    expect(w.find("keeps all history") != std::string::npos, "unbounded engine: " + w);
    expectEqual(fdbresolver::takeWarnings(other), "", "taken warnings are gone");
    fdbresolver::ConflictSet* small = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=256k;jvm_option=-Xmx400m;jvm_option=-XX:+UseSerialGC", &error);
    expect(small != nullptr, "open: " + error);
    w = fdbresolver::takeWarnings(small);
    expect(w.find("below 1,048,576") != std::string::npos, "small budget: " + w);
    for (auto* cs : {first, same, other, small}) fdbresolver::destroyConflictSet(cs);
}

/**
 * The host's exit() shuts the JVM down before libjvm's destructors run, from whichever thread calls it: the JVM's
 * own exit log (-Xlog:safepoint+stats, printed only by an orderly shutdown) is on stdout and the status is the
 * host's. Before, a collection still running at exit — the one that hands the heap back after the last close,
 * started here — sometimes called into a destroyed object and the process aborted (status 134). Does not return:
 * exit(7) from another thread while this one, which started the JVM, waits.
 */
void exitShutsTheJvmDown() {
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=16m;jvm_option=-XX:+UseSerialGC;jvm_option=-Xlog:safepoint+stats=info", &error);
    expect(cs != nullptr, "open: " + error);
    fdbresolver::destroyConflictSet(cs);
    std::printf("PASS exit-shuts-down-jvm\n");
    std::fflush(stdout);
    std::thread([] { std::exit(7); }).join();
}

/**
 * The collector the bridge gives its JVM (G1 with a 10 ms pause goal, a young generation from 1 % of the heap,
 * survivors tenured at once; issue 31), or the one the host chose in jvm_option or the environment, which the bridge
 * must not add a second to (HotSpot would refuse to start): HotSpot prints its flags (-XX:+PrintCommandLineFlags) and
 * NativeBridgeTest reads them. withEnvironment: JAVA_TOOL_OPTIONS chooses Serial; else a jvm_option chooses Parallel
 * when choose is set.
 */
void jvmCollector(bool choose, bool withEnvironment) {
    unsetenv("_JAVA_OPTIONS");
    if (withEnvironment) {
        setenv("JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC", 1);
    } else {
        unsetenv("JAVA_TOOL_OPTIONS");
    }
    std::string settings = "engine=" + engineName + ";memory_budget=16m;jvm_option=-XX:+PrintCommandLineFlags";
    if (choose) settings += ";jvm_option=-XX:+UseParallelGC";
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(), settings, &error);
    expect(cs != nullptr, "open: " + error);
    std::vector<TestBatch> batches = scenario();
    Outcome o = resolve(cs, batches[0]);
    expect(o.status == FDBR_OK, "batch 0: " + o.message);
    fdbresolver::destroyConflictSet(cs);
}

/** A budget the heap cannot hold, or a JVM the host's memory limit cannot hold, is refused at open, saying why. */
void heapIsCheckedAtOpen() {
    std::string error;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=64m", &error);
    expect(cs != nullptr, "open: " + error);
    // No -Xmx given: the heap is the budget, an eighth and 192 MiB (64 + 8 + 192 = 264 MiB).
    fdbresolver::Counters c = fdbresolver::getCounters(cs);
    expect(c.memory.jvm_max_heap_bytes > (int64_t(250) << 20) && c.memory.jvm_max_heap_bytes <= (int64_t(264) << 20),
           "heap sized from the budget: " + std::to_string(c.memory.jvm_max_heap_bytes));
    fdbresolver::ConflictSet* more = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=1g", &error);
    expect(more == nullptr, "a second 1 GiB budget fit in a 264 MiB heap");
    expect(error.find("raise jvm_option=-Xmx") != std::string::npos && error.find("already open") != std::string::npos,
           "message: " + error);
    more = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=16m;process_memory_limit=1g", &error);
    expect(more == nullptr, "a JVM of 264 MiB heap fit in 1 GiB less the host's 1 GiB");
    expect(error.find("over the host's memory limit") != std::string::npos, "message: " + error);
    more = fdbresolver::newConflictSet(fdbresolver::Library::linked(),
        "engine=tree;memory_budget=16m;process_memory_limit=2g;host_memory_reserve=512m", &error);
    expect(more != nullptr, "a 264 MiB heap within 2 GiB less 512 MiB: " + error);
    // The room left beside the JVM (fdbserver's skip list's): the limit less the reserve, the heap limit and the
    // allowance beside it (192 MiB and a sixteenth of the heap); -1 without a limit.
    const int64_t maxHeap = c.memory.jvm_max_heap_bytes;
    const int64_t room = (int64_t(2) << 30) - (int64_t(512) << 20) - (maxHeap + (int64_t(192) << 20) + maxHeap / 16);
    expect(fdbresolver::hostMemoryRoom(more) == room,
           "room " + std::to_string(fdbresolver::hostMemoryRoom(more)) + ", expected " + std::to_string(room));
    expect(fdbresolver::hostMemoryRoom(cs) == -1, "no limit, no room: " + std::to_string(fdbresolver::hostMemoryRoom(cs)));
    expect(fdbr_host_memory_room(nullptr) == -1, "fdbr_host_memory_room(NULL) is -1");
    fdbresolver::destroyConflictSet(more);
    fdbresolver::destroyConflictSet(cs);
    // Closed resolvers give their share back: the 1 GiB budget still does not fit, a 128 MiB one does now.
    more = fdbresolver::newConflictSet(fdbresolver::Library::linked(), "engine=tree;memory_budget=128m", &error);
    expect(more != nullptr, "after the closes: " + error);
    fdbresolver::destroyConflictSet(more);
}

/**
 * A copy of values laid out so that the byte after its last element is the first of an inaccessible page: a read
 * past the end faults (so a check that reads outside the arrays the ABI gives it kills the test).
 */
template <class T>
class GuardedArray {
public:
    explicit GuardedArray(const std::vector<T>& values) {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        const size_t bytes = values.size() * sizeof(T);
        const size_t dataPages = (bytes + page - 1) / page;
        length_ = (dataPages + 1) * page;
        base_ = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        expect(base_ != MAP_FAILED, "mmap");
        uint8_t* guard = static_cast<uint8_t*>(base_) + dataPages * page;
        expect(mprotect(guard, page, PROT_NONE) == 0, "mprotect");
        T* start = reinterpret_cast<T*>(guard - bytes);
        if (bytes > 0) std::memcpy(start, values.data(), bytes);
        data_ = start;
    }
    ~GuardedArray() { munmap(base_, length_); }
    GuardedArray(const GuardedArray&) = delete;
    GuardedArray& operator=(const GuardedArray&) = delete;
    const T* data() const { return data_; }

private:
    void* base_ = nullptr;
    size_t length_ = 0;
    const T* data_ = nullptr;
};

/**
 * fdbresolver::checkResult, the hosts' check of a result before they send it (issue 32: the commit proxy asserts on
 * what passes it): sound results pass; each fault is named; and every array sits before an inaccessible page, so a
 * check that read beyond what the ABI says the library wrote (a start of 2^30 over a one-entry array, say) would
 * kill this process instead of passing.
 */
void checkResultNamesEveryFault() {
    // The guard works: the kernel copies a guarded array's last element out, and refuses (EFAULT) the one past it.
    // (Asked through write(2) rather than by reading it: in a process whose JVM runs, the JVM owns SIGSEGV.)
    {
        GuardedArray<uint32_t> one({7});
        int fds[2];
        expect(pipe(fds) == 0, "pipe");
        const bool lastReadable = write(fds[1], one.data(), sizeof(uint32_t)) == ssize_t(sizeof(uint32_t));
        errno = 0;
        const bool pastRefused = write(fds[1], one.data() + 1, sizeof(uint32_t)) < 0 && errno == EFAULT;
        close(fds[0]);
        close(fds[1]);
        expect(lastReadable, "the guarded array's last element cannot be read");
        expect(pastRefused, "the element past a guarded array can be read: the guard does not work");
    }
    // Transactions: 0 reads and reports, 1 reads below the oldest version (10), 2 writes only, 3 reads two ranges and
    // reports, 4 reads and does not report.
    std::vector<Transaction> txs = {tx(20, {point("a")}, {}, true), tx(5, {point("b")}, {}), tx(5, {}, {point("c")}),
                                    tx(20, {point("d"), point("e")}, {point("f")}, true), tx(20, {point("g")}, {})};
    const uint8_t C = FDBR_CONFLICT, K = FDBR_COMMIT, T = FDBR_TOO_OLD;
    const uint32_t far = uint32_t(1) << 30;
    struct Case {
        std::vector<uint8_t> decisions;
        std::vector<uint32_t> conflicting, starts, reads;
        uint32_t count;
        std::string fault;  // "" when sound
    };
    std::vector<Case> cases = {
        // Sound.
        {{C, T, K, C, C}, {0, 3}, {0, 1, 3}, {0, 0, 1}, 5, ""},
        {{K, T, K, T, K}, {}, {0}, {}, 5, ""},
        {{K, T, K, T, K}, {}, {}, {}, 5, ""},  // no entries: the starts are not read
        {{K, T, K, C, K}, {3}, {0, 1}, {1}, 5, ""},
        // Decisions.
        {{K, T, K, K}, {}, {0}, {}, 4, "decisions for 4 of 5"},
        {{K, T, K, 7, K}, {}, {0}, {}, 5, "transaction 3 has decision 7"},
        {{K, T, C, K, K}, {}, {0}, {}, 5, "transaction 2 reads nothing"},
        {{K, K, K, K, K}, {}, {0}, {}, 5, "transaction 1 reads below the oldest"},
        // Entries.
        {{C, T, K, C, K}, {0, 1, 2, 3, 4, 0}, {0, 0, 0, 0, 0, 0, 0}, {}, 5, "6 conflicting-read entries for 5"},
        {{C, T, K, C, K}, {3, 0}, {0, 1, 2}, {0, 0}, 5, "entry 1 names transaction 0, not after"},
        {{C, T, K, C, K}, {0, 0}, {0, 1, 2}, {0, 0}, 5, "entry 1 names transaction 0, not after"},
        {{K, T, K, C, K}, {9}, {0, 1}, {0}, 5, "entry 0 names transaction 9 of 5"},
        {{K, T, K, C, K}, {far}, {0, 1}, {0}, 5, "entry 0 names transaction 1073741824 of 5"},
        {{K, T, K, C, K}, {0, 3}, {0, 1, 2}, {0, 0}, 5, "transaction 0 has conflicting reads but is not"},
        {{K, T, K, K, C}, {4}, {0, 1}, {0}, 5, "transaction 4 has conflicting reads but is not"},
        // A reporting transaction decided CONFLICT without conflicting reads: no entry, or an empty one.
        {{K, T, K, C, K}, {}, {0}, {}, 5, "transaction 3 reports conflicting keys and is decided CONFLICT but has no"},
        {{C, T, K, C, K}, {3}, {0, 1}, {0}, 5, "transaction 0 reports conflicting keys and is decided CONFLICT but has no"},
        {{C, T, K, C, K}, {0}, {0, 1}, {0}, 5, "transaction 3 reports conflicting keys and is decided CONFLICT but has no"},
        {{C, T, K, C, K}, {0, 3}, {0, 0, 1}, {0}, 5, "transaction 0 reports conflicting keys and is decided CONFLICT but has no"},
        // Starts: from 0, never decreasing, within the transaction's reads; none read beyond the arrays.
        {{K, T, K, C, K}, {3}, {1, 2}, {0, 0}, 5, "starts begin at 1, not 0"},
        {{K, T, K, C, K}, {3}, {far, far + 1}, {0}, 5, "starts begin at 1073741824, not 0"},
        {{C, T, K, C, K}, {0, 3}, {0, 1, 0}, {0}, 5, "starts decrease at entry 2 (1 then 0)"},
        {{K, T, K, C, K}, {3}, {0, 0xFFFFFFFFu}, {0}, 5, "transaction 3 has 4294967295 conflicting reads of 2"},
        {{K, T, K, C, K}, {3}, {0, 3}, {0, 1, 1}, 5, "transaction 3 has 3 conflicting reads of 2"},
        // Read indices: among the transaction's reads, ascending.
        {{K, T, K, C, K}, {3}, {0, 2}, {1, 1}, 5, "transaction 3 names conflicting read 1"},
        {{K, T, K, C, K}, {3}, {0, 1}, {2}, 5, "transaction 3 names conflicting read 2"},
        {{K, T, K, C, K}, {3}, {0, 1}, {far}, 5, "transaction 3 names conflicting read 1073741824"},
    };
    for (size_t i = 0; i < cases.size(); i++) {
        Case& c = cases[i];
        GuardedArray<uint8_t> decisions(c.decisions);
        GuardedArray<uint32_t> conflicting(c.conflicting), starts(c.starts), reads(c.reads);
        fdbr_result r{};
        r.decisions = decisions.data();
        r.transaction_count = c.count;
        r.conflicting_count = uint32_t(c.conflicting.size());
        r.conflicting_transactions = conflicting.data();
        r.conflicting_read_starts = starts.data();
        r.conflicting_reads = reads.data();
        std::string why = fdbresolver::checkResult(r, txs, 10);
        if (c.fault.empty()) {
            expectEqual(why, "", "case " + std::to_string(i));
        } else {
            expect(why.find(c.fault) != std::string::npos, "case " + std::to_string(i) + ": got \"" + why + "\", wanted " + c.fault);
        }
    }
}

/**
 * The header's ConflictBatch checks the library's result before it reads any of it (FoundationDB's hook decides
 * through it): the test engine corrupts its output from the second batch on, and the batch fails, named.
 */
void malformedOutputFailsTheBatch() {
    fdbresolver::Config c = fdbresolver::Config::fromEnvironment();
    c.engine = "test-faulty";
    c.engineOptions = {"fault=malformed", "after=1"};
    c.memoryBudgetBytes = int64_t(16) << 20;
    fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(c);
    std::vector<TestBatch> batches = scenario();
    Outcome o = resolve(cs, batches[0]);
    expect(o.status == FDBR_OK, "batch 0: " + o.message);
    o = resolve(cs, batches[1]);
    expect(o.status == FDBR_ENGINE_ERROR, std::string("malformed output gave ") + fdbr_status_name(o.status));
    expectEqual(o.message, "malformed output: transaction 2 has conflicting reads but is not a reporting transaction "
                           "decided CONFLICT", "message");
    fdbresolver::destroyConflictSet(cs);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: fdbresolver-bridge-test ENGINE [CASE...]\n");
        return 2;
    }
    engineName = argv[1];
    std::vector<std::pair<std::string, std::function<void()>>> cases = {
        {"decisions", decisionsMatchExpected},
        {"java-exception", javaExceptionBecomesStatus},
        {"invalid-batch", invalidBatchChangesNothing},
        {"bad-arguments", badArguments},
        {"close-reopen", closeAndReopen},
        {"threads", otherThreads},
        {"statistics", statistics},
        {"engine-name", engineNames},
        {"open-text", openFromText},
        {"dlopen", loadedWithDlopen},
        {"check-result", checkResultNamesEveryFault},
        {"malformed-output", malformedOutputFailsTheBatch},
        // Last when running all: it leaves the host's handlers installed.
        {"host-signal-handler", hostSignalHandlerInstalledLater},
    };
    // Run only when named: it misuses JNI to show that -Xcheck:jni reports misuse here.
    std::vector<std::pair<std::string, std::function<void()>>> onlyWhenNamed = {
        {"unchecked-jni-misuse", uncheckedJniMisuse},
        // Needs an installation layout and no FDBRESOLVER_CLASS_PATH (NativeBridgeTest sets it up).
        {"installed-class-path", installedClassPath},
        // Each starts the JVM itself, with its own settings (a process has one JVM): one per process.
        {"suspend-signal", suspendSignalLeftToTheHost},
        {"suspend-signal-default", suspendSignalDefaultTakesUsr2},
        {"host-locale", [] { hostProcessStateKept(false); }},
        {"host-locale-jvm", [] { hostProcessStateKept(true); }},
        {"environment-options", environmentOptionsNamed},
        {"warnings-and-counters", warningsAndCounters},
        {"heap-check", heapIsCheckedAtOpen},
        {"jvm-xms-above-xmx", jvmInitialHeapAboveMaximum},
        {"jvm-environment-xms", jvmEnvironmentInitialHeap},
        {"jvm-address-space", jvmAddressSpaceLimit},
        {"jvm-exit-options", jvmExitOptionsRefused},
        {"jvm-trial-start", jvmTrialStart},
        {"exit-shuts-down-jvm", exitShutsTheJvmDown},
        {"jvm-collector", [] { jvmCollector(false, false); }},
        {"jvm-collector-option", [] { jvmCollector(true, false); }},
        {"jvm-collector-environment", [] { jvmCollector(false, true); }},
    };
    for (const auto& c : cases) {
        bool selected = argc == 2;
        for (int i = 2; i < argc; i++) selected |= c.first == argv[i];
        if (selected) run(c.first, c.second);
    }
    for (const auto& c : onlyWhenNamed) {
        for (int i = 2; i < argc; i++) {
            if (c.first == argv[i]) run(c.first, c.second);
        }
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
