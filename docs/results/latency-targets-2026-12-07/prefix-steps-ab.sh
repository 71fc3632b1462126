#!/bin/bash
# A/B: the prefix-breaking batch and the 400 batches after it, at a 1 GiB budget; old (158ef80) and new alternated.
export FDBRESOLVER_JAVA_OPTS=-Xmx15g
T=/tmp/t/lt30k-bc.trace
for round in 1 2; do
  for side in old new; do
    if [ $side = old ]; then S=/tmp/wt-old/scripts/fdbresolver;  # a built worktree of 158ef80
    else S=/work/main/scripts/fdbresolver; fi
    echo "== $side round $round"
    $S bench $T --warmup 29990 --budget 1g --settle-jit "$@" 2>/dev/null | grep -E "timed-batches|history-bytes|decision-hash|latency|slowest"
  done
done
