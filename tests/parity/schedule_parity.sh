#!/usr/bin/env bash
# The offline what-if and `dralloc serve` give the same placements: every
# golden scheduling case (tests/golden/schedule/<case>.yaml) is stored with
# kubectl (a client nobody here wrote) by a bare `dralloc apiserver`
# (namespaces, cluster objects, then pods in file order), then `dralloc
# serve` starts on that data, and the pods' nodes and pending reasons must
# equal the case's .expect file, which the what-if golden test checks
# offline. Cases whose pods use ResourceClaimTemplates are skipped (see
# below).
#
# Usage: schedule_parity.sh DRALLOC_BINARY [CASE_DIR...]
# Prints PASS/FAIL per case and "N passed, M failed"; exit 1 on a failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dralloc=$(realpath "$1")
shift
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=("$repo/tests/golden/schedule")
source "$repo/tests/clients/lib.sh"
export DRALLOC_SERVER_COMMAND=serve
wait_s=${PARITY_TIMEOUT:-20}

kubectl_bin=$(command -v kubectl)
k() { "$kubectl_bin" --cache-dir "$work/cache" --request-timeout=20s "$@"; }

# Splits CASE into $work/split/{0-namespaces,1-cluster,2-pods}.yaml and
# $work/split/status.jsonl (kind, namespace, name, status of every object
# that has one: the API ignores status on create).
split_case() {
  python3 "$here/split_case.py" "$1" "$work/split"
}

# Writes the statuses split_case found.
write_statuses() {
  local kind ns name status
  while IFS=$'\t' read -r kind ns name status; do
    local args=(patch "$kind" "$name" --subresource=status --type=merge -p "{\"status\": $status}")
    [[ $ns == - ]] || args+=(-n "$ns")
    k "${args[@]}" >/dev/null
  done <"$work/split/status.tsv"
}

# Prints "ns/pod node" or "ns/pod pending MESSAGE" per pod of this scheduler,
# sorted, once every pod is bound or has its Unschedulable condition and
# nothing changed for a second.
placements() {
  local last="" now stable=0
  for _ in $(seq $((wait_s * 4))); do
    now=$(k get pods -A -o json | python3 "$here/pod_placements.py")
    if [[ $now != WAITING && $now == "$last" ]]; then
      stable=$((stable + 1))
      [[ $stable -lt 4 ]] || { printf '%s\n' "$now"; return 0; }
    else
      stable=0
    fi
    last=$now
    sleep 0.25
  done
  printf '%s\n' "$last"
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  rm -f "$work/server.out"
}

run_case() {
  local case=$1 expect=${1%.yaml}.expect
  rm -rf "$work/split" "$work/data" "$work/cache" "$work/server.out"
  split_case "$case"
  # Everything is stored by a bare API server first, so that the scheduler
  # starts with all objects there, as the what-if's does.
  DRALLOC_SERVER_COMMAND=apiserver start_server "$dralloc"
  # Objects the API refuses (the case's "error" lines) are left out, as
  # offline.
  k apply -f "$work/split/0-namespaces.yaml" >/dev/null
  [[ ! -s "$work/split/1-cluster.yaml" ]] || k apply -f "$work/split/1-cluster.yaml" >/dev/null 2>&1 || true
  k apply -f "$work/split/2-pods.yaml" >/dev/null 2>&1 || true
  write_statuses
  stop_server
  local options=()
  read -ra options < <(sed -n 's/^option placement=\(.*\)/--placement \1/p' "$expect")
  start_server "$dralloc" --scheduler-name dralloc-scheduler "${options[@]}"
  placements >"$work/got"
  python3 "$here/compare_placements.py" "$expect" "$work/got" >"$work/diff" 2>&1
}

for dir in "${dirs[@]}"; do
  for case in "$dir"/*.yaml; do
    [[ -f ${case%.yaml}.expect ]] || continue
    name=$(basename "$case" .yaml)
    if grep -q resourceClaimTemplateName "$case"; then
      # Generated claims appear at times that differ between one process
      # and several, and so does the order in which their pods become
      # schedulable: such cases only hold offline.
      echo "SKIP: $name (claims from templates)"
      continue
    fi
    if run_case "$case"; then
      check "$name" true
    else
      check "$name" bash -c 'cat "$1"; false' - "$work/diff"
    fi
    stop_server
  done
done
finish
