// fdbresolver-fdb-skiplist: decides a resolver trace with FoundationDB's own conflict set — the skip
// list in fdbserver/resolver/ConflictSet.cpp, compiled and linked by FoundationDB's build (this file
// is built there, as the target fdbresolver_fdb_skiplist that jni-bridge/fdb/patches/0003 adds) — and
// prints the same "name: value" lines as `fdbresolver bench` and `fdbresolver-replay`, so that any
// generated trace can be decided by FoundationDB itself and its figures put beside the engines' from
// one run.
//
// It drives ConflictBatch exactly as the Resolver does (fdbserver/resolver/Resolver.cpp): one
// ConflictBatch per batch with the reply's conflicting-key-range map and arena, addTransaction for
// each transaction with the batch's newOldestVersion, then detectConflicts(version, newOldestVersion,
// commitList, &tooOldList). The whole trace is loaded into FoundationDB's own types (arena,
// CommitTransactionRef) first, as the Java bench loads it, so the timed part is the conflict set's.
//
// For retention comparisons (fdbresolver retention --versus-fdb): --window W replaces each batch's
// new_oldest_version by max(0, version - W), never decreasing, so the skip list keeps a fixed window of W
// versions; --max-history-every N walks the skip list's nodes after every N-th batch (and the last),
// outside the timed part, and prints the largest node bytes seen.
//
// For the differential fuzzer (fdbresolver fuzz): --stream reads traces back to back from stdin as they
// arrive, each trace a TraceHeader (which starts a new, empty conflict set) then its batches, and writes to
// stdout, per trace, a decision file's DecisionHeader and then each batch's BatchDecisions (decisions and
// conflicting reads), written as soon as the batch is decided, before the next batch is read
// (docs/formats.md, "Streams"). Nothing is buffered beyond the batch being decided: one process serves a
// whole fuzzing run, compared batch by batch, and its writer may keep a batch ahead without waiting longer
// for an answer than the batch takes.
//
// Usage: fdbresolver-fdb-skiplist TRACE [--warmup N] [--cycles N] [--window VERSIONS] [--max-history-every N]
//        fdbresolver-fdb-skiplist --stream < traces > decisions
// Exit codes: 0 decided; 2 bad usage or a trace it cannot read (one "error: ..." line on stderr).

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fdbclient/CommitTransaction.h"
#include "fdbrpc/PerfMetric.h"
#include "ConflictSet.h"

// fdbresolver's streaming trace decoder, SHA-256 and clocks (jni-bridge/src/main/native/replay)
#include "clock.h"
#include "sha256.h"
#include "trace_reader.h"

// The phase counters of ConflictSet.cpp (its globals), named like fdbresolver's phases.
extern PerfDoubleCounter g_sort, g_checkRead, g_checkBatch, g_combine, g_merge, g_removeBefore;
// Bytes the skip list's nodes occupy (patch 0003 adds it to ConflictSet.cpp).
int64_t conflictSetNodeBytes(ConflictSet* cs);

namespace {

using replay::monotonicNanos;
using replay::Sha256;
using replay::threadCpuNanos;

int usageError(const std::string& message) {
	std::fprintf(stderr, "error: %s\n", message.c_str());
	return 2;
}

void updateLittleEndian32(Sha256& sha, uint32_t v) {
	uint8_t b[4] = { uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24) };
	sha.update(b, 4);
}

/** One batch of the trace in FoundationDB's types; the keys live in the batch's arena. */
struct LoadedBatch {
	Arena arena;
	VectorRef<CommitTransactionRef> transactions;
	Version version = 0;
	Version newOldestVersion = 0;
};

/** The key in FoundationDB's type: copied into `arena`, or (copy false) pointing at the decoded bytes. */
KeyRef keyRef(Arena& arena, const replay::KeyRef& key, bool copy) {
	StringRef bytes(key.begin(), key.size());
	return copy ? StringRef(arena, bytes) : bytes;
}

/** A decoded batch in FoundationDB's types; with copyKeys false its keys stay in the decoder's buffer. */
void convert(const replay::Batch& batch, LoadedBatch* loaded, bool copyKeys) {
	loaded->version = batch.version;
	loaded->newOldestVersion = batch.newOldestVersion;
	loaded->transactions.resize(loaded->arena, batch.transactionCount);
	for (size_t t = 0; t < batch.transactionCount; t++) {
		const replay::CommitTransactionRef& from = batch.transactions[t];
		CommitTransactionRef& to = loaded->transactions[t];
		to.read_snapshot = from.read_snapshot;
		to.report_conflicting_keys = from.report_conflicting_keys;
		for (const auto& r : from.read_conflict_ranges)
			to.read_conflict_ranges.push_back(loaded->arena,
			                                  KeyRangeRef(keyRef(loaded->arena, r.begin, copyKeys),
			                                              keyRef(loaded->arena, r.end, copyKeys)));
		for (const auto& r : from.write_conflict_ranges)
			to.write_conflict_ranges.push_back(loaded->arena,
			                                   KeyRangeRef(keyRef(loaded->arena, r.begin, copyKeys),
			                                               keyRef(loaded->arena, r.end, copyKeys)));
	}
}

std::vector<std::unique_ptr<LoadedBatch>> load(const std::string& path, std::string* workload) {
	replay::TraceReader reader(path);
	*workload = reader.workload();
	replay::Batch batch;
	std::vector<std::unique_ptr<LoadedBatch>> batches;
	while (reader.next(&batch)) {
		auto loaded = std::make_unique<LoadedBatch>();
		convert(batch, loaded.get(), true);
		batches.push_back(std::move(loaded));
	}
	return batches;
}

/**
 * The versions one --cycles cycle spans: last version - first version + the first step (1 for a single batch),
 * so the next cycle's first batch comes one step after this one's last. The same rule as the bridge's replay
 * (--cycles), fdbresolver bench (--cycles, LoadedTrace.cycleSpan) and the JMH WorkloadBench.
 */
Version cycleSpan(const std::vector<std::unique_ptr<LoadedBatch>>& batches) {
	Version first = batches.front()->version;
	Version step = batches.size() > 1 ? batches[1]->version - first : 1;
	return batches.back()->version - first + std::max<Version>(1, step);
}

/** A copy of `from` in its own arena (as load() gives each batch one) with every version shifted by `shift`. */
std::unique_ptr<LoadedBatch> shiftedCopy(const LoadedBatch& from, Version shift) {
	auto to = std::make_unique<LoadedBatch>();
	to->version = from.version + shift;
	to->newOldestVersion = from.newOldestVersion + shift;
	to->transactions.resize(to->arena, from.transactions.size());
	for (int t = 0; t < from.transactions.size(); t++) {
		const CommitTransactionRef& a = from.transactions[t];
		CommitTransactionRef& b = to->transactions[t];
		b.read_snapshot = a.read_snapshot + shift;
		b.report_conflicting_keys = a.report_conflicting_keys;
		for (const auto& r : a.read_conflict_ranges)
			b.read_conflict_ranges.push_back(
			    to->arena, KeyRangeRef(StringRef(to->arena, r.begin), StringRef(to->arena, r.end)));
		for (const auto& r : a.write_conflict_ranges)
			b.write_conflict_ranges.push_back(
			    to->arena, KeyRangeRef(StringRef(to->arena, r.begin), StringRef(to->arena, r.end)));
	}
	return to;
}

/**
 * --cycles: appends cycles - 1 copies of the loaded trace, copy c with every version, new_oldest_version and read
 * snapshot shifted by c spans (cycleSpan), each batch in its own arena as loaded: a short trace (a capture) timed as
 * a long run, decided exactly as `fdbresolver bench --cycles` decides it, so the decision hashes match. Copies rather
 * than one trace shifted in place, because bench holds copies too (its batches cannot be shifted in place): both
 * sides then walk the same amount of memory. An error message when the last version would pass 2^63 - 1.
 */
std::string addCycles(std::vector<std::unique_ptr<LoadedBatch>>* batches, long long cycles) {
	if (cycles <= 1 || batches->empty())
		return "";
	Version span = cycleSpan(*batches);
	Version last = batches->back()->version;
	if (span > (std::numeric_limits<Version>::max() - last) / Version(cycles - 1))
		return "--cycles " + std::to_string(cycles) + ": the last cycle's versions would pass 2^63 - 1 (one cycle spans " +
		       std::to_string(span) + " versions; give fewer cycles)";
	size_t n = batches->size();
	batches->reserve(n * size_t(cycles));
	for (long long c = 1; c < cycles; c++)
		for (size_t i = 0; i < n; i++)
			batches->push_back(shiftedCopy(*(*batches)[i], span * Version(c)));
	return "";
}

/**
 * What the Resolver does for one ResolveTransactionBatchRequest, then the decisions in docs/formats.md's
 * terms: one byte per transaction (0 COMMIT, 1 CONFLICT, 2 TOO_OLD) and the conflicting reads flattened as
 * transaction, count, read indices... for each reporting transaction decided CONFLICT, ascending.
 */
struct Timing {
	int64_t nanos = 0;
	int64_t cpuNanos = 0;
};

// Nearest-rank quantiles of the timed batches' times, as `fdbresolver bench` prints them: p50, p90, p99, p99.9
// and the maximum, each "T ms".
void printLatencies(const char* prefix, std::vector<int64_t> nanos) {
	std::sort(nanos.begin(), nanos.end());
	auto quantile = [&](double q) -> int64_t {
		if (nanos.empty())
			return 0;
		long rank = long(std::ceil(q * double(nanos.size())));
		return nanos[size_t(std::max(0L, std::min(long(nanos.size()) - 1, rank - 1)))];
	};
	const char* names[5] = { "p50", "p90", "p99", "p99.9", "max" };
	const double qs[5] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	for (int i = 0; i < 5; i++)
		std::printf("%s%s: %.3f ms\n", prefix, names[i], quantile(qs[i]) / 1e6);
}

void decide(ConflictSet* cs,
            const LoadedBatch& batch,
            std::vector<int>& commitList,
            std::vector<int>& tooOldList,
            std::vector<uint8_t>& decisions,
            std::vector<uint32_t>& conflicting,
            Timing* timing = nullptr) {
	commitList.clear();
	tooOldList.clear();
	Arena replyArena;
	std::map<int, VectorRef<int>> conflictingKeyRangeMap;
	// Timed: exactly the Resolver's calls for one batch. The thread's CPU clock is a system call (about 3 us on a
	// virtual machine), so it is read outside the wall-clock window.
	int64_t startCpu = threadCpuNanos();
	int64_t start = monotonicNanos();
	{
		ConflictBatch conflictBatch(cs, &conflictingKeyRangeMap, &replyArena);
		for (int t = 0; t < batch.transactions.size(); t++)
			conflictBatch.addTransaction(batch.transactions[t], batch.newOldestVersion);
		conflictBatch.detectConflicts(batch.version, batch.newOldestVersion, commitList, &tooOldList);
	}
	if (timing != nullptr) {
		int64_t end = monotonicNanos();
		timing->cpuNanos = threadCpuNanos() - startCpu;
		timing->nanos = end - start;
	}
	decisions.assign(batch.transactions.size(), uint8_t(1));
	for (int t : commitList)
		decisions[size_t(t)] = 0;
	for (int t : tooOldList)
		decisions[size_t(t)] = 2;
	// The map holds an entry for every reporting transaction that was checked; docs/formats.md's
	// conflicting reads are those of the ones decided CONFLICT, ascending. The skip list appends a read's
	// index when its check finishes, and it checks 16 reads at once, so they come out of order.
	conflicting.clear();
	for (const auto& entry : conflictingKeyRangeMap) {
		if (decisions[size_t(entry.first)] != 1)
			continue;
		conflicting.push_back(uint32_t(entry.first));
		conflicting.push_back(uint32_t(entry.second.size()));
		size_t first = conflicting.size();
		conflicting.insert(conflicting.end(), entry.second.begin(), entry.second.end());
		std::sort(conflicting.begin() + first, conflicting.end());
	}
}

/**
 * stdout for --stream: decision-file messages (length-delimited protobuf, encoded by hand as
 * fdb-harness's DecisionWriter does), each written with one write() once it is complete.
 */
class DecisionOutput {
public:
	void header() {
		static const char kFormat[] = "fdb-resolver-decisions/1";
		static const char kEngine[] = "fdb-skiplist";
		size_t size = 2 + (sizeof(kFormat) - 1) + 2 + (sizeof(kEngine) - 1);
		varint(size);
		bytesField(1, reinterpret_cast<const uint8_t*>(kFormat), sizeof(kFormat) - 1);
		bytesField(2, reinterpret_cast<const uint8_t*>(kEngine), sizeof(kEngine) - 1);
	}

	/** One BatchDecisions: version (field 1), decisions (2), conflicting reads (3: transaction 1, reads 2 packed). */
	void batch(int64_t version, const std::vector<uint8_t>& decisions, const std::vector<uint32_t>& conflicting) {
		size_t size = 0;
		if (version != 0)
			size += 1 + varintSize(uint64_t(version));
		if (!decisions.empty())
			size += 1 + varintSize(decisions.size()) + decisions.size();
		for (size_t i = 0; i < conflicting.size(); i += 2 + conflicting[i + 1]) {
			size_t entry = entrySize(conflicting, i);
			size += 1 + varintSize(entry) + entry;
		}
		varint(size);
		if (version != 0) {
			buffer_.push_back(0x08);
			varint(uint64_t(version));
		}
		if (!decisions.empty())
			bytesField(2, decisions.data(), decisions.size());
		for (size_t i = 0; i < conflicting.size(); i += 2 + conflicting[i + 1]) {
			buffer_.push_back(0x1A);
			varint(entrySize(conflicting, i));
			if (conflicting[i] != 0) {
				buffer_.push_back(0x08);
				varint(conflicting[i]);
			}
			uint32_t reads = conflicting[i + 1];
			if (reads > 0) {
				buffer_.push_back(0x12);
				varint(packedSize(conflicting, i));
				for (uint32_t j = 0; j < reads; j++)
					varint(conflicting[i + 2 + j]);
			}
		}
	}

	/** Writes what is buffered; a reader that has gone is an error (TraceError, as the input's). */
	void flush() {
		size_t done = 0;
		while (done < buffer_.size()) {
			ssize_t n = ::write(1, buffer_.data() + done, buffer_.size() - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				throw replay::TraceError(std::string("stdout: cannot write: ") + std::strerror(errno));
			done += size_t(n);
		}
		buffer_.clear();
	}

private:
	static size_t varintSize(uint64_t v) {
		size_t n = 1;
		while (v >= 0x80) {
			v >>= 7;
			n++;
		}
		return n;
	}
	static size_t packedSize(const std::vector<uint32_t>& c, size_t i) {
		size_t size = 0;
		for (uint32_t j = 0; j < c[i + 1]; j++)
			size += varintSize(c[i + 2 + j]);
		return size;
	}
	static size_t entrySize(const std::vector<uint32_t>& c, size_t i) {
		size_t size = c[i] != 0 ? 1 + varintSize(c[i]) : 0;
		if (c[i + 1] > 0) {
			size_t packed = packedSize(c, i);
			size += 1 + varintSize(packed) + packed;
		}
		return size;
	}
	void varint(uint64_t v) {
		while (v >= 0x80) {
			buffer_.push_back(uint8_t(v | 0x80));
			v >>= 7;
		}
		buffer_.push_back(uint8_t(v));
	}
	void bytesField(int field, const uint8_t* data, size_t length) {
		buffer_.push_back(uint8_t(field << 3 | 2));
		varint(length);
		buffer_.insert(buffer_.end(), data, data + length);
	}

	std::vector<uint8_t> buffer_;
};

void flushIfPossible(DecisionOutput& out) {
	try {
		out.flush();
	} catch (const replay::TraceError&) {
		// stdout has gone too: only the error line is left to give
	}
}

/** --stream: traces from stdin, decisions to stdout, batch by batch (see the comment at the top). */
int stream() {
	DecisionOutput out;
	replay::TraceStream in(0, "stdin");
	replay::Batch batch;
	ConflictSet* cs = nullptr;
	std::vector<int> commitList, tooOldList;
	std::vector<uint8_t> decisions;
	std::vector<uint32_t> conflicting;
	try {
		for (replay::TraceStream::Kind kind; (kind = in.next(&batch)) != replay::TraceStream::kEnd;) {
			if (kind == replay::TraceStream::kHeader) {
				// A new trace: a new conflict set, as a new Resolver would have.
				if (cs != nullptr)
					destroyConflictSet(cs);
				cs = newConflictSet();
				out.header();
				out.flush();
				continue;
			}
			LoadedBatch loaded;
			convert(batch, &loaded, false);
			decide(cs, loaded, commitList, tooOldList, decisions, conflicting);
			out.batch(loaded.version, decisions, conflicting);
			// Answered before the next batch is read: a writer that keeps one batch ahead gets this answer
			// while the skip list decides the next one.
			out.flush();
		}
		out.flush();
	} catch (const replay::TraceError& e) {
		flushIfPossible(out); // the batches decided before the fault still reach the reader
		return usageError(e.what());
	} catch (const Error& e) {
		flushIfPossible(out);
		return usageError(std::string("stdin: ") + e.what());
	}
	if (cs != nullptr)
		destroyConflictSet(cs);
	return 0;
}

double phaseSeconds(const PerfDoubleCounter& counter) {
	return const_cast<PerfDoubleCounter&>(counter).getValue();
}

// A whole number >= min from an option's value, or -1 (with the error message set) if it is not one.
long long countOption(const char* name, const char* value, long long min, std::string* error) {
	char* end = nullptr;
	errno = 0;
	long long n = std::strtoll(value, &end, 10);
	if (*value == '\0' || *end != '\0' || errno != 0 || n < min) {
		*error = std::string(name) + " wants a whole number from " + std::to_string(min) + ", not '" + value + "'";
		return -1;
	}
	return n;
}

} // namespace

/**
 * --evict-caches: between two timed batches (untimed), one write into every 64-byte line of a buffer of its own, so
 * that the next batch meets the history as cold as inside fdbserver, where the rest of the process runs on the core
 * between batches. fdbresolver bench --evict-caches evicts the same way (CacheEvictor), so both sides are timed alike.
 */
struct CacheEvictor {
	std::vector<uint64_t> buffer;
	uint64_t round = 0;
	explicit CacheEvictor(long long bytes) : buffer(size_t(bytes) / sizeof(uint64_t)) {}
	void evict() {
		volatile uint64_t* b = buffer.data();
		uint64_t v = ++round;
		for (size_t i = 0; i < buffer.size(); i += 64 / sizeof(uint64_t))
			b[i] = v + i;
	}
};

int main(int argc, char** argv) {
	std::string tracePath;
	long long evictBytes = 0; // --evict-caches: 0, none
	long warmup = 0;
	long long window = -1; // -1: the trace's own new_oldest_version
	long long historyEvery = 0; // 0: never walk the nodes
	long long cycles = 1; // --cycles: the trace decided this many times, versions shifted (addCycles)
	bool streaming = false;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--help" || a == "-h") {
			std::printf("usage: fdbresolver-fdb-skiplist TRACE [--warmup N] [--cycles N] [--window VERSIONS]\n"
			            "                                      [--max-history-every N]\n"
			            "       fdbresolver-fdb-skiplist --stream < TRACES > DECISIONS\n"
			            "Decides a resolver trace with FoundationDB's skip list (fdbserver/resolver/ConflictSet.cpp)\n"
			            "as its Resolver drives it, and prints decision-hash, conflicting-keys-hash, counts, seconds,\n"
			            "FoundationDB's phase counters and the skip list's node bytes as \"name: value\" lines.\n"
			            "  --warmup N               decide the first N batches untimed (counted across the cycles)\n"
			            "  --cycles N               decide the trace N times (default 1), each time with every version,\n"
			            "                           new_oldest_version and read snapshot shifted past the last cycle's,\n"
			            "                           as fdbresolver bench --cycles does: a short trace (a capture) as a long\n"
			            "                           run for timing; batches are counted and hashed across the cycles\n"
			            "  --window VERSIONS        new_oldest_version = max(0, version - VERSIONS), never decreasing,\n"
			            "                           instead of the trace's\n"
			            "  --max-history-every N    count the node bytes after every N-th batch and the last (untimed);\n"
			            "                           print the largest as max-history-bytes\n"
			            "  --evict-caches BYTES     between two timed batches (untimed), write over a buffer of BYTES,\n"
			            "                           one word a cache line, as fdbresolver bench --evict-caches does\n"
			            "  --stream                 read traces back to back from stdin (uncompressed; each TraceHeader\n"
			            "                           starts a new conflict set) and write each batch's decisions to stdout\n"
			            "                           as decision-file messages as soon as it is decided (docs/formats.md)\n");
			return 0;
		} else if (a == "--stream") {
			streaming = true;
		} else if (a == "--warmup") {
			if (i + 1 >= argc)
				return usageError("--warmup needs a value");
			char* end = nullptr;
			const char* v = argv[++i];
			warmup = std::strtol(v, &end, 10);
			if (*v == '\0' || *end != '\0' || warmup < 0)
				return usageError(std::string("--warmup wants a count of batches, not '") + v + "'");
		} else if (a == "--evict-caches") {
			if (i + 1 >= argc)
				return usageError(a + " needs a value");
			std::string error;
			evictBytes = countOption(a.c_str(), argv[++i], 64, &error);
			if (evictBytes < 0)
				return usageError(error);
			if (evictBytes > (1LL << 31))
				return usageError("--evict-caches " + std::to_string(evictBytes) + ": give 64 bytes to 2 GiB");
		} else if (a == "--window" || a == "--max-history-every" || a == "--cycles") {
			if (i + 1 >= argc)
				return usageError(a + " needs a value");
			std::string error;
			long long n = countOption(a.c_str(), argv[++i], a == "--window" ? 0 : 1, &error);
			if (n < 0)
				return usageError(error);
			(a == "--window" ? window : a == "--cycles" ? cycles : historyEvery) = n;
		} else if (!a.empty() && a[0] == '-') {
			return usageError("unknown option " + a + " (see --help)");
		} else if (tracePath.empty()) {
			tracePath = a;
		} else {
			return usageError("one trace at a time (got " + tracePath + " and " + a + ")");
		}
	}
	if (streaming) {
		if (!tracePath.empty() || warmup != 0 || window >= 0 || historyEvery != 0 || cycles != 1 || evictBytes != 0)
			return usageError("--stream reads stdin and takes no trace or other option");
		return stream();
	}
	if (tracePath.empty())
		return usageError("no trace given (usage: fdbresolver-fdb-skiplist TRACE [--warmup N], or --stream)");

	std::string workload;
	std::vector<std::unique_ptr<LoadedBatch>> batches;
	try {
		batches = load(tracePath, &workload);
		std::string cyclesError = addCycles(&batches, cycles);
		if (!cyclesError.empty())
			return usageError(cyclesError);
	} catch (const replay::TraceError& e) {
		return usageError(e.what());
	} catch (const Error& e) {
		return usageError(tracePath + ": " + e.what());
	}
	if (size_t(warmup) >= batches.size() && !batches.empty())
		return usageError("--warmup " + std::to_string(warmup) + " leaves no batch to time (the trace has " +
		                  std::to_string(batches.size()) +
		                  (cycles > 1 ? " over its " + std::to_string(cycles) + " cycles" : "") + ")");

	ConflictSet* cs = newConflictSet();
	Sha256 decisionHash, conflictingKeysHash;
	std::vector<int> commitList, tooOldList;
	std::vector<uint8_t> decisions;
	std::vector<uint32_t> conflicting;
	uint64_t transactions = 0, timedTransactions = 0, counts[3] = { 0, 0, 0 };
	int64_t timedNanos = 0, timedCpuNanos = 0;
	double phasesAtStart[6] = {};
	Version oldest = 0;
	int64_t maxHistoryBytes = -1;
	size_t maxHistoryBatch = 0;
	const PerfDoubleCounter* phases[6] = { &g_sort, &g_checkRead, &g_checkBatch, &g_combine, &g_merge, &g_removeBefore };
	const char* phaseNames[6] = { "sort", "checkRead", "checkIntraBatch", "combine", "mergeWrite", "removeBefore" };

	std::unique_ptr<CacheEvictor> evictor;
	if (evictBytes > 0)
		evictor = std::make_unique<CacheEvictor>(evictBytes);

	// Each timed batch's wall and CPU nanoseconds, for the latency quantiles bench prints too (issue 31).
	std::vector<int64_t> batchNanos, batchCpuNanos;
	batchNanos.reserve(batches.size());
	batchCpuNanos.reserve(batches.size());

	for (size_t b = 0; b < batches.size(); b++) {
		LoadedBatch& batch = *batches[b];
		if (window >= 0)
			batch.newOldestVersion = std::max(oldest, std::max<Version>(0, batch.version - Version(window)));
		oldest = batch.newOldestVersion;
		if (b == size_t(warmup))
			for (int p = 0; p < 6; p++)
				phasesAtStart[p] = phaseSeconds(*phases[p]);
		Timing timing;
		decide(cs, batch, commitList, tooOldList, decisions, conflicting, &timing);
		if (b >= size_t(warmup)) {
			timedNanos += timing.nanos;
			timedCpuNanos += timing.cpuNanos;
			timedTransactions += batch.transactions.size();
			batchNanos.push_back(timing.nanos);
			batchCpuNanos.push_back(timing.cpuNanos);
		}

		decisionHash.update(decisions.data(), decisions.size());
		for (uint8_t d : decisions)
			counts[d]++;
		for (size_t i = 0; i < conflicting.size(); i += 2 + conflicting[i + 1]) {
			updateLittleEndian32(conflictingKeysHash, conflicting[i]);
			for (uint32_t j = 0; j < conflicting[i + 1]; j++)
				updateLittleEndian32(conflictingKeysHash, conflicting[i + 2 + j]);
		}
		transactions += batch.transactions.size();
		if (historyEvery > 0 && ((b + 1) % size_t(historyEvery) == 0 || b + 1 == batches.size())) {
			int64_t bytes = conflictSetNodeBytes(cs);
			if (bytes > maxHistoryBytes) {
				maxHistoryBytes = bytes;
				maxHistoryBatch = b;
			}
		}
		if (evictor && b >= size_t(warmup))
			evictor->evict();
	}
	if (batches.size() <= size_t(warmup))
		for (int p = 0; p < 6; p++)
			phasesAtStart[p] = phaseSeconds(*phases[p]);

	double seconds = timedNanos / 1e9;
	std::printf("trace: %s\n", tracePath.c_str());
	std::printf("workload: %s\n", workload.c_str());
	std::printf("engine: fdb-skiplist\n");
	std::printf("batches: %zu\n", batches.size());
	std::printf("cycles: %lld\n", cycles);
	std::printf("transactions: %" PRIu64 "\n", transactions);
	std::printf("commit: %" PRIu64 "\n", counts[0]);
	std::printf("conflict: %" PRIu64 "\n", counts[1]);
	std::printf("too-old: %" PRIu64 "\n", counts[2]);
	std::printf("warmup-batches: %ld\n", warmup);
	std::printf("timed-batches: %zu\n", batches.size() - std::min(batches.size(), size_t(warmup)));
	std::printf("timed-transactions: %" PRIu64 "\n", timedTransactions);
	std::printf("seconds: %.6f\n", seconds);
	std::printf("transactions/sec: %.0f\n", seconds > 0 ? timedTransactions / seconds : 0.0);
	std::printf("cpu-seconds: %.6f\n", timedCpuNanos / 1e9);
	for (int p = 0; p < 6; p++) {
		double s = phaseSeconds(*phases[p]) - phasesAtStart[p];
		std::printf("phase-%s: %.3f s (%.1f%%)\n", phaseNames[p], s, seconds > 0 ? 100.0 * s / seconds : 0.0);
	}
	std::printf("history-bytes: %" PRId64 "\n", conflictSetNodeBytes(cs));
	if (window >= 0)
		std::printf("window: %lld\n", window);
	if (historyEvery > 0) {
		std::printf("max-history-bytes: %" PRId64 "\n", maxHistoryBytes);
		std::printf("max-history-batch: %zu\n", maxHistoryBatch);
	}
	std::printf("decision-hash: %s\n", decisionHash.hexDigest().c_str());
	std::printf("conflicting-keys-hash: %s\n", conflictingKeysHash.hexDigest().c_str());
	printLatencies("latency-", batchNanos);
	printLatencies("cpu-latency-", batchCpuNanos);
	std::fflush(stdout);
	destroyConflictSet(cs);
	return 0;
}
