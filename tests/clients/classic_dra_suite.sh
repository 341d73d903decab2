#!/usr/bin/env bash
# Classic DRA (resource.k8s.io/v1alpha2, KEP-3063) end to end with kubectl:
# `dralloc serve` (API server, claim controller, scheduler) and `dralloc
# driver classic-example` (a control-plane driver with one GPU on each of
# node-a and node-b) as separate processes, v1alpha2 manifests for the
# classic objects (docs/classic-dra.md, sections 6-7). Checks:
#   - pods with a v1alpha2 ResourceClaimTemplate are scheduled through
#     PodSchedulingContexts; the driver's unsuitableNodes send them apart and
#     hold back a pod when no node has room (it waits, told why);
#   - claims carry resourceHandles and availableOnNodes, reserved for the pod;
#   - deleting a pod deallocates its claim (the waiting pod then runs there);
#   - an Immediate claim is allocated before any pod uses it;
#   - a claim allocated on the wrong node for a pending pod gets
#     deallocationRequested and is allocated again where the pod fits;
#   - a pod with a structured v1 claim and a classic claim lands where both
#     fit.
# Pods are never run (no kubelet): they stay in phase Pending once bound.
#
# Usage: classic_dra_suite.sh DRALLOC_BINARY [1.32|1.33]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=30
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --version-minor "${version#1.}"
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s "$@"; }

driver_pid=""
stop_driver() { [[ -z $driver_pid ]] || kill "$driver_pid" 2>/dev/null || true; }
trap 'stop_driver; cleanup' EXIT
"$dralloc" driver classic-example --server "$server_url" --nodes node-a,node-b \
  --gpus-per-node 1 --recheck-interval 2 >"$work/driver.out" 2>"$work/driver.log" &
driver_pid=$!
for _ in $(seq 200); do grep -q ready "$work/driver.out" 2>/dev/null && break; sleep 0.05; done

scheduled() { k wait --for=condition=PodScheduled --timeout=${wait_s}s "${@/#/pod/}"; }
node_of() { k get pod "$1" -o jsonpath='{.spec.nodeName}'; }
claim_of() {  # claim_of POD: the pod's generated claim "gpu"
  k get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[?(@.name=="gpu")].resourceClaimName}'
}
classic_claim() {  # classic_claim NAME JSONPATH
  k get resourceclaims.v1alpha2.resource.k8s.io "$1" -o jsonpath="$2"
}
pod() {  # pod NAME [EXTRA SPEC YAML]: one classic claim "gpu" from template one-gpu
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  ${2:-}
YAML
}

check "the driver is ready" grep -q ready "$work/driver.out"
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a, example.com/gpu: "true"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b, example.com/gpu: "true"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c, labels: {kubernetes.io/hostname: node-c}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: one-gpu, namespace: default}
data: {count: "1", mode: training}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    resourceClassName: gpu.classic.example.com
    parametersRef: {kind: ConfigMap, name: one-gpu}
YAML
check "apply the v1alpha2 ResourceClass" k apply -f "$repo/examples/classic/resource-class.yaml"

# Negotiation: one GPU per node.
pod t1 | k apply -f - >/dev/null
check "t1 is scheduled through its PodSchedulingContext" scheduled t1
pod t2 | k apply -f - >/dev/null
check "t2 is scheduled" scheduled t2
check "the driver's unsuitableNodes sent t1 and t2 apart" bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get pod t1 -o jsonpath='{.spec.nodeName}') != \$('$kubectl_bin' --cache-dir '$work/cache' get pod t2 -o jsonpath='{.spec.nodeName}') ]]"
check "no pod went to node-c (the class's suitableNodes)" bash -c \
  "! $kubectl_bin --cache-dir '$work/cache' get pods -o wide | grep -q node-c"
t1_claim=$(claim_of t1)
check "t1's claim is a v1alpha2 claim with a resource handle" contains '"gpus":["gpu-0"]' \
  classic_claim "$t1_claim" '{.status.allocation.resourceHandles[0].data}'
check "the handle carries the claim parameters" contains '"user_mode":"training"' \
  classic_claim "$t1_claim" '{.status.allocation.resourceHandles[0].data}'
check "availableOnNodes pins t1's node" equals "$(node_of t1)" \
  classic_claim "$t1_claim" '{.status.allocation.availableOnNodes.nodeSelectorTerms[0].matchFields[0].values[0]}'
check "t1's claim is reserved for t1" equals t1 classic_claim "$t1_claim" '{.status.reservedFor[0].name}'
check "the driver's finalizer protects the claim" equals gpu.classic.example.com/deletion-protection \
  classic_claim "$t1_claim" '{.metadata.finalizers[0]}'
check "PodSchedulingContexts of bound pods are deleted" within $wait_s bash -c \
  "[[ -z \$('$kubectl_bin' --cache-dir '$work/cache' get podschedulingcontexts -o name) ]]"
pod t3 | k apply -f - >/dev/null
check "t3 waits for a driver with room" within $wait_s bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get podschedulingcontext t3 -o jsonpath='{.status.resourceClaims[0].unsuitableNodes}' | grep -q node-a"
check "t3's PodSchedulingContext lists both nodes as unsuitable" within $wait_s bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get podschedulingcontext t3 -o jsonpath='{.status.resourceClaims[0].unsuitableNodes}' | grep -q node-b"
check "t3 is not scheduled and says why" within $wait_s bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get pod t3 -o jsonpath='{.status.conditions[?(@.type==\"PodScheduled\")].message}' | grep -q 'resourceclaim cannot be allocated for the node (unsuitable)'"
t1_node=$(node_of t1)
check "delete t1" k delete pod t1 --grace-period=0 --force
check "t1's claim is deallocated and deleted" within $wait_s bash -c \
  "! $kubectl_bin --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io '$t1_claim' >/dev/null 2>&1"
check "t3 gets t1's GPU" scheduled t3
check "t3 runs where t1 was" equals "$t1_node" node_of t3
check "delete t2 and t3" k delete pod t2 t3 --grace-period=0 --force
check "all generated claims are gone" within $wait_s bash -c \
  "[[ -z \$('$kubectl_bin' --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io -o name) ]]"

# Immediate allocation, reallocation where the pod fits, mixed claims.
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: structured-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
YAML
mixed='- {name: device, resourceClaimTemplateName: structured-gpu}'
pod holder "$mixed" | k apply -f - >/dev/null
check "a pod with a classic and a structured claim is scheduled" scheduled holder
check "it runs where both fit (node-a)" equals node-a node_of holder
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec: {resourceClassName: gpu.classic.example.com, allocationMode: Immediate}
YAML
check "an Immediate claim is allocated before any pod uses it" within $wait_s bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io shared | grep -q ' allocated '"
check "... on the node with room (node-b)" equals node-b \
  classic_claim shared '{.status.allocation.availableOnNodes.nodeSelectorTerms[0].matchFields[0].values[0]}'
check "it is reserved for nobody yet" equals "" classic_claim shared '{.status.reservedFor}'
sed 's/resourceClaimTemplateName: one-gpu/resourceClaimName: shared/' <<<"$(pod user)" | k apply -f - >/dev/null
check "a pod using the Immediate claim runs where it is allocated" scheduled user
check "... on node-b" equals node-b node_of user
check "the Immediate claim is reserved for it" equals user classic_claim shared '{.status.reservedFor[0].name}'

# A claim allocated on the wrong node: this test plays the control-plane
# driver of class manual.example.com, so that it can allocate where the pod
# cannot go.
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: manual.example.com}
driverName: manual.example.com
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: manual, namespace: default}
spec: {spec: {resourceClassName: manual.example.com}}
YAML
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: moved, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  nodeSelector: {kubernetes.io/hostname: node-a}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: manual}]
YAML
check "the scheduler selects node-a in moved's PodSchedulingContext" within $wait_s bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get podschedulingcontext moved -o jsonpath='{.spec.selectedNode}') == node-a ]]"
moved_claim=$(claim_of moved)
moved_uid=$(k get pod moved -o jsonpath='{.metadata.uid}')
allocate() {  # allocate NODE: the test's driver allocates moved's claim on NODE
  k patch resourceclaims.v1alpha2.resource.k8s.io "$moved_claim" --subresource=status --type=merge -p \
    "{\"status\":{\"driverName\":\"manual.example.com\",\"allocation\":{\"resourceHandles\":[{\"driverName\":\"manual.example.com\",\"data\":\"$1\"}],\"availableOnNodes\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"$1\"]}]}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"moved\",\"uid\":\"$moved_uid\"}]}}"
}
check "the driver allocates on node-c, where moved cannot go" allocate node-c
check "the scheduler asks for deallocation (deallocationRequested)" within $wait_s bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get resourceclaims.v1alpha2.resource.k8s.io '$moved_claim' -o jsonpath='{.status.deallocationRequested}') == true ]]"
check "... and drops the pod from reservedFor" equals "" classic_claim "$moved_claim" '{.status.reservedFor}'
check "... and clears selectedNode first" equals "" k get podschedulingcontext moved -o jsonpath='{.spec.selectedNode}'
check "the scheduler reported the deallocation request" bash -c \
  "$kubectl_bin --cache-dir '$work/cache' get events --field-selector involvedObject.name=moved -o jsonpath='{.items[*].message}' | grep -q 'deallocation of ResourceClaim requested'"
check "the driver deallocates" k patch resourceclaims.v1alpha2.resource.k8s.io "$moved_claim" --subresource=status \
  --type=merge -p '{"status":{"allocation":null,"deallocationRequested":false,"driverName":""}}'
check "the scheduler selects node-a again" within $wait_s bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get podschedulingcontext moved -o jsonpath='{.spec.selectedNode}') == node-a ]]"
check "the driver allocates on node-a" allocate node-a
check "moved is scheduled where its claim is now" scheduled moved
check "moved runs on node-a" equals node-a node_of moved

# Quota: count/resourceclaims.resource.k8s.io counts the claims of both
# families (docs/classic-dra.md section 3).
k create namespace quota-test >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ResourceQuota
metadata: {name: claims, namespace: quota-test}
spec: {hard: {count/resourceclaims.resource.k8s.io: "2"}}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: classic-1, namespace: quota-test}
spec: {resourceClassName: gpu.classic.example.com}
YAML
quota_used() { [[ $(k get resourcequota claims -n quota-test -o jsonpath='{.status.used.count/resourceclaims\.resource\.k8s\.io}') == "$1" ]]; }
check "the quota counts the classic claim" within $wait_s quota_used 1
check "a structured claim is charged to the same count" k apply -f - <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: structured-1, namespace: quota-test}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
YAML
check "a third claim (classic) exceeds the quota" fails_with \
  'resourceclaims.resource.k8s.io "classic-2" is forbidden: exceeded quota: claims, requested: count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=2' \
  bash -c "printf '%s\n' 'apiVersion: resource.k8s.io/v1alpha2' 'kind: ResourceClaim' 'metadata: {name: classic-2, namespace: quota-test}' \
    'spec: {resourceClassName: gpu.classic.example.com}' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
k delete resourceclaims.v1alpha2.resource.k8s.io classic-1 -n quota-test >/dev/null
check "deleting the classic claim releases its count" within $wait_s quota_used 1

if [[ $failed -gt 0 ]]; then
  echo "--- driver log"; tail -20 "$work/driver.log"
  echo "--- server log"; tail -20 "$work/server.log"
fi
finish
