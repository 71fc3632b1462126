// The per-batch path (fdbr_resolve): the host's tables cross into Java in one call, read in place by the
// flyweight NativeBatch, and the decisions come back in the resolver's output buffer (docs/bridge-layout.md).

#include "bridge.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>

using namespace fdbresolver_bridge;

namespace {

/** NativeResolver.bind and NativeResolver.resolveBound, looked up once per process (at the first batch). */
std::once_flag g_lookUpOnce;
jmethodID g_bind = nullptr;
jmethodID g_resolveBound = nullptr;
std::string g_lookUpError;

fdbr_status lookUpBatchMethods(JNIEnv* env) {
    std::call_once(g_lookUpOnce, [env] {
        std::string message;
        jmethodID bind = env->GetMethodID(g_jvm.resolverClass, "bind", "(JJI)I");
        jmethodID resolveBound = bind == nullptr ? nullptr : env->GetMethodID(g_jvm.resolverClass, "resolveBound", "()I");
        if (takeException(env, &message) || bind == nullptr || resolveBound == nullptr) {
            g_lookUpError = "fdbr_resolve: the bridge class lacks bind/resolveBound (engine jar and libfdbresolver "
                            "from different builds?): " + message;
            return;
        }
        g_bind = bind;
        g_resolveBound = resolveBound;
    });
    return g_resolveBound != nullptr ? FDBR_OK : fail(FDBR_JVM_ERROR, g_lookUpError);
}

/** Gives Java the resolver's call block and message buffer, once: every batch after passes no arguments. */
fdbr_status bind(JNIEnv* env, fdbr_resolver* r) {
    fdbr_status status = lookUpBatchMethods(env);
    if (status != FDBR_OK) {
        return status;
    }
    jint javaStatus = env->CallIntMethod(r->java, g_bind, reinterpret_cast<jlong>(&r->call),
                                         reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
    status = finishCall(env, r, javaStatus, "fdbr_resolve");
    r->bound = status == FDBR_OK;
    return status;
}

/** Output bytes a batch of n transactions and this many ranges may need: every transaction reports and conflicts on every read. */
uint64_t outputBytesFor(uint64_t n, uint64_t rangeCount, uint64_t* reportAt) {
    *reportAt = (16 + n + 3) & ~uint64_t(3);
    return *reportAt + 4 * (n + (n + 1) + rangeCount);
}

}  // namespace

namespace fdbresolver_bridge {

/**
 * A batch of this size needs no growth of the output buffer: a Resolver's batches hold a few transactions, the
 * benchmark workloads' up to thousands; the buffer, 48 KiB, grows past it at the first larger batch.
 */
constexpr uint64_t kPreparedTransactions = 1000;
constexpr uint64_t kPreparedRanges = 10000;

void prepareForBatches(JNIEnv* env, fdbr_resolver* r) {
    // The first batch after an open paid for these on the host's thread: a JNI call to bind, two method lookups,
    // and the output buffer's first pages (page faults; on this project's VM 16-18 us each: docs/latency.md).
    std::lock_guard<std::mutex> lock(r->mutex);
    if (!r->bound) {
        bind(env, r);  // on failure r->bound stays false: the first batch binds again and reports why
    }
    uint64_t reportAt;
    uint64_t words = (outputBytesFor(kPreparedTransactions, kPreparedRanges, &reportAt) + 7) / 8;
    try {
        if (r->output.size() < words) {
            r->output.resize(words);  // value-initialized: every page written now, not in a batch
        }
    } catch (const std::bad_alloc&) {
        // the first batch allocates what it needs, and reports if it cannot
    }
    t_lastError.clear();  // the open succeeded: nothing of this is the caller's error
}

}  // namespace fdbresolver_bridge

extern "C" {

FDBR_API fdbr_status fdbr_resolve(fdbr_resolver* r, int64_t now, int64_t new_oldest_version,
                                  const fdbr_transaction* transactions, uint32_t transaction_count,
                                  const fdbr_range* ranges, uint32_t range_count, fdbr_result* result) {
    t_lastError.clear();
    if (r == nullptr || result == nullptr || (transactions == nullptr && transaction_count > 0) ||
        (ranges == nullptr && range_count > 0)) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_resolve: NULL resolver, result or table");
    }
    if (transaction_count > INT32_MAX / 4 || range_count > INT32_MAX / 4) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_resolve: batch too large");
    }
    std::lock_guard<std::mutex> lock(r->mutex);
    int64_t start = monotonicNanos();
    // Worst case: every transaction reports and conflicts on every read (reads <= range_count).
    uint64_t reportAt;
    uint64_t capacity = outputBytesFor(transaction_count, range_count, &reportAt);
    try {
        if (r->output.size() * 8 < capacity) {
            r->output.resize(std::max<uint64_t>((capacity + 7) / 8, r->output.size() * 2));
        }
    } catch (const std::bad_alloc&) {
        return fail(FDBR_OUT_OF_MEMORY, "fdbr_resolve: cannot allocate the output buffer");
    }
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK || (!r->bound && (status = bind(env, r)) != FDBR_OK)) {
        r->resolveNanos += monotonicNanos() - start;
        return status;
    }
    uint8_t* out = reinterpret_cast<uint8_t*>(r->output.data());
    CallBlock& call = r->call;
    call.now = now;
    call.newOldestVersion = new_oldest_version;
    call.transactions = reinterpret_cast<uint64_t>(transactions);
    call.transactionCount = transaction_count;
    call.ranges = reinterpret_cast<uint64_t>(ranges);
    call.rangeCount = range_count;
    call.output = reinterpret_cast<uint64_t>(out);
    call.outputCapacity = static_cast<int64_t>(r->output.size() * 8);
    const bool profile = call.profile != 0;
    int64_t called = profile ? monotonicNanos() : 0;
    jint javaStatus = env->CallIntMethod(r->java, g_resolveBound);
    // A Java exception is possible only where NativeResolver's own catch failed (formatting a message): the
    // check stays, since a pending exception would otherwise break the host's next JNI call.
    status = finishCall(env, r, javaStatus, "fdbr_resolve");
    int64_t returned = profile ? monotonicNanos() : 0;
    if (status != FDBR_OK) {
        r->resolveNanos += monotonicNanos() - start;
        return status;
    }
    uint32_t conflicting;
    std::memcpy(&conflicting, out, 4);
    const uint32_t* report = reinterpret_cast<const uint32_t*>(out + reportAt);
    result->decisions = out + 16;
    result->transaction_count = transaction_count;
    result->conflicting_count = conflicting;
    result->conflicting_transactions = report;
    result->conflicting_read_starts = report + conflicting;
    result->conflicting_reads = report + 2 * conflicting + 1;
    int64_t end = monotonicNanos();
    r->resolveNanos += end - start;
    if (profile) {
        BridgeProfile& p = r->profile;
        const int64_t* j = call.javaStamps;
        p.batches++;
        p.transactions += transaction_count;
        p.before += called - start;
        p.entry += j[0] - called;
        p.read += j[1] - j[0];
        p.engine += j[2] - j[1];
        p.write += j[3] - j[2];
        p.exit += returned - j[3];
        p.after += end - returned;
    }
    return FDBR_OK;
}

}  // extern "C"

static_assert(sizeof(fdbr_transaction) == 24, "fdbr_transaction layout is 24 bytes (docs/bridge-layout.md)");
static_assert(sizeof(fdbr_range) == 24, "fdbr_range layout is 24 bytes (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_range, begin_length) == 16, "fdbr_range layout (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_transaction, flags) == 16, "fdbr_transaction layout (docs/bridge-layout.md)");
static_assert(offsetof(CallBlock, newOldestVersion) == 8 && offsetof(CallBlock, transactions) == 16 &&
                  offsetof(CallBlock, ranges) == 24 && offsetof(CallBlock, output) == 32 &&
                  offsetof(CallBlock, outputCapacity) == 40 && offsetof(CallBlock, transactionCount) == 48 &&
                  offsetof(CallBlock, rangeCount) == 52 && offsetof(CallBlock, profile) == 56 &&
                  offsetof(CallBlock, javaStamps) == 64 && sizeof(CallBlock) == 96,
              "the call block's layout is NativeResolver.CALL_* (docs/bridge-layout.md)");
