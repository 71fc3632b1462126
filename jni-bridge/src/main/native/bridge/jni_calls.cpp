// The process-wide JVM's state and the JNI plumbing every call goes through: thread attachment, Java
// exceptions turned into messages, Java status codes turned into fdbr_status.

#include "bridge.h"

namespace fdbresolver_bridge {

thread_local std::string t_lastError;

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

}  // namespace fdbresolver_bridge

