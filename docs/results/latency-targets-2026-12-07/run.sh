#!/usr/bin/env bash
# Issue 31's targets measured in one run against FoundationDB's skip list (its comparator over jemalloc, as
# fdbserver runs it): the six benchmark workloads, tuple keys under 12 subspaces, longtrace (3,000 batches of 2,048
# transactions, a 600-s window) at budgets of 16 MiB, 128 MiB and 1 GiB, each side alternated, two rounds; the engine
# both plain (`bench` as it is: a short run in which C2 may still compile) and settled (`--settle-jit`: warmed and
# settled as the bridge's first open leaves it, what a running Resolver runs). Then the engine alone on longtrace of
# 30,000 batches with an hour's window and a billion keys, whose history passes 1 GiB: the slowest batch at a 1 GiB
# budget that binds against the slowest at 16 MiB, on the same trace. Prints bench's and the comparator's lines;
# summarise.py turns them into the tables of docs/latency.md ("Against the targets").
# Traces: gen.sh. The skip list: scripts/build-skiplist or scripts/build-fdb (found as scripts/fdb-compare finds it).
set -u
cd "$(dirname "$0")/../../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64} FDBRESOLVER_JAVA_OPTS=${FDBRESOLVER_JAVA_OPTS:--Xmx15g}
source scripts/lib/skiplist-comparator.bash
find_skiplist_comparator || { echo "no skip list: $skiplist_why_not" >&2; exit 3; }
skiplist_allocator "$skiplist_comparator"
SL=("${skiplist_run[@]}" "$skiplist_comparator")
echo "skip-list: $skiplist_comparator ($skiplist_allocator)"
K='^(seconds|cpu-seconds|history-bytes|decision-hash|latency-|cpu-latency-|slowest-1:|slowest-cpu-1:|full-sweep|retained-version)'
T=${TRACES:-/tmp/t}
run() { # label command...
  echo "== $1"; shift; "$@" 2>&1 | grep -E "$K"; echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
for r in 1 2; do
  for spec in csr:1000 csp:1000 skl:100 cp:500 cr:500 lt:200 tuple-12:200; do
    n=${spec%%:*} w=${spec##*:}
    run "r$r $n skiplist" "${SL[@]}" $T/$n.trace --warmup $w
    run "r$r $n tree" scripts/fdbresolver bench $T/$n.trace --warmup $w
    run "r$r $n settled" scripts/fdbresolver bench $T/$n.trace --warmup $w --settle-jit
  done
  run "r$r lt3000 skiplist" "${SL[@]}" $T/lt3000.trace.gz --warmup 500
  for b in 16m 128m 1g; do
    run "r$r lt3000-$b tree" scripts/fdbresolver bench $T/lt3000.trace.gz --warmup 500 --budget $b
    run "r$r lt3000-$b settled" scripts/fdbresolver bench $T/lt3000.trace.gz --warmup 500 --budget $b --settle-jit
  done
done
for b in 16m 1g; do
  run "r1 lt30k-$b settled" scripts/fdbresolver bench $T/lt30k.trace.gz --warmup 500 --budget $b --settle-jit
done
