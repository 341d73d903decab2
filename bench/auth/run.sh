#!/usr/bin/env bash
# The API write benchmark with the security layer on, side by side with
# plain HTTP in one run. Per run, two fresh `dralloc serve`s on SQLite (the quota controller fills quota status):
#   plain  http://, no authentication or authorization;
#   tls    https:// with client certificates (`dralloc certs init`),
#          --authorization-mode Node,RBAC, and a ResourceQuota on
#          count/resourceclaims.resource.k8s.io, resourceclaims and the
#          claims' DeviceClass in the benchmark namespace;
# each driven by `dralloc_api_load writes` (create, get, update of
# ResourceClaims). The tls load runs as user bench-writer (a client
# certificate; not system:masters), bound to the `edit` ClusterRole in the
# namespace by a RoleBinding, so every request is authenticated, authorized
# by RBAC and every create is charged to the quota. Each client keeps one
# connection, so the TLS handshake is paid once per client, as client-go.
#
#   bash bench/auth/run.sh [--runs 3] [--clients 64] [--duration 10]
#        [--rate R] [--smoke] [--dralloc PATH] [--load PATH]
#        [--kubectl PATH] [--keep]
#
# --rate R: open loop at R requests/s in all (a write is 2 of every 3
#   requests), so the p99 is that of a server offered R/s rather than one run
#   at saturation. --smoke: 1 run, 4 clients, 1 s. --keep: keep the work
#   directory (server logs, certificates, reports) and print its path.
# Prints one line per run and a table of medians: writes/s (creates +
# updates), p50/p99 of the writes; then tls/plain writes/s and the goal
# (tls writes/s >= 75% of plain, tls p99 <= 10 ms), which is reported, not
# enforced. Exit 1 when a run failed (a server did not start, setup failed,
# any request failed), 2 on bad usage.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
runs=3 clients=64 duration=10 rate="" keep=0
dralloc="$REPO/build/src/cli/dralloc" load="$REPO/build/bench/load/dralloc_api_load"
kubectl_bin=$(command -v kubectl || true)
while (($#)); do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --dralloc) dralloc=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --kubectl) kubectl_bin=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --smoke) runs=1 clients=4 duration=1; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x "$dralloc" ]] || { echo "run.sh: dralloc not found at $dralloc" >&2; exit 2; }
[[ -x "$load" ]] || { echo "run.sh: dralloc_api_load not found at $load" >&2; exit 2; }
[[ -n "$kubectl_bin" && -x "$kubectl_bin" ]] || { echo "run.sh: kubectl not found (--kubectl PATH)" >&2; exit 2; }
if ! "$dralloc" --help 2>&1 | grep -qE '^ +certs '; then
  echo "run.sh: $dralloc has no 'certs' subcommand (build a dralloc with TLS serving)" >&2
  exit 2
fi

namespace=load-bench user=bench-writer
work=$(mktemp -d /tmp/dralloc-auth-bench.XXXXXX)
server_pid=""
stop() {
  [[ -n "$server_pid" ]] && { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
  server_pid=""
}
finish() {
  stop
  if ((keep)); then echo "run.sh: kept $work"; else rm -rf "$work"; fi
}
trap finish EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for_url DIR SCHEME: sets server_url from the server's "listening on"
# line; fails if the server exits or does not print it within 30 s.
wait_for_url() {
  local dir=$1 scheme=$2
  server_url=""
  for _ in $(seq 300); do
    server_url=$(sed -n "s/^dralloc serve listening on \\($scheme:[^ ]*\\).*/\\1/p" "$dir/server.out" | head -1)
    [[ -n $server_url ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run.sh: the server in $dir did not start (no 'listening on $scheme://' line)" >&2
  cat "$dir/server.out" "$dir/server.err" >&2
  return 1
}

start_plain() {  # start_plain DIR: sets server_url, load_args
  local dir=$1
  mkdir -p "$dir"
  "$dralloc" serve --listen 127.0.0.1:0 --storage "sqlite:$dir/data" --log-level warn \
    >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  wait_for_url "$dir" http || return 1
  load_args=(--server "$server_url")
}

# step DIR WHAT CMD...: runs CMD with its output in DIR/setup.log; on failure
# says which setup step failed and shows the output.
step() {
  local dir=$1 what=$2
  shift 2
  echo "\$ $*" >>"$dir/setup.log"
  if ! "$@" >>"$dir/setup.log" 2>&1; then
    echo "run.sh: setup failed: $what" >&2
    tail -20 "$dir/setup.log" >&2
    return 1
  fi
}

# retry_step DIR WHAT CMD...: step, tried for up to 10 s (the server may still
# be bootstrapping its default roles when it starts listening). CMD must be
# a create that fails without effect.
retry_step() {
  local until=$((SECONDS + 10))
  while ((SECONDS < until)); do
    step "$@" 2>/dev/null && return 0
    sleep 0.1
  done
  step "$@"
}

# Certificates, kubeconfigs and the server; sets server_url.
start_tls_server() {
  local dir=$1 pki=$1/pki port
  port=$(free_port)
  step "$dir" "dralloc certs init" "$dralloc" certs init "$pki" \
    --server "https://127.0.0.1:$port" --hosts 127.0.0.1,localhost --nodes n1 || return 1
  step "$dir" "dralloc certs kubeconfig for $user" "$dralloc" certs kubeconfig "$pki" \
    --user "$user" --out "$dir/$user.kubeconfig" || return 1
  "$dralloc" serve --listen "127.0.0.1:$port" --storage "sqlite:$dir/data" --log-level warn \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --authorization-mode Node,RBAC \
    >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  wait_for_url "$dir" https
}

# The namespace, the user's RoleBinding to `edit`, and a quota far above
# what a run creates, whose status the quota controller must have filled in
# (upstream's admission refuses creates while a quota's usage is unknown).
setup_namespace() {
  local dir=$1
  local -a admin=("$kubectl_bin" --kubeconfig "$dir/pki/admin.kubeconfig" --request-timeout=20s
    --cache-dir "$dir/kube-cache")
  retry_step "$dir" "create namespace $namespace" "${admin[@]}" create namespace "$namespace" || return 1
  retry_step "$dir" "bind $user to ClusterRole edit" "${admin[@]}" -n "$namespace" create rolebinding \
    "$user-edit" --clusterrole=edit --user="$user" || return 1
  cat >"$dir/quota.yaml" <<YAML
apiVersion: v1
kind: ResourceQuota
metadata: {name: bench-quota, namespace: $namespace}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "1000000"
    gpu.example.com.deviceclass.resource.k8s.io/devices: "1000000"
YAML
  step "$dir" "create ResourceQuota bench-quota" "${admin[@]}" create -f "$dir/quota.yaml" || return 1
  local hard=""
  for _ in $(seq 100); do
    hard=$("${admin[@]}" -n "$namespace" get resourcequota bench-quota \
      -o 'jsonpath={.status.hard}' 2>>"$dir/setup.log" || true)
    [[ -n $hard ]] && break
    sleep 0.1
  done
  [[ -n $hard ]] || { echo "run.sh: setup failed: bench-quota has no status.hard after 10 s" >&2; return 1; }
  local can
  can=$("$kubectl_bin" --kubeconfig "$dir/$user.kubeconfig" --request-timeout=20s \
    --cache-dir "$dir/kube-cache" -n "$namespace" \
    auth can-i create resourceclaims.resource.k8s.io 2>>"$dir/setup.log" || true)
  [[ $can == yes ]] || { echo "run.sh: setup failed: $user may not create resourceclaims in $namespace (can-i: ${can:-error})" >&2; return 1; }
}

start_tls() {  # start_tls DIR: sets server_url, load_args
  local dir=$1
  mkdir -p "$dir"
  start_tls_server "$dir" || return 1
  setup_namespace "$dir" || return 1
  load_args=(--kubeconfig "$dir/$user.kubeconfig")
}

results="$work/results.tsv"
: >"$results"
failed=0
echo "API writes: $clients clients, $duration s, ${rate:+open loop at $rate/s, }$runs run(s) per mode"
echo "  plain: http, no auth; tls: https + client certificate ($user, edit in $namespace) + Node,RBAC + ResourceQuota"
for run in $(seq "$runs"); do
  for mode in plain tls; do
    dir="$work/$mode-$run"
    if ! "start_$mode" "$dir"; then failed=1; stop; continue; fi
    "$load" writes "${load_args[@]}" --namespace "$namespace" --clients "$clients" \
      --duration "$duration" ${rate:+--rate "$rate"} --json >"$dir/report.json" 2>"$dir/load.err" ||
      { failed=1; cat "$dir/load.err" >&2; }
    stop
    python3 - "$dir/report.json" "$mode" "$run" >>"$results" <<'PY' || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
ops = r["ops"]
writes = ops["create"]["ops_per_second"] + ops["update"]["ops_per_second"]
p50 = max(ops["create"]["latency_ms"]["p50"], ops["update"]["latency_ms"]["p50"])
p99 = max(ops["create"]["latency_ms"]["p99"], ops["update"]["latency_ms"]["p99"])
errors = r["total"]["failed"]
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{writes:.0f}\t{p50:.2f}\t{p99:.2f}\t{errors}")
PY
    tail -1 "$results" | awk -F'\t' -v m="$mode" -v r="$run" '$1 == m && $2 == r {
      printf "  %-6s run %s: %s writes/s, p50 %s ms, p99 %s ms, errors %s\n", $1, $2, $3, $4, $5, $6
      if ($6 != 0) exit 1 }' || failed=1
  done
done
python3 - "$results" "$clients" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, run, writes, p50, p99, errors = line.split("\t")
    rows.setdefault(mode, []).append((float(writes), float(p50), float(p99)))
print(f'{"mode":<7} {"runs":>4} {"writes/s":>9} {"p50 ms":>7} {"p99 ms":>7}   (medians)')
med = {}
for mode, rs in rows.items():
    med[mode] = [statistics.median(x) for x in zip(*rs)]
    print(f'{mode:<7} {len(rs):>4} {med[mode][0]:>9.0f} {med[mode][1]:>7.2f} {med[mode][2]:>7.2f}')
if "plain" in med and "tls" in med and med["plain"][0] > 0:
    ratio = med["tls"][0] / med["plain"][0]
    p99 = med["tls"][2]
    print(f'tls/plain writes/s: {ratio:.2f}')
    print(f'goal at {sys.argv[2]} clients: tls writes/s >= 0.75 x plain: {ratio:.2f} '
          f'({"met" if ratio >= 0.75 else "not met"}); tls p99 <= 10 ms: {p99:.2f} ms '
          f'({"met" if p99 <= 10 else "not met"})')
PY
exit $failed
