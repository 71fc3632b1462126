// The embedded JVM's class path: "dir/*" entries expanded as the java launcher does, and the jars beside the
// library when the host names none.

#include "bridge.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>

namespace fdbresolver_bridge {

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

}  // namespace fdbresolver_bridge

