#!/usr/bin/env bash
# Builds the FoundationDB image with fdbresolver's engine: prepare-context.sh, then docker build.
#
# Usage: build-image.sh [TAG]   (default fdbresolver-fdb:local)
# Needs what prepare-context.sh needs, a Docker engine and the base image (containers/setup-docker.sh).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
tag="${1:-fdbresolver-fdb:local}"
context="$here/../target/fdb-image-context"
"$here/prepare-context.sh" "$context"
docker build -t "$tag" --build-arg "BASE_IMAGE=${FDBRESOLVER_BASE_IMAGE:-fdbresolver-base:bookworm}" "$context"
echo "image: $tag"
