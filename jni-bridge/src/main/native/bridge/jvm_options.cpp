// The JVM's options checked and tried before JNI_CreateJavaVM (jvm_options.h says why).

#include "jvm_options.h"

#include <jni.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

extern char** environ;

namespace fdbresolver_bridge {

namespace {

int64_t monotonicNanos() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

/** A HotSpot size: digits with an optional k, m, g or t (either case). False when it is not one. */
bool parseJvmSize(const std::string& text, int64_t* out) {
    size_t i = 0;
    uint64_t value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        uint64_t next = value * 10 + uint64_t(text[i] - '0');
        if (next / 10 != value) return false;
        value = next;
        i++;
    }
    if (i == 0) return false;
    int shift = 0;
    if (i + 1 == text.size()) {
        switch (text[i]) {
            case 'k': case 'K': shift = 10; break;
            case 'm': case 'M': shift = 20; break;
            case 'g': case 'G': shift = 30; break;
            case 't': case 'T': shift = 40; break;
            default: return false;
        }
    } else if (i != text.size()) {
        return false;
    }
    if (value > (uint64_t(INT64_MAX) >> shift)) return false;
    *out = int64_t(value << shift);
    return true;
}

/** A heap size option's name (as HotSpot's flag) and value, when option is one with a size it can read. */
bool heapSize(const std::string& option, std::string* flag, int64_t* bytes) {
    static const std::pair<const char*, const char*> forms[] = {
        {"-Xmx", "MaxHeapSize"},
        {"-XX:MaxHeapSize=", "MaxHeapSize"},
        {"-Xms", "InitialHeapSize"},
        {"-XX:InitialHeapSize=", "InitialHeapSize"},
        {"-XX:MinHeapSize=", "MinHeapSize"},
    };
    for (const auto& form : forms) {
        if (startsWith(option, form.first)) {
            *flag = form.second;
            return parseJvmSize(option.substr(std::strlen(form.first)), bytes);
        }
    }
    return false;
}

/**
 * A boolean -XX flag's value set by option (-XX:+Name, -XX:-Name, -XX:Name=true|false): 1 on, 0 off, -1 when the
 * option does not set it.
 */
int booleanFlag(const std::string& option, const std::string& name) {
    if (option == "-XX:+" + name || option == "-XX:" + name + "=true") return 1;
    if (option == "-XX:-" + name || option == "-XX:" + name + "=false") return 0;
    return -1;
}

/** The flags that end or stop the process, or write the whole heap, on purpose: why each is refused. */
const std::pair<const char*, const char*> kRefusedBooleanFlags[] = {
    {"ExitOnOutOfMemoryError", "the JVM would end the host on an out-of-memory error instead of failing the batch"},
    {"CrashOnOutOfMemoryError", "the JVM would crash the host on an out-of-memory error instead of failing the batch"},
    {"HeapDumpOnOutOfMemoryError",
     "the JVM would write its whole heap to disk on an out-of-memory error, holding the host's thread meanwhile"},
    {"HeapDumpBeforeFullGC", "the JVM would write its whole heap to disk before every full collection"},
    {"HeapDumpAfterFullGC", "the JVM would write its whole heap to disk after every full collection"},
    {"ShowMessageBoxOnError", "the JVM would wait for a terminal's answer on a fatal error instead of ending"},
};

/** Flags with a value that run a command or end the process: refused when set to anything. */
const std::pair<const char*, const char*> kRefusedValueFlags[] = {
    {"-XX:OnOutOfMemoryError=", "the JVM would run a command on an out-of-memory error (often one that ends the process)"},
    {"-XX:AbortVMOnException=", "the JVM would abort the host when that exception is thrown"},
    {"-XX:VMOptionsFile=", "it names a file of further options the bridge cannot check; give them as jvm_option"},
    {"-XX:Flags=", "it names a file of further options the bridge cannot check; give them as jvm_option"},
};

std::string mib(int64_t bytes) {
    return std::to_string((bytes + (int64_t(1) << 20) - 1) >> 20) + " MiB";
}

/** What the process maps now (its virtual size), from /proc/self/statm; 0 when unknown. */
int64_t mappedBytes() {
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr) return 0;
    unsigned long long pages = 0;
    int read = std::fscanf(f, "%llu", &pages);
    std::fclose(f);
    return read == 1 ? int64_t(pages) * int64_t(sysconf(_SC_PAGESIZE)) : 0;
}

/** The last value each heap flag gets, and the option that gave it. */
struct HeapFlags {
    std::map<std::string, std::pair<int64_t, const JvmOption*>> sizes;
    bool maxFromPercentage = false;  // -XX:MaxRAMPercentage and the like, with no explicit maximum

    explicit HeapFlags(const std::vector<JvmOption>& effective) {
        bool percentage = false;
        for (const JvmOption& option : effective) {
            std::string flag;
            int64_t bytes = 0;
            if (heapSize(option.text, &flag, &bytes)) {
                sizes[flag] = {bytes, &option};
            } else if (startsWith(option.text, "-XX:MaxRAMPercentage=") || startsWith(option.text, "-XX:MaxRAMFraction=") ||
                       startsWith(option.text, "-XX:MaxRAM=")) {
                percentage = true;
            }
        }
        maxFromPercentage = percentage && sizes.count("MaxHeapSize") == 0;
    }

    const std::pair<int64_t, const JvmOption*>* get(const char* flag) const {
        auto found = sizes.find(flag);
        return found == sizes.end() ? nullptr : &found->second;
    }
};

/** Appends the output read from fd to *out (at most limit bytes kept); false at end of file or error. */
bool readSome(int fd, std::string* out, size_t limit) {
    char buffer[4096];
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) return false;
    if (out->size() < limit) out->append(buffer, std::min(size_t(n), limit - out->size()));
    return true;
}

/** The child's words as one line: its lines joined with " / ", less the launcher's "Picked up ..." notes. */
std::string oneLine(const std::string& output) {
    std::string text;
    size_t start = 0;
    while (start < output.size()) {
        size_t end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        std::string line = output.substr(start, end - start);
        start = end + 1;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty() || startsWith(line, "Picked up ") || startsWith(line, "NOTE: Picked up ")) continue;
        text += (text.empty() ? "" : " / ") + line;
    }
    return text.empty() ? "(nothing)" : text;
}

/** bin/java of the JDK whose libjvm.so this library links (JAVA_HOME/lib/server/libjvm.so), or "". */
std::string launcherBesideLibjvm() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&JNI_CreateJavaVM), &info) == 0 || info.dli_fname == nullptr) return "";
    std::string path = info.dli_fname;  // .../lib/server/libjvm.so
    for (int up = 0; up < 3; up++) {
        size_t slash = path.rfind('/');
        if (slash == std::string::npos) return "";
        path.resize(slash);
    }
    path += "/bin/java";
    return access(path.c_str(), X_OK) == 0 ? path : "";
}

}  // namespace

std::string describe(const JvmOption& option) {
    return option.text + " (" + (startsWith(option.origin, "the bridge") ? option.origin : "from " + option.origin) + ")";
}

std::vector<std::string> splitOptionsVariable(const std::string& value) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < value.size()) {
        while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) i++;
        if (i >= value.size()) break;
        std::string option;
        while (i < value.size() && !std::isspace(static_cast<unsigned char>(value[i]))) {
            char c = value[i++];
            if (c == '\'' || c == '"') {
                size_t close = value.find(c, i);
                if (close == std::string::npos) close = value.size();
                option += value.substr(i, close - i);
                i = close < value.size() ? close + 1 : close;
            } else {
                option += c;
            }
        }
        out.push_back(option);
    }
    return out;
}

std::vector<JvmOption> effectiveOptions(const std::vector<JvmOption>& invocation) {
    std::vector<JvmOption> out;
    auto fromVariable = [&](const char* name) {
        const char* value = std::getenv(name);
        if (value == nullptr) return;
        for (const std::string& option : splitOptionsVariable(value)) out.push_back(JvmOption{option, name});
    };
    fromVariable("JAVA_TOOL_OPTIONS");
    out.insert(out.end(), invocation.begin(), invocation.end());
    fromVariable("_JAVA_OPTIONS");
    return out;
}

bool selectsCollector(const std::vector<JvmOption>& options) {
    static const char* const kCollectors[] = {"UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC", "UseShenandoahGC",
                                              "UseEpsilonGC"};
    for (const char* collector : kCollectors) {
        int on = -1;
        for (const JvmOption& option : options) {
            int value = booleanFlag(option.text, collector);
            if (value >= 0) on = value;
        }
        if (on == 1) return true;
    }
    return false;
}

std::string checkOptions(const std::vector<JvmOption>& effective) {
    for (const JvmOption& option : effective) {
        if (option.text.empty() || option.text[0] != '-') {
            return "'" + option.text + "' (" + option.origin + ") is not a JVM option (they begin with '-')";
        }
        for (const auto& refused : kRefusedValueFlags) {
            if (startsWith(option.text, refused.first) && option.text.size() > std::strlen(refused.first)) {
                return "the JVM option " + describe(option) + " is refused: " + refused.second;
            }
        }
    }
    // A boolean flag counts as given last: -XX:+ExitOnOutOfMemoryError then -XX:-ExitOnOutOfMemoryError is off.
    for (const auto& refused : kRefusedBooleanFlags) {
        const JvmOption* on = nullptr;
        for (const JvmOption& option : effective) {
            int value = booleanFlag(option.text, refused.first);
            if (value >= 0) on = value == 1 ? &option : nullptr;
        }
        if (on != nullptr) {
            return "the JVM option " + describe(*on) + " is refused: " + refused.second;
        }
    }
    HeapFlags heap(effective);
    const auto* max = heap.get("MaxHeapSize");
    for (const char* flag : {"InitialHeapSize", "MinHeapSize"}) {
        const auto* size = heap.get(flag);
        if (size != nullptr && max != nullptr && size->first > max->first) {
            return "the JVM's heap options disagree: " + describe(*size->second) + " is above the maximum " +
                   describe(*max->second) + ", and HotSpot would end the process at start";
        }
    }
    return "";
}

int64_t jvmAddressSpaceBesideHeap(const std::vector<JvmOption>& effective) {
    int64_t classSpace = int64_t(1) << 30, codeCache = int64_t(240) << 20;
    for (const JvmOption& option : effective) {
        int64_t bytes = 0;
        if (startsWith(option.text, "-XX:CompressedClassSpaceSize=") &&
            parseJvmSize(option.text.substr(std::strlen("-XX:CompressedClassSpaceSize=")), &bytes)) {
            classSpace = bytes;
        } else if (startsWith(option.text, "-XX:ReservedCodeCacheSize=") &&
                   parseJvmSize(option.text.substr(std::strlen("-XX:ReservedCodeCacheSize=")), &bytes)) {
            codeCache = bytes;
        }
    }
    long arenas = 8 * std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    if (const char* max = std::getenv("MALLOC_ARENA_MAX")) {
        long given = std::atol(max);
        if (given > 0) arenas = given;
    }
    arenas = std::min(arenas, 64L);
    return classSpace + codeCache + (int64_t(512) << 20) + int64_t(arenas) * (int64_t(64) << 20);
}

std::string checkAddressSpace(const std::vector<JvmOption>& effective) {
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "";
    HeapFlags heap(effective);
    const auto* max = heap.get("MaxHeapSize");
    const int64_t heapBytes = max != nullptr ? max->first : 0;
    const int64_t mapped = mappedBytes();
    const int64_t beside = jvmAddressSpaceBesideHeap(effective);
    const int64_t needed = mapped + heapBytes + beside;
    if (limit.rlim_cur >= uint64_t(INT64_MAX) || needed <= int64_t(limit.rlim_cur)) return "";
    return "the process's address-space limit (RLIMIT_AS, " + mib(int64_t(limit.rlim_cur)) +
           "; fdbserver's --memory-vsize sets it) cannot hold the JVM: the process maps " + mib(mapped) + " already, " +
           (max != nullptr ? "the heap reserves " + mib(heapBytes) + " (" + describe(*max->second) + ")"
                           : std::string("the heap's size is not known")) +
           " and the JVM reserves about " + mib(beside) +
           " beside it; HotSpot would end the process, at start or when a later reservation fails. Raise the limit by " + mib(needed - int64_t(limit.rlim_cur)) +
           " or lower the heap";
}

TrialStart tryStartInChild(const std::vector<std::string>& invocation) {
    TrialStart trial;
    trial.launcher = launcherBesideLibjvm();
    if (trial.launcher.empty()) {
        trial.why = "no java launcher beside the libjvm.so this library links";
        return trial;
    }
    trial.tried = true;
    const int64_t start = monotonicNanos();
    std::vector<std::string> args = {trial.launcher};
    for (const std::string& option : invocation) {
        if (option != "-XX:+AlwaysPreTouch") args.push_back(option);
    }
    args.push_back("-version");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** e = environ; e != nullptr && *e != nullptr; e++) {
        if (!startsWith(*e, "JDK_JAVA_OPTIONS=")) envp.push_back(*e);
    }
    envp.push_back(nullptr);

    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
        trial.why = std::string("cannot make a pipe for the trial start: ") + std::strerror(errno);
        return trial;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // none of the host's descriptors reach the child
#endif
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child = -1;
    int spawned = posix_spawn(&child, trial.launcher.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(pipeFds[1]);
    if (spawned != 0) {
        close(pipeFds[0]);
        trial.why = "cannot start " + trial.launcher + ": " + std::strerror(spawned);
        trial.nanos = monotonicNanos() - start;
        return trial;
    }
    trial.spawned = true;
    std::string output;
    bool timedOut = false;
    const int64_t deadline = start + int64_t(kTrialTimeoutSeconds) * 1000000000;
    for (;;) {
        int64_t left = deadline - monotonicNanos();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{pipeFds[0], POLLIN, 0};
        int ready = poll(&p, 1, int(std::min<int64_t>(left / 1000000 + 1, 1000)));
        if (ready < 0 && errno != EINTR) break;
        if (ready > 0 && !readSome(pipeFds[0], &output, 16384)) break;
    }
    close(pipeFds[0]);
    if (timedOut) kill(child, SIGKILL);
    int status = 0;
    pid_t waited;
    do {
        waited = waitpid(child, &status, 0);
    } while (waited < 0 && errno == EINTR);
    trial.nanos = monotonicNanos() - start;
    if (timedOut) {
        trial.why = "it did not finish in " + std::to_string(kTrialTimeoutSeconds) + " s: " + oneLine(output);
        return trial;
    }
    if (waited == child) {
        trial.started = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!trial.started) {
            trial.why = (WIFEXITED(status) ? "it exited with status " + std::to_string(WEXITSTATUS(status))
                                           : "it ended on signal " + std::to_string(WTERMSIG(status))) +
                        ": " + oneLine(output);
        }
    } else {
        // The host reaps its children itself (SIGCHLD ignored, or a handler that waits for any): judge by the words.
        trial.started = output.find(" version \"") != std::string::npos &&
                        output.find("Error occurred during initialization of VM") == std::string::npos &&
                        output.find("Could not create the Java Virtual Machine") == std::string::npos;
        if (!trial.started) trial.why = oneLine(output);
    }
    return trial;
}

}  // namespace fdbresolver_bridge
