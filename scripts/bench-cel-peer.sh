#!/usr/bin/env bash
# Compares dralloc's CEL engine with the JavaScript peer @bufbuild/cel 0.6.1 on
# the five selector expressions e1..e5 (bench/cel_peer/bench.mjs and the C++
# benchmarks BM_CelPeer/e1..e5 in BUILD_DIR/bench/dralloc_bench):
#   scripts/bench-cel-peer.sh BUILD_DIR [--iterations N]
# Installs the npm modules first if needed (scripts/fetch-cel-spec.sh).
# Both sides report the median of 5 runs; times are nanoseconds per evaluation.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--iterations N]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
shift
iterations=200000
if [ "${1:-}" = "--iterations" ] && [ -n "${2:-}" ]; then iterations="$2"; fi

bench="$build/bench/dralloc_bench"
if [ ! -x "$bench" ]; then
  echo "bench-cel-peer: $bench not found; build it first (ninja -C $build dralloc_bench)" >&2
  exit 1
fi
bash "$root/scripts/fetch-cel-spec.sh" "$build" >&2

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "bench-cel-peer: running the JavaScript peer" >&2
node "$root/bench/cel_peer/bench.mjs" --modules "$build/cel-spec/node_modules" \
  --iterations "$iterations" --runs 5 >"$tmp/js.tsv"

echo "bench-cel-peer: running $bench --benchmark_filter=BM_CelPeer" >&2
"$bench" --benchmark_filter=BM_CelPeer --benchmark_out="$tmp/cc.json" \
  --benchmark_out_format=json --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true >&2

DRALLOC_BUILD_TYPE="$(sed -n "s/^CMAKE_BUILD_TYPE:STRING=//p" "$build/CMakeCache.txt" 2>/dev/null)" node - "$tmp/js.tsv" "$tmp/cc.json" <<'EOF'
const fs = require("node:fs");
const [jsPath, ccPath] = process.argv.slice(2);
const js = new Map();
const notes = [];
for (const line of fs.readFileSync(jsPath, "utf8").split("\n")) {
  if (line.startsWith("#")) { notes.push(line); continue; }
  const [name, ns] = line.split("\t");
  if (/^e\d+$/.test(name)) js.set(name, Number(ns));
}
const toNs = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const cc = new Map();
const allocs = new Map();
// Google Benchmark writes bare NaN/inf for some aggregates (e.g. the
// coefficient of variation of a zero counter), which is not JSON.
const report = JSON.parse(fs.readFileSync(ccPath, "utf8")
  .replace(/:\s*-?(nan|NaN|inf|Infinity)\b/g, ": null"));
for (const b of report.benchmarks ?? []) {
  // BM_CelPeer/0..4 labelled e1..e5 (or named BM_CelPeer/e1..e5).
  const run = b.run_name ?? b.name;
  if (!/^BM_CelPeer\//.test(run)) continue;
  let name = /^e\d+$/.test(b.label ?? "") ? b.label : undefined;
  const m = /^BM_CelPeer\/(e?)(\d+)/.exec(run);
  if (!name && m) name = m[1] ? `e${m[2]}` : `e${Number(m[2]) + 1}`;
  if (!name) continue;
  const ns = b.real_time * (toNs[b.time_unit] ?? 1);
  // Prefer the median aggregate; fall back to a plain iteration entry.
  if (b.run_type === "aggregate" ? b.aggregate_name === "median" : !cc.has(name)) {
    cc.set(name, ns);
    if (b.allocs_per_eval !== undefined) allocs.set(name, b.allocs_per_eval);
  }
}
const names = [...new Set([...js.keys(), ...cc.keys()])].sort();
const fmt = (v) => (v === undefined ? "-" : v.toFixed(1));
const rows = [["expr", "dralloc_ns", "allocs/eval", "bufbuild_cel_ns", "js/cpp"]];
for (const n of names) {
  const a = cc.get(n), b = js.get(n);
  const al = allocs.get(n);
  rows.push([n, fmt(a), al === undefined ? "-" : String(Math.round(al * 100) / 100),
    fmt(b), a && b ? (b / a).toFixed(1) + "x" : "-"]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const note of notes) console.log(note);
if (report.context) {
  console.log(`# dralloc: ${report.context.num_cpus} CPUs @ ${report.context.mhz_per_cpu} MHz, ` +
    `dralloc build ${process.env.DRALLOC_BUILD_TYPE || "?"}; median of 5 repetitions`);
}
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
if (cc.size === 0) {
  console.error("bench-cel-peer: no BM_CelPeer results from the C++ benchmark");
  process.exit(1);
}
EOF
