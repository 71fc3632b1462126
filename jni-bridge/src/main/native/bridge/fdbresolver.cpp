// libfdbresolver: the C ABI of fdbresolver.h over a JVM embedded with the JNI invocation API.
//
// One JVM per process, created by the first fdbr_open (or found with JNI_GetCreatedJavaVMs); the
// Java class org.fdbresolver.bridge.NativeResolver receives every call. Class and method references
// are looked up once. A batch crosses into Java once: the host's transaction and range tables are
// read in place by the Java flyweight NativeBatch (layout: docs/bridge-layout.md), and the decisions
// come back in an output buffer each resolver owns and reuses. Every JNI call is followed by an
// exception check, so -Xcheck:jni stays silent and no Java exception reaches the host.

#include "fdbresolver.h"
#include "fdbresolver.hpp"  // parseSettings: the one reading of a configuration text, shared with hosts
#include "jvm_options.h"

#include <jni.h>
#include <pthread.h>
#include <dirent.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cctype>
#include <clocale>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr int kMessageCapacity = 4096;
constexpr const char* kResolverClassName = "org.fdbresolver.bridge.NativeResolver";

thread_local std::string t_lastError;

fdbr_status fail(fdbr_status status, std::string message) {
    t_lastError = std::move(message);
    return status;
}

int64_t monotonicNanos() {
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
    jmethodID takeWarnings = nullptr;
    jmethodID throwableToString = nullptr;
    /** Whether this library created the JVM, and with which class path and options (later opens are told when theirs differ). */
    bool createdHere = false;
    std::string createdClassPath;
    std::vector<std::string> createdOptions;
    /** JVM options the JVM this library created also took from the environment ("NAME=value" each), or "". */
    std::string environmentOptions;
    /** Warnings of the start itself for the open that started the JVM, one per line. */
    std::string startWarnings;
};

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

fdbr_status openResolver(const fdbr_config* config, const OpenExtras& extras, fdbr_resolver** out);

Jvm g_jvm;

/** Thread-exit hook: a thread the bridge attached is detached when it ends. */
void detachThread(void*) {
    if (g_jvm.vm != nullptr) {
        g_jvm.vm->DetachCurrentThread();
    }
}

/**
 * If a Java exception is pending, clears it, puts its description into *message and returns true.
 * Deletes every local reference it makes: an attached native thread never returns to Java, so local
 * references would otherwise pile up.
 */
bool takeException(JNIEnv* env, std::string* message) {
    if (!env->ExceptionCheck()) {
        return false;
    }
    jthrowable thrown = env->ExceptionOccurred();
    env->ExceptionClear();
    std::string text = "a Java exception";
    if (thrown != nullptr && g_jvm.throwableToString != nullptr) {
        jstring s = static_cast<jstring>(env->CallObjectMethod(thrown, g_jvm.throwableToString));
        if (env->ExceptionCheck()) {
            env->ExceptionClear();
        } else if (s != nullptr) {
            const char* chars = env->GetStringUTFChars(s, nullptr);
            if (env->ExceptionCheck()) {
                env->ExceptionClear();
            } else if (chars != nullptr) {
                text = chars;
                env->ReleaseStringUTFChars(s, chars);
            }
            env->DeleteLocalRef(s);
        }
    }
    if (thrown != nullptr) {
        env->DeleteLocalRef(thrown);
    }
    *message = text;
    return true;
}

/** The calling thread's JNIEnv, attaching the thread (as a daemon) on its first call. */
fdbr_status threadEnv(JNIEnv** env) {
    jint rc = g_jvm.vm->GetEnv(reinterpret_cast<void**>(env), JNI_VERSION_10);
    if (rc == JNI_OK) {
        return FDBR_OK;
    }
    if (rc != JNI_EDETACHED) {
        return fail(FDBR_JVM_ERROR, "JNI GetEnv failed with " + std::to_string(rc));
    }
    JavaVMAttachArgs args{JNI_VERSION_10, const_cast<char*>("fdbresolver-host"), nullptr};
    rc = g_jvm.vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(env), &args);
    if (rc != JNI_OK) {
        return fail(FDBR_JVM_ERROR, "cannot attach this thread to the JVM (JNI error " + std::to_string(rc) + ")");
    }
    pthread_setspecific(g_jvm.detachKey, reinterpret_cast<void*>(1));
    return FDBR_OK;
}

/** Expands class path entries "dir/\*" to the jars in dir (sorted), as the java launcher does. */
std::string expandClassPath(const std::string& classPath) {
    std::string out;
    size_t start = 0;
    while (start <= classPath.size()) {
        size_t end = classPath.find(':', start);
        if (end == std::string::npos) {
            end = classPath.size();
        }
        std::string entry = classPath.substr(start, end - start);
        std::vector<std::string> parts;
        if (entry.size() >= 2 && entry.compare(entry.size() - 2, 2, "/*") == 0) {
            std::string dir = entry.substr(0, entry.size() - 1);
            if (DIR* d = opendir(dir.c_str())) {
                while (dirent* e = readdir(d)) {
                    std::string name = e->d_name;
                    if (name.size() > 4 && (name.compare(name.size() - 4, 4, ".jar") == 0 ||
                                            name.compare(name.size() - 4, 4, ".JAR") == 0)) {
                        parts.push_back(dir + name);
                    }
                }
                closedir(d);
            }
            std::sort(parts.begin(), parts.end());
        } else if (entry == "*") {
            // "*" alone: every jar in the working directory.
            if (DIR* d = opendir(".")) {
                while (dirent* e = readdir(d)) {
                    std::string name = e->d_name;
                    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".jar") == 0) {
                        parts.push_back(name);
                    }
                }
                closedir(d);
            }
            std::sort(parts.begin(), parts.end());
        } else if (!entry.empty()) {
            parts.push_back(entry);
        }
        for (const std::string& p : parts) {
            if (!out.empty()) {
                out += ':';
            }
            out += p;
        }
        start = end + 1;
    }
    return out;
}

/**
 * The class path of an installation: the jars in the folder above this library's and in its lib/
 * ("D/../\*:D/../lib/\*" for the library in D), which is how both the build tree
 * (jni-bridge/target/native, jni-bridge/target/\*.jar, jni-bridge/target/lib) and an installed copy
 * are laid out. So a host that names only the library (FoundationDB's knob) needs no class path.
 */
std::string installedClassPath() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&installedClassPath), &info) == 0 || info.dli_fname == nullptr) {
        return "";
    }
    std::string library = info.dli_fname;
    size_t slash = library.rfind('/');
    std::string dir = slash == std::string::npos ? "." : library.substr(0, slash);
    return dir + "/../*:" + dir + "/../lib/*";
}

/** Parses a size: digits with an optional k/m/g/t suffix (KiB..TiB; "KiB", "kb" and the like too). */
bool parseSize(const std::string& text, int64_t* out) {
    size_t i = 0;
    uint64_t value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        uint64_t next = value * 10 + uint64_t(text[i] - '0');
        if (next / 10 != value || next > uint64_t(INT64_MAX)) {
            return false;
        }
        value = next;
        i++;
    }
    if (i == 0) {
        return false;
    }
    std::string suffix = text.substr(i);
    for (char& c : suffix) {
        c = char(std::tolower(static_cast<unsigned char>(c)));
    }
    int shift = 0;
    if (suffix.empty() || suffix == "b") {
        shift = 0;
    } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
        shift = 10;
    } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
        shift = 20;
    } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
        shift = 30;
    } else if (suffix == "t" || suffix == "tb" || suffix == "tib") {
        shift = 40;
    } else {
        return false;
    }
    if (shift > 0 && value > (uint64_t(INT64_MAX) >> shift)) {
        return false;
    }
    *out = int64_t(value << shift);
    return true;
}

fdbr_status lookUpMethod(JNIEnv* env, jclass cls, bool isStatic, const char* name, const char* signature,
                         jmethodID* out) {
    *out = isStatic ? env->GetStaticMethodID(cls, name, signature) : env->GetMethodID(cls, name, signature);
    std::string message;
    if (takeException(env, &message) || *out == nullptr) {
        return fail(FDBR_JVM_ERROR, std::string("the bridge class lacks ") + name + signature +
                                        " (engine jar and libfdbresolver from different builds?): " + message);
    }
    return FDBR_OK;
}

/**
 * Loads the bridge class through the system class loader. Not FindClass: its loader depends on the
 * Java frames below the call, which in a JVM the host started itself (a Java program calling in
 * through FFM, say) may belong to the boot loader, which cannot see the engine.
 */
jclass loadBridgeClass(JNIEnv* env, std::string* message) {
    jclass loaderClass = env->FindClass("java/lang/ClassLoader");
    if (takeException(env, message) || loaderClass == nullptr) {
        return nullptr;
    }
    jclass result = nullptr;
    jmethodID getSystem = env->GetStaticMethodID(loaderClass, "getSystemClassLoader", "()Ljava/lang/ClassLoader;");
    jmethodID loadClass = getSystem == nullptr || env->ExceptionCheck()
                              ? nullptr
                              : env->GetMethodID(loaderClass, "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;");
    if (!takeException(env, message) && getSystem != nullptr && loadClass != nullptr) {
        jobject loader = env->CallStaticObjectMethod(loaderClass, getSystem);
        if (!takeException(env, message) && loader != nullptr) {
            jstring name = env->NewStringUTF(kResolverClassName);
            if (!takeException(env, message) && name != nullptr) {
                result = static_cast<jclass>(env->CallObjectMethod(loader, loadClass, name));
                if (takeException(env, message)) {
                    result = nullptr;
                }
                env->DeleteLocalRef(name);
            }
            env->DeleteLocalRef(loader);
        }
    }
    env->DeleteLocalRef(loaderClass);
    return result;
}

/** Whether an option sets the heap's maximum (-Xmx..., -XX:MaxHeapSize=..., -XX:MaxRAMPercentage=...). */
bool setsMaxHeap(const std::string& option) {
    return option.rfind("-Xmx", 0) == 0 || option.rfind("-XX:MaxHeapSize=", 0) == 0 ||
           option.rfind("-XX:MaxRAMPercentage=", 0) == 0 || option.rfind("-XX:MaxRAMFraction=", 0) == 0;
}

/**
 * The heap a JVM started for one resolver with this budget gets when no option sets it: the budget, an eighth
 * more and 192 MiB (the Java side's exact need, HeapPlan.heapFor, is at most this for default engine options),
 * and what a capture takes beside it.
 */
std::string defaultMaxHeap(int64_t budgetBytes, int64_t captureHeapBytes) {
    int64_t budget = budgetBytes > 0 ? budgetBytes : (int64_t(1) << 30);
    int64_t mib = (budget + budget / 8 + (int64_t(192) << 20) + captureHeapBytes + (int64_t(1) << 20) - 1) >> 20;
    return "-Xmx" + std::to_string(mib) + "m";
}

/** Creates or finds the JVM and caches the bridge class and its methods; once per process. */
fdbr_status startJvm(const fdbr_config* config, const OpenExtras& extras) {
    std::lock_guard<std::mutex> lock(g_jvm.mutex);
    if (g_jvm.ready) {
        return FDBR_OK;
    }
    std::string classPath;
    if (g_jvm.vm == nullptr) {
        bool created = false;
        JavaVM* existing[1];
        jsize count = 0;
        if (JNI_GetCreatedJavaVMs(existing, 1, &count) == JNI_OK && count > 0) {
            g_jvm.vm = existing[0];  // the host (or a Java launcher) made one: share it
        } else {
            std::string configured = config->class_path != nullptr ? config->class_path : "";
            if (configured.empty() && std::getenv("FDBRESOLVER_CLASS_PATH") != nullptr) {
                configured = std::getenv("FDBRESOLVER_CLASS_PATH");
            }
            if (configured.empty()) {
                configured = installedClassPath();
            }
            classPath = expandClassPath(configured);
            if (classPath.empty()) {
                return fail(FDBR_INVALID_ARGUMENT,
                            "no class path for the engine: no jars at " + configured +
                                "; set fdbr_config.class_path (class_path= in a configuration text) or "
                                "FDBRESOLVER_CLASS_PATH (e.g. jni-bridge/target/fdbresolver-jni-bridge.jar:jni-bridge/target/lib/*)");
            }
            // Every option with its origin, so that a refusal names where the option came from.
            std::vector<fdbresolver_bridge::JvmOption> invocation;
            auto bridgeOption = [&](std::string text) { invocation.push_back({std::move(text), "the bridge's"}); };
            bridgeOption("-Djava.class.path=" + classPath);
            if (!config->keep_jvm_signal_handlers) {
                bridgeOption("-Xrs");
            }
            bridgeOption("--enable-native-access=ALL-UNNAMED");
            // protobuf-java (the capture's encoder) reads arrays through sun.misc.Unsafe, which JDK 24 and later
            // warn about on stderr, a server's operator never reads it; it stays correct and fast.
            bridgeOption("--sun-misc-unsafe-memory-access=allow");
            bridgeOption("-Dfdbresolver.bridge.ownJvm=true");
            // HotSpot raises the process's soft limit on open files to the hard one; the host's limits are its own.
            bridgeOption("-XX:-MaxFDLimit");
            bool maxHeapGiven = false;
            for (uint32_t i = 0; i < config->jvm_option_count; i++) {
                if (config->jvm_options[i] != nullptr) {
                    maxHeapGiven = maxHeapGiven || setsMaxHeap(config->jvm_options[i]);
                }
            }
            if (!maxHeapGiven) {
                // Sized from the budget, so that the history always fits (the Java side checks it at every open).
                invocation.push_back({defaultMaxHeap(config->memory_budget_bytes, extras.captureHeapBytes),
                                      "the bridge's, sized from memory_budget"});
            }
            for (uint32_t i = 0; i < config->jvm_option_count; i++) {
                if (config->jvm_options[i] != nullptr) {
                    invocation.push_back({config->jvm_options[i], "jvm_option"});
                }
            }
            std::vector<std::string> texts;
            for (const auto& option : invocation) texts.push_back(option.text);
            // HotSpot suspends and resumes threads with SIGUSR2 unless _JAVA_SR_SIGNUM names another signal;
            // FoundationDB ends a process cleanly on SIGUSR2. Read once, while the JVM starts.
            if (extras.suspendSignal > 0 && std::getenv("_JAVA_SR_SIGNUM") == nullptr) {
                setenv("_JAVA_SR_SIGNUM", std::to_string(extras.suspendSignal).c_str(), 0);
            }
            // HotSpot ends the process (exit(1)) on many start-up errors instead of returning from JNI_CreateJavaVM,
            // which would end the host. So the options it will apply are checked here, and then tried in a child
            // process: a start that would exit fails the open instead, in HotSpot's own words (issue 32).
            std::vector<fdbresolver_bridge::JvmOption> effective = fdbresolver_bridge::effectiveOptions(invocation);
            std::string refused = fdbresolver_bridge::checkOptions(effective);
            if (!refused.empty()) {
                return fail(FDBR_INVALID_ARGUMENT, refused);
            }
            refused = fdbresolver_bridge::checkAddressSpace(effective);
            if (!refused.empty()) {
                return fail(FDBR_JVM_ERROR, refused);
            }
            fdbresolver_bridge::TrialStart trial = fdbresolver_bridge::tryStartInChild(texts);
            if (trial.tried && !trial.started) {
                std::string command = trial.launcher;
                for (const std::string& t : texts) {
                    command += " " + (t.rfind("-Djava.class.path=", 0) == 0 ? std::string("-Djava.class.path=...") : t);
                }
                return fail(FDBR_JVM_ERROR, "the JVM would not start with these options, and would end the process "
                                            "(tried first in a child process, " + command + " -version: " + trial.why + ")");
            }
            if (!trial.tried) {
                g_jvm.startWarnings += "the JVM's options were checked but not tried in a child process before the JVM "
                                       "started: " + trial.why + "\n";
            }
            std::vector<JavaVMOption> options(texts.size());
            for (size_t i = 0; i < texts.size(); i++) {
                options[i].optionString = const_cast<char*>(texts[i].c_str());
                options[i].extraInfo = nullptr;
            }
            JavaVMInitArgs args;
            args.version = JNI_VERSION_10;
            args.nOptions = static_cast<jint>(options.size());
            args.options = options.data();
            args.ignoreUnrecognized = JNI_FALSE;
            JavaVM* vm = nullptr;
            JNIEnv* env = nullptr;
            // HotSpot also reads options from these two (JAVA_TOOL_OPTIONS before ours, _JAVA_OPTIONS after, where
            // they win): set for other Java programs, they reach the resolver's JVM too. The open says so.
            for (const char* name : {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"}) {
                const char* value = std::getenv(name);
                if (value != nullptr && value[0] != '\0') {
                    g_jvm.environmentOptions += std::string(g_jvm.environmentOptions.empty() ? "" : " ") + name + "=" + value;
                }
            }
            // The JVM sets the process's C locale from the environment while it starts (setlocale(LC_ALL, "")):
            // "C" became "C.UTF-8" here, and the host's own code then formats differently. Inside FoundationDB's
            // simulation a backup manifest's key "\xff" was written raw instead of as "\u00FF", and the run went
            // otherwise than stock's. The JVM has read what it needs by then; the host gets its locale back.
            const char* current = std::setlocale(LC_ALL, nullptr);
            std::string hostLocale = current != nullptr ? current : "C";
            jint rc = JNI_CreateJavaVM(&vm, reinterpret_cast<void**>(&env), &args);
            if (!extras.keepJvmLocale) {
                std::setlocale(LC_ALL, hostLocale.c_str());
            }
            if (rc != JNI_OK) {
                return fail(FDBR_JVM_ERROR, "JNI_CreateJavaVM failed with " + std::to_string(rc) +
                                                " (check the JVM options; a process can create only one JVM)");
            }
            g_jvm.vm = vm;
            created = true;
            g_jvm.createdHere = true;
            g_jvm.createdClassPath = configured;
            for (uint32_t i = 0; i < config->jvm_option_count; i++) {
                if (config->jvm_options[i] != nullptr) {
                    g_jvm.createdOptions.push_back(config->jvm_options[i]);
                }
            }
        }
        if (pthread_key_create(&g_jvm.detachKey, detachThread) != 0) {
            return fail(FDBR_JVM_ERROR, "pthread_key_create failed");
        }
        if (created) {
            // JNI_CreateJavaVM attached this thread; let it detach at exit like the threads we attach.
            // (A thread the host attached itself is left to the host.)
            pthread_setspecific(g_jvm.detachKey, reinterpret_cast<void*>(1));
        }
    }
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK) {
        return status;
    }

    std::string message;
    jclass throwable = env->FindClass("java/lang/Throwable");
    if (takeException(env, &message) || throwable == nullptr) {
        return fail(FDBR_JVM_ERROR, "cannot find java.lang.Throwable: " + message);
    }
    g_jvm.throwableToString = env->GetMethodID(throwable, "toString", "()Ljava/lang/String;");
    env->DeleteLocalRef(throwable);
    if (takeException(env, &message) || g_jvm.throwableToString == nullptr) {
        return fail(FDBR_JVM_ERROR, "cannot find Throwable.toString: " + message);
    }
    jclass local = loadBridgeClass(env, &message);
    if (local == nullptr) {
        return fail(FDBR_JVM_ERROR,
                    std::string("the engine class ") + kResolverClassName + " is not on the JVM's class path [" +
                        (classPath.empty() ? std::string("the running JVM's own") : classPath) + "] (" + message +
                        "): put fdbresolver-jni-bridge.jar and its dependencies (jni-bridge/target/lib/*) on "
                        "fdbr_config.class_path or FDBRESOLVER_CLASS_PATH");
    }
    jclass cls = static_cast<jclass>(env->NewGlobalRef(local));
    env->DeleteLocalRef(local);
    if (takeException(env, &message) || cls == nullptr) {
        return fail(FDBR_JVM_ERROR, "NewGlobalRef failed: " + message);
    }
    if ((status = lookUpMethod(env, cls, true, "open",
                               "(Ljava/lang/String;JILjava/lang/String;Ljava/lang/String;JJI)Lorg/fdbresolver/bridge/NativeResolver;",
                               &g_jvm.open)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "resolve", "(JJJIJIJJJI)I", &g_jvm.resolve)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "clear", "(JJI)I", &g_jvm.clear)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "stats", "(JJI)I", &g_jvm.stats)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "close", "(JI)I", &g_jvm.close)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "engineName", "()Ljava/lang/String;", &g_jvm.engineName)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "takeWarnings", "(JI)I", &g_jvm.takeWarnings)) != FDBR_OK) {
        env->DeleteGlobalRef(cls);
        return status;
    }
    g_jvm.resolverClass = cls;
    g_jvm.ready = true;
    return FDBR_OK;
}

/** NewStringUTF, or null for a null input; false (with *message) when Java threw. */
bool javaString(JNIEnv* env, const char* text, jstring* out, std::string* message) {
    *out = nullptr;
    if (text == nullptr) {
        return true;
    }
    *out = env->NewStringUTF(text);
    if (takeException(env, message)) {
        *out = nullptr;
        return false;
    }
    return true;
}

}  // namespace

struct fdbr_resolver {
    std::mutex mutex;  // serializes every call on this resolver
    jobject java = nullptr;  // global ref to its NativeResolver
    std::vector<uint64_t> output;  // decisions written by Java; 8-byte aligned, reused batch to batch
    int64_t resolveNanos = 0;
    std::string engineName;  // set once by fdbr_open; fdbr_engine_name hands it out
    std::string nativeWarnings;  // the library's own warnings for fdbr_take_warnings, one per line
    std::string warnings;        // what fdbr_take_warnings last handed out
    char message[kMessageCapacity];
};

namespace {

/** The engine's name as the Java side reports it; false (with *message) when Java threw. */
bool javaEngineName(JNIEnv* env, jobject resolver, std::string* out, std::string* message) {
    jstring name = static_cast<jstring>(env->CallObjectMethod(resolver, g_jvm.engineName));
    if (takeException(env, message)) {
        return false;
    }
    if (name == nullptr) {
        *message = "null";
        return false;
    }
    const char* chars = env->GetStringUTFChars(name, nullptr);
    bool ok = !takeException(env, message) && chars != nullptr;
    if (chars != nullptr) {
        *out = chars;
        env->ReleaseStringUTFChars(name, chars);
    }
    env->DeleteLocalRef(name);
    return ok;
}

/** Runs a call that returns a Java status code, turning exceptions and codes into an fdbr_status. */
fdbr_status finishCall(JNIEnv* env, fdbr_resolver* r, jint javaStatus, const char* what) {
    std::string message;
    if (takeException(env, &message)) {
        return fail(FDBR_ENGINE_ERROR, std::string(what) + ": " + message);
    }
    if (javaStatus != FDBR_OK) {
        if (javaStatus < FDBR_OK || javaStatus > FDBR_OUT_OF_MEMORY) {
            javaStatus = FDBR_ENGINE_ERROR;
        }
        return fail(static_cast<fdbr_status>(javaStatus), r->message);
    }
    return FDBR_OK;
}

/**
 * What NativeResolver.stats fills in one call (docs/bridge-layout.md): fdbr_stats, then fdbr_batch_stats.
 * Internal: each public struct keeps its own size for ever (the ABI only grows by new functions).
 */
struct StatsBlock {
    fdbr_stats stats;
    fdbr_batch_stats batch;
    fdbr_memory memory;
};

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
    return status;
}

}  // namespace

extern "C" {

FDBR_API void fdbr_config_init(fdbr_config* config) {
    if (config != nullptr) {
        std::memset(config, 0, sizeof(*config));
    }
}

FDBR_API fdbr_status fdbr_open(const fdbr_config* config, fdbr_resolver** out) {
    t_lastError.clear();
    return openResolver(config, OpenExtras(), out);
}

}  // extern "C"

namespace {

/**
 * The warnings for an open whose JVM settings a running JVM cannot take (only the open that starts the JVM
 * uses them): one line naming what was ignored, or "".
 */
std::string ignoredJvmSettings(const fdbr_config* config) {
    std::vector<std::string> asked;
    for (uint32_t i = 0; i < config->jvm_option_count; i++) {
        if (config->jvm_options[i] != nullptr) {
            asked.push_back(config->jvm_options[i]);
        }
    }
    std::string classPath = config->class_path != nullptr ? config->class_path : "";
    bool sameOptions = std::set<std::string>(asked.begin(), asked.end()) ==
                       std::set<std::string>(g_jvm.createdOptions.begin(), g_jvm.createdOptions.end());
    if (g_jvm.createdHere && sameOptions && (classPath.empty() || classPath == g_jvm.createdClassPath)) {
        return "";
    }
    if (!g_jvm.createdHere && asked.empty() && classPath.empty()) {
        return "";
    }
    std::string text = "this process's JVM runs already";
    if (g_jvm.createdHere) {
        text += ", started by an earlier open with jvm options [";
        for (size_t i = 0; i < g_jvm.createdOptions.size(); i++) {
            text += (i > 0 ? " " : "") + g_jvm.createdOptions[i];
        }
        text += "]";
    } else {
        text += ", started by the host";
    }
    text += ": this open's";
    if (!asked.empty()) {
        text += " jvm options [";
        for (size_t i = 0; i < asked.size(); i++) {
            text += (i > 0 ? " " : "") + asked[i];
        }
        text += "]";
    }
    if (!classPath.empty() && classPath != g_jvm.createdClassPath) {
        text += std::string(asked.empty() ? "" : " and its") + " class path " + classPath;
    }
    return text + " are ignored (a process has one JVM, configured by its first open)\n";
}

fdbr_status openResolver(const fdbr_config* config, const OpenExtras& extras, fdbr_resolver** out) {
    try {
        if (config == nullptr || out == nullptr) {
            return fail(FDBR_INVALID_ARGUMENT, "fdbr_open: config and out must not be NULL");
        }
        *out = nullptr;
        if ((config->jvm_option_count > 0 && config->jvm_options == nullptr) ||
            (config->engine_option_count > 0 && config->engine_options == nullptr)) {
            return fail(FDBR_INVALID_ARGUMENT, "fdbr_open: an option count is set but its array is NULL");
        }
        bool jvmWasReady;
        {
            std::lock_guard<std::mutex> lock(g_jvm.mutex);
            jvmWasReady = g_jvm.ready;
        }
        fdbr_status status = startJvm(config, extras);
        if (status != FDBR_OK) {
            return status;
        }
        JNIEnv* env = nullptr;
        if ((status = threadEnv(&env)) != FDBR_OK) {
            return status;
        }
        std::string options;
        for (uint32_t i = 0; i < config->engine_option_count; i++) {
            if (config->engine_options[i] == nullptr) {
                continue;
            }
            if (!options.empty()) {
                options += '\n';
            }
            options += config->engine_options[i];
        }
        fdbr_resolver* r = new (std::nothrow) fdbr_resolver();
        if (r == nullptr) {
            return fail(FDBR_OUT_OF_MEMORY, "fdbr_open: out of memory");
        }
        r->message[0] = '\0';
        if (jvmWasReady) {
            r->nativeWarnings = ignoredJvmSettings(config);
        } else if (g_jvm.createdHere) {
            if (!g_jvm.environmentOptions.empty()) {
                r->nativeWarnings = "the JVM also took options from the process's environment: " + g_jvm.environmentOptions +
                                    " (JAVA_TOOL_OPTIONS come before the configuration's jvm_option, _JAVA_OPTIONS after it and win)\n";
            }
            r->nativeWarnings += g_jvm.startWarnings;
        }
        std::string message;
        jstring engine = nullptr;
        jstring engineOptions = nullptr;
        jstring bridgeSettings = nullptr;
        auto deleteStrings = [&]() {
            for (jstring s : {engine, engineOptions, bridgeSettings}) {
                if (s != nullptr) {
                    env->DeleteLocalRef(s);
                }
            }
        };
        if (!javaString(env, config->engine, &engine, &message) ||
            !javaString(env, options.empty() ? nullptr : options.c_str(), &engineOptions, &message) ||
            !javaString(env, extras.bridgeSettings.empty() ? nullptr : extras.bridgeSettings.c_str(), &bridgeSettings,
                        &message)) {
            deleteStrings();
            delete r;
            return fail(FDBR_ENGINE_ERROR, "fdbr_open: " + message);
        }
        jint javaStatus = FDBR_ENGINE_ERROR;
        jobject local = env->CallStaticObjectMethod(
            g_jvm.resolverClass, g_jvm.open, engine, static_cast<jlong>(config->memory_budget_bytes),
            static_cast<jint>(config->max_key_bytes), engineOptions, bridgeSettings, reinterpret_cast<jlong>(&javaStatus),
            reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
        bool threw = takeException(env, &message);
        deleteStrings();
        if (threw || local == nullptr) {
            if (local != nullptr) {
                env->DeleteLocalRef(local);
            }
            std::string why = threw ? message : std::string(r->message);
            fdbr_status s = threw || javaStatus == FDBR_OK ? FDBR_ENGINE_ERROR : static_cast<fdbr_status>(javaStatus);
            delete r;
            return fail(s, "fdbr_open: " + why);
        }
        r->java = env->NewGlobalRef(local);
        env->DeleteLocalRef(local);
        if (takeException(env, &message) || r->java == nullptr) {
            delete r;
            return fail(FDBR_JVM_ERROR, "fdbr_open: NewGlobalRef failed " + message);
        }
        if (!javaEngineName(env, r->java, &r->engineName, &message)) {
            env->CallIntMethod(r->java, g_jvm.close, reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
            takeException(env, &message);
            env->DeleteGlobalRef(r->java);
            delete r;
            return fail(FDBR_ENGINE_ERROR, "fdbr_open: cannot read the engine's name: " + message);
        }
        *out = r;
        return FDBR_OK;
    } catch (const std::bad_alloc&) {
        return fail(FDBR_OUT_OF_MEMORY, "fdbr_open: out of memory");
    } catch (...) {
        return fail(FDBR_JVM_ERROR, "fdbr_open: unexpected native exception");
    }
}

}  // namespace

extern "C" {

FDBR_API fdbr_status fdbr_open_text(const char* config_text, fdbr_resolver** out) {
    try {
        t_lastError.clear();
        if (out == nullptr) {
            return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: out must not be NULL");
        }
        *out = nullptr;
        std::vector<fdbresolver::Setting> settings;
        std::string error;
        if (!fdbresolver::parseSettings(config_text != nullptr ? config_text : "", &settings, &error)) {
            return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: " + error);
        }
        std::string engine, classPath;
        std::vector<std::string> jvmOptions, engineOptions;
        fdbr_config config;
        fdbr_config_init(&config);
        OpenExtras extras;
        bool capturing = false;
        int64_t captureQueueBytes = kDefaultCaptureQueueBytes;
        auto size = [&](const fdbresolver::Setting& s, int64_t* out) {
            if (!parseSize(s.value, out)) {
                error = s.name + "=" + s.value + " is not a size (bytes, or with k/m/g/t)";
                return false;
            }
            return true;
        };
        for (const fdbresolver::Setting& setting : settings) {
            const std::string& name = setting.name;
            const std::string& value = setting.value;
            int64_t number = 0;
            if (name == "engine") {
                engine = value;
            } else if (name == "memory_budget") {
                if (!parseSize(value, &number) || number <= 0) {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: memory_budget=" + value +
                                                           " is not a positive size (bytes, or with k/m/g/t)");
                }
                config.memory_budget_bytes = number;
            } else if (name == "max_key_bytes") {
                if (!parseSize(value, &number) || number <= 0 || number > INT32_MAX) {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: max_key_bytes=" + value + " is not a positive size");
                }
                config.max_key_bytes = static_cast<int32_t>(number);
            } else if (name == "class_path") {
                classPath = value;
            } else if (name == "jvm_option") {
                jvmOptions.push_back(value);
            } else if (name == "engine_option") {
                engineOptions.push_back(value);
            } else if (name == "keep_jvm_signal_handlers") {
                if (value != "0" && value != "1") {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: keep_jvm_signal_handlers must be 0 or 1");
                }
                config.keep_jvm_signal_handlers = value == "1";
            } else if (name == "jvm_suspend_signal") {
                // HotSpot takes signals above SIGSEGV and SIGBUS and below NSIG; 0 keeps its default.
                if (!parseSize(value, &number) || (number != 0 && (number <= 11 || number >= 65))) {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: jvm_suspend_signal=" + value +
                                                           " is not 0 or a signal number from 12 to 64");
                }
                extras.suspendSignal = static_cast<int>(number);
            } else if (name == "jvm_locale") {
                if (value != "host" && value != "jvm") {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: jvm_locale=" + value + " is not host or jvm");
                }
                extras.keepJvmLocale = value == "jvm";
            } else if (name == "process_memory_limit" || name == "host_memory_reserve" ||
                       name == "capture_segment_bytes" || name == "capture_max_bytes" || name == "capture_queue_bytes") {
                if (!size(setting, &number)) {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: " + error);
                }
                if (name == "capture_queue_bytes") {
                    captureQueueBytes = number;
                }
                extras.bridgeSettings += name + "=" + std::to_string(number) + "\n";
            } else if (name == "capture") {
                if (value.empty()) {
                    return fail(FDBR_INVALID_ARGUMENT, "fdbr_open_text: capture= names no folder");
                }
                capturing = true;
                extras.bridgeSettings += name + "=" + value + "\n";
            } else {
                return fail(FDBR_INVALID_ARGUMENT,
                            "fdbr_open_text: unknown setting '" + name +
                                "' (known: engine, memory_budget, max_key_bytes, class_path, jvm_option, "
                                "engine_option, keep_jvm_signal_handlers, jvm_suspend_signal, jvm_locale, process_memory_limit, "
                                "host_memory_reserve, capture, capture_segment_bytes, capture_max_bytes, "
                                "capture_queue_bytes)");
            }
        }
        if (capturing) {
            // The segments' headers record the configuration, less the class path (a machine's layout, not the run's).
            std::vector<fdbresolver::Setting> recorded;
            for (const fdbresolver::Setting& setting : settings) {
                if (setting.name != "class_path") recorded.push_back(setting);
            }
            extras.bridgeSettings += "capture_config=" + fdbresolver::formatSettings(recorded) + "\n";
            extras.captureHeapBytes = 2 * captureQueueBytes + kCaptureWriterHeapBytes;  // CaptureSettings.heapBytes
        }
        if (!extras.bridgeSettings.empty()) {
            extras.bridgeSettings.pop_back();  // the last newline
        }
        std::vector<const char*> jvm, options;
        for (const std::string& o : jvmOptions) jvm.push_back(o.c_str());
        for (const std::string& o : engineOptions) options.push_back(o.c_str());
        config.engine = engine.empty() ? nullptr : engine.c_str();
        config.class_path = classPath.empty() ? nullptr : classPath.c_str();
        config.jvm_options = jvm.data();
        config.jvm_option_count = static_cast<uint32_t>(jvm.size());
        config.engine_options = options.data();
        config.engine_option_count = static_cast<uint32_t>(options.size());
        return openResolver(&config, extras, out);
    } catch (const std::bad_alloc&) {
        return fail(FDBR_OUT_OF_MEMORY, "fdbr_open_text: out of memory");
    }
}

FDBR_API fdbr_status fdbr_close(fdbr_resolver* r) {
    t_lastError.clear();
    if (r == nullptr) {
        return FDBR_OK;
    }
    fdbr_status status = FDBR_OK;
    {
        std::lock_guard<std::mutex> lock(r->mutex);
        JNIEnv* env = nullptr;
        status = threadEnv(&env);
        if (status == FDBR_OK) {
            jint javaStatus = env->CallIntMethod(r->java, g_jvm.close, reinterpret_cast<jlong>(r->message),
                                                 static_cast<jint>(kMessageCapacity));
            status = finishCall(env, r, javaStatus, "fdbr_close");
            env->DeleteGlobalRef(r->java);
            r->java = nullptr;
        }
    }
    delete r;
    return status;
}

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

FDBR_API fdbr_status fdbr_clear(fdbr_resolver* r, int64_t version) {
    t_lastError.clear();
    if (r == nullptr) {
        return fail(FDBR_INVALID_ARGUMENT, "fdbr_clear: NULL resolver");
    }
    std::lock_guard<std::mutex> lock(r->mutex);
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK) {
        return status;
    }
    jint javaStatus = env->CallIntMethod(r->java, g_jvm.clear, static_cast<jlong>(version),
                                         reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
    return finishCall(env, r, javaStatus, "fdbr_clear");
}

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

FDBR_API const char* fdbr_take_warnings(fdbr_resolver* r) {
    t_lastError.clear();
    if (r == nullptr) {
        fail(FDBR_INVALID_ARGUMENT, "fdbr_take_warnings: NULL resolver");
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(r->mutex);
    JNIEnv* env = nullptr;
    if (threadEnv(&env) != FDBR_OK) {
        return nullptr;
    }
    r->message[0] = '\0';
    env->CallIntMethod(r->java, g_jvm.takeWarnings, reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
    std::string ignored;
    if (takeException(env, &ignored)) {
        fail(FDBR_ENGINE_ERROR, "fdbr_take_warnings: " + ignored);
        return nullptr;
    }
    r->warnings = r->nativeWarnings + r->message;
    r->nativeWarnings.clear();
    return r->warnings.c_str();
}

FDBR_API const char* fdbr_engine_name(const fdbr_resolver* r) {
    return r == nullptr ? nullptr : r->engineName.c_str();
}

FDBR_API const char* fdbr_last_error(void) {
    return t_lastError.c_str();
}

FDBR_API const char* fdbr_status_name(fdbr_status status) {
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

}  // extern "C"

static_assert(sizeof(fdbr_transaction) == 24, "fdbr_transaction layout is 24 bytes (docs/bridge-layout.md)");
static_assert(sizeof(fdbr_range) == 24, "fdbr_range layout is 24 bytes (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_range, begin_length) == 16, "fdbr_range layout (docs/bridge-layout.md)");
static_assert(offsetof(fdbr_transaction, flags) == 16, "fdbr_transaction layout (docs/bridge-layout.md)");
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
