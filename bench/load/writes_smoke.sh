#!/usr/bin/env bash
# A short open-loop `writes` run against a fresh `dralloc apiserver`: checks
# that every request succeeds, that --latency-trace lists each timed
# request once, in start order, and that each client warmed up with one
# untimed create. Numbers are not judged.
#
#   bash bench/load/writes_smoke.sh DRALLOC DRALLOC_API_LOAD
set -euo pipefail

dralloc=${1:?usage: writes_smoke.sh DRALLOC DRALLOC_API_LOAD}
load=${2:?usage: writes_smoke.sh DRALLOC DRALLOC_API_LOAD}
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$dralloc" apiserver --listen 127.0.0.1:0 --storage "sqlite:$work/data" \
  >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/^dralloc apiserver listening on \(http:[^ ]*\).*/\1/p' \
    "$work/server.out" | head -n 1)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $url ]]; then
  echo "writes smoke: the server did not start" >&2
  cat "$work/server.err" >&2
  exit 1
fi

"$load" writes --server "$url" --clients 4 --duration 1 --rate 400 \
  --mix create,update --latency-trace "$work/trace" --ack-log "$work/acks" \
  --json >"$work/report.json"
ok=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["total"]
print(r["succeeded"] if r["failed"] == 0 else -1)' "$work/report.json")
if [[ $ok -le 0 ]]; then
  echo "writes smoke: failed requests or none at all" >&2
  cat "$work/report.json" >&2
  exit 1
fi
# One header line, stall lines, then ok lines "START_MS LATENCY_MS OP CLIENT", sorted.
if ! awk -v ok="$ok" '
    NR == 1 { if ($0 !~ /^# run start, Unix seconds: [0-9.]+$/) bad = 1; next }
    /^# stall [0-9.]+ [0-9.]+$/ { next }
    NF != 4 || ($3 != "create" && $3 != "update") || $1 + 0 < last { bad = 1 }
    { last = $1 + 0; n++ }
    END { exit (bad || n != ok) ? 1 : 0 }' "$work/trace"; then
  echo "writes smoke: the latency trace does not list the $ok requests" >&2
  head -n 5 "$work/trace" >&2
  exit 1
fi
# Each of the 4 clients warmed up with one untimed create before the clock
# started: acknowledged, but not among the timed requests.
timed_creates=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["ops"]["create"]["succeeded"])' \
  "$work/report.json")
acked=$(wc -l <"$work/acks")
if [[ $acked -ne $((timed_creates + 4)) ]]; then
  echo "writes smoke: $acked creates acknowledged, expected $timed_creates" \
    "timed + 4 warm-up" >&2
  exit 1
fi
echo "writes smoke: $ok requests, each in the latency trace;" \
  "4 warm-up creates before the clock"
