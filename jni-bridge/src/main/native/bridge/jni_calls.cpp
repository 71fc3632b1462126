// The process-wide JVM's state and the JNI plumbing every call goes through: thread attachment, Java
// exceptions turned into messages, Java status codes turned into fdbr_status.

#include "bridge.h"

#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

namespace fdbresolver_bridge {

thread_local std::string t_lastError;

Jvm g_jvm;

/** Thread-exit hook: a thread the bridge attached is detached when it ends. */
void detachThread(void*) {
    if (g_jvm.vm != nullptr && !g_jvm.shutDown.load()) {
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
    if (g_jvm.shutDown.load()) {
        return fail(FDBR_JVM_ERROR, "the process is exiting: the JVM has been shut down");
    }
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

namespace {

/** How long exit() waits for the JVM to shut down before it ends the process without it. */
constexpr int kJvmShutdownSeconds = 10;

pid_t g_jvmProcess = 0;
sem_t g_jvmShutdownDone;

/** Ends the process, with the status exit() was given, if the JVM has not shut down in time. */
void* jvmShutdownWatchdog(void* status) {
    timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += kJvmShutdownSeconds;
    int rc;
    while ((rc = sem_timedwait(&g_jvmShutdownDone, &deadline)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
        static const char message[] = "fdbresolver: the JVM did not shut down within 10 s of exit(); ending the process\n";
        ssize_t ignored = write(STDERR_FILENO, message, sizeof(message) - 1);
        (void)ignored;
        _exit(static_cast<int>(reinterpret_cast<intptr_t>(status)));
    }
    return nullptr;
}

/**
 * The exit handler: DestroyJavaVM, as the java launcher calls it before it returns from main. exit() runs handlers
 * in the reverse order of their registration, so this runs before libjvm's static destructors; without it a JVM
 * thread still at work — the full collection that hands the heap back after the last close, a compilation — can
 * call into an object those destructors took apart, and the host aborts on its way out ("pure virtual method
 * called", exit status 134). Every thread the bridge attaches is a daemon and so are the engine's own, so
 * DestroyJavaVM waits for no thread; a watchdog ends the process with its own status should it hang anyway.
 * Nothing in a child forked after the start (it has no JVM), and never reached by fdbserver, which leaves by _exit.
 */
void shutDownJvm(int status, void*) {
    if (getpid() != g_jvmProcess || g_jvm.vm == nullptr || g_jvm.shutDown.exchange(true)) {
        return;
    }
    bool watched = sem_init(&g_jvmShutdownDone, 0, 0) == 0;
    pthread_t watchdog;
    watched = watched && pthread_create(&watchdog, nullptr, jvmShutdownWatchdog,
                                        reinterpret_cast<void*>(static_cast<intptr_t>(status))) == 0;
    if (watched) {
        pthread_detach(watchdog);
    }
    g_jvm.vm->DestroyJavaVM();
    if (watched) {
        sem_post(&g_jvmShutdownDone);
    }
}

}  // namespace

void shutDownJvmAtExit() {
    g_jvmProcess = getpid();
    on_exit(shutDownJvm, nullptr);
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

