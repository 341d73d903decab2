#!/usr/bin/env bash
# `--runtime process` end to end: `dralloc local-cluster --nodes 1 --gpus 2
# --runtime process` (serve, a node agent running pod commands as local
# processes, an example driver), driven with kubectl: a GPU pod's command
# sees its CDI env and `kubectl logs` prints it through the API server's
# pods/log; exit codes set the phase; follow streams; deletion sends
# SIGTERM.
#
# Usage: process_runtime_suite.sh DRALLOC_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
source "$here/../clients/lib.sh"
manifests="$here/process"

source "$here/lib.sh"
start_local_cluster "$dralloc" --nodes 1 --gpus 2 --runtime process

node_ready() { local out; out=$(k get nodes --no-headers); grep -q ' Ready ' <<<"$out"; }
check "the node registers and is Ready" wait_for 30 node_ready
warned() { grep -rq "NO isolation" "$work"/cluster/logs/; }
check "the node agent warns that pods run without isolation" warned
kubelet_port() { [[ $(k get node -o jsonpath='{.items[0].status.daemonEndpoints.kubeletEndpoint.Port}') -gt 0 ]]; }
check "the Node reports its kubelet port" kubelet_port
slices_published() { [[ $(k get resourceslices -o name | wc -l) -ge 1 ]]; }
check "the example driver publishes its slices" wait_for 30 slices_published

k apply -f "$here/e2e/gpu-class.yaml" >/dev/null
k apply -f "$manifests/gpu-echo.yaml" >/dev/null
check "the GPU pod runs to Succeeded" wait_for 60 phase_is gpu-echo Succeeded
logs_gpu() { local out; out=$(k logs gpu-echo); grep -Eq '^GPU=gpu-[01] MODE=process$' <<<"$out"; }
check "kubectl logs prints the GPU the pod was given (CDI env) and its env" logs_gpu
reason_completed() { [[ $(k get pod gpu-echo -o jsonpath='{.status.containerStatuses[0].state.terminated.reason}') == Completed ]]; }
check "its container terminated with reason Completed" reason_completed
log_file() { ls "$work"/cluster/nodes/*/pods/default_gpu-echo_*/ctr/0.log; }
check "the log is kept under the node's pods directory" log_file
echo_uid=$(k get pod gpu-echo -o jsonpath='{.metadata.uid}')
unprepared() {
  local node out
  for node in "$work"/cluster/nodes/*; do
    out=$("$dralloc" node-checkpoint --root "$node") || return 1
    ! grep -q "$echo_uid" <<<"$out" || return 1
  done
}
check "a finished pod's claims are unprepared at once (as the kubelet), not at deletion" wait_for 30 unprepared

k apply -f "$manifests/exit-3.yaml" >/dev/null
check "a pod whose command exits 3 is Failed" wait_for 60 phase_is exit-3 Failed
exit_code() { [[ $(k get pod exit-3 -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}') == 3 ]]; }
check "with exit code 3 and reason Error" exit_code
status_error() { local out; out=$(k get pod exit-3 --no-headers); grep -q ' Error ' <<<"$out"; }
check "kubectl get pods shows STATUS Error" status_error

k apply -f "$manifests/server.yaml" >/dev/null
check "a long-running pod is Running" wait_for 60 phase_is server Running
# (kubectl logs itself defaults to the first container; the API answers 400.)
must_name() { ! k get --raw /api/v1/namespaces/default/pods/server/log 2>"$work/must-name.err" && grep -q 'a container name must be specified for pod server, choose one of: \[main side\]' "$work/must-name.err"; }
check "pods/log of a two-container pod without a container is 400 as upstream" must_name
defaulted() { local out; out=$(k logs server 2>&1); grep -q '^tick' <<<"$out"; }
check "kubectl logs defaults to the first container" defaulted
follow_streams() { timeout 5 kubectl logs -f server -c main >"$work/follow.out" 2>&1 || true; [[ $(grep -c '^tick' "$work/follow.out") -ge 10 ]]; }
check "kubectl logs -f streams new lines" follow_streams
tail_lines() { [[ $(k logs server -c main --tail=2 | wc -l) == 2 ]]; }
check "kubectl logs --tail=2 prints two lines" tail_lines
k delete pod server --wait=true --timeout=30s >/dev/null
# Its trap exits 0 on SIGTERM (SIGKILL would be "killed by signal 9").
got_term() { grep -q 'pod default/server container main exited with code 0' "$work"/cluster/logs/node-*.log; }
check "deleting the pod sends SIGTERM to its command" got_term
logs_removed() { ! ls -d "$work"/cluster/nodes/*/pods/default_server_* >/dev/null 2>&1; }
check "its log directory is removed with it" logs_removed
gone() { ! k get pod server >/dev/null 2>&1; }
check "and the pod is gone" gone

finish
