#!/usr/bin/env bash
# `gpuvet fleet audit` at fleet scale against its Python anchor, in the same run: copies the fleet
# fixture's reports to NODES nodes (each with three check reports over the day and a bench report,
# host names rewritten, every 97th node on another driver so drift fires), then prints the wall
# time and peak RSS of the audit over that directory and of bench/fleet_anchor.py (a json.load
# loop computing the same pools, majorities and drift) for each of RUNS runs.
#   bench/fleet_bench.sh [GPUVET_BINARY] [NODES] [RUNS]     (default build/gpuvet 1000 3)
# Build the binary in Release for figures worth quoting; the script says which one it ran.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/gpuvet}
NODES=${2:-1000}
RUNS=${3:-3}
SRC=tests/fixtures/fleet/day/reports
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpuvet-fleet-bench.XXXXXX")
trap 'rm -rf "$DIR" "$DIR.time" "$DIR.json" "$DIR.py"' EXIT

# Three checks of gpu-node-05 (rising ECC) and one bench of gpu-node-01 per node.
for i in $(seq -w 1 "$NODES"); do
  mkdir -p "$DIR/node-$i"
  driver=550.90.07
  [ $((10#$i % 97)) -eq 0 ] && driver=550.54.15
  for f in "$SRC"/gpu-node-05/check-*.json; do
    sed -e "s/gpu-node-05/node-$i/" -e "s/\"driver_version\": \"550.90.07\"/\"driver_version\": \"$driver\"/" \
      "$f" >"$DIR/node-$i/$(basename "$f")"
  done
  cp "$SRC"/gpu-node-01/bench-*.json "$DIR/node-$i/"
done
files=$(find "$DIR" -type f | wc -l)
bytes=$(du -sb "$DIR" | cut -f1)
echo "fleet audit over $NODES nodes: $files reports, $((bytes / 1048576)) MiB ($BIN)"
for r in $(seq 1 "$RUNS"); do
  /usr/bin/time -f "%e %M" -o "$DIR.time" "$BIN" fleet audit --reports "$DIR" \
    --now 2026-01-02T00:00:00Z --format json >"$DIR.json" || true
  read -r wall rss < <(tail -n 1 "$DIR.time")
  drift=$(grep -c '"id": "fleet.driver_drift"' "$DIR.json" || true)
  echo "run $r: gpuvet  wall ${wall} s, peak RSS $((rss / 1024)) MiB (driver drift findings: $drift)"
  /usr/bin/time -f "%e %M" -o "$DIR.time" python3 bench/fleet_anchor.py "$DIR" >"$DIR.py"
  read -r wall rss < <(tail -n 1 "$DIR.time")
  echo "run $r: python  wall ${wall} s, peak RSS $((rss / 1024)) MiB ($(cat "$DIR.py"))"
done
rm -f "$DIR.json" "$DIR.py"
