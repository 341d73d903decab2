#!/usr/bin/env bash
# Formats the C++ sources with clang-format (Google base, .clang-format).
# --check: change nothing, fail if any file would change.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.h' 'src/*.cc' 'bench/*.h' 'bench/*.cc' 2>/dev/null || find src bench -name '*.h' -o -name '*.cc')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run -Werror "${files[@]}"
  echo "clang-format: ${#files[@]} files clean"
else
  clang-format -i "${files[@]}"
fi
