// Counters and memory figures: one call into Java fills an internal block, each function copies its part out
// (docs/bridge-layout.md, "Statistics").

#include "bridge.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstddef>
#include <cstring>

namespace fdbresolver_bridge {

/**
 * What NativeResolver.stats fills in one call (docs/bridge-layout.md): fdbr_stats, then fdbr_batch_stats.
 * Internal: each public struct keeps its own size for ever (the ABI only grows by new functions).
 */
struct StatsBlock {
    fdbr_stats stats;
    fdbr_batch_stats batch;
    fdbr_memory memory;
};

/**
 * With -Dfdbresolver.bridge.profile=true, the pieces of fdbr_resolve's time since the last statistics call, per
 * batch, on stderr, and starts over: a benchmark's counters call at the end of its warm-up and at its end bound the
 * timed part (docs/fdb-integration.md, "What the bridge costs per batch"). The stamps themselves (four
 * CLOCK_MONOTONIC reads a side) are in the figures.
 */
void printProfile(fdbr_resolver* r) {
    BridgeProfile& p = r->profile;
    if (p.batches > 0) {
        double n = double(p.batches);
        std::fprintf(stderr,
                     "fdbresolver-bridge-profile: batches %" PRId64 " transactions %" PRId64
                     " ns/batch: before %.0f entry %.0f read %.0f engine %.0f write %.0f exit %.0f after %.0f\n",
                     p.batches, p.transactions, p.before / n, p.entry / n, p.read / n, p.engine / n, p.write / n,
                     p.exit / n, p.after / n);
    }
    p = BridgeProfile{};
}

fdbr_status readStats(fdbr_resolver* r, StatsBlock* block, const char* what) {
    std::lock_guard<std::mutex> lock(r->mutex);
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK) {
        return status;
    }
    std::memset(block, 0, sizeof(*block));
    jint javaStatus = env->CallIntMethod(r->java, g_jvm.stats, reinterpret_cast<jlong>(block),
                                         reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
    status = finishCall(env, r, javaStatus, what);
    if (status == FDBR_OK) {
        block->stats.resolve_nanos = r->resolveNanos;
    }
    printProfile(r);
    return status;
}

}  // namespace fdbresolver_bridge

using namespace fdbresolver_bridge;

extern "C" {

FDBR_API fdbr_status fdbr_get_stats(fdbr_resolver* r, fdbr_stats* out) {
    t_lastError.clear();
    if (r == nullptr || out == nullptr) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_get_stats: NULL resolver or output");
    }
    StatsBlock block;
    fdbr_status status = readStats(r, &block, "fdbr_get_stats");
    if (status == FDBR_OK) {
        *out = block.stats;
    }
    return status;
}

FDBR_API fdbr_status fdbr_get_batch_stats(fdbr_resolver* r, fdbr_batch_stats* out) {
    t_lastError.clear();
    if (r == nullptr || out == nullptr) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_get_batch_stats: NULL resolver or output");
    }
    StatsBlock block;
    fdbr_status status = readStats(r, &block, "fdbr_get_batch_stats");
    if (status == FDBR_OK) {
        *out = block.batch;
    }
    return status;
}

FDBR_API fdbr_status fdbr_get_counters(fdbr_resolver* r, fdbr_stats* stats, fdbr_batch_stats* batch,
                                       fdbr_memory* memory) {
    t_lastError.clear();
    if (r == nullptr) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_get_counters: NULL resolver");
    }
    StatsBlock block;
    fdbr_status status = readStats(r, &block, "fdbr_get_counters");
    if (status == FDBR_OK) {
        if (stats != nullptr) *stats = block.stats;
        if (batch != nullptr) *batch = block.batch;
        if (memory != nullptr) {
            *memory = block.memory;
            if (!r->nativeWarnings.empty()) {
                memory->warnings_pending += std::count(r->nativeWarnings.begin(), r->nativeWarnings.end(), '\n');
            }
        }
    }
    return status;
}

}  // extern "C"

static_assert(offsetof(fdbr_stats, resolve_nanos) == 48, "fdbr_stats layout (NativeResolver.STATS_*)");
static_assert(offsetof(fdbr_stats, phase_nanos) == 56, "fdbr_stats layout (NativeResolver.STATS_*)");
static_assert(sizeof(fdbr_stats) == 104, "fdbr_stats is 13 int64s, for ever (the ABI grows by new functions)");
static_assert(offsetof(StatsBlock, batch) == 104, "the stats block: fdbr_batch_stats at 104 (NativeResolver.STATS_*)");
static_assert(offsetof(StatsBlock, batch) + offsetof(fdbr_batch_stats, too_old_fdb) == 120, "NativeResolver.STATS_TOO_OLD_FDB");
static_assert(offsetof(StatsBlock, batch) + offsetof(fdbr_batch_stats, last_version) == 136, "NativeResolver.STATS_LAST_VERSION");
static_assert(offsetof(StatsBlock, batch) + offsetof(fdbr_batch_stats, last_engine_nanos) == 176, "NativeResolver.STATS_LAST_ENGINE_NANOS");
static_assert(offsetof(StatsBlock, batch) + offsetof(fdbr_batch_stats, last_phase_nanos) == 184, "NativeResolver.STATS_LAST_PHASE_NANOS");
static_assert(offsetof(StatsBlock, memory) == 232, "the stats block: fdbr_memory at 232 (NativeResolver.MEMORY_*)");
static_assert(offsetof(StatsBlock, memory) + offsetof(fdbr_memory, warnings_pending) == 288, "NativeResolver.MEMORY_WARNINGS_PENDING");
static_assert(sizeof(StatsBlock) == 296, "the stats block is 37 int64s (NativeResolver.STATS_BYTES)");
