#!/usr/bin/env bash
# Builds `dralloc` from another commit (default 5b91771, the last before
# issue 23: the scheduler stopped at the first feasible node) into a
# separate directory, for run.sh --baseline-dralloc.
#
#   bash bench/scheduler/build_baseline.sh [COMMIT] [DIR]
#
# DIR defaults to /tmp/dralloc-baseline-COMMIT; the sources go to DIR/src
# (git archive, no worktree), the build to DIR/build (ccache when
# installed). Prints the binary's path on the last line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
commit="${1:-5b91771}"
dir="${2:-/tmp/dralloc-baseline-$commit}"
mkdir -p "$dir/src"
if [[ ! -f "$dir/src/CMakeLists.txt" ]]; then
  git -C "$ROOT" archive "$commit" | tar -x -C "$dir/src"
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -G Ninja -S "$dir/src" -B "$dir/build" -DDRALLOC_BUILD_BENCH=OFF \
  "${launcher[@]}" > "$dir/cmake.log"
cmake --build "$dir/build" -j 2 --target dralloc > "$dir/build.log"
echo "$dir/build/src/cli/dralloc"
