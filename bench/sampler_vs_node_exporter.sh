#!/usr/bin/env bash
# CPU cost of gpuvet's host sampling per sample next to prometheus-node-exporter's per scrape, in
# the same run on the same /proc. node_exporter runs on a loopback port twice: with its default
# collectors, and with only the collectors that read what gpuvet's host sampler reads (cpu, stat,
# pressure, meminfo, vmstat, diskstats, netdev). Its CPU time is utime+stime from /proc/PID/stat
# across N scrapes; gpuvet's is the process CPU time per Take from bench/sampler_bench.
#
# Usage: bench/sampler_vs_node_exporter.sh [N scrapes, default 200]
#   GPUVET_BUILD_DIR=build   reuse an existing build (default: build/bench, Release, built here)
#   NODE_EXPORTER=/path      the exporter binary (default /usr/bin/prometheus-node-exporter)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
exporter="${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}"
build="${GPUVET_BUILD_DIR:-build/bench}"
[ -x "$exporter" ] || { echo "no node exporter at $exporter (apt install prometheus-node-exporter)" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is needed to scrape the exporter" >&2; exit 2; }

if [ -z "${GPUVET_BUILD_DIR:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target sampler_bench -j "$(nproc)" >/dev/null
bench="$build/bench/sampler_bench"

hz=$(getconf CLK_TCK)
# utime + stime of a pid, in clock ticks (fields 14 and 15, counted after the "(comm)" field).
ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

# Runs the exporter with the given flags; prints "ms_per_scrape bytes_per_scrape".
measure_exporter() {
  local port=$((20000 + RANDOM % 20000))
  "$exporter" --web.listen-address="127.0.0.1:$port" "$@" >/dev/null 2>&1 &
  local pid=$!
  trap 'kill $pid 2>/dev/null || true' RETURN
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null && break
    sleep 0.05
  done
  for _ in 1 2 3; do curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null; done  # warm up
  local bytes
  bytes=$(curl -sf "http://127.0.0.1:$port/metrics" | wc -c)
  local t0 t1
  t0=$(ticks "$pid")
  for _ in $(seq "$n"); do curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null; done
  t1=$(ticks "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$n" -v b="$bytes" \
    'BEGIN { printf "%.3f %d\n", d * 1000 / hz / n, b }'
}

read -r full_ms full_bytes < <(measure_exporter)
read -r same_ms same_bytes < <(measure_exporter --collector.disable-defaults --collector.cpu \
  --collector.stat --collector.pressure --collector.meminfo --collector.vmstat \
  --collector.diskstats --collector.netdev)

gpuvet_us=$("$bench" --benchmark_filter='BM_TakeHostOnly$' --benchmark_min_time=2 \
  --benchmark_format=json 2>/dev/null | awk -F': ' '/"proc_cpu_us"/ { gsub(/[ ,]/, "", $2); print $2 }')

echo "Host sampling CPU cost on $(nproc) CPUs, $(uname -r), $n scrapes:"
awk -v f="$full_ms" -v fb="$full_bytes" -v s="$same_ms" -v sb="$same_bytes" -v g="$gpuvet_us" 'BEGIN {
  gm = g / 1000
  printf "  node_exporter, default collectors : %8.3f ms CPU per scrape (%d bytes)\n", f, fb
  printf "  node_exporter, gpuvet'"'"'s sources   : %8.3f ms CPU per scrape (%d bytes)\n", s, sb
  printf "  gpuvet host sampler               : %8.3f ms CPU per sample\n", gm
  if (gm > 0) printf "  gpuvet is %.1fx cheaper than the same-sources scrape, %.1fx than the default\n", s / gm, f / gm
}'
