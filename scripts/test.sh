#!/usr/bin/env bash
# Installs dependencies, builds and runs every test suite:
#   1. g++ RelWithDebInfo build: unit, golden and command-line tests, and the
#      cel-spec conformance suite (pinned npm data fetched into the build tree);
#      then the API server against real clients (kubectl 1.33 and 1.32,
#      @kubernetes/client-node pinned by tests/clients/client-node/package-lock.json)
#      and the kill -9 crash test; `dralloc serve` (controller + scheduler)
#      end to end with kubectl 1.33 and 1.32, `dralloc controller` +
#      `dralloc scheduler` as separate processes over HTTP, and the golden
#      scheduling cases through `dralloc serve` (same placements as offline);
#      the node side: `dralloc local-cluster` end to end with kubectl, node
#      faults (kill -9, hangs, restarts), and wire compatibility with
#      @grpc/grpc-js (pinned by tests/node/grpc-js/package-lock.json);
#      resource.k8s.io/v1alpha2 (classic DRA) beside v1 and scheduled with
#      `dralloc driver classic-example`;
#      TLS, authentication, RBAC, the Node authorizer, quota and audit with
#      kubectl 1.33 and 1.32, Helm 4 (pinned by tests/helm/package-lock.json)
#      under RBAC, and the kubectl suite over TLS as a non-admin user bound
#      to cluster-admin;
#   2. clang ASan+UBSan build (also keeps the code compiling with clang): the same tests;
#   3. clang-format check of all C++ sources;
#   4. a short benchmark smoke run (numbers are not judged here).
# Builds go to build/ and build-asan/ and reuse ccache across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone anywhere
# reuses the objects an earlier build of the same sources left.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# Room for both build trees (g++ and clang ASan): with ccache's default
# 5 GB the cache stayed full and evicted objects between runs.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"

bash scripts/install-deps.sh
jobs=$(nproc)

echo "== g++ build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
bash scripts/fetch-cel-spec.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== API server with real clients: kubectl 1.33 and 1.32, @kubernetes/client-node, crash test"
bash tests/clients/kubectl_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/kubectl_suite.sh build/src/cli/dralloc 1.32
echo "== resource.k8s.io/v1alpha2 (classic DRA) beside v1 with kubectl 1.33 and 1.32, and on etcd"
bash tests/clients/classic_api_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/classic_api_suite.sh build/src/cli/dralloc 1.32
DRALLOC_STORAGE=etcd bash tests/clients/classic_api_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/client_node_suite.sh build/src/cli/dralloc
bash tests/crash/crash_test.sh build/src/cli/dralloc

echo "== TLS, authentication, RBAC, the Node authorizer, quota and audit with kubectl 1.33 and 1.32"
bash tests/auth/auth_suite.sh build/src/cli/dralloc 1.33
bash tests/auth/auth_suite.sh build/src/cli/dralloc 1.32
echo "== Helm 4 (pinned by tests/helm/package-lock.json) installs, upgrades, rolls back and uninstalls a DRA chart under RBAC"
bash tests/helm/helm_suite.sh build/src/cli/dralloc
echo "== the kubectl suite over TLS as a user bound to cluster-admin (client certificate; token)"
DRALLOC_AUTH=cert bash tests/clients/kubectl_suite.sh build/src/cli/dralloc 1.33
DRALLOC_AUTH=token bash tests/clients/kubectl_suite.sh build/src/cli/dralloc 1.32
echo "== dralloc controller and dralloc scheduler with their own identities under RBAC"
DRALLOC_AUTH=cert bash tests/clients/separate_processes_suite.sh build/src/cli/dralloc

echo "== the same client suites with the etcd backend (a throwaway etcd member)"
DRALLOC_STORAGE=etcd bash tests/clients/kubectl_suite.sh build/src/cli/dralloc 1.33
DRALLOC_STORAGE=etcd bash tests/clients/client_node_suite.sh build/src/cli/dralloc
DRALLOC_STORAGE=etcd bash tests/clients/scheduling_suite.sh build/src/cli/dralloc 1.33
echo "== two API servers on a three-member etcd cluster, under faults"
python3 tests/etcd/etcd_fault_suite.py build/src/cli/dralloc
echo "== two serve processes with leader election schedule 5,000 pods on a three-member etcd; hand-over midway"
python3 tests/etcd/handover_suite.py build/src/cli/dralloc build/bench/load/dralloc_api_load

echo "== dralloc serve end to end with kubectl 1.33 and 1.32"
bash tests/clients/scheduling_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/scheduling_suite.sh build/src/cli/dralloc 1.32
bash tests/clients/separate_processes_suite.sh build/src/cli/dralloc
bash tests/parity/schedule_parity.sh build/src/cli/dralloc
echo "== Kubernetes 1.37 DRA: binding conditions (KEP-5007), device taint eviction (KEP-5055), derived attributes (KEP-6080), compatibility groups (KEP-5963), node allocatable resources (KEP-5517), pool status (KEP-5677) and extended resources (KEP-5004) through dralloc serve"
bash tests/clients/binding_conditions_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/device_taint_suite.sh build/src/cli/dralloc 1.32
bash tests/clients/allocation_features_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/pool_status_suite.sh build/src/cli/dralloc 1.32
bash tests/clients/extended_resources_suite.sh build/src/cli/dralloc 1.33
echo "== classic DRA (resource.k8s.io/v1alpha2, KEP-3063): dralloc serve + dralloc driver classic-example with kubectl 1.33 and 1.32"
bash tests/clients/classic_dra_suite.sh build/src/cli/dralloc 1.33
bash tests/clients/classic_dra_suite.sh build/src/cli/dralloc 1.32
bash tests/clients/classic_structured_suite.sh build/src/cli/dralloc 1.33

echo "== node side: local-cluster end to end (structured and classic DRA), faults, wire compatibility with @grpc/grpc-js"
bash tests/node/e2e_suite.sh build/src/cli/dralloc
bash tests/node/fault_suite.sh build/src/cli/dralloc
bash tests/node/process_runtime_suite.sh build/src/cli/dralloc
bash tests/node/classic_e2e_suite.sh build/src/cli/dralloc
bash tests/node/grpc_js_suite.sh build/src/cli/dralloc

echo "== clang ASan+UBSan build and tests"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DDRALLOC_SANITIZE=ON -DDRALLOC_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
bash scripts/fetch-cel-spec.sh build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== clang-format"
bash scripts/format.sh --check

echo "== benchmark smoke run"
build/bench/dralloc_bench --benchmark_min_time=0.05 --benchmark_color=false | tail -n +4
bash bench/scheduler/run.sh --smoke --dralloc build/src/cli/dralloc \
  --load build/bench/load/dralloc_api_load
bash bench/load/writes_smoke.sh build/src/cli/dralloc \
  build/bench/load/dralloc_api_load
bash bench/auth/run.sh --smoke --dralloc build/src/cli/dralloc \
  --load build/bench/load/dralloc_api_load
bash bench/etcd/run.sh --smoke --dralloc build/src/cli/dralloc \
  --load build/bench/load/dralloc_api_load
bash bench/scheduler/run.sh --smoke --modes etcd --no-placement-check \
  --dralloc build/src/cli/dralloc --load build/bench/load/dralloc_api_load
bash bench/simulate/run.sh --smoke --bench build/bench/simulate/dralloc_simulate_bench
bash bench/classic/run.sh --smoke --dralloc build/src/cli/dralloc \
  --load build/bench/load/dralloc_api_load

echo "all test suites passed"
