#!/usr/bin/env bash
# Issue 31's "the first 100 batches after the JVM starts: none slower than 5x the warm median", through the bridge as
# fdbserver calls it: longtrace's 3,000 batches replayed from a fresh JVM (fdbresolver-replay --warmup 0: the first
# open's warm-up and settling, then every batch timed), each batch's JFR org.fdbresolver.Batch duration (wall);
# warm median: batches 1,000-3,000 of the same run. RUNS runs of each setting, alternated: the bridge's defaults, and
# the operator's -XX:+AlwaysPreTouch. Needs jni-bridge built (./mvnw -pl jni-bridge -am package -DskipTests).
set -u
cd "$(dirname "$0")/../../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
R=jni-bridge/target/native/fdbresolver-replay T=${TRACES:-/tmp/t}/lt3000.trace.gz W=${WORK:-/tmp/w/first100}
mkdir -p $W
cat > $W/batch.jfc <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="batches">
  <event name="org.fdbresolver.Batch"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
  <event name="jdk.GarbageCollection"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
</configuration>
JFC
for r in $(seq ${FIRST:-1} $((${FIRST:-1} + ${RUNS:-3} - 1))); do
  for s in ${SETTINGS:-default pretouch}; do
    opt=(); [ $s = pretouch ] && opt=(--jvm-option -XX:+AlwaysPreTouch)
    $R $T --warmup 0 "${opt[@]}" --jvm-option -XX:StartFlightRecording=settings=$W/batch.jfc,filename=$W/$s-$r.jfr >/dev/null 2>$W/$s-$r.err \
      || { echo "replay failed: $W/$s-$r.err"; continue; }
    "$JAVA_HOME/bin/jfr" print --events org.fdbresolver.Batch $W/$s-$r.jfr | python3 -c '
import re, statistics, sys
d = sys.stdin.read()
ms = lambda v: float(v.split()[0]) * {"ms": 1, "s": 1000, "us": 0.001, "ns": 1e-6}[v.split()[1]]
b = {}
for e in d.split("org.fdbresolver.Batch {")[1:]:
    v = int(re.search(r"\n\s*version = (\d+)", e).group(1))
    if v >= 1000000000000:   # the trace'"'"'s batches (the warm-up'"'"'s throwaway engines run other versions)
        b[(v - 1000000000000) // 31250] = ms(re.search(r"\n\s*duration = (.*)", e).group(1))
first = [b[i] for i in range(100)]
warm = statistics.median(b[i] for i in range(1000, 3000))
top = max(range(100), key=lambda i: b[i])
print(f"'$s' run '$r': warm median {warm:.2f} ms, first 100: median {statistics.median(first):.2f} ms, slowest {b[top]:.2f} ms"
      f" (batch {top}) = {b[top] / warm:.1f}x, above 5x: {sum(x > 5 * warm for x in first)}")'
  done
done
