#!/bin/bash
# The image's entry point: one fdbserver process, listening on this container's address.
#
#   FDB_COORDINATOR   the coordinator's address ip:port, or "self" (default): this process is the
#                     cluster's only coordinator
#   FDB_PORT          the port (default 4500)
#   FDB_CLUSTER_NAME  the cluster file's description:id (default fdbresolver:cluster)
# Arguments go to fdbserver as they are: --class, --knob_..., --memory, ...
#
# fdbserver runs with LD_PRELOAD of the Java runtime's libjsig.so: the JVM starts inside fdbserver
# only when a Resolver opens the plugin, long after fdbserver installed its own signal handlers, and
# libjsig chains any handler installed later behind the JVM's (docs/fdb-integration.md, "Signals").
set -euo pipefail

port="${FDB_PORT:-4500}"
ip="$(hostname -i | awk '{print $1}')"
[[ -n "$ip" ]] || { echo "fdb-process: no address for $(hostname)" >&2; exit 2; }
coordinator="${FDB_COORDINATOR:-self}"
[[ "$coordinator" == self ]] && coordinator="$ip:$port"

cluster_file="${FDB_CLUSTER_FILE:-/var/fdb/fdb.cluster}"
# A cluster file that exists was rewritten by fdbserver (coordinators change it): keep it.
[[ -s "$cluster_file" ]] || echo "${FDB_CLUSTER_NAME:-fdbresolver:cluster}@$coordinator" >"$cluster_file"
mkdir -p "/var/fdb/data/$port" /var/fdb/logs

echo "fdb-process: fdbserver at $ip:$port, cluster file: $(cat "$cluster_file"), arguments: $*"
export LD_PRELOAD=/opt/fdbresolver/jre/lib/libjsig.so
exec /opt/fdb/bin/fdbserver \
  --cluster-file "$cluster_file" \
  --public-address "$ip:$port" --listen-address public \
  --datadir "/var/fdb/data/$port" --logdir /var/fdb/logs \
  "$@"
