/*
 * fdbresolver.h - C ABI of libfdbresolver: FoundationDB's resolver conflict set, backed by the
 * fdbresolver Java engine running in a JVM embedded in the calling process.
 *
 * A resolver is opened from a configuration (class path holding the engine, JVM options, engine
 * name, memory budget), resolves one batch per call, can be cleared to a version, reports
 * statistics, and is closed. Every call returns an fdbr_status; on failure fdbr_last_error() gives a
 * message the caller can log. A failed call changes no state: a rejected or failed batch leaves the
 * resolver exactly as it was, and the next batch decides as if the failed one never came.
 *
 * The JVM: one per process. The first fdbr_open creates it with the JNI invocation API, using that
 * configuration's class path and JVM options; later opens (and a JVM the host created itself) reuse
 * it, and their class_path/jvm_options are ignored. Closing a resolver never destroys the JVM (a JVM
 * cannot be created twice in one process), so resolvers can be closed and reopened freely.
 *
 * Threads:
 *   - Any thread may call; a thread that is not yet attached to the JVM is attached on its first
 *     call (as a daemon thread) and detached automatically when it exits.
 *   - Calls on one resolver are serialized: the library holds a per-resolver lock for each call, so
 *     two threads calling at once never corrupt it; the second waits for the first. The caller must
 *     still order batches itself (versions must increase), as FoundationDB's Resolver does.
 *   - Different resolvers are independent and may be used from different threads at once.
 *   - fdbr_close must not race with other calls on the same resolver; after it returns the handle
 *     is gone.
 *
 * Signals: by default the JVM is started with -Xrs, so SIGINT/SIGTERM/SIGHUP/SIGQUIT stay with the
 * host, and with its thread suspend/resume signal moved off SIGUSR2 (which FoundationDB uses to end a
 * process cleanly) to signal 60 (environment variable _JAVA_SR_SIGNUM, unless the host set it; the
 * setting jvm_suspend_signal changes it). The JVM still uses SIGSEGV/SIGBUS/SIGFPE/SIGILL internally:
 * a host that installs its own handlers for those after the JVM starts must link libjsig (-ljsig
 * before -ljvm on the executable's link line) or preload $JAVA_HOME/lib/libjsig.so. See
 * docs/fdb-integration.md.
 *
 * Memory: the history lives on the JVM's heap, bounded per resolver by its budget and a sixteenth.
 * The JVM a first open starts gets, unless its options name -Xmx, a heap of the budget plus an
 * eighth and 192 MiB; every open checks that the heap holds every open resolver's history, and,
 * with process_memory_limit set, that the JVM (heap and what it takes beside the heap) fits in
 * that limit less host_memory_reserve. An open that cannot fit is FDBR_INVALID_ARGUMENT, saying
 * which setting to change.
 *
 * The memory layout that crosses into Java is documented in docs/bridge-layout.md.
 *
 * ABI versions: the library's symbols carry ELF versions (libfdbresolver.map), and the ABI only grows:
 * a function once exported keeps its name, signature and behaviour, and no struct here changes size
 * or layout (a new need gets a new function, never a new field). A host built against an older header
 * runs unchanged against a newer library; one that uses a newer function fails to load against an
 * older library with a message naming the version it needs, instead of misbehaving.
 *   FDBRESOLVER_1    every function below except those listed later
 *   FDBRESOLVER_1.1  fdbr_engine_name, fdbr_open_text, fdbr_get_batch_stats
 *   FDBRESOLVER_1.2  fdbr_get_counters, fdbr_take_warnings
 *   FDBRESOLVER_1.3  fdbr_await_closes
 *   FDBRESOLVER_1.4  fdbr_host_memory_room
 */
#ifndef FDBRESOLVER_H
#define FDBRESOLVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FDBR_API __attribute__((visibility("default")))
#else
#define FDBR_API
#endif

typedef enum fdbr_status {
    FDBR_OK = 0,
    /** The batch broke a validity rule (versions, inverted range, key too long); nothing changed. */
    FDBR_INVALID_BATCH = 1,
    /** A Java exception or error inside the engine; the engine left its state unchanged. */
    FDBR_ENGINE_ERROR = 2,
    /** A bad argument: NULL handle or output, inconsistent counts, unknown engine, bad option. */
    FDBR_INVALID_ARGUMENT = 3,
    /** The JVM could not be started or reached (libjvm, class path, attach failure). */
    FDBR_JVM_ERROR = 4,
    /** A native allocation failed. */
    FDBR_OUT_OF_MEMORY = 5
} fdbr_status;

/** Opaque resolver handle. */
typedef struct fdbr_resolver fdbr_resolver;

/** How to open a resolver. Initialize with fdbr_config_init, then set what you need. */
typedef struct fdbr_config {
    /** Class path with the engine and its dependencies, ':'-separated; an entry "dir/\*" stands for
     * every .jar in dir. NULL: the environment variable FDBRESOLVER_CLASS_PATH, else the jars
     * installed beside the library ("D/../\*:D/../lib/\*" where D is libfdbresolver.so's folder, the
     * layout of both the build tree and an installation). Used only when this call creates the JVM. */
    const char* class_path;
    /** Extra JVM options (e.g. "-Xmx4g", "-XX:+UseZGC", "-Xcheck:jni"). Used only when this call
     * creates the JVM. */
    const char* const* jvm_options;
    uint32_t jvm_option_count;
    /** Nonzero: do NOT add -Xrs (the JVM then handles SIGINT/SIGTERM/SIGHUP/SIGQUIT itself). */
    int32_t keep_jvm_signal_handlers;
    /** Engine name ("reference", "tree", ...). NULL: the engine's default. */
    const char* engine;
    /** Bytes the history may hold. 0: the engine's default. */
    int64_t memory_budget_bytes;
    /** Longest key accepted in a range. 0: the default. */
    int32_t max_key_bytes;
    /** Engine options, each "name=value". */
    const char* const* engine_options;
    uint32_t engine_option_count;
} fdbr_config;

/** One key range [begin, end): pointers to the caller's key bytes, valid until the call returns.
 * When begin is a prefix of end (a point range [k, k\0) is one), setting begin = end (the same
 * pointer) lets the bridge copy the bytes once; fdbresolver.hpp does it. */
typedef struct fdbr_range {
    const uint8_t* begin;
    const uint8_t* end;
    uint32_t begin_length;
    uint32_t end_length;
} fdbr_range;

#define FDBR_REPORT_CONFLICTING_KEYS 1u

/** One transaction. Its ranges are the next read_count + write_count entries of the batch's range
 * array: first its read conflict ranges, then its write conflict ranges. */
typedef struct fdbr_transaction {
    int64_t read_snapshot;
    uint32_t read_count;
    uint32_t write_count;
    /** FDBR_REPORT_CONFLICTING_KEYS or 0. */
    uint32_t flags;
    uint32_t reserved; /* 0 */
} fdbr_transaction;

/** Decisions (values of the trace format: 0 COMMIT, 1 CONFLICT, 2 TOO_OLD). */
#define FDBR_COMMIT 0
#define FDBR_CONFLICT 1
#define FDBR_TOO_OLD 2

/** The decisions of one batch. Points into memory the resolver owns: valid until the next call on
 * the same resolver. */
typedef struct fdbr_result {
    /** One decision byte per transaction, in batch order. */
    const uint8_t* decisions;
    uint32_t transaction_count;
    /** Transactions with FDBR_REPORT_CONFLICTING_KEYS decided CONFLICT: entry i is transaction
     * conflicting_transactions[i] (ascending), whose conflicting read ranges (indices within the
     * transaction, ascending) are conflicting_reads[conflicting_read_starts[i] ..
     * conflicting_read_starts[i + 1]). */
    uint32_t conflicting_count;
    const uint32_t* conflicting_transactions;
    const uint32_t* conflicting_read_starts;
    const uint32_t* conflicting_reads;
} fdbr_result;

#define FDBR_PHASE_COUNT 6

/** Counters of one resolver. */
typedef struct fdbr_stats {
    int64_t batches;            /* batches resolved */
    int64_t transactions;       /* transactions resolved */
    int64_t history_bytes;      /* bytes the history holds now, as the memory budget counts them */
    int64_t memory_budget_bytes;
    int64_t retained_version;   /* reads older than this are TOO_OLD; never decreases */
    /** Time inside the engine (ConflictSet.detectConflicts, validation included), all batches. */
    int64_t engine_nanos;
    /** Time spent in fdbr_resolve in all (crossing, layout, key copies, engine). */
    int64_t resolve_nanos;
    /** Time per phase in FoundationDB's counter order: sort, checkRead, checkIntraBatch, combine,
     * mergeWrite, removeBefore (zero when the engine does not time phases). */
    int64_t phase_nanos[FDBR_PHASE_COUNT];
} fdbr_stats;

/** Decisions by kind, TOO_OLD by cause, and the last batch's figures (FDBRESOLVER_1.1). */
typedef struct fdbr_batch_stats {
    int64_t commits;            /* transactions decided COMMIT */
    int64_t conflicts;          /* transactions decided CONFLICT */
    /** TOO_OLD answers FoundationDB gives too: the transaction reads and its snapshot is below the batch's
     * new_oldest_version. */
    int64_t too_old_fdb;
    /** The other TOO_OLD answers: those only the memory budget caused (FoundationDB would have checked them). */
    int64_t too_old_budget;
    /** The last batch resolved (all zero before the first): its version, new_oldest_version, transactions,
     * TOO_OLD answers by cause, time inside the engine, and time per phase (order as fdbr_stats.phase_nanos).
     * The history's size and retained version after it are fdbr_stats.history_bytes and retained_version. */
    int64_t last_version;
    int64_t last_new_oldest_version;
    int64_t last_transactions;
    int64_t last_too_old_fdb;
    int64_t last_too_old_budget;
    int64_t last_engine_nanos;
    int64_t last_phase_nanos[FDBR_PHASE_COUNT];
} fdbr_batch_stats;

/** The JVM's and the history's memory (FDBRESOLVER_1.2). */
typedef struct fdbr_memory {
    int64_t jvm_max_heap_bytes;       /* the heap's limit (-Xmx), as the JVM reports it */
    int64_t jvm_heap_used_bytes;      /* heap in use now, garbage included */
    int64_t jvm_non_heap_used_bytes;  /* JVM memory outside the heap in use now (metaspace, code cache) */
    int64_t heap_needed_bytes;        /* heap every open resolver of the process needs, as each open checks it */
    int64_t history_heap_bound_bytes; /* the most heap this resolver's history can take; -1: no bound */
    int64_t history_reserved_bytes;   /* heap its history's arrays take now; -1: unknown */
    int64_t forgotten_batches;        /* batches the budget could not hold even in an empty history */
    int64_t warnings_pending;         /* warnings fdbr_take_warnings would return */
} fdbr_memory;

/** Fills *config with defaults (all fields zero/NULL). */
FDBR_API void fdbr_config_init(fdbr_config* config);

/** Opens a resolver; starts the JVM if this process has none. */
FDBR_API fdbr_status fdbr_open(const fdbr_config* config, fdbr_resolver** out);

/**
 * Opens a resolver from a configuration text: settings "name=value" separated by ';' or newlines
 * (blanks around names and values are ignored), for hosts that carry the configuration as one
 * string, such as FoundationDB's RESOLVER_CONFLICT_SET_PLUGIN_CONFIG knob. Names:
 *   engine=NAME            the engine ("tree", "reference"; default: the engine's default)
 *   memory_budget=SIZE     history bytes; a number with an optional k/m/g/t suffix (KiB..TiB)
 *   max_key_bytes=N        the longest key accepted
 *   class_path=PATH        as fdbr_config.class_path
 *   jvm_option=OPTION      one JVM option (repeat the name for more); e.g. jvm_option=-Xmx1g
 *   engine_option=NAME=V   one engine option (repeatable)
 *   keep_jvm_signal_handlers=0|1
 *   jvm_suspend_signal=N   the JVM's thread suspend/resume signal (default 60, off FoundationDB's
 *                          SIGUSR2; 0: the JVM's own default, SIGUSR2); used only when this call
 *                          starts the JVM and _JAVA_SR_SIGNUM is unset
 *   process_memory_limit=SIZE  the host's memory limit (fdbserver: its --memory): the open is
 *                          refused when the JVM may outgrow it less host_memory_reserve
 *   host_memory_reserve=SIZE   what the host keeps for itself inside that limit (default 1g)
 *   capture=PATH           record every batch this resolver decides, with its decisions, as gzip trace and
 *                          decision segments in a new folder inside PATH (created if missing); off the calling
 *                          thread: one writer thread, and a capture that falls behind stops with a warning
 *                          (fdbr_take_warnings) instead of slowing the resolver. docs/capture.md
 *   capture_segment_bytes=SIZE  a segment is closed at this size and the next begins (default 64m, least 64k)
 *   capture_max_bytes=SIZE      the oldest segments are deleted once the capture passes this (default 1g)
 *   capture_queue_bytes=SIZE    how far the writer may fall behind (default 32m, least 1m); the capture takes
 *                          twice this and 8 MiB of the JVM's heap
 *   capture_folder_max_bytes=SIZE  the whole folder's bound: the oldest chains no resolver is writing are deleted
 *                          once PATH passes it (default 4 x capture_max_bytes, least capture_max_bytes)
 * An empty text opens the defaults. An unknown name or a bad value is FDBR_INVALID_ARGUMENT naming it.
 * The text is split exactly as fdbresolver::parseSettings (fdbresolver.hpp) splits it.
 */
FDBR_API fdbr_status fdbr_open_text(const char* config_text, fdbr_resolver** out);

/**
 * Closes a resolver and frees its handle. NULL is accepted and does nothing. Returns at once, without waiting for
 * a disk: a capture's last flush and the engine's worker shutdown go on in the background, and the heap the
 * resolver was admitted with stays counted until they end (fdbr_await_closes waits for them).
 */
FDBR_API fdbr_status fdbr_close(fdbr_resolver* resolver);

/**
 * Waits, at most timeout_millis, until every resolver closed in this process has finished in the background (its
 * capture written whole, its workers stopped): for a host about to exit, so that a capture is not cut short.
 * FDBR_OK when none is left (or no JVM was ever started); FDBR_ENGINE_ERROR naming how many are left otherwise.
 * Since FDBRESOLVER_1.3.
 */
FDBR_API fdbr_status fdbr_await_closes(int64_t timeout_millis);

/**
 * Resolves one batch at commit version now, discarding history older than new_oldest_version.
 * transactions[0..transaction_count) with their ranges in ranges[0..range_count) (range_count must
 * equal the sum of every transaction's read_count + write_count). The key bytes must stay valid and
 * unchanged until the call returns; they are copied once, into the engine. On FDBR_OK, *result
 * holds the decisions.
 */
FDBR_API fdbr_status fdbr_resolve(fdbr_resolver* resolver, int64_t now, int64_t new_oldest_version,
                                  const fdbr_transaction* transactions, uint32_t transaction_count,
                                  const fdbr_range* ranges, uint32_t range_count, fdbr_result* result);

/** Forgets all history; reads older than version are TOO_OLD from now on (FDB's clearConflictSet). */
FDBR_API fdbr_status fdbr_clear(fdbr_resolver* resolver, int64_t version);

/** Reads the resolver's counters. */
FDBR_API fdbr_status fdbr_get_stats(fdbr_resolver* resolver, fdbr_stats* out);

/**
 * The name of the engine the resolver runs (e.g. "tree"): the one fdbr_config.engine named, or the
 * default engine's when it was NULL. Owned by the resolver, valid until fdbr_close; NULL for a NULL
 * handle. Makes no call into the JVM. Since FDBRESOLVER_1.1 (see "ABI versions" above).
 */
FDBR_API const char* fdbr_engine_name(const fdbr_resolver* resolver);

/**
 * What the host may still hold beside this process's JVM inside process_memory_limit, as the open admitted it:
 * the limit less host_memory_reserve and the most the JVM may take (its heap limit and the allowance beside it:
 * metaspace, code cache, the collector's structures, thread stacks); never negative, since an open that does not fit
 * is refused. -1 when the open was given no process_memory_limit, and for a NULL handle. fdbserver's hook checks its
 * skip list's bytes against it at every batch. Makes no call into the JVM. Since FDBRESOLVER_1.4.
 */
FDBR_API int64_t fdbr_host_memory_room(const fdbr_resolver* resolver);

/** Reads the resolver's decisions by kind, TOO_OLD answers by cause and its last batch's figures. */
FDBR_API fdbr_status fdbr_get_batch_stats(fdbr_resolver* resolver, fdbr_batch_stats* out);

/**
 * Reads the resolver's counters, its decisions by kind and its memory in one call into the JVM; any of the
 * outputs may be NULL (FDBRESOLVER_1.2).
 */
FDBR_API fdbr_status fdbr_get_counters(fdbr_resolver* resolver, fdbr_stats* stats, fdbr_batch_stats* batch,
                                       fdbr_memory* memory);

/**
 * The warnings that wait for the host, one per line ("" when none), and forgets them: those of the open
 * (a JVM option a running JVM could not take, an unbounded engine, a small budget) and of later batches
 * (a batch the budget could not hold). Owned by the resolver, valid until its next call. NULL for a NULL
 * handle or when the JVM could not be reached (FDBRESOLVER_1.2).
 */
FDBR_API const char* fdbr_take_warnings(fdbr_resolver* resolver);

/** The message of the last failed call on this thread ("" if none); valid until this thread's next call. */
FDBR_API const char* fdbr_last_error(void);

/** A constant name for a status, e.g. "FDBR_INVALID_BATCH". */
FDBR_API const char* fdbr_status_name(fdbr_status status);

#ifdef __cplusplus
}
#endif

#endif /* FDBRESOLVER_H */
