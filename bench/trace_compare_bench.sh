#!/usr/bin/env bash
# `gpuvet trace A --compare B` against running `gpuvet trace` on A and on B, on the shared
# ResNet-50 traces: wall time (best of 5) and peak RSS. The comparison reads and analyses both
# runs once, so it should cost no more than 10 % over the two plain runs together.
# Needs /usr/bin/time (Debian package `time`).
#   bench/trace_compare_bench.sh            (builds build/bench, Release)
#   GPUVET=path/to/gpuvet bench/trace_compare_bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=../shared/data/traces/kineto_tb_plugin
if [ -z "${GPUVET:-}" ]; then
  cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/bench --target gpuvet -j "$(nproc)" >/dev/null
  GPUVET=build/bench/gpuvet
fi

best_of_5() {  # command… -> seconds
  local best="" t0 t1 s
  for _ in 1 2 3 4 5; do
    t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; fi
  done
  echo "$best"
}

rss_mb() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }

printf "%-58s %8s %8s %8s %7s | %7s %7s\n" "pair (A vs B)" "trace A" "trace B" "A+B s" \
  "compare" "over" "RSS MB"
for pair in "resnet50_2021feb_num_workers_0 resnet50_2021feb_num_workers_4" \
  "resnet50_2020dec_num_workers_0 resnet50_2021feb_num_workers_0"; do
  set -- $pair
  a=$DATA/$1 b=$DATA/$2
  ta=$(best_of_5 "$GPUVET" trace "$a" --format json)
  tb=$(best_of_5 "$GPUVET" trace "$b" --format json)
  tc=$(best_of_5 "$GPUVET" trace "$a" --compare "$b" --format json)
  rss=$(rss_mb "$GPUVET" trace "$a" --compare "$b" --format json)
  printf "%-58s %8s %8s %8s %7s | %6s%% %7s\n" "$1 vs $2" "$ta" "$tb" \
    "$(awk -v x="$ta" -v y="$tb" 'BEGIN{printf "%.3f", x+y}')" "$tc" \
    "$(awk -v x="$ta" -v y="$tb" -v c="$tc" 'BEGIN{printf "%+.1f", (c/(x+y)-1)*100}')" "$rss"
done
