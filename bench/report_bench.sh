#!/usr/bin/env bash
# `gpuvet report` on a 24 h × 8 GPU × 1 Hz recording (bench/report_recording.cc): the time to
# render the page (the whole command: read the recording, analyse it, downsample, write the page),
# its size, and the time chromium takes to open it — the headless --dump-dom wall time of the page
# minus that of an empty page in the same run (chromium's own start-up), best of 3 each.
# Issue 13 targets: render < 2 s, open < 2 s, page <= ~2 MB.
# Usage: bench/report_bench.sh [BUILD_DIR]   (default build/rel, configured Release here)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/rel}
if [ ! -x "$build/gpuvet" ] || [ ! -x "$build/bench/report_recording" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target gpuvet report_recording -j "${JOBS:-2}"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rec=$tmp/day.gpuvet
"$build/bench/report_recording" "$rec"
echo "recording: $(du -m "$rec" | cut -f1) MiB, 86400 samples x 8 GPUs"
best() { sort -g | head -1; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
render=$(for i in 1 2 3; do secs "$build/gpuvet" report "$rec" -o "$tmp/day.html"; done | best)
size=$(stat -c %s "$tmp/day.html")
echo "render: ${render} s (best of 3), page ${size} bytes ($(echo "scale=2; $size/1048576" | bc) MiB)"
printf '<!DOCTYPE html><html><body>empty</body></html>' >"$tmp/empty.html"
chrome() { HOME=$tmp chromium --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$tmp/profile" --dump-dom "file://$1"; }
empty=$(for i in 1 2 3; do secs chrome "$tmp/empty.html"; done | best)
page=$(for i in 1 2 3; do secs chrome "$tmp/day.html"; done | best)
echo "chromium --dump-dom: empty page ${empty} s, report ${page} s: open $(echo "$page - $empty" | bc) s"
