#!/usr/bin/env bash
# Resource pool status (KEP-5677) end to end: kubectl against `dralloc serve`.
#
# Usage: pool_status_suite.sh DRALLOC_BINARY [1.32|1.33]
# Applies pool_status/ (two nodes with one gpu.example.com pool each, one
# tainted device, a pool of another driver), schedules a pod whose claim
# takes two GPUs of node-1, then checks:
#  - the resource is served: discovery, `kubectl explain`, create and get;
#  - a request for gpu.example.com is answered once with both pools and the
#    right total/allocated/available/unavailable counts, a Complete condition
#    and the spec.limit default 100;
#  - limit 1 truncates: poolCount 2, one pool listed;
#  - `kubectl get` prints the KEP's columns: summed counts, errors, pools,
#    status ("Complete (1/2 pools)" when cut at the limit), completed;
#  - while a pool is incomplete nothing is written: the request is retried
#    for about 0.16 s, then dropped and shown as Pending; publishing the
#    missing slice does not answer it, a label change does;
#  - the spec and an answered status are immutable;
#  - an invalid request is refused with its field path.
# (The TTL sweeper's 1 h / 24 h are not shortened by any flag; the unit tests
# cover it.)
# Every wait is bounded by POOL_STATUS_TIMEOUT seconds (default 30).
# Prints PASS/FAIL per check and "N passed, M failed"; exits non-zero on any
# failure (with the tail of the server log). KEEP_WORKDIR=1 keeps the workdir.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifests=$here/pool_status
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=${POOL_STATUS_TIMEOUT:-30}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --scheduler-name dralloc-scheduler
ns=pools
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }
echo "kubectl $("$kubectl_bin" version --client -o json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])') against serve at $server_url"

rpsr=resourcepoolstatusrequests.v1alpha3.resource.k8s.io
pools_of() {  # pools_of REQUEST: "pool total allocated available unavailable node" per pool
  k get "$rpsr" "$1" -o 'jsonpath={range .status.pools[*]}{.poolName} {.totalDevices} {.allocatedDevices} {.availableDevices} {.unavailableDevices} {.nodeName};{end}'
}
header_line() {  # the header of `kubectl get` for requests, single-spaced
  # (sed reads every line: `head -1` could end kubectl with SIGPIPE, which
  # pipefail reports as a failure)
  k get "$rpsr" | sed -nE '1{s/ +/ /g; s/ $//; p}'
}
row_of() {  # row_of REQUEST: its `kubectl get` row, single-spaced
  k get "$rpsr" "$1" --no-headers | sed -E 's/ +/ /g; s/ $//'
}
answered_row_of() {  # answered_row_of REQUEST: the row without COMPLETED (an age)
  row_of "$1" | sed -E 's/ [^ ]+$//'
}
answered() {  # answered REQUEST: the status has its Complete condition
  equals "True CalculationComplete" k get "$rpsr" "$1" \
    -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status} {.status.conditions[?(@.type=="Complete")].reason}'
}

check "apply the cluster" k apply -f "$manifests/cluster.yaml"
check "apply a pod taking two GPUs of node-1" k apply -f "$manifests/workload.yaml"
check "the pod is scheduled" k wait --for=condition=PodScheduled --timeout=${wait_s}s pod/trainer
check "its claim has gpu-0 and gpu-1" within "$wait_s" equals "gpu-0 gpu-1" \
  k get resourceclaim two-gpus -o 'jsonpath={.status.allocation.devices.results[*].device}'

check "discovery lists resourcepoolstatusrequests" contains resourcepoolstatusrequests \
  k api-resources --api-group=resource.k8s.io
check "kubectl explain describes the spec" contains "limit" \
  k explain "resourcepoolstatusrequests.spec" --api-version=resource.k8s.io/v1alpha3
check "create a request for gpu.example.com" k create -f "$manifests/request-all.yaml"
check "the request is answered" within "$wait_s" answered all-gpus
check "poolCount counts both pools" equals 2 k get "$rpsr" all-gpus -o 'jsonpath={.status.poolCount}'
check "the pools have the right counts" equals \
  "node-1 3 2 0 1 node-1;node-2 2 0 2 0 node-2;" pools_of all-gpus
check "the message counts the pools" equals "Calculated status for 2 pools" \
  k get "$rpsr" all-gpus -o 'jsonpath={.status.conditions[?(@.type=="Complete")].message}'
check "spec.limit defaults to 100" equals 100 k get "$rpsr" all-gpus -o 'jsonpath={.spec.limit}'
check "kubectl get lists the request" contains all-gpus k get resourcepoolstatusrequests
check "kubectl get prints the KEP's columns" equals \
  "NAME DRIVER TOTAL AVAILABLE ALLOCATED UNAVAILABLE ERRORS POOLS STATUS COMPLETED" \
  header_line
check "its row sums the pools' counts" equals "all-gpus gpu.example.com 5 2 2 1 0 2 Complete" \
  answered_row_of all-gpus

check "create a request limited to one pool" k create -f "$manifests/request-limited.yaml"
check "it is answered" within "$wait_s" answered first-gpu-pool
check "poolCount still counts both pools" equals 2 \
  k get "$rpsr" first-gpu-pool -o 'jsonpath={.status.poolCount}'
check "only the first pool is listed" equals "node-1 3 2 0 1 node-1;" pools_of first-gpu-pool
check "its row says the list was cut" \
  equals "first-gpu-pool gpu.example.com 3 0 2 1 0 2 Complete (1/2 pools)" \
  answered_row_of first-gpu-pool

check "publish one of the two slices of an fpga pool" k apply -f "$manifests/fpga-first-slice.yaml"
sleep 1  # so that the controller's slice cache has it before the request comes
check "create a request while the pool is incomplete" k create -f "$manifests/request-incomplete.yaml"
sleep 2  # the retries (5+10+20+40+80 ms) run out long before
check "nothing is written while the pool is incomplete" equals "" \
  k get "$rpsr" fpgas -o 'jsonpath={.status}'
check "kubectl get shows it pending" equals "fpgas fpga.example.com - - - - - - Pending -" row_of fpgas
check "publish the second slice" k apply -f "$manifests/fpga-second-slice.yaml"
sleep 1
check "a slice change does not queue the dropped request" equals "" \
  k get "$rpsr" fpgas -o 'jsonpath={.status}'
check "a label change queues it again" k label "$rpsr" fpgas example.com/retry=1
check "it is answered" within "$wait_s" answered fpgas
check "both slices are counted" equals "rack-1 3 0 3 0 node-2;" pools_of fpgas
check "the message counts the pool" equals "Calculated status for 1 pools" \
  k get "$rpsr" fpgas -o 'jsonpath={.status.conditions[?(@.type=="Complete")].message}'

check "the spec is immutable" fails_with "spec: Invalid value" \
  k patch "$rpsr" all-gpus --type=merge -p '{"spec":{"limit":5}}'
check "an answered status is immutable" fails_with "status: Invalid value" \
  k patch "$rpsr" all-gpus --subresource=status --type=merge -p '{"status":{"poolCount":7}}'
check "an invalid request is refused with its field path" \
  fails_with 'spec.limit: Invalid value: 5000: must not exceed 1000' \
  k create -f "$manifests/request-invalid.yaml"
check "a request without driver is refused" fails_with "spec.driver: Required value" \
  k create -f - <<<'{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourcePoolStatusRequest","metadata":{"name":"no-driver"},"spec":{}}'

if ! finish; then
  echo "--- server log (tail) ---"
  tail -40 "$work/server.log"
  exit 1
fi
