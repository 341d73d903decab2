#!/usr/bin/env bash
# Classic DRA scheduling throughput (issue #27): pods/s of `dralloc serve`
# with one control-plane driver (`dralloc driver classic-example`) answering
# over loopback HTTP, side by side with the structured template workload of
# the same size on the same binary.
#
#   bash bench/classic/run.sh [--dralloc PATH] [--load PATH] [--nodes 100]
#        [--gpus-per-node 10] [--pods 1000] [--clients 8] [--runs 3] [--smoke]
#
# Each run starts a fresh `dralloc serve --storage sqlite:DIR` (and, for the
# classic variant, the driver with --gpus-per-node GPUs on every node), then
# `dralloc_api_load schedule-pods` creates the setup objects and the pods
# and waits until every pod is bound. Prints each run and the medians.
# --smoke: 20 nodes, 100 pods, 1 run (CI: it works, numbers not judged).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dralloc="$ROOT/build/src/cli/dralloc"
load="$ROOT/build/bench/load/dralloc_api_load"
nodes=100 gpus=10 pods=1000 clients=8 runs=3 timeout=300
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dralloc) dralloc="$2"; shift 2 ;;
    --load) load="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --gpus-per-node) gpus="$2"; shift 2 ;;
    --pods) pods="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --smoke) nodes=20; pods=100; runs=1; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d /tmp/dralloc-classic-bench.XXXXXX)"
server_pid="" driver_pid=""
stop_all() {
  for pid in $driver_pid $server_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $driver_pid $server_pid; do wait "$pid" 2>/dev/null || true; done
  driver_pid="" server_pid=""
}
trap 'stop_all; rm -rf "$work"' EXIT

node_list="$(python3 -c "print(','.join(f'node-{i}' for i in range($nodes)))")"
for variant in template classic; do
  python3 "$ROOT/bench/scheduler/make_workload.py" --nodes "$nodes" \
    --devices-per-node "$gpus" --pods "$pods" --variant "$variant" \
    --out "$work/$variant" >/dev/null
done

run_once() {  # run_once VARIANT RUN: prints pods/s
  local variant="$1" dir="$work/$1-$2"
  mkdir -p "$dir"
  "$dralloc" serve --listen 127.0.0.1:0 --storage "sqlite:$dir/data" \
    >"$dir/serve.out" 2>"$dir/serve.err" &
  server_pid=$!
  local url=""
  for _ in $(seq 200); do
    url="$(sed -n 's/^dralloc serve listening on \(http:\/\/[^ ]*\).*/\1/p' "$dir/serve.out" | head -1)"
    [[ -n "$url" ]] && break
    sleep 0.05
  done
  [[ -n "$url" ]] || { echo "run.sh: serve did not start" >&2; cat "$dir/serve.err" >&2; return 1; }
  if [[ "$variant" == classic ]]; then
    "$dralloc" driver classic-example --server "$url" --nodes "$node_list" \
      --gpus-per-node "$gpus" --log-level warn >"$dir/driver.out" 2>"$dir/driver.err" &
    driver_pid=$!
    for _ in $(seq 200); do grep -q ready "$dir/driver.out" 2>/dev/null && break; sleep 0.05; done
  fi
  "$load" schedule-pods --server "$url" --setup "$work/$variant/setup.jsonl" \
    --pods "$work/$variant/pods.jsonl" --clients "$clients" --timeout "$timeout" \
    --json >"$dir/report.json" 2>"$dir/load.err" || true
  stop_all
  python3 - "$dir/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print("0 unreadable-report"); sys.exit(0)
print(f'{r["throughput_pods_per_second"]:.1f} bound {r["pods_bound"]}/{r["pods"]}')
PY
}

declare -A results
for run in $(seq 1 "$runs"); do
  for variant in template classic; do
    line="$(run_once "$variant" "$run")"
    echo "$variant run $run: ${line#* } -> ${line%% *} pods/s"
    results[$variant]+="${line%% *} "
  done
done
python3 - "${results[template]}" "${results[classic]}" "$nodes" "$gpus" "$pods" <<'PY'
import statistics, sys
t = [float(x) for x in sys.argv[1].split()]
c = [float(x) for x in sys.argv[2].split()]
mt, mc = statistics.median(t), statistics.median(c)
print(f"{sys.argv[3]} nodes x {sys.argv[4]} GPUs, {sys.argv[5]} pods: median "
      f"structured template {mt:.1f} pods/s, classic (one driver on loopback) "
      f"{mc:.1f} pods/s, classic/structured {mc / mt if mt else 0:.2f}")
if min(t + c) <= 0:
    sys.exit(1)
PY
