#!/usr/bin/env bash
# Fetches the pinned CEL conformance data and converts it for the C++ runner:
#   scripts/fetch-cel-spec.sh BUILD_DIR
# Installs tests/conformance/cel/package.json + package-lock.json (@bufbuild/cel-spec and
# @bufbuild/cel 0.6.1, the data of google/cel-spec v0.25.1) with `npm ci` into
# BUILD_DIR/cel-spec and writes BUILD_DIR/cel-spec/conformance.jsonl, which the
# ctest test dralloc_cel_conformance reads. The same node_modules serve the
# JavaScript performance peer (scripts/bench-cel-peer.sh).
# Idempotent: does nothing when the JSONL exists and is newer than the
# lockfile and the converter; reinstalls when the lockfile changed.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/tests/conformance/cel"
mkdir -p "$1"
out="$(cd "$1" && pwd)/cel-spec"
jsonl="$out/conformance.jsonl"

if [ -f "$jsonl" ] && [ "$jsonl" -nt "$src/package-lock.json" ] &&
  [ "$jsonl" -nt "$src/convert_conformance.mjs" ] &&
  cmp -s "$src/package-lock.json" "$out/package-lock.json"; then
  echo "fetch-cel-spec: $jsonl is up to date"
  exit 0
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "fetch-cel-spec: error: node and npm are required (Node 20+ / npm 10+)" >&2
  exit 1
fi

mkdir -p "$out"
if [ ! -d "$out/node_modules/@bufbuild/cel-spec" ] ||
  ! cmp -s "$src/package-lock.json" "$out/package-lock.json"; then
  cp "$src/package.json" "$src/package-lock.json" "$out/"
  echo "fetch-cel-spec: npm ci in $out"
  if ! (cd "$out" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error); then
    echo "fetch-cel-spec: error: 'npm ci' failed in $out; the npm registry must be" \
      "reachable to fetch @bufbuild/cel-spec@0.6.1 (see tests/conformance/cel/NOTICE)" >&2
    exit 1
  fi
fi

tmp="$jsonl.tmp"
if ! node "$src/convert_conformance.mjs" --modules "$out/node_modules" >"$tmp"; then
  rm -f "$tmp"
  echo "fetch-cel-spec: error: converting the conformance data failed" >&2
  exit 1
fi
mv "$tmp" "$jsonl"
echo "fetch-cel-spec: wrote $jsonl ($(wc -l <"$jsonl") tests)"
