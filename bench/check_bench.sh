#!/usr/bin/env bash
# Builds (Release) and runs the `gpuvet check` benchmark: wall time and peak RSS on the 8-GPU
# fixture with the fake NVML. Usage: bench/check_bench.sh [extra Google Benchmark flags]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench --target check_bench -j "$(nproc)"
exec build/bench/bench/check_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
