#!/usr/bin/env bash
# kubectl (a real client nobody here wrote) against `dralloc serve`: the API
# server, the claim controller and the scheduler in one process.
#
# Usage: scheduling_suite.sh DRALLOC_BINARY [1.32|1.33]
# Applies the manifests in scheduling/ (3 nodes, one ResourceSlice each with
# devices of the made-up driver gpu.example.com, classes, templates, pods) and
# checks what the controller and the scheduler write: generated claims,
# allocations, reservations, bindings, Unschedulable conditions and events,
# deallocation on pod deletion, shared claims, prioritized lists. Pods are
# never run (no kubelet), so they stay in phase Pending.
# Prints PASS/FAIL per check and "N passed, M failed" last; exits non-zero on
# any failure (then the tail of the server log too). KEEP_WORKDIR=1 keeps it.
# DRALLOC_SERVER_COMMAND=apiserver is a dry run of the apply checks against
# the bare API server (nothing gets scheduled there; SCHEDULING_TIMEOUT=2
# shortens the waits). SCHEDULING_SERVER_ARGS adds flags (e.g. "--placement
# spread"); the scenarios do not depend on the placement policy.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
manifests=$here/scheduling
dralloc=$(realpath "$1")
version=${2:-1.33}
export DRALLOC_SERVER_COMMAND=${DRALLOC_SERVER_COMMAND:-serve}
wait_s=${SCHEDULING_TIMEOUT:-30}  # seconds any one thing may take to happen
source "$here/lib.sh"

kubectl_bin=$(kubectl_for "$version")
server_args=()
[[ $DRALLOC_SERVER_COMMAND != serve ]] || server_args+=(--scheduler-name dralloc-scheduler)
if "$dralloc" "$DRALLOC_SERVER_COMMAND" --help 2>/dev/null | grep -q -- --version-minor; then
  server_args+=(--version-minor "${version#1.}")
fi
read -ra extra_args <<<"${SCHEDULING_SERVER_ARGS:-}"  # e.g. "--placement spread"
start_server "$dralloc" "${server_args[@]}" "${extra_args[@]}"
ns=sched  # the namespace of k and of the helpers below
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s -n "$ns" "$@"; }
echo "kubectl $("$kubectl_bin" version --client -o json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])') against $DRALLOC_SERVER_COMMAND at $server_url"

scheduled() {  # scheduled POD...: each pod gets PodScheduled=True within $wait_s s
  k wait --for=condition=PodScheduled --timeout=${wait_s}s "${@/#/pod/}"
}
unschedulable() {  # unschedulable POD: PodScheduled=False within $wait_s s
  k wait --for=condition=PodScheduled=false --timeout=${wait_s}s "pod/$1"
}
node_of() { k get pod "$1" -o jsonpath='{.spec.nodeName}'; }
claim_of() {  # claim_of POD POD_CLAIM: the claim recorded in pod.status.resourceClaimStatuses
  k get pod "$1" -o jsonpath="{.status.resourceClaimStatuses[?(@.name==\"$2\")].resourceClaimName}"
}
scheduled_condition() {  # scheduled_condition POD FIELD
  k get pod "$1" -o jsonpath="{.status.conditions[?(@.type==\"PodScheduled\")].$2}"
}
claim_field() {  # claim_field POD POD_CLAIM JSONPATH: a field of the pod's generated claim
  local claim
  claim=$(claim_of "$1" "$2") && [[ -n $claim ]] || { echo "pod $1 has no claim $2"; return 1; }
  k get resourceclaim "$claim" -o jsonpath="$3"
}
count() {  # count CMD...: the number of lines CMD prints
  local out
  out=$("$@") || return 1
  grep -c . <<<"$out" || true
}
describe_claim() {  # describe_claim POD POD_CLAIM: kubectl describe of the pod's generated claim
  local claim
  claim=$(claim_of "$1" "$2") && [[ -n $claim ]] || { echo "pod $1 has no claim $2"; return 1; }
  k describe resourceclaim "$claim"
}
has_claims() {  # has_claims POD POD_CLAIM...: resourceClaimStatuses names a claim for each
  local pod=$1 name
  shift
  for name; do
    [[ -n $(claim_of "$pod" "$name") ]] || { echo "pod $pod: no claim for $name:"; k get pod "$pod" -o jsonpath='{.status}'; return 1; }
  done
}
describe_shows_node() {  # describe_shows_node POD: "Node: NODE/..." in kubectl describe pod
  local node out
  node=$(node_of "$1") && [[ -n $node ]] || { echo "pod $1 has no node"; return 1; }
  out=$(k describe pod "$1") || { echo "$out"; return 1; }
  grep -qE "^Node: +$node(/|\$)" <<<"$out" || { echo "no 'Node: $node' line in:"; echo "$out"; return 1; }
}

# state CHECK ARGS...: one snapshot of the pods and claims of namespace $ns,
# judged by the python CHECK below; prints why on failure.
state() {
  k get pods,resourceclaims -o json >"$work/state.json" || return 1
  python3 - "$work/state.json" "$@" <<'PYTHON'
import json, re, sys

items = json.load(open(sys.argv[1]))["items"]
check, args = sys.argv[2], sys.argv[3:]
pods = {o["metadata"]["name"]: o for o in items if o["kind"] == "Pod"}
claims = {o["metadata"]["name"]: o for o in items if o["kind"] == "ResourceClaim"}
problems = []

def need(cond, msg):
    if not cond:
        problems.append(msg)
    return cond

def pod(name):
    if name not in pods:
        sys.exit(f"pod {name} does not exist")
    return pods[name]

def generated(p):
    """(pod claim name, claim object or None) for each template claim of the pod."""
    statuses = {s["name"]: s.get("resourceClaimName")
                for s in p.get("status", {}).get("resourceClaimStatuses", [])}
    name = p["metadata"]["name"]
    for c in p["spec"].get("resourceClaims", []):
        if "resourceClaimTemplateName" not in c:
            continue
        got = statuses.get(c["name"])
        if need(got, f"pod {name}: status.resourceClaimStatuses has no entry for {c['name']}"):
            need(got in claims, f"pod {name}: claim {got} does not exist")
        yield c["name"], claims.get(got)

def results(claim):
    return claim.get("status", {}).get("allocation", {}).get("devices", {}).get("results", [])

def reserved(claim):
    return claim.get("status", {}).get("reservedFor", [])

if check == "names":  # generated claims: name, annotation, controller owner
    for name in args:
        p = pod(name)
        for pc, c in generated(p):
            if c is None:
                continue
            m = c["metadata"]
            need(re.fullmatch(rf"{re.escape(name)}-{re.escape(pc)}-[a-z0-9]{{5}}", m["name"]),
                 f"claim {m['name']} is not named {name}-{pc}-xxxxx")
            need(m.get("annotations", {}).get("resource.kubernetes.io/pod-claim-name") == pc,
                 f"claim {m['name']}: annotations {m.get('annotations')}")
            owners = [o for o in m.get("ownerReferences", []) if o.get("kind") == "Pod"
                      and o.get("name") == name and o.get("uid") == p["metadata"]["uid"]
                      and o.get("controller")]
            need(owners, f"claim {m['name']}: ownerReferences {m.get('ownerReferences')}")
elif check == "allocated":  # every result is a device of the pod's node
    for name in args:
        p = pod(name)
        node = p["spec"].get("nodeName")
        need(node, f"pod {name} has no spec.nodeName")
        for pc, c in generated(p):
            if c is None:
                continue
            rs = results(c)
            need(rs, f"claim {c['metadata']['name']} has no allocation results")
            for r in rs:
                need(r.get("driver") == "gpu.example.com" and r.get("pool") == node
                     and r.get("device") and r.get("request"),
                     f"claim {c['metadata']['name']}: result {r} is not on node {node}")
            sel = json.dumps(c["status"].get("allocation", {}).get("nodeSelector", {}))
            need(f'"{node}"' in sel, f"claim {c['metadata']['name']}: nodeSelector {sel} does not name {node}")
elif check == "reserved":  # reservedFor[0] is the pod; finalizer present
    for name in args:
        p = pod(name)
        for pc, c in generated(p):
            if c is None:
                continue
            rf = reserved(c)
            need(rf and rf[0].get("resource") == "pods" and rf[0].get("name") == name
                 and rf[0].get("uid") == p["metadata"]["uid"],
                 f"claim {c['metadata']['name']}: reservedFor {rf}")
elif check == "finalizer":
    for name in args:
        for pc, c in generated(pod(name)):
            if c is not None:
                need("resource.kubernetes.io/delete-protection" in c["metadata"].get("finalizers", []),
                     f"claim {c['metadata']['name']}: finalizers {c['metadata'].get('finalizers')}")
elif check == "results":  # results POD POD_CLAIM N: the claim has N results
    name, pc, n = args
    for got_pc, c in generated(pod(name)):
        if got_pc == pc and c is not None:
            need(len(results(c)) == int(n), f"claim {c['metadata']['name']}: results {results(c)}")
elif check == "distinct":  # no device is allocated twice
    seen = {}
    for cname, c in claims.items():
        for r in results(c):
            key = (r.get("driver"), r.get("pool"), r.get("device"))
            need(key not in seen, f"device {'/'.join(map(str, key))} is in {seen.get(key)} and {cname}")
            seen[key] = cname
    need(seen, "no claim is allocated")
elif check == "unallocated":  # unallocated POD: its generated claims exist without allocation
    for pc, c in generated(pod(args[0])):
        if c is not None:
            need(not c.get("status", {}).get("allocation") and not reserved(c),
                 f"claim {c['metadata']['name']}: status {c.get('status')}")
elif check == "shared":  # shared CLAIM POD...: reserved for exactly these pods, on their node
    c = claims.get(args[0])
    if c is None:
        sys.exit(f"claim {args[0]} does not exist")
    want = {(pod(n)["metadata"]["name"], pod(n)["metadata"]["uid"]) for n in args[1:]}
    got = {(r.get("name"), r.get("uid")) for r in reserved(c) if r.get("resource") == "pods"}
    need(got == want and len(reserved(c)) == len(want), f"reservedFor {reserved(c)}, want {sorted(want)}")
    nodes = {pod(n)["spec"].get("nodeName") for n in args[1:]}
    need(len(nodes) == 1 and None not in nodes, f"pods are on nodes {nodes}")
    need([r.get("pool") for r in results(c)] == list(nodes)[:1] * len(results(c)) and results(c),
         f"results {results(c)} are not on {nodes}")
elif check == "pending-phase":  # nobody runs pods: phase stays Pending
    for name, p in pods.items():
        need(p.get("status", {}).get("phase") == "Pending", f"pod {name}: phase {p.get('status', {}).get('phase')}")
else:
    sys.exit(f"unknown check {check}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
PYTHON
}

# 0. The inputs are accepted.
check "apply nodes, classes and slices" k apply -f "$manifests/cluster.yaml"
check "apply claim templates" k apply -f "$manifests/templates.yaml"
check "three nodes" equals 3 count k get nodes -o name
check "three slices" contains node-3-gpus k get resourceslices

# 1. Pods with template claims get claims, allocations and nodes. The pods come
# in three steps so that each finds room whatever placement the scheduler uses.
check "apply pod pair (one claim, two devices)" k apply -f "$manifests/1-pair.yaml"
check "pair is scheduled" scheduled pair
check "apply pod multi (two template claims)" k apply -f "$manifests/1-multi.yaml"
check "multi is scheduled" scheduled multi
check "apply pods single-0, single-1 and foreign" k apply -f "$manifests/1-singles.yaml"
check "single-0 (schedulerName dralloc-scheduler) and single-1 (empty) are scheduled" \
  scheduled single-0 single-1
check "every pod has spec.nodeName" state allocated pair multi single-0 single-1
check "generated claims: <pod>-<claim>-xxxxx, pod-claim-name annotation, owned by the pod" \
  state names pair multi single-0 single-1
check "pod.status.resourceClaimStatuses names each claim" has_claims multi gpu-a gpu-b
check "the claim of pair holds two devices" state results pair gpus 2
check "reservedFor[0] is the pod (resource, name, uid)" state reserved pair multi single-0 single-1
check "allocated claims carry the delete-protection finalizer" state finalizer pair multi single-0 single-1
check "no device is in two claims" state distinct
check "get pods -o wide shows the node" contains node- k get pods -o wide
check "PodScheduled condition is True" equals True scheduled_condition single-1 status

# 2. Full cluster: the next pod is unschedulable until a device is freed.
check "apply pod overflow" k apply -f "$manifests/2-overflow.yaml"
check "overflow gets PodScheduled=False" unschedulable overflow
check "overflow has no node" equals "" node_of overflow
# The first verdict may be a transient one (e.g. the claim is not created yet).
check "reason Unschedulable" equals Unschedulable scheduled_condition overflow reason
check "message says the claim cannot be allocated" within "$wait_s" \
  contains "cannot allocate" scheduled_condition overflow message
check "message counts the nodes" within "$wait_s" \
  contains "0/3 nodes are available" scheduled_condition overflow message
check "overflow's claim exists, unallocated" state unallocated overflow
check "an Event with reason FailedScheduling for overflow" within "$wait_s" contains FailedScheduling \
  k get events --field-selector involvedObject.name=overflow -o jsonpath='{.items[*].reason}'
check "kubectl get events shows it" within "$wait_s" \
  contains FailedScheduling k get events --field-selector involvedObject.name=overflow
freed_node=$(node_of single-1 2>/dev/null || true)
freed_claim=$(claim_of single-1 gpu 2>/dev/null || true)
check "delete pod single-1 --wait" k delete pod single-1 --wait=true --timeout=${wait_s}s
check "single-1's generated claim is deleted" \
  bash -c "[[ -n '$freed_claim' ]] && '$kubectl_bin' --cache-dir '$work/cache' -n sched wait --for=delete resourceclaim/'$freed_claim' --timeout=${wait_s}s"
check "overflow is scheduled after the device is freed" scheduled overflow
check "overflow got the freed node" equals "${freed_node:-unknown}" node_of overflow
check "overflow's claim is allocated and reserved" state allocated overflow
check "still no device is in two claims" state distinct

# 3. A claim created directly, shared by two pods.
check "apply claim shared-a100 and pods shared-0, shared-1" k apply -f "$manifests/3-shared.yaml"
check "shared-0 and shared-1 are scheduled" scheduled shared-0 shared-1
check "both pods on one node, claim reserved for both" state shared shared-a100 shared-0 shared-1
check "delete pod shared-0" k delete pod shared-0 --wait=true --timeout=${wait_s}s
check "the claim stays allocated, reserved for shared-1 only" within "$wait_s" state shared shared-a100 shared-1
check "the claim itself is not garbage collected" k get resourceclaim shared-a100

# 4. Prioritized list: only node-3 can give subrequest big, so it scores highest.
check "apply pod prefers-big" k apply -f "$manifests/4-first-available.yaml"
check "prefers-big is scheduled" scheduled prefers-big
check "prefers-big lands on node-3" equals node-3 node_of prefers-big
check "the result names subrequest gpu/big" equals "gpu/big" \
  claim_field prefers-big gpu '{.status.allocation.devices.results[*].request}'
check "the result is node-3's 80Gi A100" equals "node-3/gpu-2" \
  claim_field prefers-big gpu '{.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}'

# 5. A claim naming a DeviceClass that does not exist blocks only its own pod.
check "apply pods no-class and bystander" k apply -f "$manifests/5-missing-class.yaml"
check "bystander is scheduled" scheduled bystander
check "bystander's claim is allocated and reserved" state allocated bystander
check "no-class gets PodScheduled=False" unschedulable no-class
check "no-class: reason Unschedulable" equals Unschedulable scheduled_condition no-class reason
check "no-class: message names the missing class" within "$wait_s" \
  contains no-such-class.example.com scheduled_condition no-class message
check "no-class's claim exists, unallocated" state unallocated no-class

# 6. kubectl describe and the pods nobody else touches.
check "describe a scheduled pod shows its node" describe_shows_node single-0
check "describe the claim of a scheduled pod shows Reserved For" contains "Reserved For:" \
  describe_claim multi gpu-a
check "describe an unschedulable pod shows FailedScheduling" within "$wait_s" contains FailedScheduling k describe pod no-class
check "foreign (schedulerName other-scheduler) is left alone" equals "|" \
  k get pod foreign -o jsonpath='{.spec.nodeName}|{.status.conditions[?(@.type=="PodScheduled")].status}'
check "no pod is running (no kubelet): every phase is Pending" state pending-phase
check "no device is in two claims at the end" state distinct

# 7. The user-facing demo (namespace demo) behaves as examples/scheduling/README.md says.
# Its A100s also match class a100.example.com, but scenarios 1-6 are done by now.
ns=demo
check "apply examples/scheduling" k apply -f "$repo/examples/scheduling"
check "demo: all four pods are scheduled" scheduled trainer inference notebook-0 notebook-1
check "demo: inference gets node-c's H100 (subrequest gpu/h100)" equals "gpu/h100 node-c/gpu-1" \
  claim_field inference gpu '{.status.allocation.devices.results[0].request} {.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}'
check "demo: the notebooks share shared-a100 on one node" state shared shared-a100 notebook-0 notebook-1
check "demo: trainer's claim is allocated on its node" state allocated trainer
check "demo: no device is in two claims" state distinct
ns=sched

if ((failed > 0)); then
  echo "--- last lines of the server log ($work/server.log):"
  tail -n 30 "$work/server.log" | sed 's/^/    /'
fi

# The controller's and the scheduler's counters are on the server's /metrics.
metrics_counted() {
  local text
  text=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "/metrics").read().decode())' "$server_url")
  grep -E '^resourceclaim_controller_create_attempts_total [1-9]' <<<"$text" &&
    grep -E '^dralloc_scheduler_pods_scheduled_total [1-9]' <<<"$text"
}
if [[ "${DRALLOC_SERVER_COMMAND}" == serve ]]; then
  check "/metrics counts claim creations and scheduled pods" metrics_counted
fi

finish
