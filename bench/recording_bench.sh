#!/bin/sh
# Bounded-memory analyze and streaming import (issue 14 item 1): writes 1 h, 24 h and 7 d
# recordings of 8 GPUs at 1 Hz with bench/recording_make, then times `gpuvet analyze` on each
# with its peak RSS (/usr/bin/time -v), and `gpuvet import` of the query-CSV and the dmon log of
# the same rows beside `sqlite3 .import` of that CSV into one table (the peer), in the same run.
# Wall time on a shared machine follows its load: the CPU time (user + sys) is printed too.
#   bench/recording_bench.sh [BUILD_DIR (Release, default build/rel)] [HOURS ...]
# IMPORT_MAX_HOURS (default 24): the longest run whose logs are imported. OLD_LAYOUT=1 also times
# `analyze` of the same samples written in schema version 2 (child rows in tables of their own).
set -eu
build=${1:-build/rel}
[ $# -gt 0 ] && shift
hours=${*:-1 24 168}
import_max=${IMPORT_MAX_HOURS:-24}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() {  # label, command...: prints wall and CPU seconds and max RSS in MB
  label=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")
  user=$(sed -n 's/.*User time (seconds): //p' "$tmp/time")
  sys=$(sed -n 's/.*System time (seconds): //p' "$tmp/time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
  printf '%-34s wall %8s  cpu %6.2f s  max RSS %7.1f MB\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
for h in $hours; do
  logs=""
  [ "$h" -le "$import_max" ] && logs="--csv $tmp/$h.csv --dmon $tmp/$h.dmon"
  "$build/bench/recording_make" --hours "$h" --out "$tmp/$h.gpuvet" $logs >/dev/null
  size=$(du -m "$tmp/$h.gpuvet" | cut -f1)
  echo "== ${h} h x 8 GPUs at 1 Hz: $((h * 3600)) samples, ${size} MB file"
  measure "gpuvet analyze" "$build/gpuvet" analyze "$tmp/$h.gpuvet" --now 2026-01-01T00:00:00Z
  rm -f "$tmp/$h.gpuvet"
  if [ "${OLD_LAYOUT:-0}" = 1 ]; then
    "$build/bench/recording_make" --hours "$h" --out "$tmp/$h.v2.gpuvet" --schema-version 2 >/dev/null
    measure "gpuvet analyze (version 2 file)" "$build/gpuvet" analyze "$tmp/$h.v2.gpuvet" \
      --now 2026-01-01T00:00:00Z
    rm -f "$tmp/$h.v2.gpuvet"
  fi
  if [ -n "$logs" ]; then
    echo "   logs: query CSV $(du -m "$tmp/$h.csv" | cut -f1) MB, dmon $(du -m "$tmp/$h.dmon" | cut -f1) MB, $((h * 3600 * 8)) rows"
    measure "gpuvet import (query CSV)" "$build/gpuvet" import "$tmp/$h.csv" -o "$tmp/$h.imp"
    rm -f "$tmp/$h.imp"
    measure "gpuvet import (dmon)" "$build/gpuvet" import "$tmp/$h.dmon" -o "$tmp/$h.imp"
    rm -f "$tmp/$h.imp" "$tmp/$h.dmon"
    tail -n +2 "$tmp/$h.csv" > "$tmp/$h.rows"
    measure "sqlite3 .import (same rows)" sqlite3 "$tmp/$h.db" \
      "CREATE TABLE t(ts,i,u,m,mu,mt,p,temp,clk);" ".mode csv" ".import $tmp/$h.rows t"
    rm -f "$tmp/$h.db" "$tmp/$h.rows" "$tmp/$h.csv"
  fi
done
