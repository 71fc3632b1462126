#!/usr/bin/env bash
# The traces run.sh times, into ${TRACES:-/tmp/t} (the six as in docs/tree.md's "Traces"; lt30k: 1.8 GB, 5 minutes).
set -eu
cd "$(dirname "$0")/../../.."
T=${TRACES:-/tmp/t}; mkdir -p $T; g() { scripts/fdbresolver gen "$@" >/dev/null; }
g conflictset-range --out $T/csr.trace
g conflictset-point --out $T/csp.trace
g skiplisttest --out $T/skl.trace
g custom-point --batches 1500 --out $T/cp.trace
g custom-range --batches 1500 --out $T/cr.trace
g longtrace --batches 1000 --report-fraction 0.1 --out $T/lt.trace
g tuple --subspaces 12 --batches 1000 --out $T/tuple-12.trace
g longtrace --batches 3000 --window 600000000 --out $T/lt3000.trace.gz
g longtrace --batches 30000 --window 3600000000 --keyspace 1000000000 --out $T/lt30k.trace.gz
