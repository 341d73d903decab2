#!/usr/bin/env bash
# The node side end to end, every component a separate process on loopback
# and unix sockets: `dralloc local-cluster --nodes 2 --gpus 2` (serve, two
# node agents, two example drivers), driven with kubectl.
#
# Usage: e2e_suite.sh DRALLOC_BINARY [KUBECTL_MINOR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
source "$here/../clients/lib.sh"
manifests="$here/e2e"

source "$here/lib.sh"
start_local_cluster "$dralloc" --nodes 2 --gpus 2
claim_uid() { k get resourceclaim "$(k get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')" -o jsonpath='{.metadata.uid}'; }
cdi_spec_of() { ls "$work"/cluster/nodes/*/cdi/*"$1"* 2>/dev/null; }

nodes_ready() { [[ $(k get nodes --no-headers | grep -c ' Ready ') == 2 ]]; }
check "two nodes register and are Ready" wait_for 30 nodes_ready
slices_published() { [[ $(k get resourceslices -o name | wc -l) -ge 2 ]]; }
check "each example driver publishes its node's slices" wait_for 30 slices_published

k apply -f "$manifests/gpu-class.yaml" >/dev/null
for i in 1 2 3 4; do k apply -f "$manifests/pod-$i.yaml" >/dev/null; done
all_running() { for i in 1 2 3 4; do phase_is gpu-pod-$i Running || return 1; done; }
check "four pods with one GPU each reach Running" wait_for 60 all_running
spread() { [[ $(k get pods -o jsonpath='{.items[*].spec.nodeName}' | tr ' ' '\n' | sort -u | wc -l) == 2 ]]; }
check "the pods use both nodes" spread
cdi_present() { for i in 1 2 3 4; do cdi_spec_of "$(claim_uid gpu-pod-$i)" || return 1; done; }
check "a CDI spec exists for every prepared claim" cdi_present
env_in_spec() { grep -q GPU_DEVICE_ $(cdi_spec_of "$(claim_uid gpu-pod-1)"); }
check "the CDI spec carries the device's env" env_in_spec
podresources_lists_claims() {
  local listed=""
  for node in node-1 node-2; do
    listed+=$("$dralloc" podresources list -o json --socket "$work/cluster/nodes/$node/pod-resources/kubelet.sock")
  done
  for i in 1 2 3 4; do
    grep -q "$(k get pod gpu-pod-$i -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')" <<<"$listed" || return 1
  done
  grep -q '"driverName": "gpu.example.com"' <<<"$listed"
}
check "PodResources List on each node reports the pods' claims and devices" podresources_lists_claims
columns() {
  local table
  table=$(k get pods -o wide)
  grep -q '^NAME *READY *STATUS *RESTARTS *AGE *IP *NODE *NOMINATED NODE *READINESS GATES$' <<<"$table"
}
check "kubectl get pods prints kube-apiserver's columns" columns

k apply -f "$manifests/pod-5.yaml" >/dev/null
pending() { sleep 2; phase_is gpu-pod-5 Pending; }
check "a fifth pod waits: four GPUs are taken" pending
uid1=$(claim_uid gpu-pod-1)
k delete pod gpu-pod-1 --wait=true --timeout=60s >/dev/null
cdi_gone() { ! cdi_spec_of "$uid1"; }
check "deleting a pod unprepares its claim and removes its CDI spec" wait_for 30 cdi_gone
check "the freed GPU goes to the waiting pod" wait_for 60 phase_is gpu-pod-5 Running

k apply -f "$manifests/unreserved.yaml" >/dev/null
never_starts() { sleep 3; ! phase_is unreserved-pod Running; }
check "a pod whose claim is not allocated and reserved for it never starts" never_starts
event_says_why() { k get events -o jsonpath='{range .items[?(@.involvedObject.name=="unreserved-pod")]}{.message}{"\n"}{end}' | grep -q never-allocated; }
check "an Event on that pod names the claim" wait_for 30 event_says_why

# KEP-5945: devices of a driver without node-local components.
declares() { [[ $(k get node "$1" -o jsonpath='{.status.declaredFeatures}') == *DRAOptionalNodeOperations* ]]; }
check "node agents declare DRAOptionalNodeOperations" declares "$(k get nodes -o jsonpath='{.items[0].metadata.name}')"
k apply -f "$manifests/control-plane-device.yaml" >/dev/null
check "a pod using a device whose slice skips node operations runs without any driver" \
  wait_for 60 phase_is virtual-pod Running
skip_copied() { [[ $(k get resourceclaim virtual-claim -o jsonpath='{.status.allocation.devices.results[0].skipNodeOperations}') == *'*'* ]]; }
check "the allocation result carries the slice's skipNodeOperations" skip_copied
check "deleting it completes without a driver to unprepare" k delete pod virtual-pod --wait=true --timeout=30s

# KEP-5004: extended resources backed by DRA. Every GPU is in use: free one.
k delete pod gpu-pod-2 --wait=true --timeout=60s >/dev/null
k apply -f "$manifests/extended-pod.yaml" >/dev/null
check "a pod asking for deviceclass.resource.kubernetes.io/gpu.example.com: 1 reaches Running" \
  wait_for 60 phase_is extended-pod Running
extended_claim() { k get pod extended-pod -o jsonpath='{.status.extendedResourceClaimStatus.resourceClaimName}'; }
extended_uid() { k get resourceclaim "$(extended_claim)" -o jsonpath='{.metadata.uid}'; }
extended_prepared() { cdi_spec_of "$(extended_uid)"; }
check "the node agent prepared the scheduler's claim (its CDI spec exists)" wait_for 30 extended_prepared
uid_extended=$(extended_uid)
claim_extended=$(extended_claim)
k delete pod extended-pod --wait=true --timeout=60s >/dev/null
extended_released() { ! cdi_spec_of "$uid_extended" && ! k get resourceclaim "$claim_extended" >/dev/null 2>&1; }
check "deleting the pod unprepares and deletes that claim" wait_for 30 extended_released

finish
