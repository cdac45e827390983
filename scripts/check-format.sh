#!/usr/bin/env bash
# Fails (exit 1) when a tracked C/C++ file of the project is not formatted as .clang-format says,
# listing each file; `scripts/check-format.sh --fix` formats them in place instead. Uses Debian's
# clang-format (the version CI installs), so every developer and CI agree.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$CLANG_FORMAT" >/dev/null || { echo "check-format: $CLANG_FORMAT not found (apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- 'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'tests/*.c' 'bench/*.cc' 'bench/*.h' 'fuzz/*.cc' 'fuzz/*.h')
if [[ ${1:-} == --fix ]]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
# One run over every file; each violation is reported as "FILE:LINE:COL: error: …".
mapfile -t bad < <("$CLANG_FORMAT" --dry-run --Werror "${files[@]}" 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} file(s) not clang-formatted (scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
