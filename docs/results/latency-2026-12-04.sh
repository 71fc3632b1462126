#!/bin/bash
SL=/root/.cache/fdbresolver/fdb/skiplist-c0c44752df67/6645c29bee026673/fdbresolver_fdb_skiplist
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 FDBRESOLVER_NO_BUILD=1 FDBRESOLVER_JAVA_OPTS=-Xmx8g
cd /work/main
K='^(seconds|cpu-seconds|history-bytes|decision-hash|latency-|cpu-latency-|slowest-1:|slowest-cpu-1:|full-sweep)'
for r in 1 2; do
 for spec in csr:1000 csp:1000 skl:100 cp:500 cr:500 lt:200 tuple12:200; do
  n=${spec%%:*}; w=${spec##*:}; t=/tmp/t/$n.trace; [ $n = tuple12 ] && t=/tmp/m/tuple-12.trace
  echo "== r$r $n skiplist"; $SL $t --warmup $w 2>&1 | grep -E "$K"
  echo "== r$r $n tree"; scripts/fdbresolver bench $t --warmup $w 2>&1 | grep -E "$K"
 done
 for b in 16m 128m 1g; do
  echo "== r$r lt3000-$b skiplist"; $SL /tmp/t/lt3000.trace.gz --warmup 500 2>&1 | grep -E "$K"
  echo "== r$r lt3000-$b tree"; scripts/fdbresolver bench /tmp/t/lt3000.trace.gz --warmup 500 --budget $b 2>&1 | grep -E "$K"
 done
done
