#!/usr/bin/env bash
# kubectl against the resource.k8s.io/v1alpha2 (classic DRA) API served
# beside v1 (docs/classic-dra.md, sections 1-3): v1alpha2 manifests apply,
# read back and print 1.30's columns; each version lists its own family; a
# name of the other family is refused with 406 and located; 1.30's
# validation answers with its field paths.
#
# Usage: classic_api_suite.sh DRALLOC_BINARY [1.32|1.33]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
version=${2:-1.33}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --version-minor "${version#1.}"
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s "$@"; }
kk="'$kubectl_bin' --cache-dir '$work/cache' --request-timeout=20s"

check "api-resources lists the v1alpha2 kinds" contains podschedulingcontexts \
  k api-resources --api-group=resource.k8s.io
check "api-versions lists resource.k8s.io/v1alpha2" contains resource.k8s.io/v1alpha2 k api-versions
check "apply a v1alpha2 ResourceClass" k apply -f "$repo/examples/classic/resource-class.yaml"
check "apply v1alpha2 claims and templates" k apply -f "$repo/examples/classic/claims.yaml"
check "apply is idempotent" contains unchanged k apply -f "$repo/examples/classic/claims.yaml"
check "get resourceclasses shows NAME DRIVERNAME AGE" bash -c \
  "$kk get resourceclasses | head -1 | grep -Eq '^NAME +DRIVERNAME +AGE\$'"
check "get resourceclaims.v1alpha2 shows 1.30's columns" bash -c \
  "$kk get resourceclaims.v1alpha2.resource.k8s.io | head -1 | grep -Eq '^NAME +RESOURCECLASSNAME +ALLOCATIONMODE +STATE +AGE\$'"
check "the Immediate claim is pending" bash -c \
  "$kk get resourceclaims.v1alpha2.resource.k8s.io shared-gpu | grep -Eq '^shared-gpu +gpu.classic.example.com +Immediate +pending '"
check "get resourceclaimtemplates.v1alpha2 shows the class" bash -c \
  "$kk get resourceclaimtemplates.v1alpha2.resource.k8s.io two-gpus | grep -Eq '^two-gpus +gpu.classic.example.com +WaitForFirstConsumer '"
check "a template's claim is defaulted to WaitForFirstConsumer" equals WaitForFirstConsumer \
  k get resourceclaimtemplates.v1alpha2.resource.k8s.io two-gpus -o 'jsonpath={.spec.spec.allocationMode}'
check "-o yaml reads back v1alpha2" contains "apiVersion: resource.k8s.io/v1alpha2" \
  k get resourceclaims.v1alpha2.resource.k8s.io shared-gpu -o yaml
check "kubectl get resourceclaims (v1) does not list classic claims" bash -c \
  "! $kk get resourceclaims -o name | grep -q shared-gpu"
check "get by name through v1 is NotAcceptable and says where" \
  fails_with "is a resource.k8s.io/v1alpha2 (classic DRA) object and has no resource.k8s.io/v1 form; use resourceclaims.v1alpha2.resource.k8s.io" \
  k get resourceclaim shared-gpu
check "create of a classic name through v1 is AlreadyExists" fails_with "already exists as a resource.k8s.io/v1alpha2 (classic DRA) object" \
  bash -c "printf '%s\n' 'apiVersion: resource.k8s.io/v1' 'kind: ResourceClaim' 'metadata: {name: shared-gpu, namespace: default}' \
    'spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}' | $kk create -f -"
check "1.30's validation: allocationMode" fails_with 'spec.allocationMode: Unsupported value: "Sometimes"' \
  bash -c "printf '%s\n' 'apiVersion: resource.k8s.io/v1alpha2' 'kind: ResourceClaim' 'metadata: {name: bad, namespace: default}' \
    'spec: {resourceClassName: gpu.classic.example.com, allocationMode: Sometimes}' | $kk create -f -"
check "a classic claim's spec is immutable" fails_with "field is immutable" \
  k patch resourceclaims.v1alpha2.resource.k8s.io shared-gpu --type=merge -p '{"spec":{"allocationMode":"WaitForFirstConsumer"}}'
check "a driver's allocation through the status subresource" k patch resourceclaims.v1alpha2.resource.k8s.io shared-gpu \
  --subresource=status --type=merge -p '{"status":{"driverName":"gpu.classic.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.classic.example.com","data":"{\"gpus\":[\"gpu-0\"]}"}],"availableOnNodes":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-a"]}]}]}}}}'
check "the claim shows allocated" bash -c \
  "$kk get resourceclaims.v1alpha2.resource.k8s.io shared-gpu | grep -Eq ' allocated '"
check "an allocation is immutable (1.30)" fails_with "status.allocation: Invalid value" \
  k patch resourceclaims.v1alpha2.resource.k8s.io shared-gpu --subresource=status --type=merge \
  -p '{"status":{"allocation":{"shareable":true}}}'
check "deallocationRequested shows deallocating" bash -c \
  "$kk patch resourceclaims.v1alpha2.resource.k8s.io shared-gpu --subresource=status --type=merge -p '{\"status\":{\"deallocationRequested\":true}}' >/dev/null && \
   $kk get resourceclaims.v1alpha2.resource.k8s.io shared-gpu | grep -q 'allocated,deallocating'"
check "explain a v1alpha2 field" contains "availableOnNodes" \
  k explain resourceclaims.status.allocation --api-version=resource.k8s.io/v1alpha2
check "server-side apply of a v1alpha2 PodSchedulingContext" bash -c \
  "printf '%s\n' 'apiVersion: resource.k8s.io/v1alpha2' 'kind: PodSchedulingContext' 'metadata: {name: trainer, namespace: default}' \
    'spec: {potentialNodes: [node-a, node-b], selectedNode: node-a}' | $kk apply --server-side -f -"
check "get podschedulingcontexts shows SELECTEDNODE" bash -c \
  "$kk get podschedulingcontexts | grep -Eq '^trainer +node-a '"
check "delete the classic claim" contains deleted k delete resourceclaims.v1alpha2.resource.k8s.io shared-gpu
check "delete the class" contains deleted k delete -f "$repo/examples/classic/resource-class.yaml"

finish
