// fdbresolver.hpp - header-only C++ face of libfdbresolver, shaped like FoundationDB's
// fdbserver/ConflictSet.h so that its Resolver swaps the skip list for the fdbresolver engine with a
// few lines (docs/fdb-integration.md):
//
//     fdbresolver::ConflictSet* cs = fdbresolver::newConflictSet(config);
//     ...
//     fdbresolver::ConflictBatch batch(cs, &conflictingKeyRangeMap);
//     for (auto& tr : req.transactions) batch.addTransaction(tr, newOldestVersion);
//     batch.detectConflicts(req.version, newOldestVersion, commitList, &tooOldList);
//     ...
//     fdbresolver::destroyConflictSet(cs);
//
// addTransaction is a template over the transaction type and reads FoundationDB's
// CommitTransactionRef member names (read_snapshot, read_conflict_ranges, write_conflict_ranges,
// report_conflicting_keys; each range has begin/end exposing begin() and size()), so FDB's own
// types fit with no conversion code. Like FDB's ConflictBatch it keeps pointers to the key bytes:
// they must stay valid until detectConflicts returns. The batch crosses into the JVM once, in
// detectConflicts; failures throw fdbresolver::Error (or come back as a status from
// tryDetectConflicts), and a failed batch changes no state. The result is checked (checkResult) before any
// of it is read; a malformed one is FDBR_ENGINE_ERROR "malformed output: ...", a broken library.
//
// Loading: a host that links libfdbresolver calls newConflictSet(config). A host that must not depend on
// it at link time (fdbserver, where the plugin is chosen at run time by a knob) loads it with
// Library::load(path) — dlopen, nothing else resolved until then — and passes the Library to
// newConflictSet; every call of that conflict set then goes through the loaded library.
//
// Threads: one batch at a time per ConflictSet, as in FDB's Resolver. A ConflictSet may be used from
// any thread (threads are attached to the JVM automatically); concurrent calls on one ConflictSet
// are serialized by the library, but building two batches at once on one ConflictSet is not allowed.
#ifndef FDBRESOLVER_HPP
#define FDBRESOLVER_HPP

#include "fdbresolver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace fdbresolver {

/** The constant name of a status (as fdbr_status_name, without calling into the library). */
inline const char* statusName(fdbr_status status) {
    switch (status) {
        case FDBR_OK: return "FDBR_OK";
        case FDBR_INVALID_BATCH: return "FDBR_INVALID_BATCH";
        case FDBR_ENGINE_ERROR: return "FDBR_ENGINE_ERROR";
        case FDBR_INVALID_ARGUMENT: return "FDBR_INVALID_ARGUMENT";
        case FDBR_JVM_ERROR: return "FDBR_JVM_ERROR";
        case FDBR_OUT_OF_MEMORY: return "FDBR_OUT_OF_MEMORY";
    }
    return "FDBR_UNKNOWN_STATUS";
}

/** A failed call: the library's status and message. */
class Error : public std::runtime_error {
public:
    Error(fdbr_status status, const std::string& message)
      : std::runtime_error(std::string(statusName(status)) + ": " + message), status_(status) {}
    fdbr_status status() const { return status_; }

private:
    fdbr_status status_;
};

/**
 * The C ABI's entry points, either linked into the host (linked()) or loaded from a shared library
 * at run time (load()). A ConflictSet calls only through the Library it was opened with.
 */
struct Library {
    decltype(&fdbr_config_init) configInit;
    decltype(&fdbr_open) open;
    decltype(&fdbr_open_text) openText;
    decltype(&fdbr_close) close;
    decltype(&fdbr_resolve) resolve;
    decltype(&fdbr_clear) clear;
    decltype(&fdbr_get_stats) getStats;
    decltype(&fdbr_last_error) lastError;
    decltype(&fdbr_status_name) statusName;
    decltype(&fdbr_engine_name) engineName;
    decltype(&fdbr_get_batch_stats) getBatchStats;
    decltype(&fdbr_get_counters) getCounters;
    decltype(&fdbr_take_warnings) takeWarnings;
    decltype(&fdbr_host_memory_room) hostMemoryRoom;

    /** The functions linked into this program (needs -lfdbresolver at link time). */
    static const Library& linked() {
        static const Library library{&fdbr_config_init, &fdbr_open, &fdbr_open_text, &fdbr_close, &fdbr_resolve,
                                     &fdbr_clear, &fdbr_get_stats, &fdbr_last_error, &fdbr_status_name,
                                     &fdbr_engine_name, &fdbr_get_batch_stats, &fdbr_get_counters,
                                     &fdbr_take_warnings, &fdbr_host_memory_room};
        return library;
    }

    /**
     * Loads libfdbresolver (or a library with the same C ABI) from path with dlopen. Returns nullptr
     * with *error set when the file cannot be loaded or lacks an entry point. The library stays loaded
     * for the life of the process (a JVM it started cannot be unloaded); loading the same path again
     * returns the same functions.
     */
    static const Library* load(const std::string& path, std::string* error) {
        static std::mutex mutex;
        static std::map<std::string, const Library*> loaded;
        std::lock_guard<std::mutex> lock(mutex);
        auto known = loaded.find(path);
        if (known != loaded.end()) {
            return known->second;
        }
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            *error = "cannot load " + path + ": " + (why != nullptr ? why : "dlopen failed");
            return nullptr;
        }
        Library* library = new Library();
        bool complete = symbol(handle, "fdbr_config_init", &library->configInit, path, error) &&
                        symbol(handle, "fdbr_open", &library->open, path, error) &&
                        symbol(handle, "fdbr_open_text", &library->openText, path, error) &&
                        symbol(handle, "fdbr_close", &library->close, path, error) &&
                        symbol(handle, "fdbr_resolve", &library->resolve, path, error) &&
                        symbol(handle, "fdbr_clear", &library->clear, path, error) &&
                        symbol(handle, "fdbr_get_stats", &library->getStats, path, error) &&
                        symbol(handle, "fdbr_last_error", &library->lastError, path, error) &&
                        symbol(handle, "fdbr_status_name", &library->statusName, path, error) &&
                        symbol(handle, "fdbr_engine_name", &library->engineName, path, error) &&
                        symbol(handle, "fdbr_get_batch_stats", &library->getBatchStats, path, error) &&
                        symbol(handle, "fdbr_get_counters", &library->getCounters, path, error) &&
                        symbol(handle, "fdbr_take_warnings", &library->takeWarnings, path, error) &&
                        symbol(handle, "fdbr_host_memory_room", &library->hostMemoryRoom, path, error);
        if (!complete) {
            delete library;
            return nullptr;  // the handle stays open: dlclose of a library that may have started a JVM is unsafe
        }
        loaded[path] = library;
        return library;  // lives as long as the process, like the loaded code
    }

private:
    template <class F>
    static bool symbol(void* handle, const char* name, F* out, const std::string& path, std::string* error) {
        *out = reinterpret_cast<F>(dlsym(handle, name));
        if (*out == nullptr) {
            *error = path + " lacks " + name + " (not an fdbresolver library, or an older one)";
            return false;
        }
        return true;
    }
};

/** One setting of a configuration text. */
struct Setting {
    std::string name;
    std::string value;
};

/**
 * Splits a configuration text ("engine=tree;memory_budget=4g;jvm_option=-Xmx6g") into its settings, exactly as
 * fdbr_open_text reads it, so that a host taking some settings for itself (FoundationDB's Resolver hook) and
 * the library agree on every text: settings are separated by ';' or newlines, blanks (space, tab, CR) around
 * names and values are dropped, empty settings are skipped, and the value is everything after the first '='
 * (so "engine_option=readPath=single" is the setting engine_option with value "readPath=single"). Returns false
 * with *error naming the setting that is not name=value.
 */
inline bool parseSettings(const std::string& text, std::vector<Setting>* out, std::string* error) {
    auto trim = [](const std::string& t) {
        size_t b = t.find_first_not_of(" \t\r");
        if (b == std::string::npos) return std::string();
        size_t e = t.find_last_not_of(" \t\r");
        return t.substr(b, e - b + 1);
    };
    out->clear();
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find_first_of(";\n", start);
        if (end == std::string::npos) end = text.size();
        std::string setting = trim(text.substr(start, end - start));
        start = end + 1;
        if (setting.empty()) continue;
        size_t eq = setting.find('=');
        if (eq == std::string::npos || trim(setting.substr(0, eq)).empty()) {
            *error = "'" + setting + "' is not name=value";
            return false;
        }
        out->push_back(Setting{trim(setting.substr(0, eq)), trim(setting.substr(eq + 1))});
    }
    return true;
}

/** The settings as one configuration text that parseSettings reads back to the same settings. */
inline std::string formatSettings(const std::vector<Setting>& settings) {
    std::string text;
    for (const Setting& s : settings) {
        if (!text.empty()) text += ';';
        text += s.name + "=" + s.value;
    }
    return text;
}

/** How to open a conflict set (fdbr_config with owned strings). */
struct Config {
    /** Engine jar and dependencies, ':'-separated, "dir/\*" allowed; empty: $FDBRESOLVER_CLASS_PATH. */
    std::string classPath;
    /** JVM options, e.g. "-Xmx4g"; used only by the call that starts the process's JVM. */
    std::vector<std::string> jvmOptions;
    /** Keep the JVM's SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers (no -Xrs). */
    bool keepJvmSignalHandlers = false;
    /** Engine name; empty: the engine's default. */
    std::string engine;
    /** History memory budget in bytes; 0: the default. */
    int64_t memoryBudgetBytes = 0;
    /** Longest key accepted; 0: the default. */
    int32_t maxKeyBytes = 0;
    /** Engine options, "name=value". */
    std::vector<std::string> engineOptions;

    /** Reads FDBRESOLVER_ENGINE and FDBRESOLVER_JVM_OPTIONS (space-separated); class path from
     * FDBRESOLVER_CLASS_PATH (read by the library). */
    static Config fromEnvironment() {
        Config c;
        if (const char* e = std::getenv("FDBRESOLVER_ENGINE")) c.engine = e;
        if (const char* o = std::getenv("FDBRESOLVER_JVM_OPTIONS")) {
            std::string all = o;
            size_t i = 0;
            while (i < all.size()) {
                size_t j = all.find(' ', i);
                if (j == std::string::npos) j = all.size();
                if (j > i) c.jvmOptions.push_back(all.substr(i, j - i));
                i = j + 1;
            }
        }
        return c;
    }
};

/** A resolver's conflict set, backed by the Java engine. Create with newConflictSet. */
struct ConflictSet {
    const Library* library = nullptr;  // every call goes through it
    fdbr_resolver* resolver = nullptr;
    // Batch tables reused from batch to batch: the memory that crosses into the JVM.
    std::vector<fdbr_transaction> transactions;
    std::vector<fdbr_range> ranges;
    bool batchOpen = false;
};

inline void check(const ConflictSet* cs, fdbr_status status) {
    if (status != FDBR_OK) throw Error(status, cs->library->lastError());
}

/**
 * Opens a conflict set through library (starting the process's JVM on first use). Throws Error on
 * failure.
 */
inline ConflictSet* newConflictSet(const Library& library, const Config& config) {
    std::vector<const char*> jvm, engine;
    for (const auto& s : config.jvmOptions) jvm.push_back(s.c_str());
    for (const auto& s : config.engineOptions) engine.push_back(s.c_str());
    fdbr_config c;
    library.configInit(&c);
    c.class_path = config.classPath.empty() ? nullptr : config.classPath.c_str();
    c.jvm_options = jvm.data();
    c.jvm_option_count = static_cast<uint32_t>(jvm.size());
    c.keep_jvm_signal_handlers = config.keepJvmSignalHandlers ? 1 : 0;
    c.engine = config.engine.empty() ? nullptr : config.engine.c_str();
    c.memory_budget_bytes = config.memoryBudgetBytes;
    c.max_key_bytes = config.maxKeyBytes;
    c.engine_options = engine.data();
    c.engine_option_count = static_cast<uint32_t>(engine.size());
    ConflictSet* cs = new ConflictSet();
    cs->library = &library;
    fdbr_status status = library.open(&c, &cs->resolver);
    if (status != FDBR_OK) {
        delete cs;
        throw Error(status, library.lastError());
    }
    return cs;
}

/** Opens a conflict set with the linked library (the host links -lfdbresolver). */
inline ConflictSet* newConflictSet(const Config& config = Config::fromEnvironment()) {
    return newConflictSet(Library::linked(), config);
}

/**
 * Opens a conflict set through library from a configuration text ("engine=tree;memory_budget=4g;...",
 * fdbr_open_text). Returns nullptr with *error set on failure.
 */
inline ConflictSet* newConflictSet(const Library& library, const std::string& configText, std::string* error) {
    ConflictSet* cs = new ConflictSet();
    cs->library = &library;
    fdbr_status status = library.openText(configText.c_str(), &cs->resolver);
    if (status != FDBR_OK) {
        *error = std::string(statusName(status)) + ": " + library.lastError();
        delete cs;
        return nullptr;
    }
    return cs;
}

/** Forgets the history; reads older than version are too old from now on. */
inline void clearConflictSet(ConflictSet* cs, int64_t version) {
    check(cs, cs->library->clear(cs->resolver, version));
}

/** Closes the conflict set (the JVM stays for later ones). */
inline void destroyConflictSet(ConflictSet* cs) {
    if (cs == nullptr) return;
    const Library* library = cs->library;
    fdbr_status status = library->close(cs->resolver);
    delete cs;
    if (status != FDBR_OK) throw Error(status, library->lastError());
}

/** The conflict set's counters (history bytes, retained version, phase and bridge times). */
inline fdbr_stats getStats(ConflictSet* cs) {
    fdbr_stats s;
    check(cs, cs->library->getStats(cs->resolver, &s));
    return s;
}

/** Counters, decisions by kind and memory in one call into the JVM (fdbr_get_counters). */
struct Counters {
    fdbr_stats stats;
    fdbr_batch_stats batch;
    fdbr_memory memory;
};

inline Counters getCounters(ConflictSet* cs) {
    Counters c{};
    check(cs, cs->library->getCounters(cs->resolver, &c.stats, &c.batch, &c.memory));
    return c;
}

/**
 * What the host may hold beside the JVM inside process_memory_limit less host_memory_reserve (fdbr_host_memory_room);
 * -1 without a limit. No call into the JVM.
 */
inline int64_t hostMemoryRoom(ConflictSet* cs) {
    return cs->library->hostMemoryRoom(cs->resolver);
}

/** The warnings waiting for the host, one per line, taken (fdbr_take_warnings); "" when none. */
inline std::string takeWarnings(ConflictSet* cs) {
    const char* text = cs->library->takeWarnings(cs->resolver);
    return text != nullptr ? text : "";
}

/** Decisions by kind, TOO_OLD answers by cause, and the last batch's figures. */
inline fdbr_batch_stats getBatchStats(ConflictSet* cs) {
    fdbr_batch_stats s;
    check(cs, cs->library->getBatchStats(cs->resolver, &s));
    return s;
}

/** The name of the engine the conflict set runs (the default engine's when Config::engine was empty). */
inline std::string engineName(const ConflictSet* cs) {
    const char* name = cs->library->engineName(cs->resolver);
    return name != nullptr ? name : "";
}

/**
 * Checks a batch's result against the batch before a host sends any of it, in O(n + conflicting reads): everything
 * FoundationDB's Resolver and commit proxy rely on, so that no library behind the ABI, however wrong, can make the
 * host send a wrong answer or fail an assertion:
 * - a decision per transaction, each COMMIT, CONFLICT or TOO_OLD; FoundationDB's rules that need no history (a
 *   transaction without reads commits; one that reads below newOldestVersion is TOO_OLD);
 * - an entry for exactly the reporting transactions (report_conflicting_keys) decided CONFLICT, ascending; each
 *   entry has at least one conflicting read (the commit proxy asserts that a reporting transaction aborted as a
 *   conflict gets at least one conflicting key range);
 * - the starts begin at 0 and never decrease, an entry holds at most its transaction's read count, and each read
 *   index is among the transaction's reads, ascending.
 * Memory-safe whatever the values: it reads decisions[0 .. n) only once transaction_count is n, the entries and
 * their starts (C and C + 1 of them) only once C <= n, and conflicting_reads only below starts[C] once every start
 * is checked, which is the array's length by the ABI (fdbresolver.h). Returns "" when the result is sound, else what
 * is wrong. Transactions is any indexable sequence of FoundationDB-shaped transactions (read_snapshot,
 * read_conflict_ranges, report_conflicting_keys), such as VectorRef<CommitTransactionRef>. FoundationDB's Resolver
 * hook treats a result that fails it as a failed batch.
 */
template <class Transactions>
std::string checkResult(const fdbr_result& r, const Transactions& transactions, int64_t newOldestVersion) {
    const uint32_t n = static_cast<uint32_t>(transactions.size());
    auto at = [](uint32_t t) { return "transaction " + std::to_string(t); };
    if (r.transaction_count != n || (n > 0 && r.decisions == nullptr)) {
        return "decisions for " + std::to_string(r.transaction_count) + " of " + std::to_string(n) + " transactions";
    }
    auto reportingConflict = [&](uint32_t t) {
        return r.decisions[t] == FDBR_CONFLICT && bool(transactions[t].report_conflicting_keys);
    };
    for (uint32_t t = 0; t < n; t++) {
        const uint8_t d = r.decisions[t];
        const auto& tr = transactions[t];
        const bool reads = tr.read_conflict_ranges.size() > 0;
        if (d > FDBR_TOO_OLD) return at(t) + " has decision " + std::to_string(d);
        if (!reads && d != FDBR_COMMIT) return at(t) + " reads nothing and is not committed";
        if (reads && tr.read_snapshot < newOldestVersion && d != FDBR_TOO_OLD) {
            return at(t) + " reads below the oldest version and is not TOO_OLD";
        }
    }
    const uint32_t c = r.conflicting_count;
    if (c > n || (c > 0 && (r.conflicting_transactions == nullptr || r.conflicting_read_starts == nullptr ||
                            r.conflicting_reads == nullptr))) {
        return std::to_string(c) + " conflicting-read entries for " + std::to_string(n) + " transactions";
    }
    auto missing = [&](uint32_t t) {
        return at(t) + " reports conflicting keys and is decided CONFLICT but has no conflicting reads";
    };
    // The entries: distinct reporting transactions decided CONFLICT, ascending.
    for (uint32_t i = 0; i < c; i++) {
        const uint32_t t = r.conflicting_transactions[i];
        if (t >= n || (i > 0 && t <= r.conflicting_transactions[i - 1])) {
            return "conflicting-read entry " + std::to_string(i) + " names transaction " + std::to_string(t) +
                   (t >= n ? " of " + std::to_string(n) : ", not after the entry before it");
        }
        if (!reportingConflict(t)) {
            return at(t) + " has conflicting reads but is not a reporting transaction decided CONFLICT";
        }
    }
    // And every reporting transaction decided CONFLICT has one: the first without, merged in one pass.
    for (uint32_t t = 0, i = 0; t < n; t++) {
        if (i < c && r.conflicting_transactions[i] == t) {
            i++;
        } else if (reportingConflict(t)) {
            return missing(t);
        }
    }
    if (c == 0) return "";
    // The starts, all of them before any read index: conflicting_reads holds starts[c] of them.
    if (r.conflicting_read_starts[0] != 0) {
        return "conflicting-read starts begin at " + std::to_string(r.conflicting_read_starts[0]) + ", not 0";
    }
    for (uint32_t i = 0; i < c; i++) {
        const uint32_t t = r.conflicting_transactions[i];
        const uint32_t begin = r.conflicting_read_starts[i], end = r.conflicting_read_starts[i + 1];
        const uint32_t readCount = static_cast<uint32_t>(transactions[t].read_conflict_ranges.size());
        if (end < begin) {
            return "conflicting-read starts decrease at entry " + std::to_string(i + 1) + " (" + std::to_string(begin) +
                   " then " + std::to_string(end) + ")";
        }
        if (end == begin) return missing(t);
        if (end - begin > readCount) {
            return at(t) + " has " + std::to_string(end - begin) + " conflicting reads of " + std::to_string(readCount);
        }
    }
    for (uint32_t i = 0; i < c; i++) {
        const uint32_t t = r.conflicting_transactions[i];
        const uint32_t begin = r.conflicting_read_starts[i], end = r.conflicting_read_starts[i + 1];
        const uint32_t readCount = static_cast<uint32_t>(transactions[t].read_conflict_ranges.size());
        for (uint32_t j = begin; j < end; j++) {
            const uint32_t read = r.conflicting_reads[j];
            if (read >= readCount || (j > begin && read <= r.conflicting_reads[j - 1])) {
                return at(t) + " names conflicting read " + std::to_string(read) + " of " + std::to_string(readCount);
            }
        }
    }
    return "";
}

namespace detail {

/** A transaction of the C table as checkResult reads one: its snapshot, its read count, whether it reports. */
struct TableTransaction {
    struct Count {
        uint32_t n;
        uint32_t size() const { return n; }
    };
    int64_t read_snapshot;
    Count read_conflict_ranges;
    bool report_conflicting_keys;
};

/** The C transaction table (what crossed into the library) as checkResult's indexable sequence. */
struct TransactionTable {
    const std::vector<fdbr_transaction>* table;
    size_t size() const { return table->size(); }
    TableTransaction operator[](size_t t) const {
        const fdbr_transaction& tr = (*table)[t];
        return TableTransaction{tr.read_snapshot, {tr.read_count}, (tr.flags & FDBR_REPORT_CONFLICTING_KEYS) != 0};
    }
};

}  // namespace detail

/** One batch, as FoundationDB's ConflictBatch: addTransaction for each, then detectConflicts. */
class ConflictBatch {
public:
    /** FoundationDB's values, which go over the wire in ResolveTransactionBatchReply::committed. */
    enum TransactionCommitResult {
        TransactionConflict = 0,
        TransactionTooOld,
        TransactionTenantFailure,
        TransactionCommitted,
    };

    explicit ConflictBatch(ConflictSet* cs, std::map<int, std::vector<int>>* conflictingKeyRangeMap = nullptr)
      : cs_(cs), conflictingKeyRangeMap_(conflictingKeyRangeMap) {
        if (cs_->batchOpen) {
            throw Error(FDBR_INVALID_ARGUMENT, "a batch is already being built on this conflict set (one at a time)");
        }
        cs_->transactions.clear();
        cs_->ranges.clear();
        cs_->batchOpen = true;
    }
    ~ConflictBatch() { cs_->batchOpen = false; }
    ConflictBatch(const ConflictBatch&) = delete;
    ConflictBatch& operator=(const ConflictBatch&) = delete;

    /** Adds one transaction; its key bytes must stay valid until detectConflicts returns. */
    template <class Transaction>
    void addTransaction(const Transaction& tr, int64_t newOldestVersion) {
        if (cs_->transactions.empty()) {
            newOldestVersion_ = newOldestVersion;
        } else if (newOldestVersion != newOldestVersion_) {
            mixedOldestVersions_ = true;
        }
        fdbr_transaction t;
        t.read_snapshot = tr.read_snapshot;
        t.read_count = static_cast<uint32_t>(tr.read_conflict_ranges.size());
        t.write_count = static_cast<uint32_t>(tr.write_conflict_ranges.size());
        t.flags = tr.report_conflicting_keys ? FDBR_REPORT_CONFLICTING_KEYS : 0u;
        t.reserved = 0;
        cs_->transactions.push_back(t);
        for (const auto& r : tr.read_conflict_ranges) addRange(r.begin, r.end);
        for (const auto& r : tr.write_conflict_ranges) addRange(r.begin, r.end);
    }

    /**
     * Decides the batch at commit version now. nonConflicting gets the committed transactions'
     * indices, tooOldTransactions (if given) the too-old ones; the conflicting-key-range map (if
     * given to the constructor) gets, for each reporting transaction that conflicted, its
     * conflicting read-range indices. Throws Error on failure; the conflict set is then unchanged.
     */
    void detectConflicts(int64_t now, int64_t newOldestVersion, std::vector<int>& nonConflicting,
                         std::vector<int>* tooOldTransactions = nullptr) {
        fdbr_status status = tryDetectConflicts(now, newOldestVersion, nonConflicting, tooOldTransactions);
        if (status != FDBR_OK) throw Error(status, error_);
    }

    /** detectConflicts without exceptions: the status, with lastError() on failure. */
    fdbr_status tryDetectConflicts(int64_t now, int64_t newOldestVersion, std::vector<int>& nonConflicting,
                                   std::vector<int>* tooOldTransactions = nullptr) {
        if (mixedOldestVersions_ || (!cs_->transactions.empty() && newOldestVersion != newOldestVersion_)) {
            error_ = "addTransaction's newOldestVersion must equal detectConflicts' for every transaction";
            return FDBR_INVALID_ARGUMENT;
        }
        fdbr_status status = cs_->library->resolve(cs_->resolver, now, newOldestVersion, cs_->transactions.data(),
                                          static_cast<uint32_t>(cs_->transactions.size()), cs_->ranges.data(),
                                          static_cast<uint32_t>(cs_->ranges.size()), &result_);
        if (status != FDBR_OK) {
            error_ = cs_->library->lastError();
            return status;
        }
        // Nothing of the result is read before it is checked against the batch that crossed (memory-safe whatever
        // library answers). Malformed output means the library itself is broken: the host should stop using it.
        std::string malformed = checkResult(result_, detail::TransactionTable{&cs_->transactions}, newOldestVersion);
        if (!malformed.empty()) {
            error_ = "malformed output: " + malformed;
            result_ = fdbr_result{};
            return FDBR_ENGINE_ERROR;
        }
        for (uint32_t t = 0; t < result_.transaction_count; t++) {
            uint8_t d = result_.decisions[t];
            if (d == FDBR_COMMIT) {
                nonConflicting.push_back(static_cast<int>(t));
            } else if (d == FDBR_TOO_OLD && tooOldTransactions != nullptr) {
                tooOldTransactions->push_back(static_cast<int>(t));
            }
        }
        if (conflictingKeyRangeMap_ != nullptr) {
            for (uint32_t i = 0; i < result_.conflicting_count; i++) {
                std::vector<int>& reads = (*conflictingKeyRangeMap_)[static_cast<int>(result_.conflicting_transactions[i])];
                reads.assign(result_.conflicting_reads + result_.conflicting_read_starts[i],
                             result_.conflicting_reads + result_.conflicting_read_starts[i + 1]);
            }
        }
        return FDBR_OK;
    }

    /**
     * Calls sink(int transaction, const uint32_t* readIndices, size_t count) for each reporting
     * transaction that conflicted in the last detectConflicts, ascending: for hosts whose map is not a
     * std::map<int, std::vector<int>> (FDB's reply holds VectorRef<int>s in its arena).
     */
    template <class Sink>
    void forEachConflictingKeyRange(Sink&& sink) const {
        for (uint32_t i = 0; i < result_.conflicting_count; i++) {
            uint32_t start = result_.conflicting_read_starts[i];
            sink(static_cast<int>(result_.conflicting_transactions[i]), result_.conflicting_reads + start,
                 static_cast<size_t>(result_.conflicting_read_starts[i + 1] - start));
        }
    }

    /** The raw decisions of the last detectConflicts (valid until the conflict set's next call). */
    const fdbr_result& result() const { return result_; }

    /** Why the last tryDetectConflicts failed. */
    const std::string& lastError() const { return error_; }

    int transactionCount() const { return static_cast<int>(cs_->transactions.size()); }

private:
    template <class Key>
    void addRange(const Key& begin, const Key& end) {
        fdbr_range r;
        r.begin = reinterpret_cast<const uint8_t*>(begin.begin());
        r.end = reinterpret_cast<const uint8_t*>(end.begin());
        r.begin_length = static_cast<uint32_t>(begin.size());
        r.end_length = static_cast<uint32_t>(end.size());
        // A begin that is a prefix of the end (a point range [k, k\0)) shares the end's bytes, so
        // the bridge copies them once.
        if (r.begin_length <= r.end_length && (r.begin_length == 0 || std::memcmp(r.begin, r.end, r.begin_length) == 0)) {
            r.begin = r.end;
        }
        cs_->ranges.push_back(r);
    }

    ConflictSet* cs_;
    std::map<int, std::vector<int>>* conflictingKeyRangeMap_;
    int64_t newOldestVersion_ = 0;
    bool mixedOldestVersions_ = false;
    fdbr_result result_{};
    std::string error_;
};

}  // namespace fdbresolver

#endif  // FDBRESOLVER_HPP
