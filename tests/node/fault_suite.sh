#!/usr/bin/env bash
# Faults on the node side, each component a separate process that the suite
# kills and restarts: a driver error for one claim of a batch, a driver that
# hangs past the agent's deadline, a driver killed with -9, the node agent
# killed with -9 during a prepare and while a pod is being deleted, the API
# server restarting, and a malformed CDI spec. Each must end in an Event or
# log line, and in the end no device stays prepared for a gone pod and no
# pod runs without its devices.
#
# Usage: fault_suite.sh DRALLOC_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
source "$here/../clients/lib.sh"
manifests="$here/e2e"
root="$work/node-1"
declare -A pids

stop_all() {
  for name in agent driver serve; do
    [[ -n "${pids[$name]:-}" ]] && kill "${pids[$name]}" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap 'stop_all; cleanup' EXIT

# start NAME ARGS...: runs dralloc ARGS in the background, output to
# $work/NAME.log (appended across restarts).
start() {
  local name=$1
  shift
  echo "--- start $*" >>"$work/$name.log"
  "$dralloc" "$@" >>"$work/$name.log" 2>&1 &
  pids[$name]=$!
}
# await_line NAME REGEX: waits (30 s) for the component's log to match.
await_line() {
  for _ in $(seq 300); do
    grep -qE "$2" "$work/$1.log" && return 0
    kill -0 "${pids[$1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "$1 did not print $2:" >&2
  tail -n 20 "$work/$1.log" >&2
  exit 1
}
kill9() { kill -9 "${pids[$1]}"; wait "${pids[$1]}" 2>/dev/null || true; }
# Ready counts from the last start only.
ready_since_start() { [[ $(sed -n '/^--- start/h; /^--- start/!H; ${x;p}' "$work/$1.log" | grep -cx ready) -ge 1 ]]; }
await_ready() {
  for _ in $(seq 300); do
    ready_since_start "$1" && return 0
    kill -0 "${pids[$1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "$1 not ready:" >&2
  tail -n 20 "$work/$1.log" >&2
  exit 1
}

start_serve() { start serve serve --listen "127.0.0.1:${port:-0}" --storage "sqlite:$work/store"; }
start_driver() { start driver driver example --node-name node-1 --server "$server_url" --root "$root" --gpus 4 "$@"; await_ready driver; }
start_agent() { start agent node --node-name node-1 --server "$server_url" --root "$root" --prepare-timeout 2s --backoff-max 2s --wiping-delay 600s; await_ready agent; }

start_serve
await_line serve "listening on http://"
server_url=$(grep -o 'http://[0-9.:]*' "$work/serve.log" | head -1)
port=${server_url##*:}
cat >"$work/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- {name: c, cluster: {server: "$server_url"}}
contexts:
- {name: c, context: {cluster: c, namespace: default}}
current-context: c
KUBECONFIG
export KUBECONFIG="$work/kubeconfig"
source "$here/lib.sh"
events_of() { k get events -o jsonpath="{range .items[?(@.involvedObject.name==\"$1\")]}{.reason}: {.message}{\"\\n\"}{end}"; }
event_matches() { events_of "$1" | grep -qE "$2"; }
claim_uid() { k get resourceclaim "$(k get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')" -o jsonpath='{.metadata.uid}'; }
cdi_file_of() { ls "$root"/cdi/*"$1"* 2>/dev/null; }
gone() { ! k get pod "$1" >/dev/null 2>&1; }
pod_from() { sed "s/gpu-pod-1/$1/" "$manifests/pod-1.yaml" | k apply -f - >/dev/null; }

start_driver --fail-prepare-claim failing
start_agent
k apply -f "$manifests/gpu-class.yaml" >/dev/null

# 1. One claim of a batch fails: the pod does not start, the Event says which.
k apply -f "$manifests/two-claims.yaml" >/dev/null
check "one failing claim of a batch: an Event names it" wait_for 30 event_matches two-claims 'failing'
never_runs() { sleep 2; ! phase_is two-claims Running; }
check "one failing claim of a batch: the pod does not start" never_runs
k delete pod two-claims --wait=true --timeout=60s >/dev/null
k delete resourceclaim failing --wait=false >/dev/null

# 2. A driver that hangs past the agent's deadline (2s): Event, then the pod
#    runs once the driver answers in time again.
kill "${pids[driver]}"; wait "${pids[driver]}" 2>/dev/null || true
start_driver --prepare-delay 5000
pod_from hang-pod
check "a hanging driver: an Event reports the deadline" wait_for 30 event_matches hang-pod '[Dd]eadline'
kill "${pids[driver]}"; wait "${pids[driver]}" 2>/dev/null || true
start_driver
check "a hanging driver: the pod runs after the driver recovers" wait_for 60 phase_is hang-pod Running

# 3. A driver killed with -9: new pods wait with an Event; a restarted driver
#    prepares them.
kill9 driver
pod_from crash-pod
check "a crashed driver: the pod waits with an Event" wait_for 30 event_matches crash-pod 'FailedPrepare'
start_driver
check "a crashed driver: the pod runs after the driver restarts" wait_for 60 phase_is crash-pod Running

# 4. The agent killed with -9 during a prepare: after a restart the pod runs
#    and its claim is prepared (the driver's checkpoint holds it once).
kill "${pids[driver]}"; wait "${pids[driver]}" 2>/dev/null || true
start_driver --prepare-delay 1500
pod_from midprepare-pod
in_prepare() { grep -q midprepare "$work/agent.log" || k get pod midprepare-pod -o jsonpath='{.spec.nodeName}' | grep -q node-1; }
wait_for 30 in_prepare >/dev/null
sleep 0.7
kill9 agent
start_agent
check "agent killed during prepare: the pod runs after restart" wait_for 60 phase_is midprepare-pod Running
once_in_checkpoint() { [[ $(grep -o "$(claim_uid midprepare-pod)" "$root"/driver-state/prepared-claims.* | wc -l) -ge 1 ]] && cdi_file_of "$(claim_uid midprepare-pod)"; }
check "agent killed during prepare: the claim is prepared, with its CDI spec" once_in_checkpoint

# 5. The agent killed with -9, then a pod deleted while it is down: the
#    restarted agent unprepares the claim and finishes the deletion.
uid=$(claim_uid crash-pod)
kill9 agent
k delete pod crash-pod --wait=false >/dev/null
start_agent
check "pod deleted while the agent was down: the pod is gone after restart" wait_for 60 gone crash-pod
unprepared() { ! cdi_file_of "$uid"; }
check "pod deleted while the agent was down: its claim is unprepared" wait_for 30 unprepared

# 6. The API server restarts (same port, same store): agent and driver carry
#    on and a new pod runs.
kill "${pids[serve]}"; wait "${pids[serve]}" 2>/dev/null || true
start_serve
await_line serve "listening on http://127.0.0.1:$port"
pod_from after-restart-pod
check "API server restart: a new pod runs" wait_for 60 phase_is after-restart-pod Running

# 7. A malformed CDI spec in the spec dir: logged with its file name, and
#    pods still run.
echo '{"cdiVersion": "0.1.0", "kind": ' >"$root/cdi/broken-spec.json"
pod_from after-broken-pod
check "malformed CDI spec: pods still run" wait_for 60 phase_is after-broken-pod Running
k delete pod after-broken-pod hang-pod --wait=true --timeout=60s >/dev/null
check "malformed CDI spec: the agent logs the file" grep -q "broken-spec.json" "$work/agent.log"

finish
