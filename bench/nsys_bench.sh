#!/usr/bin/env bash
# `gpuvet trace` on a generated multi-process Nsight Systems export: the "multigpu" export of
# tests/data/nsys/make_synthetic.sql (two torchrun ranks, one GPU each) scaled to N kernels and N
# launches per rank, read, split into ranks and analysed. Prints rows, file size, best-of-3 wall
# time, peak RSS and rows per second.
# Needs sqlite3 and /usr/bin/time (Debian packages `sqlite3`, `time`).
#   bench/nsys_bench.sh [KERNELS_PER_RANK]        (default 500000: 2 M rows, ~88 MB)
# GPUVET=path/to/gpuvet measures that binary instead of building a Release one in build/bench.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-500000}
if [ -z "${GPUVET:-}" ]; then
  cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/bench --target gpuvet -j "$(nproc)" >/dev/null
  GPUVET=build/bench/gpuvet
fi
DB=$(mktemp -d)/multigpu-$N.sqlite
trap 'rm -rf "$(dirname "$DB")"' EXIT
awk '/^-- @@export multigpu/{p=1;next} /^-- @@export/{p=0} p' tests/data/nsys/make_synthetic.sql |
  sed "s/WHERE i < 499)/WHERE i < $((N - 1)))/" | sqlite3 "$DB"
rows=$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) +
  (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME)")
mb=$(awk -v b="$(wc -c <"$DB")" 'BEGIN{printf "%.1f", b/1048576}')
best=""
for _ in 1 2 3; do
  t0=$EPOCHREALTIME
  "$GPUVET" trace "$DB" --format json >/dev/null
  t1=$EPOCHREALTIME
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; fi
done
kb=$(/usr/bin/time -f "%M" "$GPUVET" trace "$DB" --format json 2>&1 >/dev/null | tail -1)
ranks=$("$GPUVET" trace "$DB" --format json | grep -o '"subject": *"rank [0-9]*"' | sort -u | wc -l)
printf "%-10s %10s %8s %6s %9s %10s %12s\n" kernels rows "file MB" ranks "wall s" "peak MB" "rows/s"
printf "%-10s %10s %8s %6s %9s %10.0f %12.0f\n" "2x$N" "$rows" "$mb" "$ranks" "$best" \
  "$(awk -v k="$kb" 'BEGIN{print k/1024}')" "$(awk -v r="$rows" -v s="$best" 'BEGIN{print r/s}')"
