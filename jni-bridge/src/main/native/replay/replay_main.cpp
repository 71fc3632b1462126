// fdbresolver-replay: replays a resolver trace through fdbresolver.hpp exactly as FoundationDB's
// Resolver drives its ConflictBatch (addTransaction for each transaction with the batch's
// newOldestVersion, then detectConflicts(version, newOldestVersion, commitList, &tooOldList) with the
// conflicting-key-range map), and prints the decision hash, the conflicting-keys hash (docs/formats.md),
// counts and times as "name: value" lines, the same names as the Java CLI.
//
// Timing covers addTransaction + detectConflicts only (not trace decoding), after --warmup N batches
// that are resolved untimed; hashes and counts cover every batch.

#include "fdbresolver.hpp"
#include "sha256.h"
#include "trace_reader.h"

#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

int64_t monotonicNanos() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/** CPU time of this thread; the engine runs on it too (the JVM executes the call on the caller's thread). */
int64_t threadCpuNanos() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void usage(FILE* out) {
    std::fprintf(out,
                 "usage: fdbresolver-replay TRACE [--engine NAME] [--warmup N] [--class-path CP]\n"
                 "                          [--jvm-option OPT]... [--memory-budget BYTES] [--engine-option NAME=VALUE]...\n"
                 "Replays a resolver trace (optionally gzip) through the JNI bridge as FoundationDB's Resolver\n"
                 "does, and prints decision-hash, conflicting-keys-hash, counts and timings.\n"
                 "  --engine NAME        engine to use (default: the engine's default)\n"
                 "  --warmup N           resolve the first N batches untimed\n"
                 "  --class-path CP      engine class path (default: $FDBRESOLVER_CLASS_PATH, else the build's\n"
                 "                       target/classes:target/lib/* beside this program)\n"
                 "  --jvm-option OPT     a JVM option (repeatable); $FDBRESOLVER_JVM_OPTIONS adds more\n");
}

/** The class path target/classes plus target/lib jars, for a driver at target/native/fdbresolver-replay. */
std::string defaultClassPath() {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return "";
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));   // .../target/native
    dir = dir.substr(0, dir.rfind('/'));   // .../target
    return dir + "/classes:" + dir + "/lib/*";
}

int error(const std::string& message) {
    std::fprintf(stderr, "fdbresolver-replay: error: %s\n", message.c_str());
    return 1;
}

void writeLittleEndian32(replay::Sha256& sha, uint32_t v) {
    uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    sha.update(b, 4);
}

}  // namespace

int main(int argc, char** argv) {
    std::string tracePath;
    long warmup = 0;
    fdbresolver::Config config = fdbresolver::Config::fromEnvironment();
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "fdbresolver-replay: error: %s needs a value\n", name);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else if (a == "--engine") {
            config.engine = value("--engine");
        } else if (a == "--warmup") {
            char* end = nullptr;
            const char* v = value("--warmup");
            warmup = std::strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || warmup < 0) return error(std::string("--warmup wants a count, not '") + v + "'");
        } else if (a == "--class-path") {
            config.classPath = value("--class-path");
        } else if (a == "--jvm-option") {
            config.jvmOptions.push_back(value("--jvm-option"));
        } else if (a == "--memory-budget") {
            config.memoryBudgetBytes = std::strtoll(value("--memory-budget"), nullptr, 10);
        } else if (a == "--engine-option") {
            config.engineOptions.push_back(value("--engine-option"));
        } else if (!a.empty() && a[0] == '-') {
            usage(stderr);
            return error("unknown option " + a);
        } else if (tracePath.empty()) {
            tracePath = a;
        } else {
            return error("one trace at a time (got " + tracePath + " and " + a + ")");
        }
    }
    if (tracePath.empty()) {
        usage(stderr);
        return 2;
    }
    if (config.classPath.empty() && std::getenv("FDBRESOLVER_CLASS_PATH") == nullptr) {
        config.classPath = defaultClassPath();
    }

    fdbresolver::ConflictSet* cs = nullptr;
    try {
        replay::TraceReader reader(tracePath);
        cs = fdbresolver::newConflictSet(config);

        replay::Sha256 decisionHash;
        replay::Sha256 conflictingKeysHash;
        replay::Batch batch;
        std::vector<int> commitList;
        std::vector<int> tooOldList;
        std::map<int, std::vector<int>> conflictingKeyRangeMap;
        std::vector<uint8_t> decisions;
        uint64_t batches = 0, transactions = 0, counts[3] = {0, 0, 0};
        uint64_t timedTransactions = 0;
        int64_t timedNanos = 0;
        int64_t timedCpuNanos = 0;
        fdbr_stats atStart{};

        while (reader.next(&batch)) {
            bool timed = batches >= uint64_t(warmup);
            if (batches == uint64_t(warmup)) atStart = fdbresolver::getStats(cs);
            commitList.clear();
            tooOldList.clear();
            conflictingKeyRangeMap.clear();

            // What FoundationDB's Resolver does for one ResolveTransactionBatchRequest.
            int64_t start = monotonicNanos();
            int64_t startCpu = threadCpuNanos();
            {
                fdbresolver::ConflictBatch conflictBatch(cs, &conflictingKeyRangeMap);
                for (size_t t = 0; t < batch.transactionCount; t++) {
                    conflictBatch.addTransaction(batch.transactions[t], batch.newOldestVersion);
                }
                fdbr_status status = conflictBatch.tryDetectConflicts(batch.version, batch.newOldestVersion,
                                                                      commitList, &tooOldList);
                if (status != FDBR_OK) {
                    throw fdbresolver::Error(status, conflictBatch.lastError());
                }
            }
            int64_t elapsed = monotonicNanos() - start;
            int64_t elapsedCpu = threadCpuNanos() - startCpu;
            if (timed) {
                timedNanos += elapsed;
                timedCpuNanos += elapsedCpu;
                timedTransactions += batch.transactionCount;
            }

            decisions.assign(batch.transactionCount, uint8_t(FDBR_CONFLICT));
            for (int t : commitList) decisions[size_t(t)] = FDBR_COMMIT;
            for (int t : tooOldList) decisions[size_t(t)] = FDBR_TOO_OLD;
            decisionHash.update(decisions.data(), decisions.size());
            for (uint8_t d : decisions) counts[d]++;
            for (const auto& entry : conflictingKeyRangeMap) {
                writeLittleEndian32(conflictingKeysHash, uint32_t(entry.first));
                for (int r : entry.second) writeLittleEndian32(conflictingKeysHash, uint32_t(r));
            }
            batches++;
            transactions += batch.transactionCount;
        }
        if (batches <= uint64_t(warmup)) atStart = fdbresolver::getStats(cs);
        fdbr_stats atEnd = fdbresolver::getStats(cs);
        double seconds = timedNanos / 1e9;
        double engineSeconds = (atEnd.engine_nanos - atStart.engine_nanos) / 1e9;
        std::printf("trace: %s\n", tracePath.c_str());
        std::printf("engine: %s\n", config.engine.empty() ? "(default)" : config.engine.c_str());
        std::printf("decision-hash: %s\n", decisionHash.hexDigest().c_str());
        std::printf("conflicting-keys-hash: %s\n", conflictingKeysHash.hexDigest().c_str());
        std::printf("batches: %" PRIu64 "\n", batches);
        std::printf("transactions: %" PRIu64 "\n", transactions);
        std::printf("commit: %" PRIu64 "\n", counts[FDBR_COMMIT]);
        std::printf("conflict: %" PRIu64 "\n", counts[FDBR_CONFLICT]);
        std::printf("too-old: %" PRIu64 "\n", counts[FDBR_TOO_OLD]);
        std::printf("warmup-batches: %ld\n", warmup);
        std::printf("seconds: %.6f\n", seconds);
        std::printf("transactions/sec: %.0f\n", seconds > 0 ? timedTransactions / seconds : 0.0);
        std::printf("cpu-seconds: %.6f\n", timedCpuNanos / 1e9);
        std::printf("bridge-seconds: %.6f\n", seconds - engineSeconds);
        std::printf("engine-seconds: %.6f\n", engineSeconds);
        // Inside fdbr_resolve (crossing, reading the tables, key copies, engine); the rest of
        // bridge-seconds is fdbresolver.hpp laying out the batch and handing back the lists.
        std::printf("resolve-call-seconds: %.6f\n", (atEnd.resolve_nanos - atStart.resolve_nanos) / 1e9);
        std::printf("history-bytes: %" PRId64 "\n", atEnd.history_bytes);
        std::printf("retained-version: %" PRId64 "\n", atEnd.retained_version);
        std::fflush(stdout);
        fdbresolver::destroyConflictSet(cs);
        return 0;
    } catch (const replay::TraceError& e) {
        if (cs != nullptr) fdbr_close(cs->resolver), delete cs;
        return error(std::string("malformed trace: ") + e.what());
    } catch (const fdbresolver::Error& e) {
        if (cs != nullptr) fdbr_close(cs->resolver), delete cs;
        return error(std::string(tracePath) + ": " + e.what());
    } catch (const std::exception& e) {
        return error(e.what());
    }
}
