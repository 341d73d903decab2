#!/usr/bin/env bash
# The API write benchmark on each store, side by side in one run: a fresh
# `dralloc apiserver` per run on SQLite and on a one-member etcd (Debian's
# etcd-server, fsync on, on the same machine), driven by
# `dralloc_api_load writes` (create, get, update of ResourceClaims).
#
#   bash bench/etcd/run.sh [--runs 3] [--clients 64] [--duration 10]
#        [--rate R] [--stores "sqlite etcd"] [--dralloc PATH] [--load PATH]
#        [--smoke]
#
# --rate R: open loop at R requests/s in all (a write is 2 of every 3
#   requests), so the p99 is that of a server offered R/s rather than one
#   run at saturation. Prints one line per run and a table of medians:
#   writes/s (creates + updates), p50/p99 of the writes. Exit 1 when a run
#   failed, 2 on bad usage.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
runs=3 clients=64 duration=10 rate="" stores="sqlite etcd"
dralloc="$REPO/build/src/cli/dralloc" load="$REPO/build/bench/load/dralloc_api_load"
while (($#)); do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --stores) stores=$2; shift 2 ;;
    --dralloc) dralloc=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --smoke) runs=1 clients=4 duration=1; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x "$dralloc" ]] || { echo "run.sh: dralloc not found at $dralloc" >&2; exit 2; }
[[ -x "$load" ]] || { echo "run.sh: dralloc_api_load not found at $load" >&2; exit 2; }
command -v etcd >/dev/null || { echo "run.sh: etcd not found (scripts/install-deps.sh)" >&2; exit 2; }

work=$(mktemp -d /tmp/dralloc-etcd-bench.XXXXXX)
server_pid=""
source "$REPO/tests/etcd/etcd_lib.sh"
stop() {
  [[ -n "$server_pid" ]] && { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
  server_pid=""
  stop_etcd_members
}
trap 'stop; rm -rf "$work"' EXIT

start() {  # start STORE DIR: sets server_url
  local store=$1 dir=$2 spec
  mkdir -p "$dir"
  spec="sqlite:$dir/data"
  if [[ $store == etcd ]]; then
    start_etcd_cluster 1 "$dir" || return 1
    spec="etcd:$etcd_urls"
  fi
  "$dralloc" apiserver --listen 127.0.0.1:0 --storage "$spec" --log-level warn \
    >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  server_url=""
  for _ in $(seq 300); do
    server_url=$(sed -n 's/^dralloc apiserver listening on \(http:[^ ]*\).*/\1/p' "$dir/server.out" | head -1)
    [[ -n $server_url ]] && return 0
    sleep 0.1
  done
  echo "run.sh: the $store server did not start" >&2
  cat "$dir/server.err" >&2
  return 1
}

results="$work/results.tsv"
: >"$results"
failed=0
echo "API writes: $clients clients, $duration s, ${rate:+open loop at $rate/s, }$runs run(s) per store"
for run in $(seq "$runs"); do
  for store in $stores; do
    dir="$work/$store-$run"
    start "$store" "$dir" || { failed=1; stop; continue; }
    "$load" writes --server "$server_url" --clients "$clients" --duration "$duration" \
      ${rate:+--rate "$rate"} --json >"$dir/report.json" 2>"$dir/load.err" || failed=1
    stop
    python3 - "$dir/report.json" "$store" "$run" >>"$results" <<'PY' || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
ops = r["ops"]
writes = ops["create"]["ops_per_second"] + ops["update"]["ops_per_second"]
p50 = max(ops["create"]["latency_ms"]["p50"], ops["update"]["latency_ms"]["p50"])
p99 = max(ops["create"]["latency_ms"]["p99"], ops["update"]["latency_ms"]["p99"])
errors = r["total"]["failed"]
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{writes:.0f}\t{p50:.2f}\t{p99:.2f}\t{errors}")
PY
    tail -1 "$results" | awk -F'\t' '{printf "  %-6s run %s: %s writes/s, p50 %s ms, p99 %s ms, errors %s\n", $1, $2, $3, $4, $5, $6}'
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    store, run, writes, p50, p99, errors = line.split("\t")
    rows.setdefault(store, []).append((float(writes), float(p50), float(p99)))
print(f'{"store":<7} {"runs":>4} {"writes/s":>9} {"p50 ms":>7} {"p99 ms":>7}   (medians)')
med = {}
for store, rs in rows.items():
    med[store] = [statistics.median(x) for x in zip(*rs)]
    print(f'{store:<7} {len(rs):>4} {med[store][0]:>9.0f} {med[store][1]:>7.2f} {med[store][2]:>7.2f}')
if "sqlite" in med and "etcd" in med:
    print(f'etcd/sqlite writes/s: {med["etcd"][0] / med["sqlite"][0]:.2f}')
PY
exit $failed
