#!/bin/bash
# A/B: the stamp load skipped below the walk's cursor (new) against the commit before (prev); one round.
export FDBRESOLVER_JAVA_OPTS=-Xmx15g
T=/tmp/t/lt30k-bc.trace
for side in prev new; do
  if [ $side = prev ]; then S=/tmp/wt-prev/scripts/fdbresolver; else S=/work/main/scripts/fdbresolver; fi
  echo "== $side"
  $S bench $T --warmup 29990 --budget 1g --settle-jit "$@" 2>/dev/null | grep -E "timed-batches|history-bytes|decision-hash|latency|slowest"
done
