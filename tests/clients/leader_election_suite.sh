#!/usr/bin/env bash
# Leader election between two `dralloc scheduler --leader-elect` processes
# against one `dralloc apiserver`: exactly one holds the Lease; SIGTERM to the
# holder releases it and the other takes over within a couple of seconds; a
# leader stalled past the lease duration is replaced and exits when resumed.
# A `dralloc controller --leader-elect` takes its own lease, and a
# `dralloc serve --leader-elect` runs its scheduler and controller under
# theirs. Every wait is bounded.
# Usage: leader_election_suite.sh DRALLOC_BINARY
set -uo pipefail
cd "$(dirname "$0")/../.."
dralloc=$(realpath "$1")
source tests/clients/lib.sh
start_server "$dralloc"

kubectl() { command kubectl.1.33 "$@"; }
command -v kubectl.1.33 >/dev/null || kubectl() { command kubectl "$@"; }

# Short periods so the test is quick; the same ratios as upstream's defaults.
elect_flags=(--leader-elect --leader-elect-lease-duration 3s
  --leader-elect-renew-deadline 2s --leader-elect-retry-period 500ms)
pids=()
start_scheduler() {  # start_scheduler NAME
  "$dralloc" scheduler --kubeconfig "$KUBECONFIG" "${elect_flags[@]}" \
    >"$work/$1.out" 2>"$work/$1.log" &
  pids+=($!)
}
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  cleanup
}
trap stop_all EXIT

lease_field() {  # lease_field NAME PYTHON-EXPR-ON-spec
  kubectl get lease "$1" -n kube-system -o json 2>/dev/null |
    python3 -c "import json,sys; s=json.load(sys.stdin)['spec']; print($2)"
}
holder() { lease_field "${1:-dralloc-scheduler}" "s.get('holderIdentity', '')"; }
# wait_for SECONDS CMD...: CMD succeeds within SECONDS (10 tries a second).
wait_for() {
  local tries=$(($1 * 10))
  shift
  for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  "$@"
}

start_scheduler a
start_scheduler b
has_holder() { [[ -n "$(holder)" ]]; }
check "one scheduler acquires the lease" wait_for 10 has_holder
sleep 1.5  # a few retry periods, so a second acquisition would show
first=$(holder)
# Identities are hostname_<uuid>; which process is which: its log names it.
holder_pid=""
for i in 0 1; do
  name=$([[ $i == 0 ]] && echo a || echo b)
  grep -qF "$first acquired" "$work/$name.log" && holder_pid=${pids[$i]} && holder_log=$name
done
exactly_one() {
  local acquired
  acquired=$(cat "$work/a.log" "$work/b.log" | grep -c " acquired lease ")
  [[ $acquired == 1 && -n "$holder_pid" ]] || { echo "acquisitions: $acquired holder: $first"; cat "$work"/*.log; return 1; }
}
check "exactly one holds it" exactly_one
check "the lease has upstream's shape" bash -c \
  "[[ \$(kubectl get lease dralloc-scheduler -n kube-system -o jsonpath='{.spec.leaseDurationSeconds}') == 3 ]] &&
   kubectl get lease dralloc-scheduler -n kube-system -o jsonpath='{.spec.renewTime}' | grep -Eq '\\.[0-9]{6}Z\$'"
transitions_before=$(lease_field dralloc-scheduler "s.get('leaseTransitions', 0)")

stopped_at=$(date +%s.%N)
kill -TERM "$holder_pid"
exited() { ! kill -0 "$holder_pid" 2>/dev/null; }
check "the holder exits on SIGTERM" wait_for 5 exited
check "the holder released the lease" grep -q "released lease kube-system/dralloc-scheduler" "$work/$holder_log.log"
other_holds() { local h; h=$(holder); [[ -n "$h" && "$h" != "$first" ]]; }
check "the other takes over within 3 s" wait_for 3 other_holds
took=$(python3 -c "import time; print(round(time.time() - $stopped_at, 2))")
echo "    hand-over took ${took}s"
check "leaseTransitions counted the hand-over" bash -c \
  "[[ \$(kubectl get lease dralloc-scheduler -n kube-system -o jsonpath='{.spec.leaseTransitions}') -gt $transitions_before ]]"

# A leader that stalls (SIGSTOP) past the lease duration is replaced; when it
# resumes its renewals fail, it stops leading and exits 1 (lease lost).
second_pid=${pids[0]}
[[ $second_pid == "$holder_pid" ]] && second_pid=${pids[1]}
second=$(holder)
start_scheduler c
kill -STOP "$second_pid"
third_holds() { local h; h=$(holder); [[ -n "$h" && "$h" != "$second" && "$h" != "$first" ]]; }
check "a stalled leader is replaced after the lease duration" wait_for 10 third_holds
kill -CONT "$second_pid"
(sleep 10 && kill -9 "$second_pid" 2>/dev/null) &  # bound the wait
timer_pid=$!
wait "$second_pid"
second_status=$?
kill "$timer_pid" 2>/dev/null
check "the resumed leader exits 1 (lease lost)" test "$second_status" = 1
check "it said why" grep -q "leader election lost" "$work/$([[ $second_pid == "${pids[0]}" ]] && echo a || echo b).log"

# A controller elects on its own lease.
"$dralloc" controller --kubeconfig "$KUBECONFIG" "${elect_flags[@]}" \
  >"$work/controller.out" 2>"$work/controller.log" &
pids+=($!)
controller_holds() { [[ -n "$(holder dralloc-controller)" ]]; }
check "the controller takes lease dralloc-controller" wait_for 10 controller_holds
bad_durations() {
  local out code
  out=$("$dralloc" scheduler --kubeconfig "$KUBECONFIG" --leader-elect --leader-elect-renew-deadline 20s 2>&1)
  code=$?
  [[ $code == 2 ]] && grep -q "leaseDuration must be greater than renewDeadline" <<<"$out" || { echo "exit $code: $out"; return 1; }
}
check "inconsistent durations are rejected (exit 2)" bad_durations

# `dralloc serve --leader-elect`: its scheduler and controller each take
# their lease from the serve process's own API server, schedule, and release
# both leases on SIGTERM.
"$dralloc" serve --listen 127.0.0.1:0 --storage "sqlite:$work/serve-data" "${elect_flags[@]}" \
  >"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
pids+=($serve_pid)
serve_listening() { grep -q "listening on" "$work/serve.out"; }
check "serve --leader-elect starts" wait_for 10 serve_listening
serve_url=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -1)
ks() { kubectl --server "$serve_url" "$@"; }
serve_leads_both() {
  [[ -n "$(ks get lease dralloc-scheduler -n kube-system -o jsonpath='{.spec.holderIdentity}')" &&
     -n "$(ks get lease dralloc-controller -n kube-system -o jsonpath='{.spec.holderIdentity}')" ]]
}
check "serve holds leases dralloc-scheduler and dralloc-controller" wait_for 10 serve_leads_both
serve_schedules() {
  ks apply -f examples/scheduling >/dev/null || return 1
  local unbound
  for _ in $(seq 150); do
    unbound=$(ks get pods -n demo -o jsonpath='{range .items[?(@.spec.nodeName=="")]}{.metadata.name} {end}')
    [[ -z "$unbound" && -n "$(ks get pods -n demo -o name)" ]] && return 0
    sleep 0.2
  done
  echo "still unbound: $unbound"
  return 1
}
check "the elected scheduler and controller bind every demo pod" serve_schedules
kill -TERM "$serve_pid"
serve_exited() { ! kill -0 "$serve_pid" 2>/dev/null; }
check "serve exits on SIGTERM" wait_for 10 serve_exited
check "serve released both leases" bash -c \
  "grep -q 'released lease kube-system/dralloc-scheduler' '$work/serve.log' &&
   grep -q 'released lease kube-system/dralloc-controller' '$work/serve.log'"
finish
