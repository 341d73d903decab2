#!/usr/bin/env bash
# Kubernetes 1.37 allocation features end to end: kubectl against
# `dralloc serve`.
#
# Usage: allocation_features_suite.sh DRALLOC_BINARY [1.32|1.33]
# Applies allocation_features/ (one node: GPUs and NICs whose drivers name
# the NUMA node differently; a GPU whose MIG and MPS devices share a counter
# set) and checks:
#  - derived attributes (KEP-6080): two GPUs and a NIC on one NUMA node,
#    matched on a derived attribute, and kubectl explain shows the field;
#  - an invalid derived attribute is refused with its field path;
#  - compatibility groups (KEP-5963): with a MIG partition allocated, an MPS
#    share on the same counter set stays unschedulable and says why; a second
#    MIG partition is scheduled; once the MIG pods are gone the MPS pod lands;
#  - node allocatable resources (KEP-5517): a claim's cores count as node
#    cpu (recorded in the pod status), so a second pod no longer fits.
# Every wait is bounded by FEATURES_TIMEOUT seconds (default 30). Prints
# PASS/FAIL per check and "N passed, M failed"; exits non-zero on any failure
# (with the tail of the server log). KEEP_WORKDIR=1 keeps the workdir.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifests=$here/allocation_features
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=${FEATURES_TIMEOUT:-30}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --scheduler-name dralloc-scheduler
ns=features
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }
echo "kubectl $("$kubectl_bin" version --client -o json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])') against serve at $server_url"

scheduled() { k wait --for=condition=PodScheduled --timeout=${wait_s}s "pod/$1"; }
unschedulable() { k wait --for=condition=PodScheduled=false --timeout=${wait_s}s "pod/$1"; }
devices_of() {  # devices_of CLAIM WANT: "request device" pairs of the allocation
  equals "$2" k get resourceclaim "$1" \
    -o 'jsonpath={range .status.allocation.devices.results[*]}{.request}={.device} {end}'
}
explains() {  # explains RESOURCE.FIELD WORD: kubectl explain shows WORD
  contains "$2" k explain "$1"
}

check "apply the cluster" k apply -f "$manifests/cluster.yaml"
check "explain shows derivedAttributes" explains \
  resourceclaims.spec.devices.requests.exactly.derivedAttributes expression
check "explain shows compatibilityGroups" explains \
  resourceslices.spec.devices.consumesCounters compatibilityGroups
check "apply GPUs and a NIC aligned on a derived attribute" k apply -f "$manifests/aligned.yaml"
check "the pod is scheduled" scheduled aligned
check "it got the GPUs and the NIC of NUMA node 1" \
  devices_of aligned "gpu=gpu-1 gpu=gpu-2 nic=nic-1 "
check "a derived attribute yielding a double is refused with its path" \
  fails_with "spec.devices.requests[0].exactly.derivedAttributes[0].expression: Invalid value" \
  k apply -f "$manifests/bad-derived.yaml"

check "apply a pod using a MIG partition" k apply -f "$manifests/mig.yaml"
check "it is scheduled" scheduled mig-user
check "apply a pod using an MPS share of the same GPU" k apply -f "$manifests/mps.yaml"
check "it stays unschedulable" unschedulable mps-user
check "and says why" within "$wait_s" contains "1 in no compatibility group shared by the devices allocated on their counter sets" \
  k get pod mps-user -o 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'
check "a second MIG partition is scheduled" k apply -f "$manifests/mig-2.yaml"
check "next to the first" scheduled mig-user-2
check "remove the MIG pods and their claims" \
  k delete pod/mig-user pod/mig-user-2 resourceclaim/mig-user resourceclaim/mig-user-2 --wait=true
check "the MPS pod lands" scheduled mps-user
check "on the MPS share" devices_of mps-user "part=mps-0 "

check "apply a pod with 1 CPU and 4 cores (8 CPUs) by claim" k apply -f "$manifests/cpu-4.yaml"
check "it is scheduled" scheduled cpu-4
check "its status records the claim's 8 CPUs" within "$wait_s" equals "cpu-4 app cpu=8" \
  k get pod cpu-4 -o 'jsonpath={range .status.nodeAllocatableResourceClaimStatuses[*]}{.resourceClaimName} {.containers[*]} {.mapping[0].name}={.mapping[0].quantity}{end}'
check "another such pod (9 more CPUs of the 16) stays unschedulable" \
  k apply -f "$manifests/cpu-4b.yaml"
check "it is not scheduled" unschedulable cpu-4b
check "and says the node lacks cpu" within "$wait_s" contains "Insufficient cpu" \
  k get pod cpu-4b -o 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'

if ! finish; then
  echo "--- server log (tail) ---"
  tail -40 "$work/server.log"
  exit 1
fi
