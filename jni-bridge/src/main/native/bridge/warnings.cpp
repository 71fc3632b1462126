// Warnings for the host (fdbr_take_warnings): the library's own (JVM settings a running JVM ignores, the start's)
// and the engines' (WarningCapture on the Java side), one per line.

#include "bridge.h"

#include <set>

namespace fdbresolver_bridge {

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

}  // namespace fdbresolver_bridge

using namespace fdbresolver_bridge;

extern "C" {

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

}  // extern "C"
