#!/usr/bin/env bash
# Scheduler throughput benchmark, modelled on upstream scheduler_perf
# SchedulingWithResourceClaimTemplate/5000pods_500nodes (see README.md here).
#
#   bash bench/scheduler/run.sh [--runs 3] [--dralloc PATH] [--load PATH]
#        [--pods 5000] [--nodes 500] [--devices-per-node 10] [--clients 8]
#        [--timeout 300] [--variants "template match-attribute"]
#        [--modes "memory durable etcd"] [--keep] [--smoke]
#        [--baseline-dralloc PATH] [--no-placement-check]
#
# For each variant it generates the workload (make_workload.py) and measures
#   memory:  `dralloc schedule -f DIR --stats -o none`, pods/s from its
#            stderr line "scheduled N/M pods in S s (R pods/s)";
#   durable: a fresh `dralloc serve --storage sqlite:DIR` per run, driven by
#            `dralloc_api_load schedule-pods` (create pods over HTTP, wait
#            for the bindings on a watch, check no device is allocated
#            twice), pods/s = bound / (last bound - first create);
#   etcd:    the same with `--storage etcd:URL` on a fresh one-member etcd
#            (Debian's etcd-server, fsync on) per run, on the same machine.
# and prints the median pods/s per variant and mode.
#
# --baseline-dralloc PATH: also runs a second dralloc binary (e.g. one built
#   by build_baseline.sh from the commit before issue 23) on the same
#   workloads in the same run, and prints both medians and their ratio.
# Placement check (memory mode, unless --no-placement-check): once per
#   variant, `dralloc schedule -o json` with and without the scheduler's
#   Filter cache (DRALLOC_NO_FILTER_CACHE=1) must place every pod on the
#   same node with the same devices.
#
# --smoke: 50 pods, 10 nodes, 1 run each; takes seconds (CI).
# Exit status: 0 all runs complete and correct, 1 a run failed (not all pods
# scheduled, double allocation, server did not start), 2 bad usage or a
# missing binary / subcommand.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

runs=3
pods=5000
nodes=500
devices_per_node=10
clients=8
timeout=300
variants="template match-attribute"
modes="memory durable"
keep=0
baseline=""
placement_check=1
dralloc="$ROOT/build/src/cli/dralloc"
load="$ROOT/build/bench/load/dralloc_api_load"

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
    "${BASH_SOURCE[0]}"
}
# True when PROGRAM has subcommand SUB (CLI11 prints the top-level help, and
# exits 0, for `PROGRAM unknown --help`, so look at the Usage line).
has_subcommand() {
  "$1" "$2" --help 2>/dev/null | grep -q "^Usage: .* $2 "
}
die_usage() { echo "run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --pods) pods="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --devices-per-node) devices_per_node="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --variants) variants="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --dralloc) dralloc="$2"; shift 2 ;;
    --load) load="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --baseline-dralloc) baseline="$2"; shift 2 ;;
    --no-placement-check) placement_check=0; shift ;;
    --smoke) runs=1; pods=50; nodes=10; timeout=60; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1' (see --help)" ;;
  esac
done

for n in "$runs" "$pods" "$nodes" "$devices_per_node" "$clients" "$timeout"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die_usage "'$n' is not a positive integer"
done
for v in $variants; do
  [[ "$v" == template || "$v" == match-attribute ]] ||
    die_usage "unknown variant '$v' (template, match-attribute)"
done
for m in $modes; do
  [[ "$m" == memory || "$m" == durable || "$m" == etcd ]] ||
    die_usage "unknown mode '$m' (memory, durable, etcd)"
done
if (( pods > nodes * devices_per_node )); then
  die_usage "$pods pods do not fit on $nodes nodes x $devices_per_node devices"
fi

# ---- Preconditions: fail clearly when a binary or subcommand is missing.
[[ -x "$dralloc" ]] || die_usage "dralloc not found at $dralloc (--dralloc PATH)"
if [[ -n "$baseline" ]]; then
  [[ -x "$baseline" ]] || die_usage "baseline dralloc not found at $baseline (--baseline-dralloc PATH)"
fi
command -v python3 >/dev/null || die_usage "python3 is required"
want_memory=0; want_durable=0
for m in $modes; do
  [[ "$m" == memory ]] && want_memory=1
  [[ "$m" == durable || "$m" == etcd ]] && want_durable=1
  if [[ "$m" == etcd ]] && ! command -v etcd >/dev/null; then
    die_usage "etcd not found (Debian package etcd-server; scripts/install-deps.sh installs it)"
  fi
done
if (( want_memory )) && ! has_subcommand "$dralloc" schedule; then
  die_usage "$dralloc has no 'schedule' subcommand (needed for the in-memory mode; use --modes durable to skip it)"
fi
if (( want_durable )); then
  has_subcommand "$dralloc" serve ||
    die_usage "$dralloc has no 'serve' subcommand (needed for the durable mode; use --modes memory to skip it)"
  [[ -x "$load" ]] ||
    die_usage "dralloc_api_load not found at $load (--load PATH; build target dralloc_api_load)"
  has_subcommand "$load" schedule-pods ||
    die_usage "$load has no 'schedule-pods' subcommand"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/dralloc-sched-bench.XXXXXX")"
server_pid=""
source "$HERE/../../tests/etcd/etcd_lib.sh"

stop_server() {
  [[ -n "$server_pid" ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}
cleanup() {
  stop_server
  stop_etcd_members
  if (( keep )); then
    echo "run.sh: kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

results="$work/results.tsv"   # variant mode binary run pods_per_second ok
: > "$results"
failed=0

# Starts `dralloc serve` on a free port with a fresh sqlite dir (or, with
# storage "etcd", a fresh etcd member); sets server_pid and server_url.
# Returns 1 when it does not come up in 60 s.
start_server() {
  local dir="$1" bin="$2" storage="${3:-sqlite}" spec
  mkdir -p "$dir"
  spec="sqlite:$dir/data"
  if [[ "$storage" == etcd ]]; then
    start_etcd_cluster 1 "$dir" || return 1
    spec="etcd:$etcd_urls"
  fi
  "$bin" serve --listen 127.0.0.1:0 --storage "$spec" \
    > "$dir/server.out" 2> "$dir/server.err" &
  server_pid=$!
  server_url=""
  for _ in $(seq 600); do
    server_url="$(sed -n 's/^dralloc serve listening on \(http:\/\/[^ ]*\).*/\1/p' \
      "$dir/server.out" | head -n 1)"
    [[ -n "$server_url" ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run.sh: dralloc serve did not report its address; stderr:" >&2
  tail -n 20 "$dir/server.err" >&2 || true
  stop_server
  return 1
}

run_memory() {
  local variant="$1" dir="$2" run="$3" label="$4" bin="$5"
  local err="$work/memory-$variant-$label-$run.err" line rate scheduled total
  if ! "$bin" schedule -f "$dir" --stats -o none > /dev/null 2> "$err"; then
    echo "  memory  $label run $run: dralloc schedule failed:" >&2
    tail -n 20 "$err" >&2
    printf '%s\tmemory\t%s\t%s\t0\t0\n' "$variant" "$label" "$run" >> "$results"
    return 1
  fi
  line="$(grep -E 'scheduled [0-9]+/[0-9]+ pods in ' "$err" | tail -n 1 || true)"
  if [[ ! "$line" =~ scheduled\ ([0-9]+)/([0-9]+)\ pods\ in\ [0-9.eE+-]+\ s\ \(([0-9.eE+-]+)\ pods/s\) ]]; then
    echo "  memory  $label run $run: no 'scheduled N/M pods in S s (R pods/s)' line on stderr:" >&2
    tail -n 20 "$err" >&2
    printf '%s\tmemory\t%s\t%s\t0\t0\n' "$variant" "$label" "$run" >> "$results"
    return 1
  fi
  scheduled="${BASH_REMATCH[1]}"; total="${BASH_REMATCH[2]}"; rate="${BASH_REMATCH[3]}"
  echo "  memory  $label run $run: $line"
  if (( scheduled != total || total != pods )); then
    echo "  memory  $label run $run: only $scheduled of $pods pods scheduled" >&2
    printf '%s\tmemory\t%s\t%s\t%s\t0\n' "$variant" "$label" "$run" "$rate" >> "$results"
    return 1
  fi
  printf '%s\tmemory\t%s\t%s\t%s\t1\n' "$variant" "$label" "$run" "$rate" >> "$results"
}

run_durable() {
  local variant="$1" dir="$2" run="$3" label="$4" bin="$5" mode="${6:-durable}"
  local rundir="$work/$mode-$variant-$label-$run" rc=0 summary
  local storage=sqlite
  [[ "$mode" == etcd ]] && storage=etcd
  start_server "$rundir" "$bin" "$storage" || {
    stop_server
    stop_etcd_members
    printf '%s\t%s\t%s\t%s\t0\t0\n' "$variant" "$mode" "$label" "$run" >> "$results"
    return 1
  }
  "$load" schedule-pods --server "$server_url" --setup "$dir/setup.jsonl" \
    --pods "$dir/pods.jsonl" --clients "$clients" --timeout "$timeout" --json \
    > "$rundir/report.json" 2> "$rundir/load.err" || rc=$?
  stop_server
  stop_etcd_members
  if [[ ! -s "$rundir/report.json" ]]; then
    echo "  $mode $label run $run: dralloc_api_load failed (exit $rc):" >&2
    tail -n 20 "$rundir/load.err" >&2
    printf '%s\t%s\t%s\t%s\t0\t0\n' "$variant" "$mode" "$label" "$run" >> "$results"
    return 1
  fi
  summary="$(python3 - "$rundir/report.json" "$rc" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
lat = r["bind_latency_ms"]
print(f'{r["throughput_pods_per_second"]:.1f}\t'
      f'bound {r["pods_bound"]}/{r["pods"]}, create {r["creates_per_second"]:.0f}/s, '
      f'first create->last bound {r["first_create_to_last_bound_seconds"]:.2f} s, '
      f'latency p50/p90/p99 {lat["p50"]:.0f}/{lat["p90"]:.0f}/{lat["p99"]:.0f} ms, '
      f'claims allocated {r["allocated_claims"]}, '
      f'double-allocated devices {r["double_allocated_devices"]}, '
      f'machine stalls over {r["machine_stalls"]["threshold_ms"]} ms '
      f'{r["machine_stalls"]["count"]} (longest {r["machine_stalls"]["longest_ms"]:.0f} ms)'
      + ('' if sys.argv[2] == '0' else '; problems: ' + '; '.join(r["problems"])))
EOF
)" || summary=$'0\tunreadable report'
  echo "  $mode $label run $run: ${summary#*$'\t'} -> ${summary%%$'\t'*} pods/s"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$mode" "$label" "$run" "${summary%%$'\t'*}" \
    "$([[ $rc == 0 ]] && echo 1 || echo 0)" >> "$results"
  [[ $rc == 0 ]]
}

# Schedules the workload with and without the Filter cache and compares
# every pod's node and every claim's devices.
check_placements() {
  local variant="$1" dir="$2" out="$work/placements-$variant"
  mkdir -p "$out"
  if ! "$dralloc" schedule -f "$dir" -o json > "$out/cached.json" 2> "$out/cached.err" ||
     ! DRALLOC_NO_FILTER_CACHE=1 "$dralloc" schedule -f "$dir" -o json \
       > "$out/uncached.json" 2> "$out/uncached.err"; then
    echo "  placements: dralloc schedule -o json failed" >&2
    return 1
  fi
  python3 "$HERE/compare_placements.py" "$out/cached.json" "$out/uncached.json"
}

echo "dralloc scheduler benchmark: $nodes nodes x $devices_per_node devices," \
  "$pods pods, $runs run(s), variants: $variants, modes: $modes"
for variant in $variants; do
  dir="$work/workload-$variant"
  python3 "$HERE/make_workload.py" --nodes "$nodes" \
    --devices-per-node "$devices_per_node" --pods "$pods" \
    --variant "$variant" --out "$dir" > /dev/null
  echo "$variant:"
  if (( want_memory && placement_check )); then
    check_placements "$variant" "$dir" || failed=1
  fi
  for mode in $modes; do
    for run in $(seq "$runs"); do
      for label in current ${baseline:+baseline}; do
        bin="$dralloc"
        [[ "$label" == baseline ]] && bin="$baseline"
        if [[ "$mode" == memory ]]; then
          run_memory "$variant" "$dir" "$run" "$label" "$bin" || failed=1
        else
          run_durable "$variant" "$dir" "$run" "$label" "$bin" "$mode" || failed=1
        fi
      done
    done
  done
done

echo
python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    variant, mode, label, run, rate, ok = line.rstrip("\n").split("\t")
    rows.setdefault((variant, mode, label), []).append((float(rate), ok == "1"))
print(f'{"variant":<17} {"mode":<8} {"binary":<9} {"runs":>4} {"ok":>3} {"median pods/s":>14}  all runs')
medians = {}
for (variant, mode, label), runs in rows.items():
    rates = [r for r, _ in runs]
    ok = sum(1 for _, good in runs if good)
    medians[(variant, mode, label)] = statistics.median(rates)
    print(f'{variant:<17} {mode:<8} {label:<9} {len(runs):>4} {ok:>3} '
          f'{statistics.median(rates):>14.1f}  {" ".join(f"{r:.1f}" for r in rates)}')
for (variant, mode, label), median in medians.items():
    base = medians.get((variant, mode, "baseline"))
    if label == "current" and base:
        print(f'{variant} {mode}: current/baseline = {median / base:.2f}x')
EOF
if (( failed )); then
  echo "run.sh: some runs failed (see above)" >&2
  exit 1
fi
