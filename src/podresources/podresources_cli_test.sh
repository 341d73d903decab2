#!/usr/bin/env bash
# `dralloc podresources` against a fake PodResources server on a real unix
# socket: list/get as text and JSON, pod not found, missing socket, a socket
# nobody listens on. Usage: podresources_cli_test.sh DRALLOC FAKE_SERVER
set -u
dralloc=$1
fake_server=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/dralloc-podres-cli-XXXXXX")
socket=$dir/pod-resources/kubelet.sock
failures=0
server_pid=

cleanup() {
  exec 3>&- 2>/dev/null
  [ -n "$server_pid" ] && wait "$server_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE PATTERN ARGS...: runs dralloc ARGS, requires exit CODE and
# PATTERN (grep -E) in stdout+stderr.
expect() {
  local code=$1 pattern=$2
  shift 2
  local out rc
  out=$(timeout 30 "$dralloc" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ]; then
    fail "dralloc $*: exit $rc, want $code; output:"$'\n'"$out"
  elif ! grep -qE -- "$pattern" <<<"$out"; then
    fail "dralloc $*: output lacks /$pattern/:"$'\n'"$out"
  else
    echo "ok: dralloc $*"
  fi
}

# Before the server runs: nothing at the path.
expect 1 "podresources socket $socket: no such file" \
  podresources list --socket "$socket"

# Start the fake server; it stops when fd 3 closes.
mkfifo "$dir/stdin"
"$fake_server" "$socket" <"$dir/stdin" >"$dir/server.out" 2>"$dir/server.err" &
server_pid=$!
exec 3>"$dir/stdin"
for _ in $(seq 100); do
  grep -q ready "$dir/server.out" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
grep -q ready "$dir/server.out" || { cat "$dir/server.err"; fail "server did not start"; exit 1; }

expect 0 '^POD +NAMESPACE +CONTAINER +CLAIM +DRIVER +POOL +DEVICE +CDI IDS$' \
  podresources list --socket "$socket"
expect 0 '^trainer +ml +sidecar +own +gpu.example.com +node-a +gpu-1 +k8s.gpu.example.com/gpu=gpu-1$' \
  podresources list --socket "$socket"
expect 0 '^web +default +proxy +<none>' podresources list --socket "$socket"
expect 0 '"shareId": "share-7"' podresources list --socket "$socket" -o json
expect 0 '^web +default +app +pair +gpu.example.com +node-a +gpu-3 ' \
  podresources get --socket "$socket" --pod web
expect 0 '"name": "trainer"' \
  podresources get --socket "$socket" --pod trainer -n ml -o json
expect 1 "podresources socket $socket: Get: pod nope in namespace default not found" \
  podresources get --socket "$socket" --pod nope
expect 2 'pod is required' podresources get --socket "$socket"
expect 2 'output' podresources list --socket "$socket" -o yaml

# Stop the server: the socket goes away.
exec 3>&-
wait "$server_pid"
server_pid=
[ -e "$socket" ] && fail "socket $socket left behind after Stop"

# A socket file nobody listens on.
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$socket"
expect 1 "podresources socket $socket: List: nothing answers on the socket" \
  podresources list --socket "$socket" --timeout 5

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
