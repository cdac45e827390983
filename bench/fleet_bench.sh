#!/usr/bin/env bash
# `gpuvet fleet audit` at fleet scale against its Python anchor, in the same run: copies the fleet
# fixture's reports to NODES nodes (each with three check reports over the day and a bench report,
# host names rewritten, every 97th node on another driver so drift fires), then prints the wall
# time, CPU time (user + system) and peak RSS of the audit over that directory and of
# bench/fleet_anchor.py (a json.load loop computing the same pools, majorities and drift) for each
# of RUNS runs. On a shared machine the CPU time is the steadier figure: quote both.
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
python3 bench/fleet_make.py "$SRC" "$DIR" "$NODES"
files=$(find "$DIR" -type f | wc -l)
bytes=$(du -sb "$DIR" | cut -f1)
echo "fleet audit over $NODES nodes: $files reports, $((bytes / 1048576)) MiB ($BIN, $(nproc) cores)"
for r in $(seq 1 "$RUNS"); do
  # The load matters as much as the seconds on a shared machine: quote it with the figures.
  echo "run $r: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "%e %M %U %S" -o "$DIR.time" "$BIN" fleet audit --reports "$DIR" \
    --now 2026-01-02T00:00:00Z --format json >"$DIR.json" || true
  read -r wall rss user sys < <(tail -n 1 "$DIR.time")
  drift=$(grep -c '"id": "fleet.driver_drift"' "$DIR.json" || true)
  echo "run $r: gpuvet  wall ${wall} s, CPU ${user} s user + ${sys} s sys," \
    "peak RSS $((rss / 1024)) MiB (driver drift findings: $drift)"
  /usr/bin/time -f "%e %M %U %S" -o "$DIR.time" python3 bench/fleet_anchor.py "$DIR" >"$DIR.py"
  read -r wall rss user sys < <(tail -n 1 "$DIR.time")
  echo "run $r: python  wall ${wall} s, CPU ${user} s user + ${sys} s sys," \
    "peak RSS $((rss / 1024)) MiB ($(cat "$DIR.py"))"
done
rm -f "$DIR.json" "$DIR.py"
