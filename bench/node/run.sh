#!/usr/bin/env bash
# Node-side throughput benchmark: pods per second from bind to Running on
# one node (see README.md here).
#
#   bash bench/node/run.sh [--dralloc BIN] [--pods 1000] [--runs 3]
#        [--modes "memory sqlite"] [--clients 8] [--timeout 120] [--keep]
#        [--tmp DIR] [--smoke]
#
# Per mode and run, under a fresh temp dir: `dralloc serve --storage
# memory:` (or sqlite:DIR), one `dralloc driver example --gpus PODS` and one
# `dralloc node --runtime simulated` (unix sockets under the dir), then
# pods_to_running.py creates PODS pods of one GPU each (ResourceClaimTemplate)
# and times each from bind to Running on a pod watch. Prints per run and the
# median over runs: pods/s = Running pods / (last Running - first bind),
# p50 / p99 bind->Running, the bind span (how long the scheduler took to
# bind them all: if it is close to the whole span, binding and not the node
# was the limit) and pods/s over the first and second half of the Running
# pods (a per-pod cost growing with the pods on the node shows there),
# and the CPU seconds each component (serve, driver, node) used per run.
#
# --tmp DIR: where the temp dir goes (default /tmp; e.g. /dev/shm to take
# the disk's fsync latency out: state, CDI specs and sqlite all live there).
# --smoke: 20 pods, 1 run, memory only; takes seconds (CI).
# Exit status: 0 all pods Running in every run, 1 a run failed (pods not
# Running within --timeout, a component did not start), 2 bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

runs=3
pods=1000
clients=8
timeout=120
modes="memory sqlite"
keep=0
tmp_parent=/tmp
dralloc="$ROOT/build/src/cli/dralloc"

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
    "${BASH_SOURCE[0]}"
}
die_usage() { echo "run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --dralloc) dralloc="$2"; shift 2 ;;
    --pods) pods="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --tmp) tmp_parent="$2"; shift 2 ;;
    --smoke) pods=20; runs=1; modes=memory; timeout=30; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1' (see --help)" ;;
  esac
done
for n in "$runs" "$pods" "$clients" "$timeout"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die_usage "'$n' is not a positive integer"
done
for m in $modes; do
  [[ "$m" == memory || "$m" == sqlite ]] ||
    die_usage "unknown mode '$m' (memory, sqlite)"
done
[[ -x "$dralloc" ]] || die_usage "dralloc not found at $dralloc (--dralloc BIN)"
command -v python3 >/dev/null || die_usage "python3 is required"
for sub in serve node driver; do
  "$dralloc" "$sub" --help >/dev/null 2>&1 ||
    die_usage "$dralloc has no '$sub' subcommand"
done

# Short: unix socket paths are limited to 108 bytes.
[[ -d "$tmp_parent" ]] || die_usage "--tmp $tmp_parent is not a directory"
work="$(mktemp -d "$tmp_parent/drnb.XXXXXX")"
pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
cleanup() {
  stop_all
  if (( keep )); then echo "run.sh: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for_line FILE REGEX PID: polls FILE for a line matching REGEX for at
# most 60 s; prints the first match. Fails when PID exits first.
wait_for_line() {
  local file="$1" regex="$2" pid="$3" line
  for _ in $(seq 600); do
    line="$(grep -E -m 1 "$regex" "$file" 2>/dev/null || true)"
    if [[ -n "$line" ]]; then echo "$line"; return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}

# start_cluster DIR MODE: serve + driver + node agent; sets server_url.
start_cluster() {
  local dir="$1" mode="$2" storage="memory:"
  mkdir -p "$dir"
  [[ "$mode" == sqlite ]] && storage="sqlite:$dir/store"
  "$dralloc" serve --listen 127.0.0.1:0 --storage "$storage" --log-level warn \
    > "$dir/serve.out" 2> "$dir/serve.err" &
  pids+=($!)
  local line
  line="$(wait_for_line "$dir/serve.out" '^dralloc serve listening on http://' $!)" ||
    { echo "run.sh: serve did not start (log: $dir/serve.err)" >&2; return 1; }
  server_url="$(sed 's/^dralloc serve listening on \(http:\/\/[^ ]*\).*/\1/' <<< "$line")"
  "$dralloc" driver example --node-name node-0 --server "$server_url" \
    --root "$dir/node-0" --gpus "$pods" --log-level warn \
    > "$dir/driver.out" 2> "$dir/driver.err" &
  pids+=($!)
  wait_for_line "$dir/driver.out" '^ready$' $! > /dev/null ||
    { echo "run.sh: driver did not start (log: $dir/driver.err)" >&2; return 1; }
  "$dralloc" node --node-name node-0 --server "$server_url" \
    --root "$dir/node-0" --runtime simulated --max-pods "$pods" --log-level warn \
    > "$dir/node.out" 2> "$dir/node.err" &
  pids+=($!)
  wait_for_line "$dir/node.out" '^ready$' $! > /dev/null ||
    { echo "run.sh: node agent did not start (log: $dir/node.err)" >&2; return 1; }
}

# cpu_seconds: "serve X driver Y node Z": user+system CPU seconds each
# component has used so far (pids in start order).
cpu_seconds() {
  local names=(serve driver node) i=0 pid ticks hz
  hz="$(getconf CLK_TCK)"
  for pid in "${pids[@]}"; do
    ticks="$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    printf '%s %s ' "${names[$i]:-pid$pid}" "$(awk -v t="$ticks" -v h="$hz" 'BEGIN{printf "%.2f", t/h}')"
    i=$((i + 1))
  done
}

results="$work/results.tsv"  # mode run pods/s p50 p99 bind_s half1 half2 running
: > "$results"
failed=0
for mode in $modes; do
  for run in $(seq "$runs"); do
    dir="$work/$mode-$run"
    if ! start_cluster "$dir" "$mode"; then
      failed=1; stop_all; continue
    fi
    status=0
    python3 "$HERE/pods_to_running.py" --server "$server_url" --node node-0 \
      --pods "$pods" --clients "$clients" --timeout "$timeout" \
      > "$dir/result.json" 2> "$dir/client.err" || status=$?
    cpu_line="$(cpu_seconds)"
    stop_all
    echo "$mode run $run: CPU seconds: $cpu_line" >> "$work/cpu.txt"
    if [[ ! -s "$dir/result.json" ]]; then
      echo "run.sh: $mode run $run: client failed: $(cat "$dir/client.err")" >&2
      failed=1; continue
    fi
    python3 - "$mode" "$run" "$dir/result.json" >> "$results" <<'EOF'
import json, sys
r = json.load(open(sys.argv[3]))
f = lambda k: "-" if r.get(k) is None else str(r[k])
print("\t".join([sys.argv[1], sys.argv[2], f("pods_per_s"), f("p50_ms"),
                 f("p99_ms"), f("bind_s"), f("first_half_per_s"),
                 f("second_half_per_s"), "%d/%d" % (r["running"], r["pods"])]))
EOF
    if (( status != 0 )); then
      echo "run.sh: $mode run $run: not all pods Running: $(cat "$dir/result.json")" >&2
      failed=1
    fi
  done
done

cat "$work/cpu.txt" 2>/dev/null || true
echo "node bench: $pods pods of one GPU on one node, $runs run(s), state under $tmp_parent, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
fmt = "%-7s %-6s %8s %9s %9s %7s %8s %8s %9s"
print(fmt % ("mode", "run", "pods/s", "p50 ms", "p99 ms", "bind s",
             "1st half", "2nd half", "running"))
for r in rows:
    print(fmt % tuple(r))
def med(values):
    nums = [float(v) for v in values if v != "-"]
    return "%.1f" % statistics.median(nums) if nums else "-"
for mode in dict.fromkeys(r[0] for r in rows):
    m = [r for r in rows if r[0] == mode]
    print(fmt % (mode, "median", med(r[2] for r in m), med(r[3] for r in m),
                 med(r[4] for r in m), med(r[5] for r in m),
                 med(r[6] for r in m), med(r[7] for r in m), ""))
EOF
exit "$failed"
