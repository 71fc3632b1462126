#!/usr/bin/env bash
# Installs the system packages the native bridge needs to build (cmake, g++, zlib and OpenSSL headers), with
# apt-get, when they are missing. Debian 12; run as root (CI does). Safe to run repeatedly.
set -euo pipefail
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
[ -e /usr/include/zlib.h ] || need+=(zlib1g-dev)
[ -e /usr/include/openssl/evp.h ] || need+=(libssl-dev)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "jni-bridge/install-deps.sh: installing ${need[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "jni-bridge/install-deps.sh: need root to apt-get install ${need[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
