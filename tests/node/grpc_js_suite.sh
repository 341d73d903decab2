#!/usr/bin/env bash
# Wire compatibility with an independent gRPC implementation: @grpc/grpc-js
# and @grpc/proto-loader (pinned by grpc-js/package-lock.json) play the
# kubelet against `dralloc driver example` and a DRA driver against
# `dralloc node`, over real unix sockets; and node faults around drivers
# (node_agent_faults.test.mjs: two drivers with one name, a stale
# registration socket, unsupported versions, an unknown CDI ID, the agent
# killed with -9 during an unprepare) with the grpc-js test driver
# (test_driver.mjs).
#
# Usage: grpc_js_suite.sh DRALLOC_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export DRALLOC=$(realpath "$1")
cd "$here/grpc-js"
if ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node --test --test-reporter=spec --test-concurrency=1 example_driver.test.mjs node_agent.test.mjs \
  node_agent_faults.test.mjs
