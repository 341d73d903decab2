# Shared helpers for the real-client suites: start a dralloc apiserver on a
# free loopback port with a fresh data directory, write a kubeconfig, record
# check results, and stop the server on exit.
#
# Usage (from a suite): source lib.sh; start_server DRALLOC [ARGS...]
# With DRALLOC_STORAGE=etcd the server stores in a throwaway one-member etcd
# (Debian's etcd-server) instead of SQLite: the same suite, another backend.

work=$(mktemp -d /tmp/dralloc-clients.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/../etcd/etcd_lib.sh"
server_pid=""
passed=0
failed=0

cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
  fi
  stop_etcd_members
  [[ -n "${KEEP_WORKDIR:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

# start_server DRALLOC [extra flags]: sets $server_url and $KUBECONFIG.
# The subcommand is $DRALLOC_SERVER_COMMAND (default apiserver; e.g. serve).
start_server() {
  local dralloc=$1
  shift
  local storage="sqlite:$work/data"
  if [[ "${DRALLOC_STORAGE:-sqlite}" == etcd ]]; then
    start_etcd_cluster 1 || exit 1
    storage="etcd:$etcd_urls"
  fi
  "$dralloc" "${DRALLOC_SERVER_COMMAND:-apiserver}" --listen 127.0.0.1:0 --storage "$storage" "$@" \
    >"$work/server.out" 2>"$work/server.log" &
  server_pid=$!
  for _ in $(seq 200); do
    if grep -q "listening on" "$work/server.out" 2>/dev/null; then break; fi
    sleep 0.05
  done
  server_url=$(grep -o 'http://[0-9.:]*' "$work/server.out" | head -1)
  if [[ -z "$server_url" ]]; then
    echo "server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  cat >"$work/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: dralloc
  cluster: {server: "$server_url", insecure-skip-tls-verify: true}
users:
- name: dev
  user: {token: dev-token}
contexts:
- name: dralloc
  context: {cluster: dralloc, user: dev, namespace: default}
current-context: dralloc
KUBECONFIG
  export KUBECONFIG="$work/kubeconfig"
}

# check NAME CMD...: runs CMD, records the result, prints its output on failure.
check() {
  local name=$1
  shift
  if output=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "PASS: $name"
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
    printf '%s\n' "$output" | head -20 | sed 's/^/    /'
  fi
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
