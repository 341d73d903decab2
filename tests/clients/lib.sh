# Shared helpers for the real-client suites: start a dralloc apiserver on a
# free loopback port with a fresh data directory, write a kubeconfig, record
# check results, and stop the server on exit.
#
# Usage (from a suite): source lib.sh; start_server DRALLOC [ARGS...]
# With DRALLOC_STORAGE=etcd the server stores in a throwaway one-member etcd
# (Debian's etcd-server) instead of SQLite: the same suite, another backend.
# With DRALLOC_AUTH=cert (or token) the server serves TLS with Node,RBAC
# authorization (certificates from `dralloc certs init` in $work/pki), and
# the suite runs as user suite-user, bound to cluster-admin, authenticated
# by a client certificate (or a bearer token from --token-auth-file).

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
  local listen=127.0.0.1:0
  local auth_flags=()
  if [[ -n "${DRALLOC_AUTH:-}" ]]; then
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    listen="127.0.0.1:$port"
    "$dralloc" certs init "$work/pki" --server "https://$listen" --hosts 127.0.0.1,localhost \
      --nodes node-a,node-b >"$work/certs.out" || { cat "$work/certs.out"; exit 1; }
    printf 'suite-token,suite-user,uid-suite,"suite"\n' >"$work/tokens.csv"
    auth_flags=(--tls-cert-file "$work/pki/apiserver.crt" --tls-private-key-file "$work/pki/apiserver.key"
      --client-ca-file "$work/pki/ca.crt" --token-auth-file "$work/tokens.csv"
      --service-account-signing-key-file "$work/pki/sa.key" --authorization-mode Node,RBAC)
  fi
  "$dralloc" "${DRALLOC_SERVER_COMMAND:-apiserver}" --listen "$listen" --storage "$storage" \
    "${auth_flags[@]}" "$@" >"$work/server.out" 2>"$work/server.log" &
  server_pid=$!
  for _ in $(seq 200); do
    if grep -q "listening on" "$work/server.out" 2>/dev/null; then break; fi
    sleep 0.05
  done
  server_url=$(grep -o 'https\?://[0-9.:]*' "$work/server.out" | head -1)
  if [[ -z "$server_url" ]]; then
    echo "server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  if [[ -n "${DRALLOC_AUTH:-}" ]]; then
    write_auth_kubeconfig "$dralloc"
    return
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

# The kubeconfig of suite-user (DRALLOC_AUTH=cert: a client certificate;
# token: a bearer token), bound to cluster-admin through the admin
# kubeconfig (system:masters).
write_auth_kubeconfig() {
  local dralloc=$1
  if [[ "$DRALLOC_AUTH" == token ]]; then
    local ca
    ca=$(base64 -w0 <"$work/pki/ca.crt")
    cat >"$work/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: dralloc
  cluster: {server: "$server_url", certificate-authority-data: "$ca"}
users:
- name: suite-user
  user: {token: suite-token}
contexts:
- name: dralloc
  context: {cluster: dralloc, user: suite-user, namespace: default}
current-context: dralloc
KUBECONFIG
  else
    "$dralloc" certs kubeconfig "$work/pki" --user suite-user --groups suite \
      --out "$work/kubeconfig" >/dev/null || exit 1
  fi
  local bound=""
  for _ in $(seq 100); do
    if kubectl --kubeconfig "$work/pki/admin.kubeconfig" --cache-dir "$work/admin-cache" \
      create clusterrolebinding suite-user-admin --clusterrole=cluster-admin \
      --user=suite-user >/dev/null 2>"$work/bind.err"; then
      bound=yes
      break
    fi
    sleep 0.1
  done
  if [[ -z "$bound" ]]; then
    echo "binding suite-user to cluster-admin failed:" >&2
    cat "$work/bind.err" >&2
    exit 1
  fi
  export KUBECONFIG="$work/kubeconfig"
}

# kubectl_for VERSION: the kubectl of that minor version ("1.33") next to the
# image's kubectl dispatcher, else the dispatcher itself (which picks a
# kubectl by the server's /version).
kubectl_for() {
  local dispatcher
  dispatcher=$(readlink -f "$(command -v kubectl)")
  local pinned
  pinned="$(dirname "$dispatcher")/kubectl.$1"
  if [[ -x "$pinned" ]]; then echo "$pinned"; else echo "$dispatcher"; fi
}

# contains NEEDLE CMD...: CMD succeeds and prints NEEDLE.
contains() {
  local needle=$1
  shift
  local out
  out=$("$@" 2>&1) || { echo "$out"; return 1; }
  grep -qF -- "$needle" <<<"$out" || { echo "missing '$needle' in:"; echo "$out"; return 1; }
}

# fails_with NEEDLE CMD...: CMD fails and prints NEEDLE.
fails_with() {
  local needle=$1
  shift
  local out
  if out=$("$@" 2>&1); then echo "unexpected success: $out"; return 1; fi
  grep -qF -- "$needle" <<<"$out" || { echo "missing '$needle' in:"; echo "$out"; return 1; }
}

# eventually CMD...: CMD succeeds within 10 s (its last try's output shown).
eventually() {
  for _ in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  "$@"
}

# equals WANT CMD...: CMD succeeds and prints exactly WANT.
equals() {
  local want=$1
  shift
  local out
  out=$("$@" 2>&1) || { echo "$out"; return 1; }
  [[ $out == "$want" ]] || { echo "want '$want', got '$out'"; return 1; }
}

# within SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.5 s).
within() {
  local deadline=$((SECONDS + $1))
  shift
  while ((SECONDS < deadline)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  "$@"
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
