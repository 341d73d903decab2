#!/usr/bin/env bash
# Device taint eviction (KEP-5055) end to end: kubectl against `dralloc serve`.
#
# Usage: device_taint_suite.sh DRALLOC_BINARY [1.32|1.33]
# Applies device_taint/ (one node, devices gpu-0 and gpu-1 of the made-up
# driver gpu.example.com) and checks:
#  - a pod using gpu-0 is evicted when a NoExecute DeviceTaintRule selects
#    gpu-0: deleted, with the event DeviceTaintManagerEviction, and the
#    rule's EvictionInProgress condition counts it;
#  - a pending pod whose claim tolerates the taint gets gpu-0 and stays; one
#    whose claim does not stays unschedulable;
#  - a pod tolerating the taint for 3 s (tolerationSeconds) is evicted after
#    that, not at once;
#  - a rule with effect None evicts nothing and reports what NoExecute would;
#  - a pod tolerating the taint for an hour gets the tainted gpu-1, its rule
#    reports the pending eviction, and deleting the rule cancels it with the
#    event "Cancelling deletion".
# Pods never run (no kubelet); the pod GC removes the evicted pods at once.
# Every wait is bounded by DEVICE_TAINT_TIMEOUT seconds (default 30).
# Prints PASS/FAIL per check and "N passed, M failed"; exits non-zero on any
# failure (with the tail of the server log). KEEP_WORKDIR=1 keeps the workdir.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifests=$here/device_taint
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=${DEVICE_TAINT_TIMEOUT:-30}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
start_server "$dralloc" --scheduler-name dralloc-scheduler
ns=taint
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }
echo "kubectl $("$kubectl_bin" version --client -o json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])') against serve at $server_url"

scheduled() { k wait --for=condition=PodScheduled --timeout=${wait_s}s "pod/$1"; }
unschedulable() { k wait --for=condition=PodScheduled=false --timeout=${wait_s}s "pod/$1"; }
gone() { k wait --for=delete --timeout=${wait_s}s "pod/$1"; }
alive() {  # alive POD: the pod exists and is not being deleted
  equals "$1:" k get pod "$1" -o 'jsonpath={.metadata.name}:{.metadata.deletionTimestamp}'
}
device_of() {  # device_of CLAIM DEVICE: the claim is allocated DEVICE
  equals "$2" k get resourceclaim "$1" -o 'jsonpath={.status.allocation.devices.results[*].device}'
}
taint_events() {  # taint_events POD WANT: the DeviceTaintManagerEviction events of POD
  equals "$2" \
    k get events --field-selector "involvedObject.name=$1,reason=DeviceTaintManagerEviction" \
    -o 'jsonpath={range .items[*]}{.type} {.reason} {.message} {.source.component}{end}'
}
eviction_event() {  # eviction_event POD: the event upstream's controller emits
  taint_events "$1" "Normal DeviceTaintManagerEviction Marking for deletion device-taint-eviction-controller"
}
cancel_event() {  # cancel_event POD: upstream's event for a cancelled eviction
  taint_events "$1" "Normal DeviceTaintManagerEviction Cancelling deletion device-taint-eviction-controller"
}
time_added_set() {  # time_added_set RULE: spec.taint.timeAdded is an RFC 3339 time
  local added
  added=$(k get devicetaintrule "$1" -o 'jsonpath={.spec.taint.timeAdded}') || return 1
  [[ $added =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]] || { echo "timeAdded '$added'"; return 1; }
}
rule_condition() {  # rule_condition RULE WANT: "status reason message" of EvictionInProgress
  equals "$2" k get devicetaintrule "$1" \
    -o 'jsonpath={.status.conditions[?(@.type=="EvictionInProgress")].status} {.status.conditions[?(@.type=="EvictionInProgress")].reason} {.status.conditions[?(@.type=="EvictionInProgress")].message}'
}

check "apply the cluster" k apply -f "$manifests/cluster.yaml"
check "apply a pod using gpu-0" k apply -f "$manifests/victim.yaml"
check "the pod is scheduled" scheduled victim
check "its claim has gpu-0" device_of victim gpu-0
check "apply a NoExecute DeviceTaintRule for gpu-0" k apply -f "$manifests/rule-gpu-0.yaml"
check "the server set the taint's timeAdded" time_added_set gpu-0-broken
check "the pod is evicted" gone victim
check "the eviction event is recorded" within "$wait_s" eviction_event victim
check "the rule reports the eviction" within "$wait_s" rule_condition gpu-0-broken \
  "False Completed 1 pod evicted since starting the controller."
check "the claim is released" within "$wait_s" equals "" \
  k get resourceclaim victim -o 'jsonpath={.status.allocation.devices.results[*].device}'

check "apply pods tolerating the taint" k apply -f "$manifests/tolerant.yaml"
check "the tolerating pod is scheduled" scheduled tolerant
check "it lands on the tainted gpu-0" device_of tolerant gpu-0
check "the 3-second pod is scheduled on gpu-1" scheduled brief
check "apply a pod without toleration" k apply -f "$manifests/intolerant.yaml"
check "it stays unschedulable" unschedulable intolerant
check "apply a NoExecute DeviceTaintRule for gpu-1" k apply -f "$manifests/rule-gpu-1.yaml"
check "the 3-second pod is not evicted at once" alive brief
check "the 3-second pod is evicted after its tolerationSeconds" gone brief
check "its eviction event is recorded" within "$wait_s" eviction_event brief
check "the tolerating pod stays" alive tolerant
check "the gpu-0 rule still counts one eviction" rule_condition gpu-0-broken \
  "False Completed 1 pod evicted since starting the controller."
check "apply a DeviceTaintRule with effect None for gpu-0" k apply -f "$manifests/rule-none.yaml"
check "it reports what NoExecute would evict" within "$wait_s" rule_condition gpu-0-dry-run \
  "False NoEffect 1 published device selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."
check "and evicts nothing" alive tolerant

check "apply a pod tolerating the taint for an hour" k apply -f "$manifests/patient.yaml"
check "the hour pod is scheduled" scheduled patient
check "it lands on the tainted gpu-1" device_of patient gpu-1
check "the gpu-1 rule reports its pending eviction" within "$wait_s" rule_condition gpu-1-broken \
  "True PodsPendingEviction 1 pod needs to be evicted in 1 namespace. 1 pod evicted since starting the controller."
check "delete the gpu-1 rule" k delete devicetaintrule gpu-1-broken
check "the eviction is cancelled with an event" within "$wait_s" cancel_event patient
check "the hour pod stays" alive patient

if ! finish; then
  echo "--- server log (tail) ---"
  tail -40 "$work/server.log"
  exit 1
fi
