#!/usr/bin/env bash
# `dralloc driver example` as a process against `dralloc serve`: prints
# `ready`, listens on its sockets, publishes valid slices, repairs a deleted
# slice, exits cleanly on SIGTERM removing its sockets, and rejects bad
# flags with exit code 2. Usage: driver_e2e_test.sh path/to/dralloc
set -euo pipefail
DRALLOC=${1:?usage: driver_e2e_test.sh path/to/dralloc}
DIR=$(mktemp -d /tmp/drv-e2e-XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$DIR"/*.err; do echo "== $f" >&2; tail -20 "$f" >&2; done; exit 1; }

# Polls `command` every 50 ms for up to `seconds`.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

"$DRALLOC" serve --listen 127.0.0.1:0 --storage memory: >"$DIR/serve.out" 2>"$DIR/serve.err" &
PIDS+=($!)
wait_for 20 grep -qs "listening on http://" "$DIR/serve.out" || fail "serve did not start"
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$DIR/serve.out" | head -1)

slices() {  # prints "name generation devices counters" per slice of node-a
  curl -sf "$URL/apis/resource.k8s.io/v1/resourceslices" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["items"]:
    if s["spec"].get("nodeName") == "node-a":
        print(s["metadata"]["name"], s["spec"]["pool"]["generation"],
              len(s["spec"].get("devices", [])), len(s["spec"].get("sharedCounters", [])))'
}

ROOT="$DIR/node-a"
"$DRALLOC" driver example --node-name node-a --server "$URL" --gpus 2 --partitions 2 \
  --root "$ROOT" --resync-interval 100 --unhealthy gpu-1-full \
  >"$DIR/driver.out" 2>"$DIR/driver.err" &
DRIVER=$!
PIDS+=($DRIVER)
wait_for 30 grep -qsx ready "$DIR/driver.out" || fail "driver never printed ready"
[ -S "$ROOT/plugins/gpu.example.com/dra.sock" ] || fail "no DRA socket"
[ -S "$ROOT/plugins_registry/gpu.example.com-reg.sock" ] || fail "no registration socket"
[ -f "$ROOT/cdi/k8s.gpu.example.com-gpu_common.json" ] || fail "no common CDI spec"
[ "$(slices | sort -k3 | awk '{print $2, $3, $4}' | tr '\n' ' ')" = "1 0 2 1 6 0 " ] ||
  fail "unexpected slices: $(slices)"

# The node agent wipes slices; the driver puts them back with a newer generation.
VICTIM=$(slices | awk '$3 > 0 {print $1}')
curl -sf -X DELETE "$URL/apis/resource.k8s.io/v1/resourceslices/$VICTIM" >/dev/null
repaired() { [ "$(slices | awk '$2 == 2' | wc -l)" = 2 ]; }
wait_for 20 repaired || fail "slice not repaired: $(slices)"

kill -TERM "$DRIVER"
wait_for 20 bash -c "! kill -0 $DRIVER 2>/dev/null" || fail "driver did not stop"
wait "$DRIVER" || fail "driver exit code $?"
[ ! -e "$ROOT/plugins/gpu.example.com/dra.sock" ] || fail "DRA socket left behind"
[ ! -e "$ROOT/plugins_registry/gpu.example.com-reg.sock" ] || fail "registration socket left behind"

expect_bad() {  # expect_bad MESSAGE ARGS...: exit code 2 and MESSAGE on stderr
  local message=$1; shift
  set +e
  "$DRALLOC" driver example --server "$URL" --root "$DIR/bad" "$@" >/dev/null 2>"$DIR/bad.err"
  local code=$?
  set -e
  [ "$code" = 2 ] || fail "$* exited $code, want 2"
  grep -q -- "$message" "$DIR/bad.err" || fail "$*: want '$message', got: $(cat "$DIR/bad.err")"
}
expect_bad "--gpus" --node-name node-b --gpus 0
expect_bad "no such device" --node-name node-b --unhealthy gpu-77
expect_bad "must be a DNS subdomain" --node-name Node_B
LONG="$DIR/$(printf 'x%.0s' $(seq 1 120))"
expect_bad "longer than the 107" --node-name node-b --plugins-dir "$LONG" --gpus 1
echo "driver e2e: ok"
