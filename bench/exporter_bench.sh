#!/usr/bin/env bash
# Exporter benchmark: scrape latency from cache (p50/p99), RSS and CPU of `gpuvet exporter` on the
# 8-GPU fixture (fake NVML), side by side with prometheus-node-exporter scraped in the same run.
#
#   bench/exporter_bench.sh [BUILD_DIR]     (default build/, the Debug helper build; for release
#                                            figures: cmake -B build/bench -DCMAKE_BUILD_TYPE=Release
#                                            && cmake --build build/bench --target gpuvet fake_nvml)
# Env: SCRAPES (default 2000), COLLECT_S (seconds of idle collection at 100 ms, default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SCRAPES=${SCRAPES:-2000}
COLLECT_S=${COLLECT_S:-10}
GPUVET=$BUILD/gpuvet
FAKE=$BUILD/tests/fake_nvml/libnvidia-ml.so.1
FIX=tests/fixtures/healthy-8gpu
NODE_EXPORTER=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
TICK=$(getconf CLK_TCK)
[ -x "$GPUVET" ] && [ -f "$FAKE" ] || { echo "build gpuvet and fake_nvml in $BUILD first" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
wait_port() {  # wait_port FILE -> port from the exporter's "listening on" line
  for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://[^ ]*:\([0-9]*\)/metrics.*|\1|p' "$1")
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "no listening line in $1" >&2; cat "$1" >&2; exit 1
}
free_port() { echo $((20000 + RANDOM % 20000)); }  # node_exporter cannot report a port-0 bind

# scrape NAME URL GZIP PID: one curl process, SCRAPES sequential requests on a kept-alive
# connection; prints p50/p99/max latency, bytes, CPU ms per scrape and RSS after.
scrape() {
  local name=$1 url=$2 gzip=$3 pid=$4 urls=() t0 t1
  for _ in $(seq "$SCRAPES"); do urls+=(-o /dev/null "$url"); done  # -o applies to one URL
  local enc=()
  [ "$gzip" = gzip ] && enc=(-H 'Accept-Encoding: gzip')
  curl -s "${enc[@]}" -o /dev/null "$url"  # warm-up
  t0=$(cpu_ticks "$pid")
  curl -s "${enc[@]}" -w '%{time_total} %{size_download}\n' "${urls[@]}" > "$work/$name.lat"
  t1=$(cpu_ticks "$pid")
  sort -n "$work/$name.lat" | awk -v n="$SCRAPES" -v name="$name" -v cpu="$((t1 - t0))" \
    -v tick="$TICK" -v rss="$(rss_kib "$pid")" '
    { lat[NR] = $1 * 1000; bytes = $2 }
    END {
      p50 = lat[int(n * 0.50)]; p99 = lat[int(n * 0.99)]; max = lat[n]
      printf "%-28s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms  %7d B  CPU %6.3f ms/scrape  RSS %6.1f MB\n",
             name, p50, p99, max, bytes, cpu * 1000 / tick / n, rss / 1024
    }'
}

echo "== $SCRAPES scrapes each, sequential, one kept-alive connection ($(nproc) CPUs; $GPUVET)"
GPUVET_FAKE_NVML_SCENARIO=$FIX/nvml.json "$GPUVET" exporter --listen 127.0.0.1:0 \
  --root "$FIX/root" --nvml-lib "$FAKE" --collect-interval 15s 2> "$work/gpuvet.err" &
pids+=($!); gpid=$!
gport=$(wait_port "$work/gpuvet.err")
nport=$(free_port)
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$nport" > "$work/ne.log" 2>&1 &
pids+=($!); npid=$!
sleep 1

scrape "gpuvet exporter" "http://127.0.0.1:$gport/metrics" plain "$gpid"
scrape "gpuvet exporter (gzip)" "http://127.0.0.1:$gport/metrics" gzip "$gpid"
scrape "node-exporter" "http://127.0.0.1:$nport/metrics" plain "$npid"
scrape "node-exporter (gzip)" "http://127.0.0.1:$nport/metrics" gzip "$npid"
series=$(curl -s "http://127.0.0.1:$gport/metrics" | grep -vc '^#')
echo "gpuvet exporter: $series series for 8 GPUs"
kill "$gpid"; wait "$gpid" 2>/dev/null || true

echo "== collection cost: exporter at --collect-interval 100ms, unscraped, for ${COLLECT_S}s"
GPUVET_FAKE_NVML_SCENARIO=$FIX/nvml.json "$GPUVET" exporter --listen 127.0.0.1:0 \
  --root "$FIX/root" --nvml-lib "$FAKE" --collect-interval 100ms 2> "$work/gpuvet2.err" &
pids+=($!); cpid=$!
cport=$(wait_port "$work/gpuvet2.err")
sleep 1
c0=$(cpu_ticks "$cpid"); s0=$(date +%s.%N)
sleep "$COLLECT_S"
c1=$(cpu_ticks "$cpid"); s1=$(date +%s.%N)
dur=$(curl -s "http://127.0.0.1:$cport/metrics" | awk '/^gpuvet_exporter_collection_duration_seconds / {print $2}')
awk -v c="$((c1 - c0))" -v tick="$TICK" -v s0="$s0" -v s1="$s1" -v dur="$dur" -v rss="$(rss_kib "$cpid")" '
  BEGIN {
    elapsed = s1 - s0; cpu = c / tick
    # A collection starts every 100 ms or right after the previous one when it runs longer.
    period = dur > 0.1 ? dur : 0.1; n = elapsed / period
    per = cpu / n
    printf "CPU per collection %.1f ms (wall %.1f ms), RSS %.1f MB\n", per * 1000, dur * 1000, rss / 1024
    printf "at a 15 s interval: %.2f ms CPU per 15 s = %.3f %% of one CPU (plus one scrape)\n", per * 1000, per / 15 * 100
  }'
