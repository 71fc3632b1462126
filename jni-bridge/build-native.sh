#!/usr/bin/env bash
# Builds the native side of the JNI bridge with CMake: libfdbresolver.so, fdbresolver-replay and the
# native test program, into jni-bridge/target/native/. Maven runs it in the compile phase; it can
# also be run by hand. Usage: build-native.sh [JAVA_HOME] [BUILD_TYPE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
java_home=${1:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}}
build_type=${2:-Release}
build_dir=$here/target/native-build
out_dir=$here/target/native

missing=()
for tool in cmake g++; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -e /usr/include/zlib.h ] || missing+=("zlib1g-dev")
[ -e /usr/include/openssl/evp.h ] || missing+=("libssl-dev")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-native.sh: missing ${missing[*]}: run scripts/install-deps (as root) first" >&2
  exit 1
fi
if [ ! -e "$java_home/include/jni.h" ]; then
  # Maven passes java.home, which is the JDK's root on JDK 9+; accept a JRE-style path too.
  [ -e "$java_home/../include/jni.h" ] && java_home=$(cd "$java_home/.." && pwd)
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
log=$here/target/native-build.log
mkdir -p "$here/target"
# A build dir configured for another generator or JDK is started afresh.
if [ -f "$build_dir/CMakeCache.txt" ] && ! grep -q "^JAVA_HOME:.*=$java_home\$" "$build_dir/CMakeCache.txt"; then
  rm -rf "$build_dir"
fi
if ! { cmake -S "$here" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="$build_type" \
         -DJAVA_HOME="$java_home" -DOUTPUT_DIR="$out_dir" \
       && cmake --build "$build_dir" --parallel 2; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "build-native.sh: native build failed (log: $log)" >&2
  exit 1
fi
