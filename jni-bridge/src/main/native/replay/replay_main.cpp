// fdbresolver-replay: replays a resolver trace through fdbresolver.hpp exactly as FoundationDB's
// Resolver drives its ConflictBatch (addTransaction for each transaction with the batch's
// newOldestVersion, then detectConflicts(version, newOldestVersion, commitList, &tooOldList) with the
// conflicting-key-range map), and prints the decision hash, the conflicting-keys hash (docs/formats.md),
// counts and times as "name: value" lines, the same names as the Java CLI.
//
// Timing covers addTransaction + detectConflicts only (not trace decoding), after --warmup N batches
// that are resolved untimed; hashes and counts cover every batch.
//
// Errors follow the Java CLI (fdbresolver): one line "error: ..." on stderr naming the file or the
// option, nothing on stdout; exit status 2 for bad usage or bad input, 3 when the run fails for another
// reason (the JVM cannot start, the engine throws). This program has no "no" answer, so never exits 1.

#include "clock.h"
#include "fdbresolver.hpp"
#include "sha256.h"
#include "trace_reader.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kOk = 0;
/** Bad usage or bad input: unknown option, bad value, unreadable or malformed trace, invalid batch. */
constexpr int kBadInput = 2;
/** The run failed for another reason: the JVM cannot start, the engine threw, out of memory. */
constexpr int kFailure = 3;

/** A bad command line: the message of its one error line. */
struct UsageError {
    std::string message;
};

using replay::monotonicNanos;
using replay::threadCpuNanos;

/**
 * Every timed batch's wall and CPU time, for the latency lines bench prints (issue 31): a Resolver holds every
 * commit while it decides a batch, so the tail matters as much as the total. Appended after each batch's clock
 * window closes.
 */
struct BatchLatencies {
    std::vector<int64_t> nanos;
    std::vector<int64_t> cpuNanos;
    std::vector<uint64_t> index;
    std::vector<int64_t> version;

    void record(uint64_t batch, int64_t batchVersion, int64_t wall, int64_t cpu) {
        nanos.push_back(wall);
        cpuNanos.push_back(cpu);
        index.push_back(batch);
        version.push_back(batchVersion);
    }

    /** The nearest-rank q quantile (0 < q <= 1) of sorted, as bench's BatchLatencies. */
    static int64_t quantileOfSorted(const std::vector<int64_t>& sorted, double q) {
        if (sorted.empty()) return 0;
        int64_t rank = int64_t(std::ceil(q * double(sorted.size())));
        return sorted[size_t(std::max<int64_t>(0, std::min<int64_t>(int64_t(sorted.size()) - 1, rank - 1)))];
    }

    static void printMillis(const char* name, int64_t n) { std::printf("%s: %.3f ms\n", name, n / 1e6); }

    /** latency-*, latency-max-to-p50, cpu-latency-*, slowest-1..5 and slowest-cpu-1..5, as bench names them. */
    void print() const {
        static const char* kQuantiles[] = {"p50", "p90", "p99", "p99.9", "max"};
        static const double kValues[] = {0.5, 0.9, 0.99, 0.999, 1.0};
        std::vector<int64_t> sorted = nanos;
        std::sort(sorted.begin(), sorted.end());
        for (int q = 0; q < 5; q++) {
            printMillis(("latency-" + std::string(kQuantiles[q])).c_str(), quantileOfSorted(sorted, kValues[q]));
        }
        int64_t p50 = quantileOfSorted(sorted, 0.5);
        if (p50 > 0) {
            std::printf("latency-max-to-p50: %.1f\n", double(quantileOfSorted(sorted, 1.0)) / double(p50));
        } else {
            std::printf("latency-max-to-p50: n/a\n");
        }
        std::vector<int64_t> cpu = cpuNanos;
        std::sort(cpu.begin(), cpu.end());
        for (int q = 0; q < 5; q++) {
            printMillis(("cpu-latency-" + std::string(kQuantiles[q])).c_str(), quantileOfSorted(cpu, kValues[q]));
        }
        printSlowest("slowest-", nanos);
        printSlowest("slowest-cpu-", cpuNanos);
    }

    /** The five largest of by, slowest first, equal times in trace order. */
    void printSlowest(const char* prefix, const std::vector<int64_t>& by) const {
        std::vector<size_t> order(by.size());
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        size_t k = std::min<size_t>(5, order.size());
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          [&](size_t a, size_t b) { return by[a] != by[b] ? by[a] > by[b] : a < b; });
        for (size_t j = 0; j < k; j++) {
            size_t i = order[j];
            std::printf("%s%zu: batch %" PRIu64 " (version %" PRId64 ") %.3f ms (cpu %.3f ms)\n", prefix, j + 1,
                        index[i], version[i], nanos[i] / 1e6, cpuNanos[i] / 1e6);
        }
    }
};

void usage(FILE* out) {
    std::fputs(
        "usage: fdbresolver-replay TRACE [OPTION]...\n"
        "Replays a resolver trace (plain or gzip) through the JNI bridge as FoundationDB's Resolver does,\n"
        "and prints decision-hash, conflicting-keys-hash, counts and timings as 'name: value' lines.\n"
        "\n"
        "  --engine NAME               the engine (default: $FDBRESOLVER_ENGINE, else the library's default,\n"
        "                              tree); the 'engine:' line names the one that ran\n"
        "  --budget BYTES              history memory budget, as the fdbresolver CLI's --budget: a byte count\n"
        "                              or 512m, 2g, 64KiB, ... (k, m, g, t, also KiB/KB..., are powers of 1024;\n"
        "                              default: the engine's, 1 GiB); --memory-budget, its old name, still works\n"
        "  --engine-option NAME=VALUE  an engine option, repeatable (e.g. nodeBytes=256 for tree;\n"
        "                              docs/configuration.md lists them)\n"
        "  --warmup N                  resolve the first N batches untimed (default 0; below the trace's\n"
        "                              batch count)\n"
        "  --cycles N                  replay the trace N times (default 1), each time with every version\n"
        "                              shifted past the last: a short trace (a capture) as a long run for\n"
        "                              timing; batches are counted, hashed and warmed up across the cycles\n"
        "  --pause-micros N            sleep N microseconds between two batches, untimed (default 0): the\n"
        "                              idle time a Resolver has between its batches, in which the JVM's own\n"
        "                              threads (its compilers) run on a core the batches share\n"
        "  --class-path CP             the engine's class path (default: $FDBRESOLVER_CLASS_PATH, else the\n"
        "                              build's target/classes:target/lib/* beside this program)\n"
        "  --jvm-option OPT            a JVM option, repeatable; $FDBRESOLVER_JVM_OPTIONS adds more\n"
        "                              (space-separated)\n"
        "  --setting NAME=VALUE        a setting of the library's configuration text, repeatable, e.g.\n"
        "                              capture=DIR (fdbresolver.h, fdbr_open_text); with any, the resolver is\n"
        "                              opened from that text, as FoundationDB's Resolver opens it, and the\n"
        "                              library's warnings are printed on stderr after the run\n"
        "  -h, --help                  print this help and exit\n"
        "\n"
        "Exit status: 0 done; 2 bad usage or input (unknown option, bad value, unreadable or malformed\n"
        "trace, invalid batch, unknown engine or engine option); 3 another failure (the JVM cannot start,\n"
        "the engine failed).\n",
        out);
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

int fail(int status, const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return status;
}

/** Java's String.trim() then the removal of '_' (digit grouping), as the Java CLI reads numbers. */
std::string normalizedNumber(const std::string& text) {
    size_t begin = 0, end = text.size();
    while (begin < end && static_cast<unsigned char>(text[begin]) <= ' ') begin++;
    while (end > begin && static_cast<unsigned char>(text[end - 1]) <= ' ') end--;
    std::string s;
    for (size_t i = begin; i < end; i++) {
        if (text[i] != '_') s += char(std::tolower(static_cast<unsigned char>(text[i])));
    }
    return s;
}

/** Leading ASCII digits of s from *pos as a value, saturating above INT64_MAX (then *overflow). */
uint64_t digits(const std::string& s, size_t* pos, bool* overflow) {
    uint64_t value = 0;
    *overflow = false;
    for (; *pos < s.size() && s[*pos] >= '0' && s[*pos] <= '9'; ++*pos) {
        uint64_t digit = uint64_t(s[*pos] - '0');
        if (value > (uint64_t(INT64_MAX) - digit) / 10) {
            *overflow = true;
        } else {
            value = value * 10 + digit;
        }
    }
    return value;
}

/**
 * A byte count as the Java CLI's --budget reads it: a whole number of bytes, optionally followed by k, m,
 * g or t (also written KiB, KB, kb, ...; any case; all powers of 1024) or b; '_' may group digits.
 * Zero, negative, fractional and values beyond INT64_MAX bytes are refused.
 */
int64_t parseByteCount(const std::string& option, const std::string& text) {
    const std::string examples = "a byte count such as 1073741824, 512m, 2g or 64KiB";
    std::string s = normalizedNumber(text);
    size_t pos = 0;
    bool overflow = false;
    uint64_t value = digits(s, &pos, &overflow);
    bool anyDigit = pos > 0;
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) pos++;
    std::string suffix = s.substr(pos);
    int shift = -1;
    if (suffix.empty() || suffix == "b") {
        shift = 0;
    } else if (std::strchr("kmgt", suffix[0]) != nullptr &&
               (suffix.size() == 1 || suffix.substr(1) == "b" || suffix.substr(1) == "ib")) {
        shift = suffix[0] == 'k' ? 10 : suffix[0] == 'm' ? 20 : suffix[0] == 'g' ? 30 : 40;
    }
    if (!anyDigit || shift < 0) {
        throw UsageError{option + ": '" + text + "' is " +
                         (!s.empty() && s[0] == '-' ? "negative: wanted " + examples : "not " + examples)};
    }
    if (value == 0 && !overflow) {
        throw UsageError{option + ": '" + text + "' is zero: wanted at least 1 byte"};
    }
    if (overflow || value > (uint64_t(INT64_MAX) >> shift)) {
        throw UsageError{option + ": '" + text + "' is too large: at most " + std::to_string(INT64_MAX) +
                         " bytes (8 EiB)"};
    }
    return int64_t(value << shift);
}

/** A count from 0, as the Java CLI reads --warmup. */
int64_t parseCount(const std::string& option, const std::string& text) {
    std::string s = normalizedNumber(text);
    bool negative = !s.empty() && s[0] == '-';
    size_t pos = negative ? 1 : 0;
    bool overflow = false;
    uint64_t value = digits(s, &pos, &overflow);
    if (pos == (negative ? 1u : 0u) || pos != s.size()) {
        throw UsageError{option + ": '" + text + "' is not a whole number"};
    }
    if (negative && (value != 0 || overflow)) {
        throw UsageError{option + ": '" + text + "' is negative: wanted 0 or more"};
    }
    if (overflow) {
        throw UsageError{option + ": '" + text + "' is too large: at most " + std::to_string(INT64_MAX)};
    }
    return int64_t(value);
}

struct Options {
    std::string tracePath;
    /** The budget was given by its old name, --memory-budget: said once the command line is read. */
    bool oldBudgetName = false;
    int64_t warmup = 0;
    /** --cycles: how many times the trace is replayed, versions shifted each time. */
    int64_t cycles = 1;
    /** --pause-micros: the untimed sleep between two batches. */
    int64_t pauseMicros = 0;
    fdbresolver::Config config = fdbresolver::Config::fromEnvironment();
    /** --setting: the configuration text's own settings (the resolver is then opened from a text). */
    std::vector<fdbresolver::Setting> settings;
    bool help = false;
};

/** Reads the command line; throws UsageError. */
Options parseArguments(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError{a + " needs a value"};
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            o.help = true;
            return o;
        } else if (a == "--engine") {
            o.config.engine = value();
        } else if (a == "--warmup") {
            o.warmup = parseCount(a, value());
        } else if (a == "--cycles") {
            o.cycles = parseCount(a, value());
            if (o.cycles == 0) throw UsageError{"--cycles: '0' is zero: wanted at least 1"};
        } else if (a == "--pause-micros") {
            o.pauseMicros = parseCount(a, value());
            if (o.pauseMicros > 10'000'000) throw UsageError{"--pause-micros: at most 10000000 (10 s)"};
        } else if (a == "--class-path") {
            o.config.classPath = value();
        } else if (a == "--jvm-option") {
            o.config.jvmOptions.push_back(value());
        } else if (a == "--budget" || a == "--memory-budget") {
            o.config.memoryBudgetBytes = parseByteCount(a, value());
            o.oldBudgetName = o.oldBudgetName || a == "--memory-budget";
        } else if (a == "--engine-option") {
            std::string option = value();
            if (option.find('=') == std::string::npos || option[0] == '=') {
                throw UsageError{"--engine-option: '" + option + "' is not NAME=VALUE"};
            }
            o.config.engineOptions.push_back(option);
        } else if (a == "--setting") {
            std::string setting = value();
            size_t eq = setting.find('=');
            if (eq == std::string::npos || eq == 0 || setting.find_first_of(";\n") != std::string::npos) {
                throw UsageError{"--setting: '" + setting + "' is not NAME=VALUE (without ';')"};
            }
            o.settings.push_back(fdbresolver::Setting{setting.substr(0, eq), setting.substr(eq + 1)});
        } else if (a.size() > 1 && a[0] == '-') {
            throw UsageError{"unknown option '" + a + "' (fdbresolver-replay --help lists the options)"};
        } else if (o.tracePath.empty()) {
            o.tracePath = a;
        } else {
            throw UsageError{"one trace at a time (got " + o.tracePath + " and " + a + ")"};
        }
    }
    if (o.tracePath.empty()) {
        throw UsageError{"no trace given: fdbresolver-replay TRACE [OPTION]... (--help lists the options)"};
    }
    return o;
}

/** A library message without the "fdbr_open: " that names the C function (this program is not a C host). */
std::string withoutFunctionName(const std::string& message) {
    for (const std::string prefix : {"fdbr_open: ", "fdbr_open_text: "}) {
        if (message.compare(0, prefix.size(), prefix) == 0) return message.substr(prefix.size());
    }
    return message;
}

/** The configuration as the text fdbr_open_text reads: the options' settings, then --setting's. */
std::string configurationText(const fdbresolver::Config& c, const std::vector<fdbresolver::Setting>& extra) {
    std::vector<fdbresolver::Setting> settings;
    if (!c.engine.empty()) settings.push_back({"engine", c.engine});
    if (c.memoryBudgetBytes > 0) settings.push_back({"memory_budget", std::to_string(c.memoryBudgetBytes)});
    if (!c.classPath.empty()) settings.push_back({"class_path", c.classPath});
    for (const std::string& o : c.jvmOptions) settings.push_back({"jvm_option", o});
    for (const std::string& o : c.engineOptions) settings.push_back({"engine_option", o});
    settings.insert(settings.end(), extra.begin(), extra.end());
    return fdbresolver::formatSettings(settings);
}

void appendLittleEndian32(std::vector<uint8_t>* out, uint32_t v) {
    out->push_back(uint8_t(v));
    out->push_back(uint8_t(v >> 8));
    out->push_back(uint8_t(v >> 16));
    out->push_back(uint8_t(v >> 24));
}

/** How long the driver waits at exit for a capture's last flush. */
constexpr int64_t kCloseWaitMillis = 120000;

/** Closes the conflict set on every way out. */
struct ConflictSetCloser {
    fdbresolver::ConflictSet* cs;
    ~ConflictSetCloser() {
        if (cs == nullptr) return;
        fdbr_close(cs->resolver);
        delete cs;
        awaitCloses();
    }

    /** fdbr_close returns before a capture is written whole, and this process is about to exit: wait for it. */
    static bool awaitCloses() {
        if (fdbr_await_closes(kCloseWaitMillis) == FDBR_OK) return true;
        std::fprintf(stderr, "fdbresolver-replay: %s\n", fdbr_last_error());
        return false;
    }
};

/**
 * The trace's batches, --cycles times: the first cycle as read; for the later ones the trace is held in memory
 * (keys copied out of the reader's buffer) and every version, oldest version and read snapshot shifted by the span
 * of one cycle (last version - first version + the first step), as the Java WorkloadBench cycles a trace.
 */
class BatchSource {
public:
    BatchSource(replay::TraceReader* reader, int64_t cycles) : reader_(reader), cycles_(cycles) {}

    /** The next batch, or nullptr at the end. Throws replay::TraceError. */
    const replay::Batch* next() {
        if (cycle_ == 0) {
            if (reader_->next(&read_)) {
                if (cycles_ > 1) keep(read_);
                return &read_;
            }
            if (cycles_ == 1 || stored_.empty()) return nullptr;
            const replay::Batch& first = stored_.front()->batch;
            int64_t step = stored_.size() > 1 ? stored_[1]->batch.version - first.version : 1;
            span_ = stored_.back()->batch.version - first.version + std::max<int64_t>(1, step);
            cycle_ = 1;
            at_ = 0;
        }
        if (at_ == stored_.size()) {
            if (++cycle_ == cycles_) return nullptr;
            at_ = 0;
        }
        replay::Batch& b = stored_[at_++]->batch;
        b.version += span_;
        b.newOldestVersion += span_;
        for (size_t t = 0; t < b.transactionCount; t++) b.transactions[t].read_snapshot += span_;
        return &b;
    }

private:
    struct Stored {
        replay::Batch batch;
        std::vector<uint8_t> keys;
    };

    /** Keeps a copy of batch whose keys point into its own bytes. */
    void keep(const replay::Batch& batch) {
        std::unique_ptr<Stored> s(new Stored());
        size_t bytes = 0;
        for (size_t t = 0; t < batch.transactionCount; t++) {
            for (const auto* list : {&batch.transactions[t].read_conflict_ranges, &batch.transactions[t].write_conflict_ranges}) {
                for (const auto& r : *list) bytes += size_t(r.begin.length) + size_t(r.end.length);
            }
        }
        s->keys.resize(bytes);
        s->batch.version = batch.version;
        s->batch.newOldestVersion = batch.newOldestVersion;
        s->batch.transactionCount = batch.transactionCount;
        s->batch.transactions.assign(batch.transactions.begin(), batch.transactions.begin() + batch.transactionCount);
        uint8_t* at = s->keys.data();
        auto copy = [&at](replay::KeyRef& k) {
            if (k.length > 0) std::memcpy(at, k.data, size_t(k.length));
            k.data = at;
            at += k.length;
        };
        for (auto& tr : s->batch.transactions) {
            for (auto* list : {&tr.read_conflict_ranges, &tr.write_conflict_ranges}) {
                for (auto& r : *list) {
                    copy(r.begin);
                    copy(r.end);
                }
            }
        }
        stored_.push_back(std::move(s));
    }

    replay::TraceReader* reader_;
    int64_t cycles_;
    int64_t cycle_ = 0;
    replay::Batch read_;
    std::vector<std::unique_ptr<Stored>> stored_;
    size_t at_ = 0;
    int64_t span_ = 0;
};

int replayTrace(const Options& o) {
    std::unique_ptr<replay::TraceReader> reader;
    try {
        reader.reset(new replay::TraceReader(o.tracePath));
    } catch (const replay::TraceError& e) {
        return fail(kBadInput, e.what());
    }
    if (reader->firstSegment() > 0) {
        std::fprintf(stderr, "fdbresolver-replay: note: %s starts at segment %d (the capture deleted the ones before): "
                     "replayed without their history, its decisions may differ from those it recorded\n",
                     o.tracePath.c_str(), reader->firstSegment());
    }
    fdbresolver::Config config = o.config;
    if (config.classPath.empty() && std::getenv("FDBRESOLVER_CLASS_PATH") == nullptr) {
        config.classPath = defaultClassPath();
    }
    ConflictSetCloser closer{nullptr};
    if (o.settings.empty()) {
        try {
            closer.cs = fdbresolver::newConflictSet(config);
        } catch (const fdbresolver::Error& e) {
            std::string why = withoutFunctionName(fdbr_last_error());
            return e.status() == FDBR_INVALID_ARGUMENT ? fail(kBadInput, why)
                                                       : fail(kFailure, "cannot start the engine: " + why);
        }
    } else {
        // As FoundationDB's Resolver hook opens the plugin: one configuration text.
        fdbr_resolver* resolver = nullptr;
        fdbr_status status = fdbr_open_text(configurationText(config, o.settings).c_str(), &resolver);
        if (status != FDBR_OK) {
            std::string why = withoutFunctionName(fdbr_last_error());
            return status == FDBR_INVALID_ARGUMENT ? fail(kBadInput, why) : fail(kFailure, "cannot start the engine: " + why);
        }
        closer.cs = new fdbresolver::ConflictSet();
        closer.cs->library = &fdbresolver::Library::linked();
        closer.cs->resolver = resolver;
    }
    fdbresolver::ConflictSet* cs = closer.cs;

    replay::Sha256 decisionHash;
    replay::Sha256 conflictingKeysHash;
    BatchSource source(reader.get(), o.cycles);
    std::vector<int> commitList;
    std::vector<int> tooOldList;
    std::map<int, std::vector<int>> conflictingKeyRangeMap;
    std::vector<uint8_t> decisions;
    std::vector<uint8_t> conflictingKeys;
    uint64_t batches = 0, transactions = 0, counts[3] = {0, 0, 0};
    uint64_t timedTransactions = 0;
    int64_t timedNanos = 0;
    int64_t timedCpuNanos = 0;
    BatchLatencies latencies;
    fdbr_stats atStart{};

    try {
        while (const replay::Batch* next = source.next()) {
            const replay::Batch& batch = *next;
            if (o.pauseMicros > 0 && batches > 0) {
                std::this_thread::sleep_for(std::chrono::microseconds(o.pauseMicros));
            }
            bool timed = batches >= uint64_t(o.warmup);
            if (batches == uint64_t(o.warmup)) atStart = fdbresolver::getStats(cs);
            commitList.clear();
            tooOldList.clear();
            conflictingKeyRangeMap.clear();

            // What FoundationDB's Resolver does for one ResolveTransactionBatchRequest. The thread's CPU clock is
            // read outside the wall-clock window: it is a system call, about 3 µs on a virtual machine (kvm-clock),
            // where it once made up half of the bridge's per-batch time on a capture of 1.8-transaction batches.
            int64_t startCpu = threadCpuNanos();
            int64_t start = monotonicNanos();
            {
                fdbresolver::ConflictBatch conflictBatch(cs, &conflictingKeyRangeMap);
                for (size_t t = 0; t < batch.transactionCount; t++) {
                    conflictBatch.addTransaction(batch.transactions[t], batch.newOldestVersion);
                }
                fdbr_status status = conflictBatch.tryDetectConflicts(batch.version, batch.newOldestVersion,
                                                                      commitList, &tooOldList);
                if (status == FDBR_INVALID_BATCH) {
                    return fail(kBadInput, o.tracePath + ": " + conflictBatch.lastError());
                }
                if (status != FDBR_OK) {
                    return fail(kFailure, o.tracePath + ": batch " + std::to_string(batches) + ": the engine failed (" +
                                              fdbr_status_name(status) + "): " + conflictBatch.lastError());
                }
            }
            int64_t elapsed = monotonicNanos() - start;
            int64_t elapsedCpu = threadCpuNanos() - startCpu;
            if (timed) {
                timedNanos += elapsed;
                timedCpuNanos += elapsedCpu;
                timedTransactions += batch.transactionCount;
                latencies.record(batches, batch.version, elapsed, elapsedCpu);
            }

            decisions.assign(batch.transactionCount, uint8_t(FDBR_CONFLICT));
            for (int t : commitList) decisions[size_t(t)] = FDBR_COMMIT;
            for (int t : tooOldList) decisions[size_t(t)] = FDBR_TOO_OLD;
            decisionHash.update(decisions.data(), decisions.size());
            for (uint8_t d : decisions) counts[d]++;
            conflictingKeys.clear();
            for (const auto& entry : conflictingKeyRangeMap) {
                appendLittleEndian32(&conflictingKeys, uint32_t(entry.first));
                for (int r : entry.second) appendLittleEndian32(&conflictingKeys, uint32_t(r));
            }
            conflictingKeysHash.update(conflictingKeys.data(), conflictingKeys.size());
            batches++;
            transactions += batch.transactionCount;
        }
    } catch (const replay::TraceError& e) {
        return fail(kBadInput, e.what());
    } catch (const fdbresolver::Error& e) {
        return fail(kFailure, o.tracePath + ": batch " + std::to_string(batches) + ": " + e.what());
    }
    if (o.warmup > 0 && batches <= uint64_t(o.warmup)) {
        return fail(kBadInput, "--warmup " + std::to_string(o.warmup) + " leaves no batch to time: " + o.tracePath +
                                   " has " + std::to_string(batches) + " batches");
    }
    if (batches <= uint64_t(o.warmup)) atStart = fdbresolver::getStats(cs);
    fdbr_stats atEnd = fdbresolver::getStats(cs);
    double seconds = timedNanos / 1e9;
    double engineSeconds = (atEnd.engine_nanos - atStart.engine_nanos) / 1e9;
    std::printf("trace: %s\n", o.tracePath.c_str());
    std::printf("engine: %s\n", fdbresolver::engineName(cs).c_str());
    std::printf("decision-hash: %s\n", decisionHash.hexDigest().c_str());
    std::printf("conflicting-keys-hash: %s\n", conflictingKeysHash.hexDigest().c_str());
    std::printf("batches: %" PRIu64 "\n", batches);
    std::printf("transactions: %" PRIu64 "\n", transactions);
    std::printf("commit: %" PRIu64 "\n", counts[FDBR_COMMIT]);
    std::printf("conflict: %" PRIu64 "\n", counts[FDBR_CONFLICT]);
    std::printf("too-old: %" PRIu64 "\n", counts[FDBR_TOO_OLD]);
    std::printf("warmup-batches: %" PRId64 "\n", o.warmup);
    std::printf("seconds: %.6f\n", seconds);
    std::printf("transactions/sec: %.0f\n", seconds > 0 ? timedTransactions / seconds : 0.0);
    std::printf("cpu-seconds: %.6f\n", timedCpuNanos / 1e9);
    std::printf("bridge-seconds: %.6f\n", seconds - engineSeconds);
    std::printf("engine-seconds: %.6f\n", engineSeconds);
    // Inside fdbr_resolve (crossing, reading the tables, key copies, engine); the rest of
    // bridge-seconds is fdbresolver.hpp laying out the batch and handing back the lists.
    std::printf("resolve-call-seconds: %.6f\n", (atEnd.resolve_nanos - atStart.resolve_nanos) / 1e9);
    std::printf("memory-budget-bytes: %" PRId64 "\n", atEnd.memory_budget_bytes);
    std::printf("history-bytes: %" PRId64 "\n", atEnd.history_bytes);
    std::printf("retained-version: %" PRId64 "\n", atEnd.retained_version);
    latencies.print();
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        return fail(kBadInput, std::string("cannot write the results to standard output: ") + std::strerror(errno));
    }
    if (!o.settings.empty()) {
        std::string warnings = fdbresolver::takeWarnings(cs);
        for (size_t start = 0; start < warnings.size();) {
            size_t end = warnings.find('\n', start);
            if (end == std::string::npos) end = warnings.size();
            if (end > start) std::fprintf(stderr, "fdbresolver-replay: library warning: %s\n", warnings.substr(start, end - start).c_str());
            start = end + 1;
        }
    }
    fdbresolver::ConflictSet* done = closer.cs;
    closer.cs = nullptr;
    try {
        fdbresolver::destroyConflictSet(done);
    } catch (const fdbresolver::Error& e) {
        return fail(kFailure, std::string("closing the resolver failed: ") + e.what());
    }
    // With capture=, the close returned at once: what is queued is written and the segment finished meanwhile.
    return ConflictSetCloser::awaitCloses() ? kOk : kFailure;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        Options o = parseArguments(argc, argv);
        if (o.help) {
            usage(stdout);
            return kOk;
        }
        if (o.oldBudgetName) {
            std::fputs("fdbresolver-replay: note: --memory-budget is now --budget, the fdbresolver CLI's name; "
                       "the old name still works\n", stderr);
        }
        return replayTrace(o);
    } catch (const UsageError& e) {
        return fail(kBadInput, e.message);
    } catch (const std::bad_alloc&) {
        return fail(kFailure, "out of memory");
    } catch (const std::exception& e) {
        return fail(kFailure, e.what());
    }
}
