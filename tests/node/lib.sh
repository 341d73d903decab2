# Shared helpers for the node-side suites (on top of ../clients/lib.sh:
# $work, check, finish, and the cleanup that stops $server_pid).
#
# Usage (from a suite): source lib.sh

# start_local_cluster DRALLOC [local-cluster flags]: starts
# `dralloc local-cluster --dir $work/cluster` and waits (60 s) for `ready`;
# sets KUBECONFIG. lib.sh's cleanup stops it (SIGTERM stops every component).
start_local_cluster() {
  local dralloc=$1
  shift
  "$dralloc" local-cluster "$@" --dir "$work/cluster" \
    >"$work/cluster.out" 2>"$work/cluster.log" &
  server_pid=$!
  for _ in $(seq 600); do
    grep -qx ready "$work/cluster.out" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -qx ready "$work/cluster.out"; then
    echo "local-cluster did not become ready:" >&2
    cat "$work/cluster.log" >&2
    tail -n 20 "$work"/cluster/logs/*.log >&2 || true
    exit 1
  fi
  export KUBECONFIG="$work/cluster/kubeconfig"
}

k() { kubectl --request-timeout=20s "$@"; }

# wait_for SECONDS CMD...: retries CMD every 0.2 s until it succeeds; on
# timeout runs it once more with its output shown.
wait_for() {
  local seconds=$1
  shift
  local end=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then "$@"; return 1; fi
    sleep 0.2
  done
}

phase_is() { [[ $(k get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null) == "$2" ]]; }
