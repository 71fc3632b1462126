#!/bin/bash
# flood-replay.sh ROUNDS: the flood capture replayed pinned to one CPU and paced 3 ms, as the cluster runs it
# (docs/latency.md, "The successor's first seconds"), from a fresh JVM through the bridge: before the one write
# path (a worktree at 74db222, /tmp/wbase) and after (/work/main), alternated. compiles-after-10s: JIT compilations
# finished after the JVM's first 10 s (the bridge's warm-up and the open are inside them), from -Xlog:jit+compilation.
for r in $(seq 1 $1); do for v in before after; do
  case $v in before) root=/tmp/wbase;; after) root=/work/main;; esac
  out=$(taskset -c 1 $root/jni-bridge/target/native/fdbresolver-replay /tmp/cap/segment-000000.trace.gz --pause-micros 3000 --budget 4m --jvm-option -XX:+UseSerialGC --jvm-option -Xlog:jit+compilation=debug:file=/tmp/jit-$v-$r.log:uptime 2>&1)
  g() { echo "$out" | grep -E "^$1:" | awk '{print $2}'; }
  late=$(grep -v "made not entrant" /tmp/jit-$v-$r.log | awk -F'[][]' '{t=$2; sub("s","",t); if (t+0>10) n++} END {print n+0}')
  echo "$v r$r seconds=$(g seconds) p50=$(g latency-p50) p99=$(g latency-p99) p99.9=$(g latency-p99.9) max=$(g latency-max) cpu-p99=$(g cpu-latency-p99) compiles-after-10s=$late hash=$(g decision-hash | cut -c1-8)"
done; done
