#!/usr/bin/env bash
# Extended resources backed by DRA (KEP-5004) end to end: kubectl against
# `dralloc serve`.
#
# Usage: extended_resources_suite.sh DRALLOC_BINARY [1.32|1.33]
# Applies extended_resources/ (node-dra: two GPUs in a ResourceSlice;
# node-plugin: example.com/gpu from a device plugin; a DeviceClass serving
# example.com/gpu) and checks:
#  - a pod asking for example.com/gpu: 1 on node-dra gets a GPU through a
#    claim the scheduler creates (named <pod>-extended-resources-<suffix>,
#    annotated, owned by the pod, allocated and reserved for it) and
#    recorded in status.extendedResourceClaimStatus;
#  - the implicit name deviceclass.resource.kubernetes.io/gpu works alike;
#  - a third such pod stays unschedulable while both GPUs are in use, and
#    lands when the first pod is deleted (its claim goes with it);
#  - on node-plugin the device plugin serves the resource: no claim;
#  - a ResourceQuota charges each pod's GPU once under example.com/gpu and
#    the implicit name (the pod its own request, the claim the other name),
#    refuses a pod over the limit with upstream's message, and releases a
#    deleted pod's usage;
#  - kubectl explain shows DeviceClass spec.extendedResourceName.
# Every wait is bounded by EXTENDED_TIMEOUT seconds (default 30). Prints
# PASS/FAIL per check and "N passed, M failed"; exits non-zero on any failure
# (with the tail of the server log). KEEP_WORKDIR=1 keeps the workdir.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifests=$here/extended_resources
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=${EXTENDED_TIMEOUT:-30}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --scheduler-name dralloc-scheduler
ns=extended
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }
echo "kubectl $("$kubectl_bin" version --client -o json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])') against serve at $server_url"

scheduled() { k wait --for=condition=PodScheduled --timeout=${wait_s}s "pod/$1"; }
unschedulable() { k wait --for=condition=PodScheduled=false --timeout=${wait_s}s "pod/$1"; }
claim_of() { k get pod "$1" -o 'jsonpath={.status.extendedResourceClaimStatus.resourceClaimName}'; }
claim_named_for() {  # claim_named_for POD: the status names <pod>-extended-resources-xxxxx
  local name
  name=$(claim_of "$1")
  [[ "$name" =~ ^$1-extended-resources-[bcdfghjklmnpqrstvwxz2456789]{5}$ ]] ||
    { echo "claim name: '$name'"; return 1; }
}
claim_field_of() {  # claim_field_of POD JSONPATH: a field of the pod's claim
  k get resourceclaim "$(claim_of "$1")" -o "jsonpath=$2"
}
claim_field() {  # claim_field POD JSONPATH WANT
  equals "$3" claim_field_of "$1" "$2"
}
quota_used() {  # quota_used RESOURCE WANT: status.used of the quota "gpus"
  equals "$2" bash -c '"$0" get resourcequota gpus -o json "${@:2}" |
    python3 -c "import json,sys; print(json.load(sys.stdin)[\"status\"][\"used\"].get(sys.argv[1], \"\"))" "$1"' \
    "$kubectl_bin" "$1" --cache-dir "$work/cache" --request-timeout=20s -n "$ns"
}
no_claim_for() {  # no_claim_for POD: no claim is named after the pod
  ! k get resourceclaims -o name | grep -q "/$1-extended-resources-"
}
claim_gone() {  # claim_gone NAME: the claim no longer exists
  ! k get resourceclaim "$1" >/dev/null 2>&1
}

check "apply the cluster" k apply -f "$manifests/cluster.yaml"
check "explain shows extendedResourceName" contains extendedResourceName \
  k explain deviceclasses.spec

check "apply a pod asking for example.com/gpu: 1" k apply -f "$manifests/gpu-user.yaml"
check "it is scheduled" scheduled gpu-user
check "on node-dra" equals node-dra k get pod gpu-user -o 'jsonpath={.spec.nodeName}'
check "its status names the scheduler's claim" within "$wait_s" claim_named_for gpu-user
check "and maps the container's request" equals "app example.com/gpu container-0-request-1" \
  k get pod gpu-user -o 'jsonpath={range .status.extendedResourceClaimStatus.requestMappings[*]}{.containerName} {.resourceName} {.requestName}{end}'
check "the claim requests one device of the class" claim_field gpu-user \
  '{.spec.devices.requests[0].name} {.spec.devices.requests[0].exactly.deviceClassName} {.spec.devices.requests[0].exactly.count}' \
  "container-0-request-1 gpu 1"
check "it is marked as the extended resource claim" claim_field gpu-user \
  '{.metadata.annotations.resource\.kubernetes\.io/extended-resource-claim}' true
check "and owned by the pod" claim_field gpu-user \
  '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}' \
  "Pod/gpu-user true"
check "it is allocated one GPU" within "$wait_s" claim_field gpu-user \
  '{.status.allocation.devices.results[0].request} {.status.allocation.devices.results[0].driver}' \
  "container-0-request-1 gpu.example.com"
check "and reserved for the pod" claim_field gpu-user '{.status.reservedFor[0].name}' gpu-user

check "apply a pod asking for deviceclass.resource.kubernetes.io/gpu: 1" \
  k apply -f "$manifests/implicit-user.yaml"
check "it is scheduled" scheduled implicit-user
check "its claim maps the implicit name" within "$wait_s" equals "app deviceclass.resource.kubernetes.io/gpu" \
  k get pod implicit-user -o 'jsonpath={range .status.extendedResourceClaimStatus.requestMappings[*]}{.containerName} {.resourceName}{end}'
different_devices() {  # different_devices POD POD: their claims hold different devices
  local a b
  a=$(claim_field_of "$1" '{.status.allocation.devices.results[0].device}')
  b=$(claim_field_of "$2" '{.status.allocation.devices.results[0].device}')
  [[ -n "$a" && -n "$b" && "$a" != "$b" ]] || { echo "devices: '$a' '$b'"; return 1; }
}
check "the two pods hold different GPUs" different_devices gpu-user implicit-user
check "the quota charges one GPU per pod under example.com/gpu" within "$wait_s" \
  quota_used requests.example.com/gpu 2
check "and under the implicit name" within "$wait_s" \
  quota_used requests.deviceclass.resource.kubernetes.io/gpu 2

check "apply a third GPU pod" k apply -f "$manifests/waiting-user.yaml"
check "it stays unschedulable" unschedulable waiting-user
check "the quota is full" within "$wait_s" quota_used requests.example.com/gpu 3
check "a fourth GPU pod is refused by the quota" fails_with \
  'pods "over-quota" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=1, used: requests.example.com/gpu=3, limited: requests.example.com/gpu=3' \
  bash -c 'sed "s/name: waiting-user/name: over-quota/" "$0" | "$1" --cache-dir "$2" -n "$3" apply -f -' \
  "$manifests/waiting-user.yaml" "$kubectl_bin" "$work/cache" "$ns"
check "and no claim is left behind for it" no_claim_for waiting-user
first_claim=$(claim_of gpu-user)
check "delete the first pod" k delete pod gpu-user --wait=true
check "its claim is deleted with it" within "$wait_s" claim_gone "$first_claim"
check "the waiting pod lands" scheduled waiting-user
check "with a claim of its own" within "$wait_s" claim_named_for waiting-user
check "the deleted pod's GPU is released from the quota" within "$wait_s" \
  quota_used requests.example.com/gpu 2
check "and the waiting pod's claim is charged under the implicit name" within "$wait_s" \
  quota_used requests.deviceclass.resource.kubernetes.io/gpu 2

check "apply a pod on the device plugin's node" k apply -f "$manifests/plugin-user.yaml"
check "it is scheduled" scheduled plugin-user
check "on node-plugin" equals node-plugin k get pod plugin-user -o 'jsonpath={.spec.nodeName}'
check "without an extended resource claim" equals "" claim_of plugin-user

if ! finish; then
  echo "--- server log (tail) ---"
  tail -40 "$work/server.log"
  exit 1
fi
