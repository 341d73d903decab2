# Throwaway etcd members (Debian's etcd-server) on free loopback ports, for
# the shell suites and benchmarks. Members live under $etcd_dir (default
# $work) as etcd-NAME and are killed by stop_etcd_members (call it from the
# EXIT trap).
#
#   start_etcd_cluster N [DIR]  starts members e0..e(N-1) under DIR; sets
#                          $etcd_urls ("http://127.0.0.1:P,...") and
#                          etcd_pids[i], etcd_client_ports[i]
#   kill_etcd_member I / pause_etcd_member I / resume_etcd_member I
#   restart_etcd_member I  starts a killed member again on its data

etcd_pids=()
etcd_client_ports=()
etcd_peer_ports=()
etcd_urls=""
etcd_initial_cluster=""

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

launch_etcd_member() {  # launch_etcd_member I new|existing
  local i=$1 state=$2 dir=${etcd_dir:-$work}
  etcd --name "e$i" --data-dir "$dir/etcd-e$i" \
    --listen-client-urls "http://127.0.0.1:${etcd_client_ports[$i]}" \
    --advertise-client-urls "http://127.0.0.1:${etcd_client_ports[$i]}" \
    --listen-peer-urls "http://127.0.0.1:${etcd_peer_ports[$i]}" \
    --initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer_ports[$i]}" \
    --initial-cluster "$etcd_initial_cluster" --initial-cluster-state "$state" \
    --initial-cluster-token dralloc-test --logger=zap \
    --log-outputs="$dir/etcd-e$i.log" >"$dir/etcd-e$i.out" 2>&1 &
  etcd_pids[$i]=$!
}

await_etcd_member() {  # await_etcd_member I: healthy within 30 s
  local i=$1
  for _ in $(seq 300); do
    if curl -sf "http://127.0.0.1:${etcd_client_ports[$i]}/health" 2>/dev/null | grep -q '"health":"true"'; then
      return 0
    fi
    sleep 0.1
  done
  echo "etcd member e$i did not become healthy; log: ${etcd_dir:-$work}/etcd-e$i.log" >&2
  tail -5 "${etcd_dir:-$work}/etcd-e$i.log" >&2
  return 1
}

start_etcd_cluster() {
  local n=$1 i
  etcd_dir=${2:-$work}
  etcd_pids=() etcd_client_ports=() etcd_peer_ports=() etcd_urls="" etcd_initial_cluster=""
  command -v etcd >/dev/null || { echo "etcd not found (scripts/install-deps.sh installs etcd-server)" >&2; return 1; }
  for ((i = 0; i < n; i++)); do
    etcd_client_ports[$i]=$(free_port)
    etcd_peer_ports[$i]=$(free_port)
    etcd_initial_cluster+="${etcd_initial_cluster:+,}e$i=http://127.0.0.1:${etcd_peer_ports[$i]}"
    etcd_urls+="${etcd_urls:+,}http://127.0.0.1:${etcd_client_ports[$i]}"
  done
  for ((i = 0; i < n; i++)); do launch_etcd_member "$i" new; done
  for ((i = 0; i < n; i++)); do await_etcd_member "$i" || return 1; done
}

kill_etcd_member() { kill -9 "${etcd_pids[$1]}" 2>/dev/null || true; wait "${etcd_pids[$1]}" 2>/dev/null || true; }
pause_etcd_member() { kill -STOP "${etcd_pids[$1]}"; }
resume_etcd_member() { kill -CONT "${etcd_pids[$1]}"; }
restart_etcd_member() { launch_etcd_member "$1" existing; await_etcd_member "$1"; }

stop_etcd_members() {
  local pid
  for pid in "${etcd_pids[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${etcd_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  etcd_pids=()
}
