#!/usr/bin/env bash
# Autoscaler simulation benchmark (README.md here).
#
#   bash bench/simulate/run.sh [--bench PATH] [--repetitions 5] [--nodes 500]
#        [--pending 1000] [--groups 3] [--keep] [--smoke]
#
# Writes the cluster with make_cluster.py (500 nodes of 8 GPUs, three
# quarters of them in use by running pods, 1,000 pending pods, 3 NodeGroups
# of 8-GPU templates) and runs dralloc_simulate_bench on it: load, scale-up
# and scale-down, each repeated, and prints the medians (ms).
# --smoke: 20 nodes, 40 pending pods, 1 repetition; takes seconds (CI).
# Exit 0 when the benchmark ran, 1 when it failed, 2 on bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
bench="$ROOT/build/bench/simulate/dralloc_simulate_bench"
repetitions=5
nodes=500
pending=1000
groups=3
keep=0

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
    "${BASH_SOURCE[0]}"
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bench) bench="$2"; shift 2 ;;
    --repetitions) repetitions="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --pending) pending="$2"; shift 2 ;;
    --groups) groups="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --smoke) nodes=20; pending=40; repetitions=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ -x "$bench" ]] || { echo "run.sh: $bench not built (ninja dralloc_simulate_bench)" >&2; exit 2; }

dir="$(mktemp -d)"
if [[ $keep -eq 0 ]]; then trap 'rm -rf "$dir"' EXIT; else echo "keeping $dir"; fi
python3 "$HERE/make_cluster.py" "$dir" --nodes "$nodes" --pending "$pending" \
  --groups "$groups"
echo "cluster: $nodes nodes, $pending pending pods, $groups node groups ($dir)"
if [[ $repetitions -gt 1 ]]; then
  "$bench" --cluster="$dir" --benchmark_repetitions="$repetitions" \
    --benchmark_report_aggregates_only=true --benchmark_color=false
else
  "$bench" --cluster="$dir" --benchmark_color=false
fi
