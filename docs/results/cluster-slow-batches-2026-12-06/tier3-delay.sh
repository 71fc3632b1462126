#!/bin/bash
# tierbench.sh ROUNDS: default vs -XX:Tier3DelayOn=N, the flood capture replayed pinned to one CPU, paced 3 ms
cd /work/main
for r in $(seq 1 $1); do for v in default delay1000; do
  case $v in default) o="";; delay1000) o="--jvm-option -XX:Tier3DelayOn=1000";; esac
  out=$(taskset -c 1 jni-bridge/target/native/fdbresolver-replay /tmp/cap/segment-000000.trace.gz --pause-micros 3000 --budget 4m --jvm-option -XX:+UseSerialGC --jvm-option -Xlog:jit+compilation=debug:file=/tmp/jit-$v-$r.log:uptime $o 2>&1)
  g() { echo "$out" | grep -E "^$1:" | awk '{print $2}'; }
  late=$(grep -v "made not entrant" /tmp/jit-$v-$r.log | awk -F'[][]' '{t=$2; sub("s","",t); if (t+0>10) n++} END {print n+0}')
  echo "$v r$r seconds=$(g seconds) p50=$(g latency-p50) p99=$(g latency-p99) p99.9=$(g latency-p99.9) max=$(g latency-max) cpu-p99=$(g cpu-latency-p99) compiles-after-10s=$late hash=$(g decision-hash | cut -c1-8)"
done; done
