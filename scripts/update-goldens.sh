#!/usr/bin/env bash
# Regenerates the fixture trees and rewrites every golden output (expected.txt / expected.json)
# from the current binary. Review `git diff tests/fixtures` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/test}
python3 tests/fixtures/generate.py >/dev/null
python3 tests/fixtures/traces/generate.py >/dev/null
python3 tests/fixtures/trace-compare/generate.py >/dev/null
python3 tests/fixtures/bench/generate.py >/dev/null
cmake -S . -B "$BUILD" -G Ninja >/dev/null
cmake --build "$BUILD" --target e2e_test gpuvet fake_nvml fake_cuda make_recordings
GPUVET_UPDATE_GOLDEN=1 "$BUILD/tests/e2e/e2e_test" --gtest_filter='Fixtures*:TraceFixtures*:TraceCompareFixtures*:BenchFixtures*:AnalyzeFixtures*'
# The exporter's exposition golden (tests/e2e/exporter/).
cmake --build "$BUILD" --target exporter_e2e_test
GPUVET_UPDATE_GOLDEN=1 "$BUILD/tests/e2e/exporter_e2e_test" --gtest_filter='ExporterE2E.ServesTheGoldenExposition'
git status --short tests/fixtures tests/e2e/exporter
