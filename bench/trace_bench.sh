#!/usr/bin/env bash
# `gpuvet trace` beside HTA: wall time and peak RSS of the whole process on every shared trace
# that has an HTA reference (HTA's figures come from hta_reference/*/usr_bin_time.txt, measured on
# this kind of machine), then throughput on a generated trace (default 1024 MB).
# Needs /usr/bin/time (Debian package `time`) and python3 for the generator.
#   bench/trace_bench.sh [BIG_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
BIG_MB=${1:-1024}
DATA=../shared/data/traces
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench --target gpuvet -j "$(nproc)" >/dev/null
GPUVET=build/bench/gpuvet

input_of() {  # HTA reference case -> the trace it was computed from
  case "$1" in
    resnet50_*_worker0) echo "$DATA/kineto_tb_plugin/${1%_worker0}" ;;
    h100_before_fix) echo "$DATA/kineto_tb_plugin/docs_traces/before_fix_trace.json" ;;
    h100_after_fix) echo "$DATA/kineto_tb_plugin/docs_traces/after_fix_trace.json" ;;
    *) echo "$DATA/hta/$1" ;;
  esac
}

# Best of 5: "seconds max_rss_kb". Wall time from bash's $EPOCHREALTIME around the bare run
# (/usr/bin/time's %e has 10 ms steps, as long as a small trace takes, and timing through it
# would add its own start-up); peak RSS from one run under /usr/bin/time (%M).
measure() {  # measure FILE [EXTRA TRACE ARGS...]
  local best="" t0 t1 s kb in=$1
  shift
  for _ in 1 2 3 4 5; do
    t0=$EPOCHREALTIME
    "$GPUVET" trace "$in" "$@" --format json >/dev/null 2>&1
    t1=$EPOCHREALTIME
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; fi
  done
  kb=$(/usr/bin/time -f "%M" "$GPUVET" trace "$in" "$@" --format json 2>&1 >/dev/null | tail -1)
  echo "$best $kb"
}

uncompressed_mb() {
  local total=0 f
  for f in $(find "$1" -type f \( -name '*.json' -o -name '*.gz' \)); do
    if [[ $f == *.gz ]]; then n=$(zcat "$f" | wc -c); else n=$(wc -c <"$f"); fi
    total=$((total + n))
  done
  awk -v b="$total" 'BEGIN{printf "%.2f", b/1048576}'
}

printf "%-40s %9s | %8s %8s | %8s %8s | %8s %9s\n" case "input MB" "HTA s" "HTA MB" \
  "gpuvet s" "gpuvet MB" speedup "MB/s"
for ref in "$DATA"/hta_reference/*/; do
  name=$(basename "$ref")
  in=$(input_of "$name")
  [ -e "$in" ] || continue
  hta_s=$(grep "Elapsed (wall clock)" "$ref/usr_bin_time.txt" | awk -F': ' '{print $2}' |
    awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  hta_mb=$(grep "Maximum resident" "$ref/usr_bin_time.txt" | awk -F': ' '{printf "%.0f", $2/1024}')
  read -r s kb <<<"$(measure "$in")"
  mb=$(uncompressed_mb "$in")
  printf "%-40s %9s | %8s %8s | %8s %8.1f | %7.1fx %9.0f\n" "$name" "$mb" "$hta_s" "$hta_mb" "$s" \
    "$(awk -v k="$kb" 'BEGIN{print k/1024}')" \
    "$(awk -v a="$hta_s" -v b="$s" 'BEGIN{ if (b<=0) b=0.005; print a/b }')" \
    "$(awk -v m="$mb" -v b="$s" 'BEGIN{ if (b<=0) b=0.005; print m/b }')"
done

# What --target costs (the upgrade forecast's time-budget sweep) on the ResNet-50 traces: the same
# run with and without it. Their traces do not name the GPU (Volta kernels), hence --source.
printf "\n%-40s %10s %10s %8s\n" "--target cost" "trace s" "+target s" added
for d in "$DATA"/kineto_tb_plugin/resnet50_*/; do
  read -r s _ <<<"$(measure "$d")"
  read -r st _ <<<"$(measure "$d" --target H200 --source "V100 SXM2")"
  printf "%-40s %10s %10s %7.1f%%\n" "$(basename "$d")" "$s" "$st" \
    "$(awk -v a="$s" -v b="$st" 'BEGIN{ if (a<=0) a=0.001; print 100*(b-a)/a }')"
done

big=$(mktemp /tmp/gpuvet-big-XXXXXX.json)
trap 'rm -f "$big" "$big.gz"' EXIT
python3 bench/make_big_trace.py "$BIG_MB" "$big"
read -r s kb <<<"$(measure "$big")"
mb=$(uncompressed_mb "$big")
printf "%-40s %9s | %8s %8s | %8s %8.1f | %8s %9.0f\n" "generated (plain JSON)" "$mb" - - "$s" \
  "$(awk -v k="$kb" 'BEGIN{print k/1024}')" - "$(awk -v m="$mb" -v b="$s" 'BEGIN{print m/b}')"
gzip -1 -k "$big"
read -r s kb <<<"$(measure "$big.gz")"
printf "%-40s %9s | %8s %8s | %8s %8.1f | %8s %9.0f\n" "generated (.json.gz)" "$mb" - - "$s" \
  "$(awk -v k="$kb" 'BEGIN{print k/1024}')" - "$(awk -v m="$mb" -v b="$s" 'BEGIN{print m/b}')"
