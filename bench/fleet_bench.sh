#!/usr/bin/env bash
# `gpuvet fleet audit` at fleet scale: copies the fleet fixture's reports to NODES nodes (each with
# three check reports over the day and a bench report, host names rewritten), then prints the wall
# time and peak RSS of the audit over that directory (median of RUNS runs).
#   bench/fleet_bench.sh [GPUVET_BINARY] [NODES] [RUNS]     (default build/gpuvet 1000 3)
# Build the binary in Release for figures worth quoting; the script says which one it ran.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/gpuvet}
NODES=${2:-1000}
RUNS=${3:-3}
SRC=tests/fixtures/fleet/day/reports
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpuvet-fleet-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# Three checks of gpu-node-05 (rising ECC) and one bench of gpu-node-01 per node.
for i in $(seq -w 1 "$NODES"); do
  mkdir -p "$DIR/node-$i"
  for f in "$SRC"/gpu-node-05/check-*.json; do
    sed "s/gpu-node-05/node-$i/" "$f" >"$DIR/node-$i/$(basename "$f")"
  done
  cp "$SRC"/gpu-node-01/bench-*.json "$DIR/node-$i/"
done
files=$(find "$DIR" -type f | wc -l)
bytes=$(du -sb "$DIR" | cut -f1)
echo "fleet audit over $NODES nodes: $files reports, $((bytes / 1048576)) MiB ($BIN)"
for r in $(seq 1 "$RUNS"); do
  /usr/bin/time -f "%e %M" -o "$DIR.time" "$BIN" fleet audit --reports "$DIR" \
    --now 2026-01-02T00:00:00Z --format json >/dev/null || true
  read -r wall rss < <(tail -n 1 "$DIR.time")
  echo "run $r: wall ${wall} s, peak RSS $((rss / 1024)) MiB"
done
rm -f "$DIR.time"
