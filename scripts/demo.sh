#!/usr/bin/env bash
# The main job: install dependencies, build dralloc, validate the bundled
# examples, then allocate devices for the example claims on node-a, as the
# Kubernetes scheduler would, and print the chosen devices.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target dralloc
echo "== dralloc validate -f examples"
build/src/cli/dralloc validate -f examples
echo
echo "== dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims"
build/src/cli/dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims
