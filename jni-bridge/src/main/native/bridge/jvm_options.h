// The JVM's options before it starts (issue 32): HotSpot calls exit(1) on many start-up errors instead of
// returning from JNI_CreateJavaVM, and that would end the host (fdbserver). So the exact option set is
// normalised and checked first, and then tried in a child process (the same JDK's java launcher), so that a
// start that would exit fails the open instead, in HotSpot's own words. Internal to libfdbresolver.
#ifndef FDBRESOLVER_JVM_OPTIONS_H
#define FDBRESOLVER_JVM_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace fdbresolver_bridge {

/** One JVM option and where it came from ("the bridge", "jvm_option", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"). */
struct JvmOption {
    std::string text;
    std::string origin;
};

/** "-Xms2g (from _JAVA_OPTIONS)": an option as an error message names it. */
std::string describe(const JvmOption& option);

/**
 * Splits an options variable (JAVA_TOOL_OPTIONS, _JAVA_OPTIONS) as HotSpot does: at blanks, with single or double
 * quotes grouping (and removed).
 */
std::vector<std::string> splitOptionsVariable(const std::string& value);

/**
 * The options HotSpot applies, in its order: JAVA_TOOL_OPTIONS, then the invocation's (the bridge's and the
 * configuration's), then _JAVA_OPTIONS (so that, for a flag given more than once, the last wins). The invocation
 * API reads only these two variables: JDK_JAVA_OPTIONS is the java launcher's alone.
 */
std::vector<JvmOption> effectiveOptions(const std::vector<JvmOption>& invocation);

/**
 * Whether one of these options chooses the garbage collector (-XX:+UseSerialGC, -XX:+UseParallelGC, -XX:+UseG1GC,
 * -XX:+UseZGC, ...), the last occurrence of each flag counting: the bridge then adds no collector of its own, since
 * HotSpot refuses to start with two ("Multiple garbage collectors selected").
 */
bool selectsCollector(const std::vector<JvmOption>& options);

/**
 * Why the JVM must not start with these options, or "": an option that is not one (no leading '-'); a file of
 * further options the bridge cannot see (-XX:VMOptionsFile, -XX:Flags); an option that ends or stops the process
 * on purpose (-XX:+ExitOnOutOfMemoryError, -XX:+CrashOnOutOfMemoryError, -XX:OnOutOfMemoryError=..., ...) or
 * writes the whole heap to disk (-XX:+HeapDumpOnOutOfMemoryError, ...), which would defeat the fallback the host
 * relies on; an initial or minimum heap above the maximum (HotSpot exits at start).
 */
std::string checkOptions(const std::vector<JvmOption>& effective);

/**
 * The address space the JVM reserves beside its heap, by its parts (measured: docs/fdb-integration.md, "When
 * something fails"): the compressed class space (-XX:CompressedClassSpaceSize, 1 GiB), the code cache
 * (-XX:ReservedCodeCacheSize, 240 MiB), 512 MiB for the class data archive, metaspace, thread stacks and the
 * collector's structures, and glibc's malloc arenas for the JVM's threads (64 MiB each, at most 8 per core or
 * MALLOC_ARENA_MAX, counted up to 64).
 */
int64_t jvmAddressSpaceBesideHeap(const std::vector<JvmOption>& effective);

/**
 * Why the process's address-space limit (RLIMIT_AS; fdbserver's --memory-vsize sets it) cannot hold the JVM, or
 * "": what the process maps now, the heap's maximum (when the options name it) and jvmAddressSpaceBesideHeap
 * must fit under the soft limit, or HotSpot exits at start (or fails a reservation later, which is fatal).
 */
std::string checkAddressSpace(const std::vector<JvmOption>& effective);

/** What trying the options in a child process found. */
struct TrialStart {
    bool tried = false;    // false: no launcher beside libjvm (why says so); nothing was tried
    bool spawned = false;  // the child ran (false with tried: no pipe or no process for it, why says so)
    bool started = false;  // the child's JVM started and ended normally
    std::string why;       // when not started: what the child said (HotSpot's words), or what stopped it
    std::string launcher;  // the java launcher used
    int64_t nanos = 0;     // how long the trial took
};

/** The longest a trial start may take before it is stopped and counted as a failure. */
constexpr int kTrialTimeoutSeconds = 30;

/**
 * Starts the same JDK's java launcher (bin/java beside the libjvm.so this library links) with the invocation's
 * options and -version, in this process's environment (less JDK_JAVA_OPTIONS, which the invocation API does not
 * read) and resource limits, with posix_spawn (no copy of the host's memory), and waits for it at most
 * kTrialTimeoutSeconds. -XX:+AlwaysPreTouch is left out (it would make the child touch the whole initial heap;
 * it does not change whether the JVM starts).
 */
TrialStart tryStartInChild(const std::vector<std::string>& invocation);

}  // namespace fdbresolver_bridge

#endif  // FDBRESOLVER_JVM_OPTIONS_H
