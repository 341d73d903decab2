#!/usr/bin/env bash
# Classic DRA's structured model (Kubernetes 1.30: resource.k8s.io/v1alpha2
# ResourceClasses with structuredParameters: true) end to end with kubectl
# through `dralloc serve`, v1alpha2 manifests only
# (tests/clients/classic_structured/, docs/classic-dra.md section 5):
#   - the scheduler allocates the claim from the namedResources instances of
#     a v1alpha2 ResourceSlice: the class's filter and the request's selector
#     pick the instance; the claim gets 1.30's result (driverName, a
#     structured resource handle with the node, the instance and the vendor
#     parameters, availableOnNodes, shareable) and the builtin finalizer;
#   - a second pod waits while the instance is taken and gets it once the
#     first pod is gone;
#   - missing claim parameters hold a pod back with 1.30's message until
#     they exist; a claim without parameters takes any instance;
#   - where 1.30's first fit fails, dralloc still finds the allocation.
# Pods are never run (no kubelet): they stay in phase Pending once bound.
#
# Usage: classic_structured_suite.sh DRALLOC_BINARY [1.32|1.33]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=30
source "$here/lib.sh"
manifests="$here/classic_structured"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --version-minor "${version#1.}"
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s "$@"; }

scheduled() { k wait --for=condition=PodScheduled --timeout=${wait_s}s "${@/#/pod/}"; }
claim_of() { k get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[?(@.name=="gpu")].resourceClaimName}'; }
classic_claim() { k get resourceclaims.v1alpha2.resource.k8s.io "$1" -o jsonpath="$2"; }
instance_of() { classic_claim "$(claim_of "$1")" '{.status.allocation.resourceHandles[*].structuredData.results[*].namedResources.name}'; }
why_pending() {  # why_pending POD TEXT: the pod's PodScheduled message has TEXT
  k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -qF -- "$2"
}
pod() {  # pod NAME TEMPLATE
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: $2}
YAML
}
template() {  # template NAME [PARAMETERS]: a v1alpha2 template of named-gpu
  local ref=""
  [[ -z ${2:-} ]] || ref="parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClaimParameters, name: $2}"
  k apply -f - >/dev/null <<YAML
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: $1, namespace: default}
spec:
  spec:
    resourceClassName: named-gpu
    $ref
YAML
}

check "apply the nodes, the class, its parameters and node-a's namedResources slice" k apply -f "$manifests/nodes.yaml" -f "$manifests/cluster.yaml"
check "apply the claim parameters and template" k apply -f "$manifests/big-gpu.yaml"

pod p1 big-gpu
check "p1 is scheduled" scheduled p1
check "on node-a, the node with the instances" equals node-a k get pod p1 -o jsonpath='{.spec.nodeName}'
p1_claim=$(claim_of p1)
check "its claim gets the healthy instance with more than 16Gi" equals gpu-1 instance_of p1
check "status.driverName is the class's driver" equals gpu.named.example.com \
  classic_claim "$p1_claim" '{.status.driverName}'
check "the structured handle names the node" equals node-a \
  classic_claim "$p1_claim" '{.status.allocation.resourceHandles[0].structuredData.nodeName}'
check "... and carries the class's vendor parameters" equals standard \
  classic_claim "$p1_claim" '{.status.allocation.resourceHandles[0].structuredData.vendorClassParameters.profile}'
check "... the claim's" equals training \
  classic_claim "$p1_claim" '{.status.allocation.resourceHandles[0].structuredData.vendorClaimParameters.mode}'
check "... and the request's" equals 1 \
  classic_claim "$p1_claim" '{.status.allocation.resourceHandles[0].structuredData.results[0].vendorRequestParameters.slot}'
check "availableOnNodes pins node-a by hostname (1.30)" equals 'kubernetes.io/hostname In node-a' \
  classic_claim "$p1_claim" '{.status.allocation.availableOnNodes.nodeSelectorTerms[0].matchExpressions[0].key} {.status.allocation.availableOnNodes.nodeSelectorTerms[0].matchExpressions[0].operator} {.status.allocation.availableOnNodes.nodeSelectorTerms[0].matchExpressions[0].values[0]}'
check "shareable comes from the claim parameters (false: omitted, as 1.30 wrote it)" equals '' \
  classic_claim "$p1_claim" '{.status.allocation.shareable}'
check "the builtin finalizer protects the claim" equals dra.k8s.io/delete-protection \
  classic_claim "$p1_claim" '{.metadata.finalizers[0]}'
check "the claim is reserved for p1" equals p1 classic_claim "$p1_claim" '{.status.reservedFor[0].name}'
check "kubectl shows it allocated and reserved" bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io '$p1_claim' | grep -q 'allocated,reserved'"

pod p2 big-gpu
check "p2 waits: the only fitting instance is taken" within $wait_s why_pending p2 \
  "resourceclaim cannot be allocated for the node (unsuitable)"
check "delete p1" k delete pod p1 --grace-period=0 --force
check "p1's claim is released and deleted" within $wait_s bash -c \
  "! $kubectl_bin --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io '$p1_claim' >/dev/null 2>&1"
check "p2 gets the freed instance" scheduled p2
check "p2's claim has gpu-1" equals gpu-1 instance_of p2

template late late-params
pod p3 late
check "p3 waits for its claim parameters with 1.30's message" within $wait_s why_pending p3 \
  "claim parameters default/late-params not found"
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: late-params, namespace: default}
shareable: true
driverRequests:
- driverName: gpu.named.example.com
  requests:
  - namedResources: {selector: "true"}
YAML
check "p3 is scheduled once they exist" scheduled p3
check "p3 gets the one healthy instance left (the filter skips gpu-2)" equals gpu-0 instance_of p3
check "p3's claim is shareable, as its parameters say" equals true \
  classic_claim "$(claim_of p3)" '{.status.allocation.shareable}'
template any
pod p4 any
check "p4 (no parameters: any instance) waits: every healthy instance is taken" within $wait_s why_pending p4 \
  "resourceclaim cannot be allocated for the node (unsuitable)"
check "delete p2, p3 and p4" k delete pod p2 p3 p4 --grace-period=0 --force
check "their claims are gone" within $wait_s bash -c \
  "[[ -z \$('$kubectl_bin' --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io -o name) ]]"

# 1.30's first fit gives gpu-0 (first in the slice) to the request for any
# GPU, and then the request for a small GPU finds none: the pod stayed
# pending on 1.30. dralloc gives the big one to the first request.
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimParameters
metadata: {name: pair, namespace: default}
driverRequests:
- driverName: gpu.named.example.com
  requests:
  - namedResources: {selector: "true"}
  - namedResources: {selector: 'attributes.quantity["memory"].isLessThan(quantity("16Gi"))'}
YAML
template pair pair
pod p5 pair
check "a claim first fit cannot place is allocated" scheduled p5
check "with both healthy instances, the small one for the second request" equals 'gpu-1 gpu-0' instance_of p5

# One device accounting for both families: the same GPUs published in a
# v1 slice (pool node-a) are not given to a v1 claim while p5's classic
# claim holds them, and are once it is gone.
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: named-gpu-v1}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.named.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpus-v1}
spec:
  driver: gpu.named.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 0, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: v1-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: named-gpu-v1}}]}}}
YAML
pod v1-user v1-gpu
check "a v1 claim waits while a classic claim holds both devices" within $wait_s why_pending v1-user \
  "2 allocated to other claims"
check "delete p5" k delete pod p5 --grace-period=0 --force
check "the v1 claim gets a device once the classic claim is gone" scheduled v1-user

if [[ $failed -gt 0 ]]; then
  echo "--- server log"; tail -30 "$work/server.log"
fi
finish
