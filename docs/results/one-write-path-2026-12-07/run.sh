#!/usr/bin/env bash
# before = a worktree at 74db222 (/tmp/wbase), after = the change (/tmp/wu); ab.py:
# docs/results/issue29-experiments-2026-12-06/ab.py. Traces: docs/tree.md, "Traces"; point-2: docs/small-batches.md.
AB=/tmp/wu/docs/results/issue29-experiments-2026-12-06/ab.py
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for tw in /tmp/m/tuple-12.trace:200:3 /tmp/t/csp.trace:1000:2 /tmp/t/csr.trace:1000:2 /tmp/t/skl.trace:100:2 \
          /tmp/t/cp.trace:500:2 /tmp/t/cr.trace:500:2 /tmp/t/lt.trace:200:2; do
  IFS=: read t w r <<< "$tw"
  echo "=== $t warmup $w rounds $r"
  BENCH_ARGS="--warmup $w" python3 $AB $t $r before=/tmp/wbase after=/tmp/wu
done
echo "=== longtrace, budget 16 MiB"
BENCH_ARGS="--warmup 200 --budget 16m" python3 $AB /tmp/t/lt.trace 3 before=/tmp/wbase after=/tmp/wu
echo "=== bank capture"
BENCH_ARGS="--cycles 10 --warmup 20000" python3 $AB /tmp/wu/testdata/golden/bank-capture.trace.gz 3 before=/tmp/wbase after=/tmp/wu
echo "=== point-2"
BENCH_ARGS="--cycles 5 --warmup 160000" python3 $AB /tmp/fig/point-2.trace 3 before=/tmp/wbase after=/tmp/wu
echo "=== capture-txn-timeout"
BENCH_ARGS="--cycles 20 --warmup 240000" python3 $AB /tmp/wu/testdata/golden/capture-txn-timeout.trace.gz 2 before=/tmp/wbase after=/tmp/wu
