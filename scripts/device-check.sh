#!/usr/bin/env bash
# Device check: on a machine with an NVIDIA GPU, checks the build dependencies, builds gpuvet
# (Release, no tests) and runs gpuvet check and gpuvet bench --quick (JSON and text) within a total
# budget (default 300 s); with python3 + torch it also records PyTorch reference figures. Then it
# brings back real inputs for fixtures: the node's NVML answers (`gpuvet debug dump-nvml`), a
# recording (`gpuvet record`, up to 60 s) of a real workload (a PyTorch training loop when torch
# has CUDA, else `gpuvet bench --quick`) with a torch.profiler trace of a few of its steps, and
# `gpuvet analyze` / `gpuvet trace` of both. Leaves two files in --out: summary.txt and
# device-check.tar.gz (every output, stderr and exit code).
# Exit: 0 bench ran and nothing failed, 1 bench failed, timed out or could not run, 2 usage,
# 3 missing build dependencies or build failure. See docs/bench.md.
#
# Usage: scripts/device-check.sh [--out DIR] [--build-dir DIR] [--timeout SECONDS] [--no-build]
#                                [--gpuvet PATH] [--bench-args "ARGS"] [--no-reference]
#                                [--record-seconds N] [-h|--help]
set -u -o pipefail

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
}

repo=$(cd "$(dirname "$0")/.." && pwd)
out=./device-check-out
build_dir="$repo/build-device-check"
budget=300
build=1
gpuvet=""
bench_args=""
reference=1
record_seconds=60
margin=20 # seconds kept for gpuvet's own hang report, the summary and the archive

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
    --bench-args) bench_args=${2?--bench-args needs a value}; shift 2 ;;
    --no-reference) reference=0; shift ;;
    --record-seconds)
      record_seconds=${2:?--record-seconds needs seconds}
      case "$record_seconds" in '' | *[!0-9]*) echo "device-check: --record-seconds must be whole seconds" >&2; exit 2 ;; esac
      shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "device-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p "$out" || { echo "device-check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
# Everything is written to a staging folder and packed at the end: the device tool brings back
# only a few files from $OUT.
stage=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX") || exit 2
files="$stage/device-check"
mkdir -p "$files"
start=$(date +%s)
log="$files/device-check.log"
: >"$log"

say() { echo "device-check: $*" | tee -a "$log" >&2; }
left() { echo $((budget - ($(date +%s) - start))); }

# run NAME SECONDS CMD...: stdout to NAME, stderr to NAME.err, exit code to NAME.rc.
run() {
  local name=$1 limit=$2
  shift 2
  if [ "$limit" -le 0 ]; then
    say "$name: skipped, the ${budget}s budget is spent"
    echo 124 >"$files/$name.rc"
    return 124
  fi
  local t0 rc
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" >"$files/$name" 2>"$files/$name.err"
  rc=$?
  echo "$rc" >"$files/$name.rc"
  say "$name: exit $rc in $(($(date +%s) - t0))s"
  return "$rc"
}

# finish CODE: writes summary.txt, packs the staging folder into device-check.tar.gz, exits.
finish() {
  local code=$1
  summarize >"$out/summary.txt" 2>&1
  cp "$out/summary.txt" "$files/summary.txt"
  tar -czf "$out/device-check.tar.gz" -C "$stage" device-check ||
    say "cannot write $out/device-check.tar.gz"
  rm -rf "$stage"
  cat "$out/summary.txt" >&2
  echo "device-check: exit $code; outputs in $out (summary.txt, device-check.tar.gz)" >&2
  exit "$code"
}

# The packages a Release build of the binary needs: scripts/dev.sh's BUILD_PACKAGES.
build_packages() {
  sed -n '/^BUILD_PACKAGES=(/,/^)/p' "$repo/scripts/dev.sh" | sed '1d;$d' | tr ' ' '\n' |
    grep -v -E '^$' | sort -u
}

check_build_deps() {
  local missing=() p
  if command -v dpkg-query >/dev/null 2>&1; then
    for p in $(build_packages); do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
  else
    for p in cmake c++ pkg-config; do
      command -v "$p" >/dev/null 2>&1 || missing+=("$p")
    done
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    say "missing build dependencies: ${missing[*]}"
    say "install them with: apt-get install -y --no-install-recommends ${missing[*]}"
    echo "apt-get install -y --no-install-recommends ${missing[*]}" >"$files/missing-packages.txt"
    return 1
  fi
  return 0
}

# libcublasLt for the tensor figures: the default sonames first (what bench itself tries), then
# the usual places a toolkit-less machine has it: PyTorch's bundled nvidia/cublas/lib, toolkit
# lib64 folders. Sets GPUVET_CUBLASLT_LIB when found outside the loader's path.
find_cublaslt() {
  [ -n "${GPUVET_CUBLASLT_LIB:-}" ] && { say "cuBLASLt: GPUVET_CUBLASLT_LIB=$GPUVET_CUBLASLT_LIB (given)"; return; }
  if ldconfig -p 2>/dev/null | grep -q -E 'libcublasLt\.so\.(13|12|11) '; then
    say "cuBLASLt: found by the loader"
    return
  fi
  local candidates=() dir
  if command -v python3 >/dev/null 2>&1; then
    dir=$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__))' 2>/dev/null ||
      python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cublas"))' 2>/dev/null)
    [ -n "$dir" ] && candidates+=("$dir"/lib/libcublasLt.so.*)
  fi
  candidates+=(/usr/local/cuda/lib64/libcublasLt.so.* /usr/local/cuda-*/lib64/libcublasLt.so.*
    /usr/local/cuda-*/targets/*/lib/libcublasLt.so.* /usr/lib/x86_64-linux-gnu/libcublasLt.so.*
    /usr/local/lib/python3*/dist-packages/nvidia/cublas/lib/libcublasLt.so.*
    /usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublasLt.so.*)
  local c
  for c in "${candidates[@]}"; do
    if [ -f "$c" ]; then
      export GPUVET_CUBLASLT_LIB="$c"
      say "cuBLASLt: $c (GPUVET_CUBLASLT_LIB)"
      return
    fi
  done
  say "cuBLASLt: not found (tensor figures will say so)"
}

# PyTorch reference figures next to gpuvet's, for the issue's ">= 90 % of PyTorch" targets.
torch_reference() {
  if [ "$reference" = 0 ]; then
    echo "torch reference: skipped (--no-reference)" >"$files/reference.txt"
    return
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "torch reference: skipped (no python3)" >"$files/reference.txt"
    return
  fi
  local limit
  limit=$(($(left) - margin))
  [ "$limit" -gt 120 ] && limit=120
  if [ "$limit" -le 10 ]; then
    echo "torch reference: skipped (budget spent)" >"$files/reference.txt"
    return
  fi
  timeout --kill-after=5 "$limit" python3 - >"$files/reference.txt" 2>"$files/reference.err" <<'PY'
import sys
try:
    import torch
except Exception as e:  # noqa: BLE001 - any import failure means "no torch here"
    print(f"torch reference: skipped (torch not importable: {e})")
    sys.exit(0)
if not torch.cuda.is_available():
    print(f"torch reference: skipped (torch {torch.__version__}: no CUDA device)")
    sys.exit(0)

def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3 / reps

n = 256 << 20
host = torch.empty(n, dtype=torch.uint8).pin_memory()
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
h2d = n / timed(lambda: dev.copy_(host, non_blocking=True), 10) / 1e9
d2h = n / timed(lambda: host.copy_(dev, non_blocking=True), 10) / 1e9
dst = torch.empty_like(dev)
d2d = 2 * n / timed(lambda: dst.copy_(dev), 20) / 1e12
m = 8192
a = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
b = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
mm = 2 * m ** 3 / timed(lambda: a @ b, 20) / 1e12
print(f"torch reference ({torch.__version__}, CUDA {torch.version.cuda}, "
      f"{torch.cuda.get_device_name(0)}):")
print(f"  torch_h2d_pinned      {h2d:10.1f} GB/s   (256 MiB, copy_ non_blocking, 10 reps)")
print(f"  torch_d2h_pinned      {d2h:10.1f} GB/s")
print(f"  torch_d2d_copy        {d2d:10.3f} TB/s   (read + write counted)")
print(f"  torch_bf16_matmul     {mm:10.1f} TFLOP/s (8192^3)")
PY
  local rc=$?
  [ $rc -eq 0 ] || echo "torch reference: failed (exit $rc, see reference.err in the archive)" >>"$files/reference.txt"
}

# The workload `record` watches when torch has CUDA: a bf16 MLP trained for SECONDS, printing
# "step N" for --work-regex, with torch.profiler tracing steps 10-14 (wait 8, warmup 2, active 4
# after a skip of the first steps) into TRACE.
write_workload() {
  cat >"$files/workload.py" <<'PY'
import sys
import time

import torch

seconds, trace_path = float(sys.argv[1]), sys.argv[2]
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(4096, 4096), torch.nn.GELU())])
model = model.to(dev, dtype=torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
host_batch = torch.randn(512, 4096, dtype=torch.bfloat16).pin_memory()


def step():
    x = host_batch.to(dev, non_blocking=True)
    loss = model(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


def on_ready(prof):
    prof.export_chrome_trace(trace_path)


sched = torch.profiler.schedule(skip_first=2, wait=6, warmup=2, active=4, repeat=1)
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
start, n = time.time(), 0
with torch.profiler.profile(activities=acts, schedule=sched, on_trace_ready=on_ready) as prof:
    while n < 14:
        step()
        n += 1
        prof.step()
        print(f"step {n}", flush=True)
while time.time() - start < seconds:
    loss = step()
    n += 1
    if n % 10 == 0:
        loss.item()
        print(f"step {n}", flush=True)
torch.cuda.synchronize()
print(f"step {n}", flush=True)
PY
}

# Real inputs for fixtures: the NVML scenario of this node, a recording of a real workload and a
# profiler trace of it, and gpuvet's own diagnosis of each.
field_kit() {
  run dump-nvml.json "$(left)" "$gpuvet" debug dump-nvml -o "$files/nvml-scenario.json"
  local torch_cuda=0 secs limit
  if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    torch_cuda=1
  fi
  # The recording gets what is left after a margin for analyze/trace and the archive.
  secs=$(($(left) - margin - 40))
  [ "$secs" -gt "$record_seconds" ] && secs=$record_seconds
  if [ "$secs" -lt 10 ]; then
    say "record: skipped (budget spent: ${secs}s left for it)"
    return
  fi
  limit=$((secs + 30))
  if [ "$torch_cuda" = 1 ]; then
    write_workload
    run record.json "$limit" "$gpuvet" record -o "$files/workload.gpuvet" --format json \
      --work-regex 'step ([0-9]+)' --work-unit steps --target B200 -- \
      python3 "$files/workload.py" "$secs" "$files/workload.pt.trace.json"
  else
    say "record: torch with CUDA not available: recording gpuvet bench --quick instead (no trace)"
    run record.json "$limit" "$gpuvet" record -o "$files/workload.gpuvet" --format json \
      --duration "${secs}s" --target B200 -- "$gpuvet" bench --quick --format json
  fi
  if [ -s "$files/workload.gpuvet" ]; then
    run analyze.txt "$(left)" "$gpuvet" analyze "$files/workload.gpuvet" --target B200
  fi
  if [ -s "$files/workload.pt.trace.json" ]; then
    run trace.txt "$(left)" "$gpuvet" trace "$files/workload.pt.trace.json" --color never
    run trace.json "$(left)" "$gpuvet" trace "$files/workload.pt.trace.json" --format json
    gzip -9 "$files/workload.pt.trace.json"
  fi
}

summarize() {
  echo "# device-check summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - start)) s of ${budget} s)"
  cat "$files/environment.txt" 2>/dev/null
  echo
  local f
  if [ -s "$files/missing-packages.txt" ]; then
    echo "## missing build dependencies"
    cat "$files/missing-packages.txt"
    echo
  fi
  for f in build-configure.txt build.txt; do
    if [ -e "$files/$f.rc" ] && [ "$(cat "$files/$f.rc")" != 0 ]; then
      echo "## $f failed"
      tail -n 30 "$files/$f.err"
      echo
    fi
  done
  for f in bench.txt check.txt analyze.txt trace.txt; do
    [ -e "$files/$f" ] || continue
    echo "## gpuvet ${f%.txt} (exit $(cat "$files/$f.rc" 2>/dev/null || echo '?'))"
    if [ "$f" = check.txt ]; then
      grep -E '^(verdict|  (FAIL|WARN|UNKNOWN) )' "$files/$f"
    elif [ "$f" = analyze.txt ] || [ "$f" = trace.txt ]; then
      head -n 40 "$files/$f"
    elif [ ! -e "$files/$f.rc" ]; then
      cat "$files/$f"
      grep -E '^ *"(state|detail|summary|severity)": ' "$files/bench.json" 2>/dev/null
    else
      cat "$files/$f"
    fi
    [ -s "$files/$f.err" ] && { echo "stderr:"; tail -n 20 "$files/$f.err"; }
    echo
  done
  [ -e "$files/reference.txt" ] && { echo "## reference"; cat "$files/reference.txt"; }
  echo
  echo "## log"
  cat "$log"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "GPUVET_CUDA_LIB: ${GPUVET_CUDA_LIB:-(unset: libcuda.so.1 through the loader)}"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id \
    --format=csv,noheader 2>&1
} >"$files/environment.txt"

if [ "$build" = 1 ]; then
  check_build_deps || finish 3
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  # A Release build of the binary only: tests and benches are not needed on the device.
  run build-configure.txt "$(left)" cmake -S "$repo" -B "$build_dir" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DGPUVET_BUILD_TESTS=OFF ||
    { say "configure failed (see build-configure.txt.err)"; finish 3; }
  jobs=$(nproc 2>/dev/null || echo 4)
  run build.txt "$(left)" cmake --build "$build_dir" --target gpuvet -j "$jobs" ||
    { say "build failed (see build.txt.err)"; finish 3; }
  gpuvet="$build_dir/gpuvet"
fi
[ -n "$gpuvet" ] || gpuvet="$build_dir/gpuvet"
[ -x "$gpuvet" ] || { say "no gpuvet binary at $gpuvet"; finish 3; }

find_cublaslt

# bench always runs, even without a visible driver: it says itself why it cannot (the dlopen
# error of the library it tried, GPUVET_CUDA_LIB honoured). Its own watchdog gets the time left
# minus a margin, so a hang is reported by gpuvet (with what was measured) before `timeout` kills.
bench_timeout=$(($(left) - margin))
[ "$bench_timeout" -lt 1 ] && bench_timeout=1
# shellcheck disable=SC2086 # --bench-args is split into words on purpose
run bench.json "$(left)" "$gpuvet" bench --quick --format json --timeout-s "$bench_timeout" $bench_args
bench_rc=$?
state=$(grep -o '"state": "[a-z_]*"' "$files/bench.json" 2>/dev/null | head -n 1 |
  sed 's/.*: "\(.*\)"/\1/')
# The text report comes from a second run, only when the first one ran normally and time is left
# (a second hang would only spend the rest of the budget); the JSON is the record.
bench_timeout=$(($(left) - margin))
if [ "$state" = ok ] && { [ "$bench_timeout" -ge 30 ] || [ -n "$bench_args" ]; }; then
  [ "$bench_timeout" -lt 1 ] && bench_timeout=1
  # shellcheck disable=SC2086
  run bench.txt "$(left)" "$gpuvet" bench --quick --format text --color never \
    --timeout-s "$bench_timeout" $bench_args
else
  echo "(text report not rendered: run state '${state:-unreadable}'; see bench.json)" >"$files/bench.txt"
fi

# check never needs the driver to say something useful; a fail (exit 1) is a result, not an error.
run check.json "$(left)" "$gpuvet" check --format json
run check.txt "$(left)" "$gpuvet" check --format text --color never

field_kit
torch_reference

case "$bench_rc" in
  0) ;;
  1) if [ "$state" = timed_out ]; then
       say "bench: timed out: a driver call did not return (gpuvet's watchdog; see bench.json detail)"
     elif [ "$state" = driver_missing ] || [ "$state" = no_device ]; then
       say "bench: NOTHING MEASURED (run state '$state': no driver or no device; see bench.json)"
     else
       say "bench: a figure failed (exit 1)"
     fi ;;
  124 | 137) say "bench: killed by the outer timeout (exit $bench_rc): gpuvet's watchdog did not report" ;;
  *) say "bench: exit $bench_rc" ;;
esac
if [ "$bench_rc" -ne 0 ]; then finish 1; fi
if [ "$state" != ok ]; then
  say "bench did not run normally: run state '${state:-unreadable}' (see bench.json)"
  finish 1
fi
finish 0
