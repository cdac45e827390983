#!/usr/bin/env bash
# The clang-tidy gate: runs .clang-tidy's checks on the files listed in scripts/tidy-files.txt
# (one path a line; # comments) and fails (exit 1) on any diagnostic, in them or in a project
# header they include, listing each. Only those files, so it stays fast; a file joins the list
# once it is clean. Needs a configured build for compile_commands.json:
#
#   scripts/check-tidy.sh [BUILD_DIR]     default build/test (scripts/dev.sh test passes it)
#
# Uses Debian's clang-tidy (the version CI installs: package clang-tidy), so every developer and
# CI agree. A header in the list is checked with the flags of a source file beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/test}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
JOBS=${JOBS:-$(nproc)}
command -v "$CLANG_TIDY" >/dev/null || { echo "check-tidy: $CLANG_TIDY not found (apt-get install clang-tidy)" >&2; exit 2; }
[[ -f $BUILD/compile_commands.json ]] || { echo "check-tidy: no $BUILD/compile_commands.json (configure the build first)" >&2; exit 2; }
mapfile -t files < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' scripts/tidy-files.txt | grep -v '^$')
for f in "${files[@]}"; do
  [[ -f $f ]] || { echo "check-tidy: $f (scripts/tidy-files.txt) does not exist" >&2; exit 2; }
done
# One clang-tidy per file, JOBS at a time; each prints its diagnostics ("FILE:LINE:COL: warning:
# … [check]") and exits non-zero on any (--warnings-as-errors).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -I{} "$CLANG_TIDY" -p "$BUILD" --quiet \
  --warnings-as-errors='*' {} >"$log" 2>&1 || status=1
if [[ $status -ne 0 ]]; then
  grep -E '(warning|error):' "$log" | sort -u >&2 || cat "$log" >&2
  echo "check-tidy: clang-tidy found the problems above (scripts/tidy-files.txt, .clang-tidy)" >&2
  exit 1
fi
echo "check-tidy: ${#files[@]} files clean"
