#!/usr/bin/env bash
# Assembles the build context of containers/fdb-cluster/Dockerfile in OUT:
#   fdb/bin/{fdbserver,fdbcli,tini}  FoundationDB from scripts/build-fdb (debug info stripped), tini
#   fdb/lib/                         the libraries ldd shows fdbserver and fdbcli need beyond the base
#                                    image (glibc and the GCC runtime are in every Debian base)
#   fdb/fdb-process.sh               the entry point
#   fdbresolver/jre                  a jlink'd Java runtime with the modules jdeps finds in the jars
#                                    (libjvm.so, libjsig.so)
#   fdbresolver/native/libfdbresolver.so, fdbresolver/*.jar, fdbresolver/lib/*.jar   the bridge and engine
#   var/{data,logs}                  fdbserver's folders, owned by the image's user
#   fdbresolver/fdbresolver.aot      with FDBRESOLVER_AOT_TRAINING only: an ahead-of-time cache for the image's JVM
#
# Usage: prepare-context.sh OUT
# Needs: the FoundationDB build (scripts/build-fdb), the bridge built
# (./mvnw -B -o -q package -DskipTests -pl jni-bridge -am), JAVA_HOME (JDK 25, for jlink), tini.
# Reuses what is already in OUT and unchanged, so a second run takes seconds.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 OUT" >&2; exit 2; }
out="$1"
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
here="$root/containers/fdb-cluster"
java_home="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"

die() { echo "prepare-context: $*" >&2; exit 2; }
say() { echo "prepare-context: $*" >&2; }

where="$("$root/scripts/build-fdb" --where)" || die "FoundationDB is not built: run scripts/build-fdb (it prints: $(echo "$where" | tr '\n' ' '))"
path_of() { echo "$where" | sed -n "s/^$1: //p"; }
fdbserver="$(path_of fdbserver)"
fdbcli="$(path_of fdbcli)"

bridge="$root/jni-bridge/target"
library="$bridge/native/libfdbresolver.so"
bridge_jar="$(ls "$bridge"/fdbresolver-jni-bridge-*.jar 2>/dev/null | grep -v -- '-tests\.jar$' | head -n1 || true)"
[[ -f "$library" && -n "$bridge_jar" && -d "$bridge/lib" ]] \
  || die "the bridge is not built: run ./mvnw -B -o -q package -DskipTests -pl jni-bridge -am"
[[ -x "$java_home/bin/jlink" ]] || die "no jlink in JAVA_HOME=$java_home"
# The embedded JVM runs the bridge and the engine: the modules their jars need (java.base, jdk.jfr).
jre_modules="$("$java_home/bin/jdeps" --print-module-deps --ignore-missing-deps "$bridge_jar" "$bridge"/lib/*.jar)" \
  || die "jdeps could not list the modules of the bridge's jars"
tini="$(command -v tini-static || command -v tini || true)"
[[ -n "$tini" ]] || die "tini is missing: apt-get install tini (Debian's docker.io brings it)"

mkdir -p "$out"/fdb/bin "$out"/fdb/lib "$out"/fdbresolver/native "$out"/fdbresolver/lib "$out"/var/data "$out"/var/logs

# Copies src to dst when dst is missing or older, stripping debug information from executables.
put() {
  local src="$1" dst="$2" strip="${3:-}"
  [[ -f "$dst" && ! "$src" -nt "$dst" ]] && return 0
  if [[ -n "$strip" ]]; then
    strip --strip-debug -o "$dst.tmp" "$src" && mv "$dst.tmp" "$dst"
  else
    cp -L "$src" "$dst.tmp" && mv "$dst.tmp" "$dst"
  fi
  touch -r "$src" "$dst"
}

say "FoundationDB binaries from $(dirname "$fdbserver")"
put "$fdbserver" "$out/fdb/bin/fdbserver" strip
put "$fdbcli" "$out/fdb/bin/fdbcli" strip
put "$tini" "$out/fdb/bin/tini"
cp "$here/fdb-process.sh" "$out/fdb/fdb-process.sh"

# Run-time libraries: whatever ldd resolves outside glibc and the GCC runtime; a library ldd cannot
# find here would be missing in the image too.
wanted=()
for bin in "$fdbserver" "$fdbcli"; do
  missing="$(ldd "$bin" | grep 'not found' || true)"
  [[ -z "$missing" ]] || die "$bin needs libraries this machine lacks: $missing"
  while read -r name path; do
    case "$name" in
      linux-vdso.so.*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|libutil.so.*|libstdc++.so.*|libgcc_s.so.*) ;;
      *) wanted+=("$name=$path") ;;
    esac
  done < <(ldd "$bin" | awk '$2 == "=>" { print $1, $3 }')
done
rm -f "$out"/fdb/lib/*.tmp
for entry in $(printf '%s\n' "${wanted[@]}" | sort -u); do
  put "${entry#*=}" "$out/fdb/lib/${entry%%=*}"
done
say "run-time libraries: $(ls "$out/fdb/lib" | tr '\n' ' ')"

if [[ ! -x "$out/fdbresolver/jre/bin/java" || ! -f "$out/fdbresolver/jre/.modules" \
      || "$(cat "$out/fdbresolver/jre/.modules")" != "$java_home $jre_modules" ]]; then
  say "jlink: $jre_modules"
  rm -rf "$out/fdbresolver/jre"
  "$java_home/bin/jlink" --add-modules "$jre_modules" --strip-debug --no-header-files --no-man-pages \
    --output "$out/fdbresolver/jre"
  echo "$java_home $jre_modules" >"$out/fdbresolver/jre/.modules"
fi
[[ -f "$out/fdbresolver/jre/lib/libjsig.so" && -f "$out/fdbresolver/jre/lib/server/libjvm.so" ]] \
  || die "the jlink'd runtime lacks lib/libjsig.so or lib/server/libjvm.so"

# The bridge and the engine: native/../*.jar and native/../lib/*.jar are the bridge's default class path.
put "$library" "$out/fdbresolver/native/libfdbresolver.so"
rm -f "$out"/fdbresolver/*.jar "$out"/fdbresolver/lib/*.jar
cp "$bridge_jar" "$out/fdbresolver/"
cp "$bridge"/lib/*.jar "$out/fdbresolver/lib/"

# Optional: an ahead-of-time cache for the image's JVM (docs/latency.md, "The JVM's compilers on the Resolver's core"),
# trained in a container of the base image with the context mounted where the image puts it, so that the cache records
# the image's runtime and class path (HotSpot ignores a cache made by another). FDBRESOLVER_AOT_TRAINING="TRACE
# [REPLAY OPTION...]" turns it on (e.g. "testdata/golden/bank-capture.trace.gz --budget 4m --jvm-option
# -XX:+UseSerialGC"); the plugin then needs jvm_option=-XX:AOTCache=/opt/fdbresolver/fdbresolver.aot.
rm -f "$out/fdbresolver/fdbresolver.aot" "$out/fdbresolver/native/fdbresolver-replay"
if [[ -n "${FDBRESOLVER_AOT_TRAINING:-}" ]]; then
  read -r -a training <<<"$FDBRESOLVER_AOT_TRAINING"
  training_trace="$(readlink -f "${training[0]}")"
  [[ -f "$training_trace" ]] || die "FDBRESOLVER_AOT_TRAINING: no trace at ${training[0]}"
  cp "$bridge/native/fdbresolver-replay" "$out/fdbresolver/native/fdbresolver-replay"
  # The replay driver's own libraries that the base image lacks (libcrypto, for its hashes): beside it for the run only.
  training_libs="$(mktemp -d)"
  while read -r name path; do
    case "$name" in libcrypto.so.*) cp -L "$path" "$training_libs/" ;; esac
  done < <(ldd "$bridge/native/fdbresolver-replay" | awk '$2 == "=>" { print $1, $3 }')
  say "training an ahead-of-time cache on $training_trace"
  docker run --rm -v "$out/fdbresolver:/opt/fdbresolver" -v "$out/fdb/lib:/opt/fdb/lib:ro" \
    -v "$training_trace:/tmp/training.trace:ro" -v "$training_libs:/opt/training-libs:ro" \
    -e LD_LIBRARY_PATH=/opt/fdb/lib:/opt/fdbresolver/jre/lib:/opt/fdbresolver/jre/lib/server:/opt/training-libs \
    "${FDBRESOLVER_BASE_IMAGE:-fdbresolver-base:bookworm}" \
    /opt/fdbresolver/native/fdbresolver-replay /tmp/training.trace --warmup 0 \
    --class-path "/opt/fdbresolver/native/../*:/opt/fdbresolver/native/../lib/*" "${training[@]:1}" \
    --jvm-option -XX:AOTCacheOutput=/opt/fdbresolver/fdbresolver.aot >/dev/null && trained=1 || trained=0
  # The driver and its libraries go whether the training succeeded or not: neither belongs in the image.
  rm -rf "$out/fdbresolver/native/fdbresolver-replay" "$training_libs"
  [[ $trained == 1 ]] || die "the ahead-of-time cache's training run failed"
  [[ -s "$out/fdbresolver/fdbresolver.aot" ]] || die "the training run wrote no ahead-of-time cache"
  say "ahead-of-time cache: $(stat -c %s "$out/fdbresolver/fdbresolver.aot") bytes"
fi

cp "$here/Dockerfile" "$out/Dockerfile"
say "context ready in $out ($(du -sh "$out" | cut -f1))"
