#!/usr/bin/env bash
# Classic DRA (resource.k8s.io/v1alpha2, KEP-3063) on the node side, every
# component a separate process: `dralloc local-cluster --nodes 2 --gpus 1
# --classic-gpus 2 --runtime process` runs serve, the control-plane driver
# `dralloc driver classic-example`, and per node a node agent, the
# structured example driver and the classic driver's node part (`dralloc
# driver example --classic`). With the manifests of examples/classic and
# kubectl:
#   - the classic node part publishes no ResourceSlice;
#   - a pod with a classic claim of two GPUs runs; its command sees the CDI
#     env the node part wrote from the resource handle (GPUs, claim and class
#     parameters); its claim is unprepared when it finishes;
#   - an Immediate claim allocated before any pod runs where the driver put
#     it, with a CDI spec for the claim on that node;
#   - a pod with a structured v1 claim and a classic claim runs, each
#     prepared by its own driver (PodResources lists both);
#   - deleting the pods unprepares the claims and removes their CDI specs.
#
# Usage: classic_e2e_suite.sh DRALLOC_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
source "$here/../clients/lib.sh"
manifests="$here/classic"

source "$here/lib.sh"
start_local_cluster "$dralloc" --nodes 2 --gpus 1 --classic-gpus 2 --runtime process
classic() { k get resourceclaims.v1alpha2.resource.k8s.io "$@"; }
generated() {  # generated POD ENTRY: the name of the pod's claim for ENTRY
  k get pod "$1" -o jsonpath="{.status.resourceClaimStatuses[?(@.name==\"$2\")].resourceClaimName}"
}
cdi_spec() { ls "$work"/cluster/nodes/*/cdi/*"$1"* 2>/dev/null; }

nodes_ready() { [[ $(k get nodes --no-headers | grep -c ' Ready ') == 2 ]]; }
check "two nodes register and are Ready" wait_for 30 nodes_ready
structured_slices() { [[ $(k get resourceslices -o name | wc -l) -ge 2 ]]; }
check "the structured example drivers publish their slices" wait_for 30 structured_slices
no_classic_slices() { ! k get resourceslices -o jsonpath='{.items[*].spec.driver}' | grep -q classic; }
check "the classic driver's node parts publish no ResourceSlice" no_classic_slices
registered() { grep -q 'gpu.classic.example.com' "$work"/cluster/logs/node-1-agent.log; }
check "the node agent registers the classic driver's node part" wait_for 30 registered

# The class's suitableNodes selects nodes labelled example.com/gpu.
k label node node-1 node-2 example.com/gpu=true >/dev/null
k apply -f "$repo/examples/classic/resource-class.yaml" -f "$repo/examples/classic/claims.yaml" >/dev/null
k apply -f "$here/e2e/gpu-class.yaml" >/dev/null

immediate_allocated() { [[ -n $(classic shared-gpu -o jsonpath='{.status.allocation.resourceHandles[0].data}') ]]; }
check "the Immediate claim is allocated before any pod uses it" wait_for 30 immediate_allocated

k apply -f "$manifests/classic-echo.yaml" >/dev/null
check "a pod with a classic claim of two GPUs runs to Succeeded" wait_for 60 phase_is classic-echo Succeeded
logs_env() { local out; out=$(k logs classic-echo); grep -Eq '^GPUS=gpu-[01],gpu-[01] MODE=training SHARING=none$' <<<"$out"; }
check "its command sees the GPUs and the claim and class parameters (CDI env from the handle)" logs_env
# (A finished pod's generated claim is released and deleted: go by its name.)
echo_claim=$(generated classic-echo gpus)
unprepared() {
  local node out
  for node in "$work"/cluster/nodes/*; do
    out=$("$dralloc" node-checkpoint --root "$node") || return 1
    ! grep -q "$echo_claim" <<<"$out" || return 1
  done
}
check "the finished pod's classic claim is unprepared" wait_for 30 unprepared
echo_deleted() { ! classic "$echo_claim" >/dev/null 2>&1; }
check "and, generated for a finished pod, deallocated and deleted" wait_for 30 echo_deleted

k apply -f "$manifests/immediate-user.yaml" >/dev/null
check "a pod using the Immediate claim is Running" wait_for 60 phase_is immediate-user Running
shared_uid=$(classic shared-gpu -o jsonpath='{.metadata.uid}')
shared_node=$(classic shared-gpu -o jsonpath='{.status.allocation.resourceHandles[0].data}' | sed -E 's/.*"nodeName":"([^"]+)".*/\1/')
on_claims_node() { [[ $(k get pod immediate-user -o jsonpath='{.spec.nodeName}') == "$shared_node" ]]; }
check "it runs on the node the driver allocated the claim on" on_claims_node
shared_spec() { ls "$work/cluster/nodes/$shared_node/cdi/"*"$shared_uid"*; }
check "that node has the claim's CDI spec" shared_spec
shared_logs() { local out; out=$(k logs immediate-user); grep -Eq '^GPU=gpu-[01]$' <<<"$out"; }
check "its command sees the GPU" wait_for 30 shared_logs

k apply -f "$manifests/mixed.yaml" >/dev/null
check "a pod with a structured v1 claim and a classic claim is Running" wait_for 60 phase_is mixed Running
mixed_structured=$(k get resourceclaim "$(generated mixed structured)" -o jsonpath='{.metadata.uid}')
mixed_classic=$(classic "$(generated mixed classic)" -o jsonpath='{.metadata.uid}')
both_specs() { cdi_spec "$mixed_structured" | grep -q 'k8s.gpu.example.com-gpu' && cdi_spec "$mixed_classic" | grep -q 'k8s.gpu.classic.example.com-gpu'; }
check "each claim has a CDI spec of its own driver" both_specs
both_listed() {
  local node listed
  node=$(k get pod mixed -o jsonpath='{.spec.nodeName}')
  listed=$("$dralloc" podresources list -o json --socket "$work/cluster/nodes/$node/pod-resources/kubelet.sock")
  grep -q '"driverName": "gpu.example.com"' <<<"$listed" && grep -q '"driverName": "gpu.classic.example.com"' <<<"$listed"
}
check "PodResources on its node lists devices of both drivers" both_listed

k delete pod mixed immediate-user --wait=true --timeout=60s >/dev/null
specs_gone() { ! cdi_spec "$mixed_classic" && ! cdi_spec "$mixed_structured" && ! cdi_spec "$shared_uid"; }
check "deleting the pods unprepares their claims and removes the CDI specs" wait_for 30 specs_gone
mixed_claim_gone() { [[ -z $(classic -o jsonpath='{.items[?(@.metadata.uid=="'"$mixed_classic"'")].metadata.name}') ]]; }
check "the mixed pod's generated classic claim is deleted with it" wait_for 30 mixed_claim_gone
still_allocated() { [[ -n $(classic shared-gpu -o jsonpath='{.status.allocation.resourceHandles[0].data}') ]]; }
check "the Immediate claim stays allocated without a user" still_allocated

finish
