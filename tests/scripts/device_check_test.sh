#!/usr/bin/env bash
# scripts/device-check.sh end to end against the fake libcuda.so.1 (no build: --gpuvet): a healthy
# node exits 0 and leaves summary.txt + device-check.tar.gz; a missing driver and a hung driver
# call exit 1 with the reason in the summary; missing build packages exit 3 with the apt-get line.
# Usage: device_check_test.sh GPUVET FAKE_LIBCUDA SRC
set -u
gpuvet=$1 fake=$2 src=$3
base=${GPUVET_TEST_TMPDIR:-${TMPDIR:-/tmp}}
mkdir -p "$base" && tmp=$(mktemp -d "$base/device-check-test.$$.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export GPUVET_CUBLASLT_LIB=none GPUVET_NCCL_LIB=none
fixtures="$src/tests/fixtures/bench"
args="--plan tiny --root $fixtures/healthy-h100/root"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect NAME CODE BUDGET PATTERN [env...]: runs the script with the env and a --timeout of BUDGET
# seconds, checks its exit code, the two files it must leave, and PATTERN in summary.txt. The
# script keeps 20 s of the budget for itself, so bench's own watchdog gets BUDGET - 20 - the time
# `check` took: the healthy runs get room for a sanitizer build on a loaded 2-core machine, the
# hang run a short watchdog so the test stays quick.
expect() {
  local name=$1 code=$2 budget=$3 pattern=$4
  shift 4
  local out="$tmp/$name"
  env "$@" "$src/scripts/device-check.sh" --out "$out" --gpuvet "$gpuvet" --timeout "$budget" \
    --no-reference --bench-args "$args" >"$tmp/$name.log" 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || fail "$name: exit $rc, expected $code ($(tail -n 3 "$tmp/$name.log"))"
  [ -s "$out/summary.txt" ] || fail "$name: no summary.txt"
  tar -tzf "$out/device-check.tar.gz" 2>/dev/null | grep -q 'device-check/bench.json$' ||
    fail "$name: device-check.tar.gz lacks bench.json"
  [ "$(ls "$out" | wc -l)" -eq 2 ] || fail "$name: expected 2 files in --out, got: $(ls "$out")"
  grep -q -- "$pattern" "$out/summary.txt" || fail "$name: '$pattern' not in summary.txt"
}

expect healthy 0 60 'verdict: HEALTHY' GPUVET_CUDA_LIB="$fake" \
  GPUVET_FAKE_CUDA_SCENARIO="$fixtures/healthy-h100/cuda.json"
expect no-driver 1 60 '"state": "driver_missing"' GPUVET_CUDA_LIB="$tmp/none/libcuda.so.1"
expect hang 1 24 'inside cuMemcpyDtoDAsync_v2' GPUVET_CUDA_LIB="$fake" \
  GPUVET_FAKE_CUDA_SCENARIO="$fixtures/driver-hang/cuda.json"

# A fresh box: dpkg-query knows no package, so the script prints the apt-get line and exits 3
# before cmake runs (--timeout 5 and a scratch build dir bound it if it did not).
mkdir -p "$tmp/shim"
printf '#!/bin/sh\nexit 1\n' >"$tmp/shim/dpkg-query"
chmod +x "$tmp/shim/dpkg-query"
PATH="$tmp/shim:$PATH" "$src/scripts/device-check.sh" --out "$tmp/fresh" --build-dir "$tmp/build" \
  --timeout 5 --no-reference >"$tmp/fresh.log" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "fresh box: exit $rc, expected 3 ($(tail -n 3 "$tmp/fresh.log"))"
grep -q 'apt-get install -y --no-install-recommends .*libfmt-dev' "$tmp/fresh/summary.txt" ||
  fail "fresh box: no apt-get line with libfmt-dev in summary.txt"
grep -q 'libgtest-dev' "$tmp/fresh/summary.txt" && fail "fresh box: test-only package listed"
[ -e "$tmp/build/CMakeCache.txt" ] && fail "fresh box: cmake ran although packages are missing"

[ "$failures" = 0 ] && echo "device-check script: all cases passed"
exit "$failures"
