// Starting the process's JVM (or finding one the host started) and looking up the bridge class and its
// methods, once per process. The options are checked and tried first (jvm_options.h): HotSpot ends the process
// on many start-up errors instead of returning.

#include "bridge.h"
#include "jvm_options.h"

#include <clocale>
#include <cstdlib>
#include <cstring>

namespace fdbresolver_bridge {

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

/** The engine's threads option (engine_option=threads=N), 1 to 256; 1 when not given or not a number. */
int engineThreads(const fdbr_config* config) {
    int threads = 1;
    for (uint32_t i = 0; i < config->engine_option_count; i++) {
        const char* option = config->engine_options[i];
        if (option == nullptr) continue;
        std::string text = option;
        size_t eq = text.find('=');
        if (eq == std::string::npos) continue;
        std::string name = text.substr(0, eq);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        if (name != "threads") continue;
        char* end = nullptr;
        long n = std::strtol(text.c_str() + eq + 1, &end, 10);
        if (end != text.c_str() + eq + 1 && n >= 1 && n <= 256) {
            threads = static_cast<int>(n);  // a bad value is the engine's to refuse, with its own message
        }
    }
    return threads;
}

/** Creates or finds the JVM and caches the bridge class and its methods; once per process. */
fdbr_status startJvm(const fdbr_config* config, const OpenExtras& extras) {
    std::lock_guard<std::mutex> lock(g_jvm.mutex);
    if (g_jvm.ready) {
        return FDBR_OK;
    }
    std::string classPath;
    if (g_jvm.vm == nullptr) {
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
            std::vector<JvmOption> invocation;
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
            // A guest's manners: HotSpot sizes its GC and compiler threads for every core of the machine, and an
            // fdbserver host runs one process per core. Bounded to what the engine uses (its threads and one more, for
            // the capture's writer and the collector); before jvm_option and _JAVA_OPTIONS, which override them.
            int processors = engineThreads(config) + 1;
            bridgeOption("-XX:ActiveProcessorCount=" + std::to_string(processors));
            bridgeOption("-XX:ParallelGCThreads=" + std::to_string(processors));
            bridgeOption("-XX:ConcGCThreads=1");
            bridgeOption("-XX:CICompilerCount=2");
            // The collector, for a history that grows. The engine allocates nothing per batch, but while its history
            // grows it takes node chunks and key blocks that live on, and every young collection copies what was
            // taken since the last one: a pause in proportion to the young generation, about 3 ms per MB where a
            // first touch of a page costs 17 us (measured: longtrace's 146 MB from a fresh JVM, G1's defaults 124 ms,
            // Serial's 201 ms; docs/latency.md). G1 with a 10 ms pause goal sizes the young generation to meet it, from
            // 1 % of the heap rather than its default 5 %, and what survives one collection (history) is tenured at
            // once rather than copied again. A collector chosen in jvm_option or the environment is kept (HotSpot
            // refuses two); the other flags still apply, overridable like the ones above.
            std::vector<JvmOption> jvmOptions;
            for (uint32_t i = 0; i < config->jvm_option_count; i++) {
                if (config->jvm_options[i] != nullptr) jvmOptions.push_back({config->jvm_options[i], "jvm_option"});
            }
            if (!selectsCollector(effectiveOptions(jvmOptions))) {
                bridgeOption("-XX:+UseG1GC");
            }
            bridgeOption("-XX:MaxGCPauseMillis=10");
            bridgeOption("-XX:+UnlockExperimentalVMOptions");
            bridgeOption("-XX:G1NewSizePercent=1");
            bridgeOption("-XX:MaxTenuringThreshold=0");
            bool maxHeapGiven = false;
            for (const JvmOption& option : jvmOptions) maxHeapGiven = maxHeapGiven || setsMaxHeap(option.text);
            if (!maxHeapGiven) {
                // Sized from the budget, so that the history always fits (the Java side checks it at every open).
                invocation.push_back({defaultMaxHeap(config->memory_budget_bytes, extras.captureHeapBytes),
                                      "the bridge's, sized from memory_budget"});
            }
            invocation.insert(invocation.end(), jvmOptions.begin(), jvmOptions.end());
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
            std::vector<JvmOption> effective = effectiveOptions(invocation);
            std::string refused = checkOptions(effective);
            if (!refused.empty()) {
                return fail(FDBR_INVALID_ARGUMENT, refused);
            }
            refused = checkAddressSpace(effective);
            if (!refused.empty()) {
                return fail(FDBR_JVM_ERROR, refused);
            }
            TrialStart trial = tryStartInChild(texts);
            if (trial.tried && !trial.spawned) {
                // Not started unchecked: the skip list deciding is safe, an exit is not.
                return fail(FDBR_JVM_ERROR, "the JVM's options could not be tried in a child process first (" + trial.why +
                                                "), so the JVM was not started");
            }
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
            // JNI_CreateJavaVM attached this thread as a non-daemon, which DestroyJavaVM would wait for at exit:
            // attached again below as a daemon, like every thread the bridge attaches.
            vm->DetachCurrentThread();
            shutDownJvmAtExit();
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
        (status = lookUpMethod(env, cls, false, "hostMemoryRoom", "()J", &g_jvm.hostMemoryRoom)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, false, "takeWarnings", "(JI)I", &g_jvm.takeWarnings)) != FDBR_OK ||
        (status = lookUpMethod(env, cls, true, "awaitCloses", "(J)I", &g_jvm.awaitCloses)) != FDBR_OK) {
        env->DeleteGlobalRef(cls);
        return status;
    }
    g_jvm.resolverClass = cls;
    g_jvm.ready = true;
    return FDBR_OK;
}

}  // namespace fdbresolver_bridge

