# Sourced by scripts/fdbresolver, scripts/test and scripts/fdbresolver-replay: checks, before anything runs, that JAVA_HOME is a
# JDK 25 (the build targets release 25; the scripts pass JVM options older JDKs refuse), and says what is
# needed and where instead of letting the JVM fail with "Unrecognized option".
#
#   require_jdk25 PROGRAM [--jni]   sets JAVA_HOME to the default when unset; --jni also wants
#                                   include/jni.h (the bridge embeds the JVM); exits 2 with one
#                                   "error: ..." line when the check fails
FDBRESOLVER_DEFAULT_JDK=/usr/lib/jvm/temurin-25-jdk-amd64

# The JDK's feature version (17, 25, ...): from its release file, which costs nothing, else from
# `java -version` ("1.8.0_402" is Java 8).
fdbresolver_jdk_major() {
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
  [[ -n $v ]] || v=$("$JAVA_HOME/bin/java" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)
  v="${v#1.}"
  v="${v%%[!0-9]*}"
  echo "${v:-unknown}"
}

require_jdk25() {
  local program=$1 jni=${2:-}
  export JAVA_HOME="${JAVA_HOME:-$FDBRESOLVER_DEFAULT_JDK}"
  local wanted="$program needs JDK 25 (e.g. Temurin 25 at $FDBRESOLVER_DEFAULT_JDK; point JAVA_HOME at it)"
  if [[ ! -x $JAVA_HOME/bin/java ]]; then
    echo "error: JAVA_HOME=$JAVA_HOME holds no JDK: $wanted" >&2
    exit 2
  fi
  local major
  major=$(fdbresolver_jdk_major)
  if [[ ! $major =~ ^[0-9]+$ ]] || (( major < 25 )); then
    echo "error: JAVA_HOME=$JAVA_HOME is JDK $major: $wanted" >&2
    exit 2
  fi
  if [[ $jni == --jni && ! -e $JAVA_HOME/include/jni.h ]]; then
    echo "error: JAVA_HOME=$JAVA_HOME is a Java runtime without include/jni.h: $program needs a full JDK 25" >&2
    exit 2
  fi
}
