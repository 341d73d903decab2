#!/usr/bin/env bash
# @kubernetes/client-node 1.4.0 (pinned by client-node/package-lock.json)
# against `dralloc apiserver`, with node's test runner.
#
# Usage: client_node_suite.sh DRALLOC_BINARY
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
source "$here/lib.sh"

cd "$here/client-node"
if ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
fi
start_server "$dralloc"
node --test --test-reporter=spec client_node_test.mjs
