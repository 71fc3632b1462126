#!/usr/bin/env bash
# The read check's two changes of 2026-12-07, alternated in one run per trace against FoundationDB's skip list:
# base = a729c86 (a worktree), point = 03b81b3 (point reads stop at their interval), point4m = the same with
# readBatchedFromBytes=4194304 (the new default). ab.py: docs/results/issue29-experiments-2026-12-06/ab.py.
# Output: ab-four-variants.txt; skl once more with four rounds: ab-skl-four-rounds.txt.
# bench-threshold-*.txt: earlier plain `scripts/fdbresolver bench TRACE --warmup N --engine-option
# readBatchedFromBytes=V` runs, alternated (16777216, 0, 4194304; `--settle-jit` in the settled file).
export FDBRESOLVER_FDB_SKIPLIST=${FDBRESOLVER_FDB_SKIPLIST:-$(scripts/build-fdb --where | sed -n 's/^fdb-skiplist: //p')}
AB=docs/results/issue29-experiments-2026-12-06/ab.py
for tw in /tmp/m/tuple-12.trace:200:4 /tmp/m/tuple-64.trace:200:3 /tmp/t/csr.trace:1000:2 /tmp/t/csp.trace:1000:2 \
          /tmp/t/skl.trace:100:2 /tmp/t/cp.trace:500:2 /tmp/t/cr.trace:500:2 /tmp/t/lt.trace:200:2; do
  IFS=: read -r t w r <<< "$tw"
  echo "=== $t warmup $w rounds $r"
  BENCH_ARGS="--warmup $w" python3 $AB "$t" "$r" base=/tmp/wt point=/work/main \
    point4m=/work/main:readBatchedFromBytes=4194304 fdb=SL
done
