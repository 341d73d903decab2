#!/usr/bin/env bash
# Crash test for `dralloc apiserver`: acknowledged writes survive kill -9.
#
# Usage: crash_test.sh DRALLOC_BINARY [DRALLOC_API_LOAD_BINARY]
#
# Each round runs a storm of ResourceClaim creates (dralloc_api_load when
# given, else crash_client.py) that logs every acknowledged (HTTP 201) name
# and resourceVersion, kills the server with SIGKILL while the storm runs,
# restarts it on the same data directory and checks that
#   - every acknowledged claim exists with resourceVersion >= the acknowledged
#     one,
#   - a new write gets a resourceVersion greater than every acknowledged one,
#   - a watch from the last acknowledged resourceVersion and one from the list
#     resourceVersion both deliver the event of a new write.
# Finally the server is stopped with SIGTERM and restarted once more.
# Every wait is bounded. The last line is "N passed, M failed"; the exit
# status is non-zero when a check failed.
#
# Environment: CRASH_ROUNDS (default 2), STORM_SECONDS (default 6),
# KILL_AFTER_SECONDS (default 1.5), KEEP_WORKDIR=1 keeps the temp directory.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 DRALLOC_BINARY [DRALLOC_API_LOAD_BINARY]" >&2
  exit 2
fi
dralloc=$(realpath "$1")
loadgen=${2:+$(realpath "$2")}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
client="$here/crash_client.py"
rounds=${CRASH_ROUNDS:-2}
storm_seconds=${STORM_SECONDS:-6}
kill_after=${KILL_AFTER_SECONDS:-1.5}
namespace=default

work=$(mktemp -d /tmp/dralloc-crash.XXXXXX)
data="$work/data"
server_pid=""
storm_pid=""
port=""
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# expect NAME CONDITION...: runs the condition (a command) and counts it.
expect() {
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}

# Waits up to $2 tenths of a second for process $1 to exit; 0 if it did.
wait_exit() {
  local pid=$1 tenths=$2 i
  for ((i = 0; i < tenths; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  return 1
}

stop_storm() {
  [[ -n $storm_pid ]] || return 0
  if ! wait_exit "$storm_pid" $(((${storm_seconds%.*} + 15) * 10)); then
    kill -9 "$storm_pid" 2>/dev/null || true
    wait "$storm_pid" 2>/dev/null || true
  fi
  storm_pid=""
}

cleanup() {
  if [[ -n $storm_pid ]]; then kill -9 "$storm_pid" 2>/dev/null || true; fi
  if [[ -n $server_pid ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait_exit "$server_pid" 50 || kill -9 "$server_pid" 2>/dev/null || true
  fi
  if [[ ${KEEP_WORKDIR:-0} == 1 || $failed -gt 0 ]]; then
    echo "work directory kept: $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# start_server LABEL: starts the server on $data and waits (20 s at most) for
# its "listening on" line; sets server_pid and port.
start_server() {
  local log="$work/server-$1" line i
  "$dralloc" apiserver --listen 127.0.0.1:0 --storage "sqlite:$data" \
    >"$log.out" 2>"$log.err" &
  server_pid=$!
  for ((i = 0; i < 200; i++)); do
    # The background job may not have created $log.out yet.
    line=$(grep -m1 -o 'dralloc apiserver listening on http://127\.0\.0\.1:[0-9]*' \
      "$log.out" 2>/dev/null || true)
    if [[ -n $line ]]; then
      port=${line##*:}
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "server exited: $(tail -n 5 "$log.err")" >&2
      wait "$server_pid" 2>/dev/null || true
      server_pid=""
      return 1
    fi
    sleep 0.1
  done
  echo "server not ready after 20 s: $(tail -n 5 "$log.err")" >&2
  return 1
}

kill_server_hard() {
  kill -9 "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# start_storm ROUND ACKFILE: creates claims in the background.
start_storm() {
  local round=$1 ack=$2
  if [[ -n $loadgen ]]; then
    "$loadgen" writes --server "http://127.0.0.1:$port" --clients 4 \
      --duration "$storm_seconds" --namespace "$namespace" --mix create \
      --ack-log "$ack" --run-id "crash$round" >"$work/storm-$round.log" 2>&1 &
  else
    python3 "$client" storm --port "$port" --namespace "$namespace" \
      --ack-log "$ack" --seconds "$storm_seconds" --threads 4 \
      --prefix "crash-r$round" >"$work/storm-$round.log" 2>&1 &
  fi
  storm_pid=$!
}

# value KEY FILE: the value of a key=value line.
value() { sed -n "s/^$1=//p" "$2" | head -n 1; }

acked_files_nonempty() { [[ -s $1 ]]; }
is_zero() { [[ $1 == 0 ]]; }
greater() { [[ -n $1 && -n $2 && $1 =~ ^[0-9]+$ && $1 -gt $2 ]]; }
process_alive() { kill -0 "$1" 2>/dev/null; }

# check_watch LABEL FROM_RV: a watch from FROM_RV delivers a new write.
check_watch() {
  local label=$1 from=$2 out="$work/watch-$1.out" status=0
  python3 "$client" watch --port "$port" --namespace "$namespace" \
    --from-rv "$from" --timeout 10 >"$out" 2>"$out.err" || status=$?
  if [[ $status == 3 ]]; then
    echo "watch from rv $from answered 410 Expired: $(cat "$out.err")" >&2
  elif [[ $status != 0 ]]; then
    echo "watch from rv $from: $(tail -n 3 "$out.err")" >&2
  fi
  [[ $status == 0 ]]
}

# verify LABEL: durability checks against every ack log so far.
verify_acks() {
  local label=$1 out="$work/verify-$1.out" status=0
  python3 "$client" verify --port "$port" --namespace "$namespace" \
    "${ack_logs[@]}" >"$out" 2>"$out.err" || status=$?
  [[ $status == 2 ]] && echo "list failed: $(cat "$out" "$out.err")" >&2
  expect "$label: every acknowledged claim exists ($(value acked "$out") acknowledged, missing $(value missing "$out"))" \
    is_zero "$(value missing "$out")"
  expect "$label: every acknowledged claim has resourceVersion >= acknowledged (older $(value older "$out"))" \
    is_zero "$(value older "$out")"
  expect "$label: the ack log is well-formed (malformed $(value malformed "$out"))" \
    is_zero "$(value malformed "$out")"
  max_acked=$(value max_acked_rv "$out")
  list_rv=$(value list_rv "$out")
  [[ -s $out.err ]] && head -n 5 "$out.err" >&2
  return 0
}

ack_logs=()
max_acked=0
list_rv=""

echo "dralloc crash test: $dralloc, work directory $work"
if ! start_server initial; then
  fail "server starts on a fresh data directory"
  echo "$passed passed, $failed failed"
  exit 1
fi
pass "server starts on a fresh data directory (port $port)"

for ((round = 1; round <= rounds; round++)); do
  ack="$work/acked-$round.txt"
  : >"$ack"
  ack_logs+=("$ack")
  start_storm "$round" "$ack"
  # Kill once the storm is acknowledging writes, then a little later.
  for ((i = 0; i < 100; i++)); do
    [[ -s $ack ]] && break
    sleep 0.1
  done
  sleep "$kill_after"
  storm_running=0
  process_alive "$storm_pid" && storm_running=1
  kill_server_hard
  expect "round $round: storm had acknowledged creates before the kill ($(wc -l <"$ack") so far)" \
    acked_files_nonempty "$ack"
  expect "round $round: the storm was still running at the kill" is_zero $((1 - storm_running))
  stop_storm
  echo "round $round: $(wc -l <"$ack") creates acknowledged in all"

  if ! start_server "round$round"; then
    fail "round $round: server restarts on the same data directory after kill -9"
    break
  fi
  pass "round $round: server restarts on the same data directory after kill -9"
  verify_acks "round $round"

  out="$work/create-$round.out"
  python3 "$client" create --port "$port" --namespace "$namespace" \
    --name "crash-after-$round" >"$out" 2>&1 || true
  new_rv=$(value rv "$out")
  expect "round $round: a new write gets resourceVersion $new_rv > every acknowledged ($max_acked)" \
    greater "$new_rv" "$max_acked"
  expect "round $round: a watch from the last acknowledged resourceVersion ($max_acked) delivers a new write" \
    check_watch "round$round-acked" "$max_acked"
  if [[ $list_rv =~ ^[0-9]+$ ]]; then
    expect "round $round: a watch from the list resourceVersion ($list_rv) delivers a new write" \
      check_watch "round$round-list" "$list_rv"
  else
    fail "round $round: the list has a numeric resourceVersion (got '$list_rv')"
  fi
done

if [[ -n $server_pid ]]; then
  pid=$server_pid
  kill -TERM "$pid"
  if wait_exit "$pid" 100; then
    server_pid=""
    pass "server stops on SIGTERM within 10 s"
  else
    fail "server stops on SIGTERM within 10 s"
    kill_server_hard
  fi
  if start_server clean; then
    pass "server restarts after a clean stop"
    verify_acks "after clean stop"
  else
    fail "server restarts after a clean stop"
  fi
fi

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
