#!/usr/bin/env bash
# kubectl (a real client nobody here wrote) against `dralloc apiserver`.
#
# Usage: kubectl_suite.sh DRALLOC_BINARY [1.32|1.33]
# Uses the versioned kubectl next to the gcloud dispatcher when present (else
# the dispatcher, which picks by the server's /version). Prints PASS/FAIL per
# check and "N passed, M failed" last; exits non-zero on any failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
version=${2:-1.33}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --version-minor "${version#1.}"
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s "$@"; }
json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$1"; }
echo "kubectl $("$kubectl_bin" version --client -o json | json_field "['clientVersion']['gitVersion']") against $server_url"


claim() {  # claim NAME [NAMESPACE] [EXTRA REQUEST YAML]
  cat <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: $1
  namespace: ${2:-default}
  labels: {app: demo}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        ${3:-}
YAML
}

check "version reports the server" contains "Server Version: v1.${version#1.}" k version
check "api-resources lists the DRA kinds" contains resourceslices k api-resources --api-group=resource.k8s.io
check "apply examples/cluster (client-side)" k apply -f "$repo/examples/cluster"
check "apply examples/workloads (client-side)" k apply -f "$repo/examples/workloads"
check "apply is idempotent" contains unchanged k apply -f "$repo/examples/cluster/device-classes.yaml"
check "apply v1beta1 and v1beta2 manifests" k apply -f "$repo/examples/versions"
check "v1beta1 object reads back as v1" contains "apiVersion: resource.k8s.io/v1" \
  k get resourceslices.v1.resource.k8s.io node-b-gpus-v1beta1-demo -o yaml
check "get -o wide shows slice columns" contains "gpu.example.com" k get resourceslices -o wide
check "get -A lists across namespaces" contains "ml" k get resourceclaimtemplates -A
check "get -o name" contains "resourceslice.resource.k8s.io/node-a-gpus" k get resourceslices -o name
check "field selector on spec.nodeName" bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get resourceslices --field-selector spec.nodeName=node-b -o name | grep -vc node-b) == 0 ]]"
check "chunked list returns everything" bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get resourceslices --chunk-size=1 -o name | wc -l) == \$('$kubectl_bin' --cache-dir '$work/cache' get resourceslices -o name | wc -l) ]]"

claim c1 | k apply -f - >/dev/null
check "get -o json" bash -c "'$kubectl_bin' --cache-dir '$work/cache' get resourceclaim c1 -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"spec\"][\"devices\"][\"requests\"][0][\"exactly\"][\"count\"] == 1'"
check "get -l selects by label" contains c1 k get resourceclaims -l app=demo
check "create of an existing object is AlreadyExists" fails_with AlreadyExists bash -c "$(declare -f claim); claim c1 | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "apply with a changed label" contains configured bash -c "$(declare -f claim); claim c1 | sed 's/app: demo/app: demo2/' | '$kubectl_bin' --cache-dir '$work/cache' apply -f -"
check "label" k label resourceclaim c1 tier=gold
check "annotate" k annotate resourceclaim c1 note=hello
check "patch (strategic merge, the default)" k patch resourceclaim c1 -p '{"metadata":{"labels":{"smp":"yes"}}}'
check "patch --type merge" k patch resourceclaim c1 --type merge -p '{"metadata":{"labels":{"merge":"yes"}}}'
check "patch --type json" k patch resourceclaim c1 --type json -p '[{"op":"add","path":"/metadata/labels/json","value":"yes"}]'
check "all patches landed" contains "json=yes,merge=yes,smp=yes,tier=gold" k get resourceclaim c1 --show-labels
check "status update through --subresource=status" k patch resourceclaim c1 --subresource=status --type=merge \
  -p '{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-a","device":"gpu-0"}]}}}}'
check "get shows the allocated state" contains allocated k get resourceclaim c1
check "status in a main-resource patch is ignored" bash -c "'$kubectl_bin' --cache-dir '$work/cache' patch resourceclaim c1 --type=merge -p '{\"status\":null}' >/dev/null && '$kubectl_bin' --cache-dir '$work/cache' get resourceclaim c1 -o jsonpath='{.status.allocation.devices.results[0].device}' | grep -qx gpu-0"
check "the spec of a claim is immutable" fails_with "field is immutable" \
  k patch resourceclaim c1 --type=merge -p '{"spec":{"devices":{"requests":[{"name":"other","exactly":{"deviceClassName":"gpu.example.com"}}]}}}'
check "replace" bash -c "'$kubectl_bin' --cache-dir '$work/cache' get resourceclaim c1 -o yaml | sed 's/tier: gold/tier: silver/' | '$kubectl_bin' --cache-dir '$work/cache' replace -f -"
check "describe resourceclaim" contains "Name:         c1" k describe resourceclaim c1
check "describe node" contains "node-a" k describe node node-a
check "explain resourceclaims.spec" contains "devices" k explain resourceclaims.spec
check "explain resourceslices.spec.devices" contains "FIELD: devices" k explain resourceslices.spec.devices

# Typed commands send core objects as protobuf (application/vnd.kubernetes.protobuf).
check "create namespace (a protobuf body)" contains "namespace/team-x created" k create namespace team-x
check "the namespace created from protobuf reads back" contains "Active" k get namespace team-x
check "the protobuf namespace is usable" bash -c "$(declare -f claim); claim in-team-x team-x | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "cordon (a strategic merge patch of a node)" contains cordoned k cordon node-a
check "the cordoned node is unschedulable" contains SchedulingDisabled k get node node-a
check "uncordon" contains uncordoned k uncordon node-a

# Server-side apply, ownership and conflicts.
claim ssa | k apply --server-side -f - >/dev/null
check "server-side apply created the object" contains ssa k get resourceclaim ssa
check "server-side apply records managedFields" contains "manager: kubectl" k get resourceclaim ssa -o yaml --show-managed-fields
check "server-side apply conflict between managers" fails_with "conflict" bash -c \
  "$(declare -f claim); claim ssa | sed 's/app: demo/app: other/' | '$kubectl_bin' --cache-dir '$work/cache' apply --server-side --field-manager other -f -"
check "--force-conflicts takes ownership" bash -c \
  "$(declare -f claim); claim ssa | sed 's/app: demo/app: other/' | '$kubectl_bin' --cache-dir '$work/cache' apply --server-side --field-manager other --force-conflicts -f -"
check "the forced value is stored" contains "app=other" k get resourceclaim ssa --show-labels

# Errors from admission.
check "invalid claim: 422 with the field path" fails_with 'is invalid: spec.devices.requests[0].exactly.deviceClassName: Required value' \
  bash -c "printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bad}\nspec: {devices: {requests: [{name: gpu, exactly: {}}]}}\n' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "invalid CEL selector names the expression" fails_with 'spec.devices.requests[0].exactly.selectors[0].cel.expression' \
  bash -c "$(declare -f claim); claim badcel default 'selectors: [{cel: {expression: \"device.driver ==\"}}]' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "unknown field with strict validation" fails_with 'unknown field "spec.foo"' \
  bash -c "printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: strict}\nspec: {foo: 1, devices: {requests: [{name: gpu, exactly: {deviceClassName: x}}]}}\n' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "--dry-run=server stores nothing" bash -c "$(declare -f claim); claim dry | '$kubectl_bin' --cache-dir '$work/cache' create --dry-run=server -f - && ! '$kubectl_bin' --cache-dir '$work/cache' get resourceclaim dry"
check "delete --dry-run=server keeps the object" bash -c "'$kubectl_bin' --cache-dir '$work/cache' delete resourceclaim ssa --dry-run=server && '$kubectl_bin' --cache-dir '$work/cache' get resourceclaim ssa"
check "adminAccess needs the namespace label" fails_with "admin access to devices requires" \
  bash -c "$(declare -f claim); claim admin default 'adminAccess: true' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
k label namespace default resource.kubernetes.io/admin-access=true >/dev/null
check "adminAccess allowed in a labelled namespace" bash -c "$(declare -f claim); claim admin default 'adminAccess: true' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"

# Watch, delete, finalizers and garbage collection.
timeout 8 "$kubectl_bin" --cache-dir "$work/cache" get resourceclaims -w --output-watch-events >"$work/watch.txt" 2>&1 &
watch_pid=$!
sleep 1.5
claim watched | k create -f - >/dev/null
k delete resourceclaim watched >/dev/null
wait "$watch_pid" || true
check "get -w sees ADDED and DELETED" bash -c "grep -q 'ADDED.*watched' '$work/watch.txt' && grep -q 'DELETED.*watched' '$work/watch.txt'"
check "delete --wait" k delete resourceclaim admin --wait=true
check "deleted object is gone" fails_with NotFound k get resourceclaim admin
k patch resourceclaim c1 --type=merge -p '{"metadata":{"finalizers":["example.com/keep"]}}' >/dev/null
k delete resourceclaim c1 --wait=false >/dev/null
check "a finalizer keeps a deleted object with a deletionTimestamp" contains deletionTimestamp k get resourceclaim c1 -o yaml
k patch resourceclaim c1 --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
check "removing the finalizer completes the deletion" k wait --for=delete resourceclaim/c1 --timeout=10s
pod_uid=$(printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: owner}\nspec: {containers: [{name: c, image: busybox}]}\n' | k create -f - -o jsonpath='{.metadata.uid}')
cat <<YAML | k create -f - >/dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: owned
  ownerReferences: [{apiVersion: v1, kind: Pod, name: owner, uid: "$pod_uid", controller: true}]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
YAML
k delete pod owner >/dev/null
check "garbage collection deletes a claim owned by a deleted pod" k wait --for=delete resourceclaim/owned --timeout=10s

# Namespace deletion cascades to the namespace's content (upstream semantics).
check "a new namespace carries the kubernetes finalizer" contains '"kubernetes"' \
  k get namespace team-x -o jsonpath='{.spec.finalizers}'
check "delete namespace waits until it is gone" contains 'namespace "team-x" deleted' \
  k delete namespace team-x --timeout=30s
check "the deleted namespace is NotFound" fails_with NotFound k get namespace team-x
check "the claim in the deleted namespace is gone" fails_with NotFound k get resourceclaim in-team-x -n team-x
k create namespace team-y >/dev/null
cat <<YAML | k create -f - >/dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: kept, namespace: team-y, finalizers: [example.com/keep]}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
YAML
k delete namespace team-y --wait=false >/dev/null
check "a deleted namespace with content is Terminating" contains Terminating k get namespace team-y
check "no new content in a Terminating namespace" fails_with \
  "unable to create new content in namespace team-y because it is being terminated" \
  bash -c "$(declare -f claim); claim late team-y | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "content with a finalizer is marked for deletion" eventually bash -c \
  "'$kubectl_bin' --cache-dir '$work/cache' get resourceclaim kept -n team-y -o yaml | grep -q deletionTimestamp"
k patch resourceclaim kept -n team-y --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
check "the namespace goes once its content is gone" k wait --for=delete namespace/team-y --timeout=20s

# kubectl's client-side apply re-sends atomic lists without the fields the
# server defaulted; that is not a change, so nothing may be written.
claim_versions() {
  k get resourceclaims -n ml -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion}/{.metadata.generation} {end}'
}
reapply_changes_nothing() {
  k apply -f "$repo/examples/claims" >/dev/null
  local before after
  before=$(claim_versions)
  k apply -f "$repo/examples/claims" >/dev/null
  after=$(claim_versions)
  [[ -n "$before" && "$before" == "$after" ]] || {
    echo "before: $before"
    echo "after:  $after"
    return 1
  }
}
check "re-applying examples/claims keeps resourceVersions and generations" \
  reapply_changes_nothing

# Paginated lists are one snapshot (continue tokens carry the revision), and
# resourceVersionMatch=Exact reads an earlier state, as upstream does.
k create namespace pages >/dev/null
for i in $(seq -w 1 12); do claim "page-$i" pages; echo ---; done | k create -f - >/dev/null
pages=/apis/resource.k8s.io/v1/namespaces/pages/resourceclaims
raw_field() {  # raw_field PATH EXPR: EXPR over the JSON at PATH (as d)
  k get --raw "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"
}
check "chunked get of many claims returns them all" bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get resourceclaims -n pages --chunk-size=2 -o name | sort -u | wc -l) == 12 ]]"
check "chunked get as a table returns them all" bash -c \
  "[[ \$('$kubectl_bin' --cache-dir '$work/cache' get resourceclaims -n pages --chunk-size=5 --no-headers | wc -l) == 12 ]]"
pages_rv=$(raw_field "$pages" "d['metadata']['resourceVersion']")
k delete resourceclaim page-01 -n pages >/dev/null
exact_sees_the_deleted_claim() {
  local names
  names=$(raw_field "$pages?resourceVersion=$pages_rv&resourceVersionMatch=Exact" "[i['metadata']['name'] for i in d['items']]")
  grep -q "page-01" <<<"$names" && [[ $(raw_field "$pages" "len(d['items'])") == 11 ]] || { echo "$names"; return 1; }
}
check "get --raw with resourceVersionMatch=Exact reads the earlier state" exact_sees_the_deleted_claim
remaining_is() { [[ $(raw_field "$1" "d['metadata'].get('remainingItemCount')") == "$2" ]]; }
check "a limited list counts the remaining items" remaining_is "$pages?limit=5" 6
pages_token=$(raw_field "$pages?limit=5" "d['metadata']['continue']")
k delete resourceclaim page-12 -n pages >/dev/null
last_item_is() { [[ $(raw_field "$1" "d['items'][-1]['metadata']['name']") == "$2" ]]; }
check "the next page is read at the first page's snapshot" \
  last_item_is "$pages?limit=100&continue=$pages_token" page-12
check "resourceVersionMatch without resourceVersion is Invalid" \
  fails_with "resourceVersionMatch is forbidden unless resourceVersion is provided" \
  k get --raw "$pages?resourceVersionMatch=Exact"
check "a malformed continue token is a bad request" \
  fails_with "invalid continue token" k get --raw "$pages?limit=2&continue=garbage"


# coordination.k8s.io/v1 Leases, as leader election uses them.
lease() {  # lease NAME HOLDER
  cat <<YAML
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: $1, namespace: default}
spec:
  holderIdentity: $2
  leaseDurationSeconds: 15
  renewTime: "2026-11-28T11:00:00.123456Z"
YAML
}
check "create lease" bash -c "$(declare -f lease); lease l1 holder-a | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "get leases shows NAME HOLDER AGE" bash -c \
  "'$kubectl_bin' --cache-dir '$work/cache' get leases | head -1 | grep -Eq '^NAME +HOLDER +AGE\$'"
check "get lease shows the holder" contains holder-a k get lease l1
check "renewTime keeps microseconds" contains "2026-11-28T11:00:00.123456Z" k get lease l1 -o jsonpath='{.spec.renewTime}'
check "apply a new holder" contains configured bash -c "$(declare -f lease); lease l1 holder-b | '$kubectl_bin' --cache-dir '$work/cache' apply -f -"
check "the holder changed" contains holder-b k get lease l1 -o jsonpath='{.spec.holderIdentity}'
check "leaseDurationSeconds 0 is Invalid" fails_with "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0" \
  bash -c "$(declare -f lease); lease l2 holder-a | sed 's/leaseDurationSeconds: 15/leaseDurationSeconds: 0/' | '$kubectl_bin' --cache-dir '$work/cache' create -f -"
check "api-resources lists leases" contains leases k api-resources --api-group=coordination.k8s.io
check "delete lease" contains deleted k delete lease l1

finish
