#!/usr/bin/env bash
# Device check: on a machine with an NVIDIA GPU, builds gpuvet (Release, no tests) and runs
#   gpuvet check --format json / text, and gpuvet bench --quick --format json / text
# within a total budget (default 300 s), leaving every output, its stderr and exit code, and a
# summary of the key figures in one folder. On a machine without a driver it still runs
# `gpuvet check` (which says why) and then exits 1 with "no NVIDIA driver". See docs/bench.md.
#
# Usage: scripts/device-check.sh [--out DIR] [--build-dir DIR] [--timeout SECONDS] [--no-build]
#                                [--gpuvet PATH] [-h|--help]
set -u -o pipefail

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

repo=$(cd "$(dirname "$0")/.." && pwd)
out=./device-check-out
build_dir="$repo/build-device-check"
budget=300
build=1
gpuvet=""

while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift 2 ;;
    --timeout)
      budget=${2:?--timeout needs seconds}
      case "$budget" in '' | *[!0-9]*) echo "device-check: --timeout must be whole seconds" >&2; exit 2 ;; esac
      shift 2 ;;
    --no-build) build=0; shift ;;
    --gpuvet) gpuvet=${2:?--gpuvet needs a path}; build=0; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "device-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p "$out" || { echo "device-check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
start=$(date +%s)
log="$out/device-check.log"
: >"$log"

say() { echo "device-check: $*" | tee -a "$log" >&2; }
left() { echo $((budget - ($(date +%s) - start))); }

# run NAME SECONDS CMD...: stdout to NAME, stderr to NAME.err, exit code to NAME.rc.
run() {
  local name=$1 limit=$2
  shift 2
  if [ "$limit" -le 0 ]; then
    say "$name: skipped, the ${budget}s budget is spent"
    echo 124 >"$out/$name.rc"
    return 124
  fi
  local t0 rc
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" >"$out/$name" 2>"$out/$name.err"
  rc=$?
  echo "$rc" >"$out/$name.rc"
  say "$name: exit $rc in $(($(date +%s) - t0))s"
  return "$rc"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id \
    --format=csv,noheader 2>&1
} >"$out/environment.txt"

if [ "$build" = 1 ]; then
  # A Release build of the binary only: tests and benches are not needed on the device.
  run build-configure.txt "$(left)" cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    -DGPUVET_BUILD_TESTS=OFF || { say "configure failed (see build-configure.txt.err)"; exit 3; }
  jobs=$(nproc 2>/dev/null || echo 4)
  run build.txt "$(left)" cmake --build "$build_dir" --target gpuvet -j "$jobs" ||
    { say "build failed (see build.txt.err)"; exit 3; }
  gpuvet="$build_dir/gpuvet"
fi
[ -n "$gpuvet" ] || gpuvet="$build_dir/gpuvet"
[ -x "$gpuvet" ] || { say "no gpuvet binary at $gpuvet"; exit 3; }

# check never needs the driver to say something useful; a fail (exit 1) is a result, not an error.
run check.json "$(left)" "$gpuvet" check --format json
run check.txt "$(left)" "$gpuvet" check --format text --color never

driver=1
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [ ! -e /proc/driver/nvidia/version ]; then
  driver=0
fi
if [ "$driver" = 1 ]; then
  run bench.json "$(left)" "$gpuvet" bench --quick --format json
  run bench.txt "$(left)" "$gpuvet" bench --quick --format text --color never
fi

# Key figures: per GPU the median of each measurement, the bench and check verdicts.
summarize() {
  echo "# device-check summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - start)) s)"
  for f in check.json bench.json; do
    [ -s "$out/$f" ] || continue
    python3 - "$out/$f" <<'PY' 2>/dev/null || echo "$f: unreadable"
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
name = path.rsplit("/", 1)[-1]
v = doc.get("verdict", {})
print(f"{name}: verdict {v.get('severity')} counts {v.get('counts')}")
for g in doc.get("gpus", []):
    print(f"  gpu{g.get('index')}: {g.get('name')} {g.get('pci_bus_id')} pcie {g.get('pcie')}")
for m in doc.get("measurements", []):
    where = f"gpu{m['gpu']}" + (f"->gpu{m['peer']}" if m.get("peer", -1) >= 0 else "")
    if m.get("skipped"):
        print(f"  {where:12} {m['id']:22} skipped: {m['skipped']}")
    else:
        print(f"  {where:12} {m['id']:22} {m['median']:>12} {m['unit']}  [{m['min']} .. {m['max']}]")
for f in doc.get("findings", []):
    if f.get("severity") != "ok":
        print(f"  {f['severity']:7} {f['id']}  {f['subject']}: {f['summary']}")
PY
  done
}
summarize >"$out/summary.txt"
cat "$out/summary.txt" >&2

if [ "$driver" = 0 ]; then
  say "no NVIDIA driver (libcuda.so.1 not found): gpuvet bench skipped; check outputs are in $out"
  exit 1
fi
say "outputs in $out"
exit 0
