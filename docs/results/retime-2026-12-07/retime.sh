#!/usr/bin/env bash
# README's figures timed again after the read check's two changes of 2026-12-07 (03b81b3, 27cc288), against the full
# build's skip-list comparator over jemalloc: the six workloads, tuple keys at 1 to 64 subspaces, the golden bank capture.
# Traces: docs/tree.md, "Traces" (/tmp/t: gen with each workload's defaults; /tmp/m: gen tuple --subspaces N --batches 1000).
set -u
cd "$(dirname "$0")/../../.."
S=tree:warmUpBatches=2000:warmUpSettleMillis=30000
for tw in csr:1000 csp:1000 skl:100 cp:500 cr:500 lt:200; do
  scripts/fdb-compare /tmp/t/${tw%%:*}.trace --warmup ${tw##*:} --runs 2
done
for n in 1 3 12 64; do
  scripts/fdb-compare /tmp/m/tuple-$n.trace --warmup 200 --runs 2 --engines tree,$S
done
scripts/fdb-compare testdata/golden/bank-capture.trace.gz --cycles 10 --warmup 20000 --runs 2 --engines tree,$S
