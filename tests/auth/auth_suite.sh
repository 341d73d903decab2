#!/usr/bin/env bash
# Letting people in safely, end to end with kubectl (a client nobody here
# wrote): TLS, client certificates, tokens, service-account tokens, RBAC,
# the Node authorizer with NodeRestriction, ResourceQuota for claims and
# devices, and the audit log.
#
# Usage: auth_suite.sh DRALLOC_BINARY [1.32|1.33]
# Prints PASS/FAIL per check and "N passed, M failed" last; exits non-zero on
# any failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
version=${2:-1.33}
source "$here/../clients/lib.sh"

kubectl_bin=$(kubectl_for "$version")
export DRALLOC_AUTH=cert DRALLOC_SERVER_COMMAND=serve
start_server "$dralloc" --version-minor "${version#1.}" --audit-log-path "$work/audit.log"
pki=$work/pki
# as KUBECONFIG ARGS...: kubectl with that kubeconfig.
as() {
  local config=$1
  shift
  "$kubectl_bin" --kubeconfig "$config" --cache-dir "$work/cache-$(basename "$config")" \
    --request-timeout=20s "$@"
}
admin() { as "$pki/admin.kubeconfig" "$@"; }
eventually_long() {  # eventually_long CMD...: CMD succeeds within 60 s
  for _ in $(seq 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  "$@"
}
token_kubeconfig() {  # token_kubeconfig FILE TOKEN
  local ca
  ca=$(base64 -w0 <"$pki/ca.crt")
  cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: dralloc
  cluster: {server: "$server_url", certificate-authority-data: "$ca"}
users:
- name: u
  user: {token: "$2"}
contexts:
- name: dralloc
  context: {cluster: dralloc, user: u, namespace: default}
current-context: dralloc
KUBECONFIG
}
echo "kubectl $version against $server_url (TLS, Node,RBAC)"

# --- identities --------------------------------------------------------------
check "whoami with the admin client certificate" contains "system:masters" admin auth whoami
check "whoami with a client certificate (CN user, O groups)" contains "suite-user" \
  as "$work/kubeconfig" auth whoami
token_kubeconfig "$work/token.kubeconfig" suite-token
check "whoami with a bearer token from --token-auth-file" contains "suite-user" \
  as "$work/token.kubeconfig" auth whoami
check "can-i --list as cluster-admin" contains "*.*" as "$work/kubeconfig" auth can-i --list
token_kubeconfig "$work/bad-token.kubeconfig" wrong-token
check "an unknown token is 401" fails_with "You must be logged in to the server" \
  as "$work/bad-token.kubeconfig" get resourceclaims
token_kubeconfig "$work/case-token.kubeconfig" SUITE-TOKEN
check "a token in the wrong case is 401" fails_with "You must be logged in" \
  as "$work/case-token.kubeconfig" get resourceclaims
"$dralloc" certs kubeconfig "$pki" --user bob --out "$work/bob.kubeconfig" >/dev/null
check "a user without bindings gets upstream's 403" fails_with \
  'resourceclaims.resource.k8s.io is forbidden: User "bob" cannot list resource "resourceclaims" in API group "resource.k8s.io" in the namespace "default"' \
  as "$work/bob.kubeconfig" get resourceclaims
check "can-i answers no for bob" fails_with "no" as "$work/bob.kubeconfig" auth can-i create resourceclaims
check "bob can still ask who he is" contains "bob" as "$work/bob.kubeconfig" auth whoami

# --- RBAC ---------------------------------------------------------------------
admin create namespace team-a >/dev/null
check "a Role for claims" admin -n team-a create role claim-editor --verb=get,list,create,delete \
  --resource=resourceclaims.resource.k8s.io
check "a RoleBinding to bob" admin -n team-a create rolebinding bob-claims --role=claim-editor --user=bob
check "bob can list claims in team-a once bound" eventually as "$work/bob.kubeconfig" -n team-a get resourceclaims
check "can-i says yes in team-a" contains yes as "$work/bob.kubeconfig" -n team-a auth can-i create resourceclaims
check "bob still cannot read default" fails_with forbidden as "$work/bob.kubeconfig" -n default get resourceclaims
check "can-i --list shows the bound rule" contains "resourceclaims.resource.k8s.io" \
  as "$work/bob.kubeconfig" -n team-a auth can-i --list
check "the view role is aggregated and covers claims" contains "resourceclaims" \
  admin get clusterrole view -o yaml
check "a RoleBinding to a role that does not exist is stored (superuser)" \
  admin -n team-a create rolebinding ghost --role=no-such-role --user=carol
check "bob cannot grant what he lacks (escalation)" fails_with forbidden \
  as "$work/bob.kubeconfig" -n team-a create rolebinding self-admin --clusterrole=cluster-admin --user=bob
check "the admin acts as bob with --as" contains "No resources found" admin --as=bob -n team-a get resourceclaims
check "can-i --as answers for bob" contains yes admin --as=bob -n team-a auth can-i create resourceclaims
check "whoami --as shows the impersonated user and groups" contains "gpu-team" \
  admin --as=bob --as-group=gpu-team auth whoami
check "bob cannot impersonate (upstream's 403)" fails_with \
  'users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope' \
  as "$work/bob.kubeconfig" --as=admin get pods
check "get clusterroles lists the defaults" contains "system:node" admin get clusterroles

# --- service accounts -----------------------------------------------------------
admin -n team-a create serviceaccount driver >/dev/null
sa_token=$(admin -n team-a create token driver --duration=1h)
token_kubeconfig "$work/sa.kubeconfig" "$sa_token"
check "a bound service-account token authenticates" contains "system:serviceaccount:team-a:driver" \
  as "$work/sa.kubeconfig" auth whoami
admin -n team-a delete serviceaccount driver >/dev/null
check "the token of a deleted service account is refused" fails_with "You must be logged in" \
  as "$work/sa.kubeconfig" get resourceclaims -n team-a
check "every namespace gets the ServiceAccount default" eventually admin -n team-a get serviceaccount default
admin -n team-a delete serviceaccount default >/dev/null
check "a deleted default ServiceAccount comes back" eventually admin -n team-a get serviceaccount default
default_token=$(admin -n team-a create token default --duration=1h)
token_kubeconfig "$work/sa-default.kubeconfig" "$default_token"
check "a token of the default ServiceAccount authenticates" contains "system:serviceaccount:team-a:default" \
  as "$work/sa-default.kubeconfig" auth whoami
check "secrets and configmaps are served" admin -n team-a create secret generic s1 --from-literal=k=v
check "configmaps" admin -n team-a create configmap c1 --from-literal=k=v

# --- Node authorizer and NodeRestriction --------------------------------------
slice() {  # slice NAME NODE
  cat <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: $1}
spec:
  driver: gpu.example.com
  nodeName: $2
  pool: {name: $2, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
YAML
}
node_a=$pki/node-node-a.kubeconfig
check "node-a publishes its own slice" bash -c "$(declare -f slice as); kubectl_bin='$kubectl_bin' work='$work'; slice a-gpus node-a | as '$node_a' create -f -"
check "node-a cannot publish node-b's slice" fails_with "forbidden" \
  bash -c "$(declare -f slice as); kubectl_bin='$kubectl_bin' work='$work'; slice b-fake node-b | as '$node_a' create -f -"
slice b-gpus node-b | admin create -f - >/dev/null
check "node-a cannot read node-b's slice" fails_with forbidden as "$node_a" get resourceslice b-gpus
check "node-a cannot delete node-b's slice" fails_with forbidden as "$node_a" delete resourceslice b-gpus
check "node-a cannot update node-b's slice" fails_with forbidden \
  as "$node_a" label resourceslice b-gpus stolen=yes
check "node-a lists slices only with its nodeName selector" fails_with forbidden as "$node_a" get resourceslices
check "node-a lists its own slices" contains a-gpus as "$node_a" get resourceslices --field-selector spec.nodeName=node-a
check "node-a deletes its own slice" as "$node_a" delete resourceslice a-gpus

pod() {  # pod NAME NODE CLAIM
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: team-a}
spec:
  nodeName: $2
  containers: [{name: c, image: busybox}]
  resourceClaims: [{name: gpu, resourceClaimName: $3}]
YAML
}
claim() {  # claim NAME NAMESPACE COUNT
  cat <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: $1, namespace: $2}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, count: $3}
YAML
}
admin apply -f "$repo/examples/cluster/device-classes.yaml" >/dev/null
claim claim-a team-a 1 | admin create -f - >/dev/null
claim claim-b team-a 1 | admin create -f - >/dev/null
pod pod-a node-a claim-a | admin create -f - >/dev/null
pod pod-b node-b claim-b | admin create -f - >/dev/null
check "node-a reads the claim of its own pod" eventually as "$node_a" -n team-a get resourceclaim claim-a
check "node-a cannot read the claim of node-b's pod" fails_with forbidden as "$node_a" -n team-a get resourceclaim claim-b
check "node-a lists only its own pods" fails_with forbidden as "$node_a" -n team-a get pods
check "node-a lists pods with its nodeName selector" contains pod-a \
  as "$node_a" get pods -A --field-selector spec.nodeName=node-a

# --- the node agent and the example driver with node-a's credentials ---------
node_pids=()
stop_node_side() {
  for pid in "${node_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${node_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  cleanup
}
trap stop_node_side EXIT
admin delete resourceslice b-gpus >/dev/null
"$dralloc" driver example --node-name node-a --kubeconfig "$node_a" --root "$work/node-a" --gpus 2 \
  >"$work/driver.out" 2>"$work/driver.log" &
node_pids+=($!)
"$dralloc" node --node-name node-a --kubeconfig "$node_a" --root "$work/node-a" \
  >"$work/agent.out" 2>"$work/agent.log" &
node_pids+=($!)
started() { grep -qx ready "$work/driver.out" && grep -qx ready "$work/agent.out"; }
check "driver and agent start with node credentials" eventually started
node_ready() { admin get node node-a --no-headers | grep -q ' Ready '; }
check "the agent registers node-a and reports it Ready" eventually node_ready
own_slices() { [[ $(admin get resourceslices --field-selector spec.nodeName=node-a -o name | wc -l) -ge 1 ]]; }
check "the driver publishes node-a's slices" eventually own_slices
admin apply -f "$repo/tests/node/e2e/gpu-class.yaml" >/dev/null
sed 's/name: gpu-pod-1/name: secure-gpu-pod/' "$repo/tests/node/e2e/pod-1.yaml" | admin create -f - >/dev/null
pod_running() { [[ $(admin get pod secure-gpu-pod -o jsonpath='{.status.phase}') == Running ]]; }
check "a pod with a claim is scheduled to node-a, prepared by the agent and Running" \
  eventually_long pod_running
check "nothing the agent or driver asked was forbidden" bash -c \
  "! grep -i forbidden '$work/agent.log' '$work/driver.log'"

# --- ResourceQuota ------------------------------------------------------------
admin create namespace team-q >/dev/null
cat <<YAML | admin create -f - >/dev/null
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team-q}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "10"
    gpu.example.com.deviceclass.resource.k8s.io/devices: "4"
YAML
check "the quota controller fills status.used" eventually bash -c \
  "'$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' -n team-q get resourcequota gpus -o jsonpath='{.status.used}' | grep -q devices"
check "a claim of 2 devices fits" bash -c "$(declare -f claim); claim q1 team-q 2 | '$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' create -f -"
check "another claim of 2 fits exactly" bash -c "$(declare -f claim); claim q2 team-q 2 | '$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' create -f -"
check "a fifth device exceeds the quota (403, upstream's message)" fails_with \
  'is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=4, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=4' \
  bash -c "$(declare -f claim); claim q3 team-q 1 | '$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' create -f -"
check "the refused claim was not stored" fails_with NotFound admin -n team-q get resourceclaim q3
check "deleting a claim releases its devices" bash -c \
  "'$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' -n team-q delete resourceclaim q2 >/dev/null && for i in \$(seq 100); do '$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' -n team-q get resourcequota gpus -o jsonpath='{.status.used}' | grep -q '/devices\":\"2' && exit 0; sleep 0.1; done; exit 1"
check "a quota with a negative value is Invalid" fails_with "must be greater than or equal to 0" \
  bash -c "printf 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad, namespace: team-q}\nspec: {hard: {resourceclaims: \"-1\"}}\n' | '$kubectl_bin' --kubeconfig '$pki/admin.kubeconfig' create -f -"
admin create namespace team-race >/dev/null
cat <<YAML | admin create -f - >/dev/null
apiVersion: v1
kind: ResourceQuota
metadata: {name: ten, namespace: team-race}
spec: {hard: {count/resourceclaims.resource.k8s.io: "10"}}
YAML
check "40 racing creates at a limit of 10 admit exactly 10" \
  python3 "$here/quota_race.py" "$server_url" "$pki/admin.kubeconfig" team-race 40 10

# --- audit --------------------------------------------------------------------
check "the audit log records bob's refused list" python3 - "$work/audit.log" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
assert all(e["apiVersion"] == "audit.k8s.io/v1" and e["level"] == "Metadata" for e in events)
assert any(e["user"].get("username") == "bob" and e["responseStatus"]["code"] == 403
           and e["objectRef"].get("resource") == "resourceclaims" for e in events), "no 403 for bob"
assert any(e["responseStatus"]["code"] == 401 for e in events), "no 401"
assert any(e.get("impersonatedUser", {}).get("username") == "bob"
           and e["user"]["username"] == "admin" for e in events), "no impersonatedUser"
print(len(events), "events")
PY

finish
