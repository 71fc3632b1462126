#!/usr/bin/env bash
# Makes a Docker engine and the project's base image available for the container tests.
#
# No image can be pulled on the machines this project runs on, so the base image is built locally:
# a minimal Debian root file system from Debian's archive (debootstrap), imported into Docker. The
# engine runs without iptables or the default bridge (tests use network "none" or "host").
# Idempotent: a running engine and an existing image are reused. Needs root (apt-get, dockerd).
set -euo pipefail

BASE_IMAGE="${FDBRESOLVER_BASE_IMAGE:-fdbresolver-base:bookworm}"
STATE_DIR="${FDBRESOLVER_DOCKER_STATE:-/tmp/fdbresolver-docker}"
mkdir -p "$STATE_DIR"

log() { echo "containers: $*" >&2; }

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  log "installing docker.io and debootstrap with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd (log: $STATE_DIR/dockerd.log)"
  nohup dockerd --iptables=false --bridge=none --storage-driver=overlay2 >"$STATE_DIR/dockerd.log" 2>&1 &
  echo $! >"$STATE_DIR/dockerd.pid"
  for _ in $(seq 1 150); do
    docker info >/dev/null 2>&1 && break
    sleep 0.2
  done
  docker info >/dev/null 2>&1 || { log "dockerd did not start; see $STATE_DIR/dockerd.log"; exit 1; }
fi

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  # The same Debian archive apt uses on this machine.
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  rootfs="$(mktemp -d)"
  log "building $BASE_IMAGE with debootstrap (log: $STATE_DIR/debootstrap.log)"
  debootstrap --variant=minbase bookworm "$rootfs" ${mirror:+"$mirror"} >"$STATE_DIR/debootstrap.log" 2>&1
  tar -C "$rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
fi
log "docker ready, base image $BASE_IMAGE"
