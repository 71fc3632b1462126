// libfdbresolver: the C ABI of fdbresolver.h over a JVM embedded with the JNI invocation API.
//
// One JVM per process, created by the first fdbr_open (or found with JNI_GetCreatedJavaVMs); the
// Java class org.fdbresolver.bridge.NativeResolver receives every call. Class and method references
// are looked up once. A batch crosses into Java once: the host's transaction and range tables are
// read in place by the Java flyweight NativeBatch (layout: docs/bridge-layout.md), and the decisions
// come back in an output buffer each resolver owns and reuses. Every JNI call is followed by an
// exception check, so -Xcheck:jni stays silent and no Java exception reaches the host.
//
// This file holds the C ABI's life cycle (open, close, clear, names, the last error); bridge.h says where the
// rest is.

#include "bridge.h"

#include <cstring>
#include <new>

using namespace fdbresolver_bridge;

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

namespace fdbresolver_bridge {

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
        closeOrphans(env);  // before the admission: what they hold is given back
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
        bool named = javaEngineName(env, r->java, &r->engineName, &message);
        if (named) {
            r->hostMemoryRoom = env->CallLongMethod(r->java, g_jvm.hostMemoryRoom);
        }
        if (!named || takeException(env, &message)) {
            std::string why = message;
            env->CallIntMethod(r->java, g_jvm.close, reinterpret_cast<jlong>(r->message), static_cast<jint>(kMessageCapacity));
            takeException(env, &message);
            env->DeleteGlobalRef(r->java);
            delete r;
            return fail(FDBR_ENGINE_ERROR, std::string("fdbr_open: cannot read the engine's ") +
                                               (named ? "host memory room: " : "name: ") + why);
        }
        prepareForBatches(env, r);
        *out = r;
        return FDBR_OK;
    } catch (const std::bad_alloc&) {
        return fail(FDBR_OUT_OF_MEMORY, "fdbr_open: out of memory");
    } catch (...) {
        return fail(FDBR_JVM_ERROR, "fdbr_open: unexpected native exception");
    }
}

int closeOrphans(JNIEnv* env) {
    std::vector<jobject> orphans;
    {
        std::lock_guard<std::mutex> lock(g_jvm.orphansMutex);
        orphans.swap(g_jvm.orphans);
    }
    char message[kMessageCapacity];
    std::string ignored;
    for (jobject java : orphans) {
        env->CallIntMethod(java, g_jvm.close, reinterpret_cast<jlong>(message), static_cast<jint>(kMessageCapacity));
        takeException(env, &ignored);  // its handle is gone: nobody to tell
        env->DeleteGlobalRef(java);
    }
    return static_cast<int>(orphans.size());
}

}  // namespace fdbresolver_bridge

extern "C" {

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
        } else if (r->java != nullptr) {
            // No JVM for this thread: the Java resolver (its history, its heap admission) waits for the next call
            // that can close it, instead of leaking for the process's life.
            try {
                std::lock_guard<std::mutex> orphansLock(g_jvm.orphansMutex);
                g_jvm.orphans.push_back(r->java);
                r->java = nullptr;
            } catch (const std::bad_alloc&) {
                // out of memory for one pointer: it leaks, as before
            }
            t_lastError += " (the resolver is closed by the next call that reaches the JVM)";
        }
    }
    delete r;
    return status;
}

FDBR_API fdbr_status fdbr_await_closes(int64_t timeout_millis) {
    t_lastError.clear();
    {
        std::lock_guard<std::mutex> lock(g_jvm.mutex);
        if (!g_jvm.ready) {
            return FDBR_OK;  // no JVM, so nothing was ever closed
        }
    }
    JNIEnv* env = nullptr;
    fdbr_status status = threadEnv(&env);
    if (status != FDBR_OK) {
        return status;
    }
    closeOrphans(env);
    jint left = env->CallStaticIntMethod(g_jvm.resolverClass, g_jvm.awaitCloses, static_cast<jlong>(timeout_millis));
    std::string message;
    if (takeException(env, &message)) {
        return fail(FDBR_ENGINE_ERROR, "fdbr_await_closes: " + message);
    }
    if (left > 0) {
        return fail(FDBR_ENGINE_ERROR, "fdbr_await_closes: " + std::to_string(left) + " closed resolver" +
                                           (left == 1 ? " is" : "s are") + " still finishing after " +
                                           std::to_string(timeout_millis) + " ms (a capture on a slow disk?)");
    }
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

FDBR_API int64_t fdbr_host_memory_room(const fdbr_resolver* r) {
    return r == nullptr ? -1 : r->hostMemoryRoom;
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
