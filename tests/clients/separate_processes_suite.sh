#!/usr/bin/env bash
# The claim controller and the scheduler as separate processes
# (`dralloc controller`, `dralloc scheduler --kubeconfig`) against a plain
# `dralloc apiserver`, talking HTTP like they would to any Kubernetes API
# server. Applies examples/scheduling with kubectl and checks every pod is
# bound with its claims allocated.
# With DRALLOC_AUTH=cert the server serves TLS with Node,RBAC and the two
# processes run as system:kube-controller-manager and system:kube-scheduler
# (the kubeconfigs `dralloc certs init` writes), with the default RBAC roles.
# Usage: separate_processes_suite.sh DRALLOC_BINARY
set -uo pipefail
cd "$(dirname "$0")/../.."
dralloc=$(realpath "$1")
source tests/clients/lib.sh
start_server "$dralloc"

controller_config=$KUBECONFIG scheduler_config=$KUBECONFIG
if [[ -n "${DRALLOC_AUTH:-}" ]]; then
  controller_config=$work/pki/controller-manager.kubeconfig
  scheduler_config=$work/pki/scheduler.kubeconfig
fi
"$dralloc" controller --kubeconfig "$controller_config" >"$work/controller.out" 2>"$work/controller.log" &
controller_pid=$!
"$dralloc" scheduler --kubeconfig "$scheduler_config" --schedule-default-pods \
  >"$work/scheduler.out" 2>"$work/scheduler.log" &
scheduler_pid=$!
stop_control_plane() {
  kill "$controller_pid" "$scheduler_pid" 2>/dev/null
  wait "$controller_pid" "$scheduler_pid" 2>/dev/null
  cleanup
}
trap stop_control_plane EXIT

kubectl() { command kubectl.1.33 "$@"; }
command -v kubectl.1.33 >/dev/null || kubectl() { command kubectl "$@"; }

check "apply examples/scheduling" kubectl apply -f examples/scheduling
all_bound() {
  local unbound
  for _ in $(seq 150); do
    unbound=$(kubectl get pods -n demo -o jsonpath='{range .items[?(@.spec.nodeName=="")]}{.metadata.name} {end}')
    [[ -z "$unbound" ]] && [[ -n "$(kubectl get pods -n demo -o name)" ]] && return 0
    sleep 0.2
  done
  echo "still unbound: $unbound"
  return 1
}
check "every demo pod is bound" all_bound
claims_allocated() {
  kubectl get resourceclaims -n demo -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
assert len(items) == 3, len(items)
for c in items:
    assert c["status"]["allocation"]["devices"]["results"], c["metadata"]["name"]
    assert c["status"]["reservedFor"], c["metadata"]["name"]
print("ok")'
}
check "claims are allocated and reserved" claims_allocated
check "controller recorded the generated claim in the pod status" \
  bash -c "kubectl get pod trainer -n demo -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}' | grep -q trainer-gpu-"
# A bound pod is deleted gracefully; with no node agent on its node, the
# controller process's pod garbage collector completes the deletion, so
# kubectl's wait returns.
check "delete pod trainer --wait returns (pod GC)" \
  kubectl delete pod trainer -n demo --wait=true --timeout=30s
pod_gone() { ! kubectl get pod trainer -n demo >/dev/null 2>&1; }
check "the deleted pod is gone" pod_gone
check "both processes still run" kill -0 "$controller_pid" "$scheduler_pid"
check "neither process was refused anything" bash -c \
  "! grep -i forbidden '$work/controller.log' '$work/scheduler.log'"
finish
