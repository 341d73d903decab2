#!/usr/bin/env bash
# The main job: install dependencies, build dralloc, validate the bundled
# examples, then schedule the example pods (claim controller + scheduler,
# offline) and print where each pod landed with its devices.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout (see scripts/test.sh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target dralloc
echo "== dralloc validate -f examples"
build/src/cli/dralloc validate -f examples
echo
echo "== dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims"
build/src/cli/dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims
echo
echo "== dralloc schedule -f examples/cluster -f examples/workloads  (pods with claims → nodes and devices)"
build/src/cli/dralloc schedule -f examples/cluster -f examples/workloads
echo
echo "== dralloc schedule -f examples/scheduling  (shared claim, firstAvailable, templates)"
build/src/cli/dralloc schedule -f examples/scheduling
