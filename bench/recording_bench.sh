#!/bin/sh
# Bounded-memory analyze and batched import (issue 14 item 1): writes 1 h, 24 h and 7 d
# recordings of 8 GPUs at 1 Hz with bench/recording_make, then times `gpuvet analyze` on each
# with its peak RSS (/usr/bin/time -v), and `gpuvet import` of the query-CSV log of the same rows
# beside `sqlite3 .import` of that CSV into one table (the peer), in the same run.
#   bench/recording_bench.sh [BUILD_DIR (Release, default build/rel)] [HOURS ...]
set -eu
build=${1:-build/rel}
[ $# -gt 0 ] && shift
hours=${*:-1 24 168}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() {  # label, command...: prints wall seconds and max RSS in MB
  label=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
  printf '%-34s wall %8s  max RSS %7.1f MB\n' "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
}
for h in $hours; do
  csv=""
  [ "$h" -le 24 ] && csv="--csv $tmp/$h.csv"
  "$build/bench/recording_make" --hours "$h" --out "$tmp/$h.gpuvet" $csv >/dev/null
  size=$(du -m "$tmp/$h.gpuvet" | cut -f1)
  echo "== ${h} h x 8 GPUs at 1 Hz: $((h * 3600)) samples, ${size} MB file"
  measure "gpuvet analyze" "$build/gpuvet" analyze "$tmp/$h.gpuvet" --now 2026-01-01T00:00:00Z
  if [ -n "$csv" ]; then
    measure "gpuvet import (query CSV)" "$build/gpuvet" import "$tmp/$h.csv" -o "$tmp/$h.imp"
    rm -f "$tmp/$h.imp"
    tail -n +2 "$tmp/$h.csv" > "$tmp/$h.rows"
    measure "sqlite3 .import (same rows)" sqlite3 "$tmp/$h.db" \
      "CREATE TABLE t(ts,i,u,m,mu,mt,p,temp,clk);" ".mode csv" ".import $tmp/$h.rows t"
    rm -f "$tmp/$h.db" "$tmp/$h.rows" "$tmp/$h.csv"
  fi
  rm -f "$tmp/$h.gpuvet"
done
