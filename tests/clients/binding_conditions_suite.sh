#!/usr/bin/env bash
# kubectl against `dralloc serve`: device binding conditions (KEP-5007) and
# device status (KEP-4817). The devices of binding_conditions/cluster.yaml
# carry the binding condition example.com/attached and the failure
# condition example.com/attach-failed; this script plays their driver with
# `kubectl patch --subresource=status` on the claims.
#
# Usage: binding_conditions_suite.sh DRALLOC_BINARY [1.32|1.33]
# Scenario 1: the pod's claim is allocated (bindingConditions copied into
# the result, allocationTimestamp, node selector of the chosen node) and
# the pod stays unbound, with a BindingConditionsPending event, until the
# driver sets example.com/attached True; then it binds.
# Scenario 2: two candidate nodes; the driver taints the first allocated
# device and sets its failure condition: the scheduler releases the
# allocation and the pod lands on the other node once that device is
# attached.
# Prints PASS/FAIL per check and "N passed, M failed" last; exits non-zero
# on any failure. BINDING_TIMEOUT bounds each wait (seconds, default 30).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifests=$here/binding_conditions
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=serve
wait_s=${BINDING_TIMEOUT:-30}
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
server_args=()
if "$dralloc" serve --help 2>/dev/null | grep -q -- --version-minor; then
  server_args+=(--version-minor "${version#1.}")
fi
start_server "$dralloc" "${server_args[@]}"
ns=bc
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }

nonempty() {  # nonempty CMD...: CMD succeeds and prints something
  local out
  out=$("$@" 2>&1) || { echo "$out"; return 1; }
  [[ -n $out ]] || { echo "empty output from $*"; return 1; }
}
claim_path() { k get resourceclaim "$1" -o jsonpath="$2"; }
allocated_pool() { claim_path "$1" '{.status.allocation.devices.results[0].pool}'; }
node_of() { k get pod "$1" -o jsonpath='{.spec.nodeName}'; }
unbound_for() {  # unbound_for POD SECONDS: the pod has no node during SECONDS
  local deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    [[ -z $(node_of "$1") ]] || { echo "pod $1 bound to $(node_of "$1")"; return 1; }
    sleep 0.5
  done
}
pending_event() {  # pending_event POD: a BindingConditionsPending event for the pod
  local out
  out=$(k get events -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason} {.message}{"\n"}{end}') || return 1
  grep -E "^$1 BindingConditionsPending waiting for binding conditions for device on node " <<<"$out" ||
    { echo "no BindingConditionsPending event for $1 in:"; echo "$out"; return 1; }
}
failed_event() {  # failed_event POD: FailedScheduling naming the binding failure
  local out
  out=$(k get events -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason} {.message}{"\n"}{end}') || return 1
  grep -F "$1 FailedScheduling running PreBind plugin \"DynamicResources\": claim c2 binding failed: reason=Suite" <<<"$out" ||
    { echo "no FailedScheduling event with the binding failure for $1 in:"; echo "$out"; return 1; }
}
set_condition() {  # set_condition CLAIM TYPE: the "driver" reports TYPE True for the allocated device
  local claim=$1 type=$2 driver pool device
  driver=$(claim_path "$claim" '{.status.allocation.devices.results[0].driver}')
  pool=$(allocated_pool "$claim")
  device=$(claim_path "$claim" '{.status.allocation.devices.results[0].device}')
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch resourceclaim "$claim" --subresource=status --type=merge -p "{\"status\":{\"devices\":[{
    \"driver\":\"$driver\",\"pool\":\"$pool\",\"device\":\"$device\",
    \"conditions\":[{\"type\":\"$type\",\"status\":\"True\",\"lastTransitionTime\":\"$now\",
      \"reason\":\"Suite\",\"message\":\"set by binding_conditions_suite.sh\"}]}]}}"
}
taint_device() {  # taint_device NODE: NoSchedule taint on dev-0 of NODE's two.example.com slice
  k patch resourceslice "$1-two" --type=merge -p '{"spec":{"devices":[{"name":"dev-0",
    "bindsToNode":true,"bindingConditions":["example.com/attached"],
    "bindingFailureConditions":["example.com/attach-failed"],
    "taints":[{"key":"example.com/attach","value":"failed","effect":"NoSchedule"}]}]}}'
}

check "apply nodes, classes and slices" k apply -f "$manifests/cluster.yaml"

# ---- scenario 1: wait for the binding condition, then bind ----------------
check "apply claim c1 and pod p1" k apply -f "$manifests/1-pod.yaml"
check "c1 allocated on node-a" within "$wait_s" equals node-a allocated_pool c1
check "result carries the device's bindingConditions" \
  equals '["example.com/attached"]' claim_path c1 '{.status.allocation.devices.results[0].bindingConditions}'
check "result carries the device's bindingFailureConditions" \
  equals '["example.com/attach-failed"]' claim_path c1 '{.status.allocation.devices.results[0].bindingFailureConditions}'
check "allocationTimestamp set" nonempty claim_path c1 '{.status.allocation.allocationTimestamp}'
check "bindsToNode: node selector names node-a" \
  equals node-a claim_path c1 '{.status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0]}'
check "c1 reserved for p1" equals p1 claim_path c1 '{.status.reservedFor[0].name}'
check "BindingConditionsPending event for p1" within "$wait_s" pending_event p1
check "p1 stays unbound while the condition is not True" unbound_for p1 3
check "driver sets example.com/attached True" set_condition c1 example.com/attached
check "p1 binds to node-a" within "$wait_s" equals node-a node_of p1
check "device status kept after binding" \
  equals True claim_path c1 '{.status.devices[0].conditions[0].status}'

# ---- scenario 2: a failure condition sends the pod to the other node -------
check "apply claim c2 and pod p2" k apply -f "$manifests/2-pod.yaml"
check "c2 allocated" within "$wait_s" nonempty allocated_pool c2
first=$(allocated_pool c2 2>/dev/null || true)
case $first in node-b) other=node-c ;; *) other=node-b ;; esac
echo "    c2 first allocated on ${first:-<none>}, expecting $other next"
check "p2 unbound while waiting" unbound_for p2 2
check "driver taints the failed device" taint_device "$first"
check "driver sets example.com/attach-failed True" set_condition c2 example.com/attach-failed
check "c2 reallocated on the other node" within "$wait_s" equals "$other" allocated_pool c2
check "FailedScheduling event names the failure" within "$wait_s" failed_event p2
check "old device status cleared with the allocation" \
  equals "" claim_path c2 '{.status.devices}'
check "p2 still unbound before the new device is attached" unbound_for p2 2
check "driver attaches the new device" set_condition c2 example.com/attached
check "p2 binds to $other" within "$wait_s" equals "$other" node_of p2

if ((failed > 0)); then
  echo "server log (tail):"
  tail -n 30 "$work/server.log" | sed 's/^/    /'
fi
finish
