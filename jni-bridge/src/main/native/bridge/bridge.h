// The internals libfdbresolver's files share (not part of any ABI; every symbol is hidden and the linker map
// exports only fdbr_*). Where to look:
//   fdbresolver.cpp  the C ABI's life cycle: fdbr_open, fdbr_close, fdbr_clear, names and the last error
//   jni_calls.cpp    the process-wide JVM's state, thread attachment, Java exceptions and status codes
//   jvm_start.cpp    starting (or finding) the JVM and looking up the bridge class, once per process
//   jvm_options.cpp  the JVM's options checked and tried in a child before it starts (HotSpot may exit)
//   class_path.cpp   the embedded JVM's class path
//   settings.cpp     the configuration text (fdbr_open_text)
//   resolve.cpp      one batch into Java and its decisions back (fdbr_resolve): the per-batch path
//   stats.cpp        counters and memory figures (fdbr_get_stats, fdbr_get_batch_stats, fdbr_get_counters)
//   warnings.cpp     warnings for the host (fdbr_take_warnings) and JVM settings a running JVM ignores
#ifndef FDBRESOLVER_BRIDGE_H
#define FDBRESOLVER_BRIDGE_H

#include "fdbresolver.h"

#include <jni.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace fdbresolver_bridge {

constexpr int kMessageCapacity = 4096;
constexpr const char* kResolverClassName = "org.fdbresolver.bridge.NativeResolver";

/** The calling thread's last error, handed out by fdbr_last_error. */
extern thread_local std::string t_lastError;

inline fdbr_status fail(fdbr_status status, std::string message) {
    t_lastError = std::move(message);
    return status;
}

inline int64_t monotonicNanos() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/** The process-wide JVM and the references cached once. */
struct Jvm {
    std::mutex mutex;  // guards start-up only
    bool ready = false;
    JavaVM* vm = nullptr;
    pthread_key_t detachKey;
    jclass resolverClass = nullptr;  // global ref
    jmethodID open = nullptr;
    jmethodID resolve = nullptr;
    jmethodID clear = nullptr;
    jmethodID stats = nullptr;
    jmethodID close = nullptr;
    jmethodID engineName = nullptr;
    jmethodID hostMemoryRoom = nullptr;
    jmethodID takeWarnings = nullptr;
    jmethodID awaitCloses = nullptr;  // static
    /**
     * Java resolvers whose fdbr_close could not reach the JVM (no JNIEnv for the calling thread): global refs, closed by
     * the next call that can (fdbr_open, fdbr_await_closes), so that neither the resolver nor its heap admission leaks.
     */
    std::mutex orphansMutex;
    std::vector<jobject> orphans;
    jmethodID throwableToString = nullptr;
    /** Whether this library created the JVM, and with which class path and options (later opens are told when theirs differ). */
    bool createdHere = false;
    std::string createdClassPath;
    std::vector<std::string> createdOptions;
    /** JVM options the JVM this library created also took from the environment ("NAME=value" each), or "". */
    std::string environmentOptions;
    /** Warnings of the start itself for the open that started the JVM, one per line. */
    std::string startWarnings;
    /** Set once the process is exiting and the JVM this library started has been shut down: no call reaches it after. */
    std::atomic<bool> shutDown{false};
};

extern Jvm g_jvm;

/** Makes exit() shut down the JVM this library just started, before libjvm's own destructors run (jni_calls.cpp). */
void shutDownJvmAtExit();

/** The JVM's thread suspend/resume signal unless the host or the configuration says otherwise: off SIGUSR2, FoundationDB's. */
constexpr int kDefaultSuspendSignal = 60;

/** What fdbr_open_text reads beyond fdbr_config (whose layout is fixed for ever). */
struct OpenExtras {
    /** The JVM's suspend signal for _JAVA_SR_SIGNUM; 0: the JVM's default (SIGUSR2). */
    int suspendSignal = kDefaultSuspendSignal;
    /** The bridge's settings for the Java side, "name=value" lines with sizes in bytes (BridgeSettings). */
    std::string bridgeSettings;
    /** Heap a capture (capture=PATH) takes beside the history, for the heap of a JVM this open starts; 0: none. */
    int64_t captureHeapBytes = 0;
    /** Leave the process the C locale the JVM set while it started (jvm_locale=jvm), instead of the host's. */
    bool keepJvmLocale = false;
};

/** capture_queue_bytes' default and what the capture's writer needs beside it (CaptureSettings on the Java side). */
constexpr int64_t kDefaultCaptureQueueBytes = int64_t(32) << 20;
constexpr int64_t kCaptureWriterHeapBytes = int64_t(8) << 20;

// ---- jni_calls.cpp ----

/** Thread-exit hook: a thread the bridge attached is detached when it ends. */
void detachThread(void*);
/** If a Java exception is pending: clears it, describes it in *message, returns true. */
bool takeException(JNIEnv* env, std::string* message);
/** The calling thread's JNIEnv, attaching the thread (as a daemon) on its first call. */
fdbr_status threadEnv(JNIEnv** env);
/** NewStringUTF, or null for a null input; false (with *message) when Java threw. */
bool javaString(JNIEnv* env, const char* text, jstring* out, std::string* message);

/** Closes the resolvers fdbr_close had to leave (Jvm::orphans) with this thread's env; returns how many. */
int closeOrphans(JNIEnv* env);

// ---- jvm_start.cpp ----

/** Creates or finds the JVM and caches the bridge class and its methods; once per process. */
fdbr_status startJvm(const fdbr_config* config, const OpenExtras& extras);

// ---- class_path.cpp ----

/** Expands class path entries "dir/\*" to the jars in dir (sorted), as the java launcher does. */
std::string expandClassPath(const std::string& classPath);
/** The class path of an installation: the jars beside this library ("D/../\*:D/../lib/\*"). */
std::string installedClassPath();

// ---- settings.cpp ----

/** Parses a size: digits with an optional k/m/g/t suffix (KiB..TiB; "KiB", "kb" and the like too). */
bool parseSize(const std::string& text, int64_t* out);

// ---- fdbresolver.cpp ----

fdbr_status openResolver(const fdbr_config* config, const OpenExtras& extras, fdbr_resolver** out);

}  // namespace fdbresolver_bridge

namespace fdbresolver_bridge {

/**
 * One batch's arguments, written here and read in place by Java (NativeResolver.CALL_*, docs/bridge-layout.md):
 * laid out once per resolver, whose address Java is given once (NativeResolver.bind), so a batch's call into
 * Java passes no arguments.
 */
struct CallBlock {
    int64_t now;
    int64_t newOldestVersion;
    uint64_t transactions;  // address of the fdbr_transaction table
    uint64_t ranges;        // address of the fdbr_range table
    uint64_t output;        // address of the output buffer Java writes the decisions into
    int64_t outputCapacity;
    uint32_t transactionCount;
    uint32_t rangeCount;
    /** 1 when the JVM runs with -Dfdbresolver.bridge.profile=true (set by Java at bind): stamps are taken. */
    uint32_t profile;
    uint32_t reserved;
    /** Java's System.nanoTime (CLOCK_MONOTONIC, as monotonicNanos) on entry, after reading, after the engine, on return. */
    int64_t javaStamps[4];
};

/** Sums of the profiled pieces of fdbr_resolve since the last statistics call (stats.cpp prints them). */
struct BridgeProfile {
    int64_t batches = 0;
    int64_t transactions = 0;
    int64_t before = 0;     // entry to fdbr_resolve until the call into Java (checks, lock, output buffer, block)
    int64_t entry = 0;      // the JNI call until Java's first statement
    int64_t read = 0;       // NativeBatch.read: the tables into the ConflictBatch, keys copied
    int64_t engine = 0;     // ConflictBatch.detectConflicts
    int64_t write = 0;      // NativeBatch.write and the bookkeeping after the engine
    int64_t exit = 0;       // Java's return until the JNI call returns, and the exception check
    int64_t after = 0;      // the result handed back to the host
};

}  // namespace fdbresolver_bridge

/** One open resolver, the C ABI's opaque handle: its Java object, its output buffer and its messages. */
struct fdbr_resolver {
    std::mutex mutex;  // serializes every call on this resolver
    jobject java = nullptr;  // global ref to its NativeResolver
    std::vector<uint64_t> output;  // decisions written by Java; 8-byte aligned, reused batch to batch
    /** The batch's arguments Java reads in place; Java has its address once bound (at the open, else the first batch). */
    fdbresolver_bridge::CallBlock call{};
    bool bound = false;
    fdbresolver_bridge::BridgeProfile profile;
    int64_t resolveNanos = 0;
    std::string engineName;  // set once by fdbr_open; fdbr_engine_name hands it out
    int64_t hostMemoryRoom = -1;  // set once by fdbr_open; fdbr_host_memory_room hands it out
    std::string nativeWarnings;  // the library's own warnings for fdbr_take_warnings, one per line
    std::string warnings;        // what fdbr_take_warnings last handed out
    char message[fdbresolver_bridge::kMessageCapacity];
};

namespace fdbresolver_bridge {

/** The engine's name as the Java side reports it; false (with *message) when Java threw. */
bool javaEngineName(JNIEnv* env, jobject resolver, std::string* out, std::string* message);
/** Turns a Java call's exception or status code into an fdbr_status (and the thread's last error). */
fdbr_status finishCall(JNIEnv* env, fdbr_resolver* r, jint javaStatus, const char* what);
/**
 * At the end of a successful open, what the first batch would otherwise do (resolve.cpp): look up the batch methods,
 * bind the call block, and size the output buffer for a batch of up to kPreparedTransactions transactions and
 * kPreparedRanges ranges, its pages written once. Best effort: what fails here is done, and reported, at the first
 * batch as before.
 */
void prepareForBatches(JNIEnv* env, fdbr_resolver* r);
/** The warning for an open whose JVM settings the running JVM ignores, or "" (warnings.cpp). */
std::string ignoredJvmSettings(const fdbr_config* config);

}  // namespace fdbresolver_bridge

#endif  // FDBRESOLVER_BRIDGE_H
