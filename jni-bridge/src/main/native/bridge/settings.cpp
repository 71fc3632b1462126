// The configuration text (fdbr_open_text): split by fdbresolver::parseSettings, as hosts split it, and read into
// an fdbr_config and the bridge's own settings.

#include "bridge.h"
#include "fdbresolver.hpp"  // parseSettings: the one reading of a configuration text, shared with hosts

#include <cctype>
#include <new>

namespace fdbresolver_bridge {

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

}  // namespace fdbresolver_bridge

using namespace fdbresolver_bridge;

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
                       name == "capture_segment_bytes" || name == "capture_max_bytes" || name == "capture_queue_bytes" ||
                       name == "capture_folder_max_bytes") {
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
                                "capture_queue_bytes, capture_folder_max_bytes)");
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

}  // extern "C"
