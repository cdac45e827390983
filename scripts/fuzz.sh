#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/fuzzing.md).
#
#   scripts/fuzz.sh TARGET SECONDS        one target (fuzz_TARGET) for SECONDS
#   scripts/fuzz.sh --all SECONDS [JOBS]  every target, JOBS at a time (default 2); CI runs this
#   scripts/fuzz.sh --list                the target names
#
# Needs a build configured with -DGPUVET_FUZZ=ON (clang): $GPUVET_FUZZ_BUILD, default build/fuzz
# (scripts/dev.sh test uses build/test). The corpus of each target grows in
# BUILD/fuzz-corpus/TARGET (seeded by scripts/fuzz-seeds.sh), crash inputs land in
# BUILD/fuzz-artifacts/TARGET/, the log in BUILD/fuzz-logs/TARGET.log. Prints one line per target:
# executions, coverage (libFuzzer cov/ft), corpus size, crashes. Exits 1 when any target crashed
# (a crash, sanitizer report, leak, timeout of one input or out-of-memory); keep the input as
# fuzz/regressions/TARGET/NAME once fixed, so ctest replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${GPUVET_FUZZ_BUILD:-build/fuzz}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD

targets() {
  sed -n '/^set(GPUVET_FUZZ_TARGETS/,/^)/p' "$ROOT/fuzz/CMakeLists.txt" | sed '1d;$d' | tr -d ' '
}

run_one() {  # run_one TARGET SECONDS
  local t=$1 secs=$2
  local bin=$BUILD/fuzz/fuzz_$t corpus=$BUILD/fuzz-corpus/$t art=$BUILD/fuzz-artifacts/$t/
  local log=$BUILD/fuzz-logs/$t.log
  [[ -x $bin ]] || { echo "fuzz: $bin not built (cmake --build $BUILD --target fuzz_all)" >&2; return 2; }
  mkdir -p "$corpus" "$art" "$(dirname "$log")"
  GPUVET_BIN=${GPUVET_BIN:-$BUILD/gpuvet} "$ROOT/scripts/fuzz-seeds.sh" "$t" "$corpus" >/dev/null
  local before
  # libFuzzer also leaves slow-unit-* inputs there (slower than -report_slow_units): not failures.
  before=$(find "$art" -type f ! -name 'slow-unit-*' | wc -l)
  local rc=0
  # -timeout: one input taking 60 s is a hang (a 150 KB .json.gz that inflates to a 24,000-event
  # trace takes 2 s of CPU in the -O0 sanitized build and 12 s of wall time on a loaded 2-core
  # machine, so 10 s flagged slowness, not hangs); -rss_limit_mb: a parser that balloons is a bug.
  # -entropic=0: each input runs the rules and three renderers, so the features per input are
  # many, and entropic scheduling's bookkeeping of rare features took two thirds of the time
  # (measured: 30 → 100 executions/s on fuzz_env_file); GPUVET_FUZZ_FLAGS adds or overrides.
  (cd "$BUILD" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="$secs" -timeout=60 -report_slow_units=60 -rss_limit_mb=2048 \
    -max_len=262144 -entropic=0 \
    ${GPUVET_FUZZ_FLAGS:-} \
    -print_final_stats=1 -artifact_prefix="$art" "$corpus") >"$log" 2>&1 || rc=$?
  local execs cov ft crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(($(find "$art" -type f ! -name 'slow-unit-*' | wc -l) - before))
  printf 'fuzz %-14s %4ss  execs %-10s cov %-6s ft %-6s corpus %-6s crashes %s\n' "$t" "$secs" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$(find "$corpus" -type f | wc -l)" "$crashes"
  if [[ $rc -ne 0 || $crashes -gt 0 ]]; then
    echo "fuzz: $t FAILED (exit $rc); input(s) in $art, log $log:" >&2
    grep -m1 -A12 -E 'ERROR: |runtime error|SUMMARY|deadly signal' "$log" >&2 || tail -20 "$log" >&2
    return 1
  fi
}

case "${1:-}" in
  --list) targets ;;
  --all)
    secs=${2:?usage: scripts/fuzz.sh --all SECONDS [JOBS]}
    jobs=${3:-2}
    export -f run_one
    export BUILD ROOT
    targets | xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$secs"
    ;;
  ""|-h|--help) sed -n '2,15p' "$0"; exit 2 ;;
  *) run_one "$1" "${2:?usage: scripts/fuzz.sh TARGET SECONDS}" ;;
esac
