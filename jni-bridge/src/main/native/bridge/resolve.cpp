// The per-batch path (fdbr_resolve): the host's tables cross into Java in one call, read in place by the
// flyweight NativeBatch, and the decisions come back in the resolver's output buffer (docs/bridge-layout.md).

#include "bridge.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>

using namespace fdbresolver_bridge;

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
    uint64_t n = transaction_count;
    uint64_t reportAt = (16 + n + 3) & ~uint64_t(3);
    uint64_t capacity = reportAt + 4 * (n + (n + 1) + uint64_t(range_count));
    try {
        if (r->output.size() * 8 < capacity) {
            r->output.resize(std::max<uint64_t>((capacity + 7) / 8, r->output.size() * 2));
        }
    } catch (const std::bad_alloc&) {
        return fail(FDBR_OUT_OF_MEMORY, "fdbr_resolve: cannot allocate the output buffer");
    }
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK) {
        return status;
    }
    uint8_t* out = reinterpret_cast<uint8_t*>(r->output.data());
    jint javaStatus = env->CallIntMethod(
        r->java, g_jvm.resolve, static_cast<jlong>(now), static_cast<jlong>(new_oldest_version),
        reinterpret_cast<jlong>(transactions), static_cast<jint>(transaction_count), reinterpret_cast<jlong>(ranges),
        static_cast<jint>(range_count), reinterpret_cast<jlong>(out), static_cast<jlong>(r->output.size() * 8),
        reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
    status = finishCall(env, r, javaStatus, "fdbr_resolve");
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
    r->resolveNanos += monotonicNanos() - start;
    return FDBR_OK;
}

}  // extern "C"

static_assert(sizeof(fdbr_transaction) == 24, "fdbr_transaction layout is 24 bytes (docs/bridge-layout.md)");
static_assert(sizeof(fdbr_range) == 24, "fdbr_range layout is 24 bytes (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_range, begin_length) == 16, "fdbr_range layout (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_transaction, flags) == 16, "fdbr_transaction layout (docs/bridge-layout.md)");
