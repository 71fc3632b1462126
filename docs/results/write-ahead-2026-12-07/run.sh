#!/usr/bin/env bash
# search = a worktree at ce55b77 (a binary search ahead), wholeLeaf = the change (every line of the leaf ahead); ab.py:
# docs/results/issue29-experiments-2026-12-06/ab.py. ab-tuple12-csp.txt: one build with the change behind -Dwa.all=true.
cd /tmp/ab2
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export FDBRESOLVER_FDB_SKIPLIST=/root/.cache/fdbresolver/fdb/build-c0c44752df67/bin/fdbresolver_fdb_skiplist
for tw in /tmp/t/cp.trace:500:3 /tmp/t/cr.trace:500:3 /tmp/t/skl.trace:100:3 /tmp/t/lt.trace:200:2 /tmp/m/tuple-64.trace:200:2 /tmp/t/csr.trace:1000:2; do
  IFS=: read t w r <<< "$tw"
  echo "=== $t warmup $w rounds $r"
  BENCH_ARGS="--warmup $w" python3 ab.py $t $r search=/tmp/wt wholeLeaf=/work/main
done
BENCH_ARGS="--cycles 10 --warmup 20000" python3 ab.py /work/main/testdata/golden/bank-capture.trace.gz 3 search=/tmp/wt wholeLeaf=/work/main
