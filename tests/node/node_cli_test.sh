#!/usr/bin/env bash
# `dralloc node` as a process against `dralloc serve`: flag errors exit 2;
# it prints `ready` once its Node is registered; `dralloc node-checkpoint`
# reports usage errors, a corrupt checkpoint and an empty one; a pod bound to it becomes
# Running with kubelet-shaped status; deleting the pod lets it go; SIGTERM
# stops it with exit 0. Usage: node_cli_test.sh PATH/TO/dralloc
set -u
DRALLOC=${1:?usage: node_cli_test.sh DRALLOC}
DRALLOC_ABS=$(realpath "$DRALLOC")
DIR=$(mktemp -d /tmp/drn-cli-XXXXXX)
# (For the flag errors below; set to serve's address once it listens.)
SERVER=http://127.0.0.1:1
SERVE_PID= NODE_PID=
cleanup() {
  [ -n "$NODE_PID" ] && kill -TERM "$NODE_PID" 2>/dev/null
  [ -n "$SERVE_PID" ] && kill -TERM "$SERVE_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- node stderr"; tail -20 "$DIR/node.err" 2>/dev/null
  echo "--- serve stderr"; tail -20 "$DIR/serve.err" 2>/dev/null
  exit 1
}
# Polls "$@" every 0.1 s for up to 30 s.
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }

"$DRALLOC" node --node-name n1 --server "$SERVER" --runtime docker --root "$DIR/r" 2>"$DIR/err"
[ $? -eq 2 ] && grep -q -- '--runtime: Unsupported value: "docker"' "$DIR/err" || fail "--runtime docker must be refused"
"$DRALLOC" node --node-name n1 --server "$SERVER" --kubelet-port 70000 2>"$DIR/err"
[ $? -eq 2 ] && grep -q -- '--kubelet-port: Invalid value: 70000' "$DIR/err" || fail "bad --kubelet-port"
"$DRALLOC" node --node-name n1 --server "$SERVER" --wiping-delay 3x 2>"$DIR/err"
[ $? -eq 2 ] && grep -q -- '--wiping-delay: Invalid value: "3x"' "$DIR/err" || fail "bad duration"
"$DRALLOC" node --node-name n1 --server "$SERVER" --max-pods 0 2>"$DIR/err"
[ $? -eq 2 ] && grep -q -- '--max-pods: Value 0 not in range' "$DIR/err" || fail "--max-pods 0 must be refused"
"$DRALLOC" node --server "$SERVER" 2>/dev/null
[ $? -eq 2 ] || fail "--node-name is required"

# node-checkpoint: usage errors, a corrupt checkpoint, an empty one.
"$DRALLOC" node-checkpoint 2>"$DIR/err"
[ $? -eq 2 ] && grep -q 'give --root or --state-dir' "$DIR/err" || fail "node-checkpoint without a dir"
"$DRALLOC" node-checkpoint --root "$DIR/none" -o yaml 2>"$DIR/err"
[ $? -eq 2 ] && grep -q -- '-o: Unsupported value: "yaml"' "$DIR/err" || fail "node-checkpoint -o yaml"
[ "$("$DRALLOC" node-checkpoint --root "$DIR/none" | awk '{print $1}')" = CLAIM ] || fail "empty checkpoint: header only"
mkdir -p "$DIR/bad/state" && echo '{"version":' > "$DIR/bad/state/dra_manager_state"
"$DRALLOC" node-checkpoint --root "$DIR/bad" 2>"$DIR/err"
[ $? -eq 1 ] && grep -q "checkpoint $DIR/bad/state/dra_manager_state is corrupt" "$DIR/err" ||
  fail "node-checkpoint of a corrupt checkpoint"

# A free port chosen by the kernel; serve prints where it listens.
"$DRALLOC" serve --listen 127.0.0.1:0 --storage memory >"$DIR/serve.out" 2>"$DIR/serve.err" &
SERVE_PID=$!
listening() {
  SERVER=$(grep -ho 'listening on http://[0-9.:]*' "$DIR/serve.out" "$DIR/serve.err" 2>/dev/null |
    head -n 1 | sed 's/^listening on //')
  [ -n "$SERVER" ]
}
# Under ASan on a loaded machine start-up takes a while: up to 60 s.
for _ in 1 2; do wait_for listening && break; done
listening || fail "serve did not start"
wait_for curl -sf "$SERVER/api/v1/namespaces" -o /dev/null || fail "serve does not answer"

"$DRALLOC" node --node-name n1 --server "$SERVER" --root "$DIR/r" \
  --node-status-update-frequency 1s >"$DIR/node.out" 2>"$DIR/node.err" &
NODE_PID=$!
wait_for grep -qx ready "$DIR/node.out" || fail "no ready line"
curl -sf "$SERVER/api/v1/nodes/n1" | grep -q '"reason":"KubeletReady","status":"True","type":"Ready"' ||
  fail "node n1 is not Ready"
[ -d "$DIR/r/plugins_registry" ] || fail "plugins registry not created"
# A relative --root works (socket addresses are made absolute); --max-pods
# is the Node's pods capacity (n1 has the kubelet's default).
(cd "$DIR" && exec "$DRALLOC_ABS" node --node-name n2 --server "$SERVER" --root rel \
  --max-pods 250 >"$DIR/n2.out" 2>"$DIR/n2.err") &
N2_PID=$!
wait_for grep -qx ready "$DIR/n2.out" || { cat "$DIR/n2.err"; fail "relative --root: no ready line"; }
[ -S "$DIR/rel/pod-resources/kubelet.sock" ] || fail "relative --root: no pod resources socket"
curl -sf "$SERVER/api/v1/nodes/n2" | grep -q '"capacity":{[^}]*"pods":"250"' || fail "--max-pods 250: capacity"
curl -sf "$SERVER/api/v1/nodes/n1" | grep -q '"allocatable":{[^}]*"pods":"110"' || fail "default max pods"
kill -TERM "$N2_PID"; wait "$N2_PID" 2>/dev/null
[ -S "$DIR/r/pod-resources/kubelet.sock" ] || fail "pod resources socket not served"

curl -sf -XPOST -H 'Content-Type: application/json' \
  "$SERVER/api/v1/namespaces/default/pods" -o /dev/null -d \
  '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}' ||
  fail "create pod"
running() { curl -sf "$SERVER/api/v1/namespaces/default/pods/p1" | grep -q '"phase":"Running"'; }
wait_for running || fail "pod p1 not Running"
curl -sf "$SERVER/api/v1/namespaces/default/pods/p1" | grep -q '"podIP":"10\.' || fail "no podIP"
curl -sf "$SERVER/api/v1/nodes/n1" | grep -q '"kubeletEndpoint":{"Port":[1-9]' || fail "no kubelet port"
# A simulated container writes no log: pods/log answers 200, empty.
[ "$(curl -s -o "$DIR/p1.log" -w '%{http_code}' "$SERVER/api/v1/namespaces/default/pods/p1/log")" = 200 ] &&
  [ ! -s "$DIR/p1.log" ] || fail "pods/log of a simulated pod"
curl -sf -XDELETE "$SERVER/api/v1/namespaces/default/pods/p1" -o /dev/null || fail "delete pod"
gone() { ! curl -sf "$SERVER/api/v1/namespaces/default/pods/p1" -o /dev/null; }
wait_for gone || fail "pod p1 not gone"

kill -TERM "$NODE_PID"
wait "$NODE_PID"
rc=$?
NODE_PID=
[ $rc -eq 0 ] || fail "node exited $rc on SIGTERM"
echo "PASS node_cli_test"
