#!/usr/bin/env bash
# The README's two commands. On a fresh Debian 12 machine this installs the missing Debian
# packages, builds gpuvet, and then either runs `gpuvet check` on this machine or runs the whole
# test suite (unit and end-to-end golden tests, built with ASan+UBSan).
#
#   scripts/dev.sh check [gpuvet check flags…]
#   scripts/dev.sh test     (also the gates: clang-format check, warnings as errors, clang-tidy)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
JOBS=${JOBS:-$(nproc)}

# What a Release build of gpuvet needs (scripts/device-check.sh and the Dockerfile's build stage
# install exactly these, tests/scripts/package_test.sh checks the Dockerfile against them) …
BUILD_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libpugixml-dev
  libsqlite3-dev zlib1g-dev
)
# … and what the test suite adds: the format and clang-tidy gates, clang and its sanitizer/libFuzzer
# runtimes, the test frameworks, the real components the tests run against (Prometheus,
# node_exporter, Chromium, OpenSSL, sqlite3), and the packaging and deploy-asset checkers.
TEST_PACKAGES=(
  clang-format clang-tidy clang libclang-rt-14-dev sqlite3
  libcpp-httplib-dev openssl
  libgtest-dev libgmock-dev libbenchmark-dev
  prometheus prometheus-node-exporter
  dpkg-dev file groff-base python3-yaml curl
  chromium
)

# install_packages [build]: the build packages only, or (default) build and test packages.
install_packages() {
  local missing=() wanted=("${BUILD_PACKAGES[@]}")
  [ "${1:-}" = build ] || wanted+=("${TEST_PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build DIR [cmake args…]
build() {
  local dir=$1
  shift
  cmake -S "$ROOT" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}

cmd=${1:-}
shift || true
case "$cmd" in
  check)
    install_packages build
    build "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release -DGPUVET_BUILD_TESTS=OFF
    echo "== build/release/gpuvet check $*"
    exec "$ROOT/build/release/gpuvet" check "$@"
    ;;
  test)
    install_packages
    # One build serves the whole suite: Debug with AddressSanitizer + UndefinedBehaviorSanitizer,
    # so every unit and end-to-end test also runs under the sanitizers (two builds would double
    # the time on a 2-core machine). GPUVET_TEST_BUILD_TYPE=RelWithDebInfo GPUVET_SANITIZE=OFF
    # runs the same suite on an optimised plain build.
    build_type=${GPUVET_TEST_BUILD_TYPE:-Debug}
    sanitize=${GPUVET_SANITIZE:-ON}
    # The test build is clang's, with libFuzzer's coverage instrumentation, so the fuzz targets
    # (fuzz/, docs/fuzzing.md) come out of the same build and run below for a short fixed budget.
    # GPUVET_TEST_COMPILER=gcc builds it with g++ instead: the fuzz targets then link a replay
    # driver that only runs their kept inputs in ctest.
    compiler=${GPUVET_TEST_COMPILER:-clang}
    fuzz=OFF
    if [[ $compiler == clang ]]; then
      export CC=clang CXX=clang++
      fuzz=ON
    else
      export CC=gcc CXX=g++
    fi
    # The gates come first and fail fast: unformatted project files, then (in the build) any
    # compiler warning in project code.
    echo "== format check (scripts/check-format.sh)"
    "$ROOT/scripts/check-format.sh"
    echo "== build ($compiler, $build_type, sanitizers $sanitize, fuzz targets $fuzz, warnings as" \
      "errors) and run the test suite"
    build "$ROOT/build/test" -DCMAKE_BUILD_TYPE="$build_type" -DGPUVET_SANITIZE="$sanitize" \
      -DGPUVET_WERROR=ON -DGPUVET_FUZZ="$fuzz"
    # clang-tidy on the files of scripts/tidy-files.txt, with this build's compile_commands.json.
    echo "== clang-tidy gate (scripts/check-tidy.sh)"
    JOBS="$JOBS" "$ROOT/scripts/check-tidy.sh" "$ROOT/build/test"
    # tests/lsan.supp: leaks inside third-party libraries (cuBLASLt, NCCL) the bench test loads.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      LSAN_OPTIONS=suppressions="$ROOT/tests/lsan.supp" \
      ctest --test-dir "$ROOT/build/test" -j "$JOBS" --output-on-failure
    if [[ $fuzz == ON ]]; then
      # Every fuzz target for a short fixed budget from its seeds; any crash fails CI.
      secs=${GPUVET_CI_FUZZ_SECONDS:-12}
      echo "== fuzz: every target for ${secs} s, $JOBS at a time (scripts/fuzz.sh --all)"
      GPUVET_FUZZ_BUILD="$ROOT/build/test" GPUVET_BIN="$ROOT/build/test/gpuvet" \
        "$ROOT/scripts/fuzz.sh" --all "$secs" "$JOBS"
    fi
    ;;
  *)
    echo "usage: scripts/dev.sh check [gpuvet check flags…] | scripts/dev.sh test" >&2
    exit 2
    ;;
esac
