#!/usr/bin/env bash
# ctest report_browser: the real `gpuvet report`, `analyze --html` and `trace --html` over the
# fixtures (check, bench, trace, trace --compare, analyze from a recording, fleet), then Debian's chromium
# (headless) over the pages: --dump-dom must show every chart with drawn SVG paths and the hover
# script run, the console log must hold no error (a control page with a deliberate error proves
# the log is read), --screenshot must paint. Pages are batched into one page so chromium starts
# three times in all (it is slow to start on two cores).
# Usage: report_browser_test.sh GPUVET MAKE_RECORDINGS SOURCE_DIR FAKE_NVML_LIB
# Chromium is required (scripts/dev.sh installs it); GPUVET_SKIP_BROWSER=1 skips the browser part
# visibly (exit 77) on a machine without it.
set -uo pipefail
gpuvet=$1 make_recordings=$2 src=$3 fake_nvml=$4
fx=$src/tests/fixtures
tmp=$(mktemp -d "${GPUVET_TEST_TMPDIR:-/tmp}/report_browser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
now=2026-01-01T00:00:00Z

# --- the pages, through every entry point ---
"$make_recordings" "$tmp" checkpoint-stalls >/dev/null || die "make_recordings"
# GPU-Util only: the forecast is a range (speedup null); the page must still be written.
"$make_recordings" "$tmp" host-cpu-feeder >/dev/null || die "make_recordings host-cpu-feeder"
"$gpuvet" analyze "$tmp/host-cpu-feeder.gpuvet" --target H200 --now $now \
  --html "$tmp/range.html" >/dev/null || die "analyze --html of a range forecast: exit $?"
grep -q 'id="analyze-forecast"' "$tmp/range.html" || die "range.html: no forecast waterfall"
"$gpuvet" analyze "$tmp/checkpoint-stalls.gpuvet" --target B200 --now $now --format json \
  --html "$tmp/analyze.html" >"$tmp/analyze.json" || die "analyze --html exit $?"
GPUVET_FAKE_NVML_SCENARIO="$fx/pcie-x8/nvml.json" "$gpuvet" check --root "$fx/pcie-x8/root" \
  --nvml-lib "$fake_nvml" --now $now --format json --html "$tmp/check.html" >"$tmp/check.json"
[ $? -eq 1 ] || die "check --html on pcie-x8: expected exit 1 (a fail)"
grep -q 'id="check-verdict"' "$tmp/check.html" || die "check --html: no verdict"
for serial in $(python3 -c 'import json,sys; print(" ".join(g["serial"] for g in json.load(open(sys.argv[1]))["gpus"]))' "$tmp/check.json"); do
  grep -q ">$serial<" "$tmp/check.html" || die "check --html: serial $serial missing"
done
"$gpuvet" trace "$fx/traces/comm-two-ranks/input" --format json --html "$tmp/trace.html" \
  >"$tmp/trace.json" || die "trace --html exit $?"
cmp=$fx/trace-compare/allreduce-and-new-kernel
"$gpuvet" trace "$cmp/a" --compare "$cmp/b" --format json --html "$tmp/compare.html" \
  >"$tmp/compare.json" || die "trace --compare --html exit $?"
answer=$(python3 -c 'import html,json,sys; print(html.escape(json.load(open(sys.argv[1]))["answer"]))' "$tmp/compare.json")
grep -qF "$answer" "$tmp/compare.html" || die "compare.html: the answer is missing"
"$gpuvet" report "$fx/pcie-x8/expected.json" "$fx/bench/link-x8/expected.json" "$tmp/trace.json" \
  "$tmp/checkpoint-stalls.gpuvet" "$fx/fleet/day/expected.json" "$tmp/compare.json" \
  --target B200 --now $now -o "$tmp/all.html" 2>"$tmp/report.err" ||
  die "report exit $? ($(cat "$tmp/report.err"))"
for p in check analyze trace compare all; do
  [ -s "$tmp/$p.html" ] || die "$p.html not written"
  # Self-contained: nothing is fetched at view time.
  if grep -Eq '(src|href)="(https?:)?//' "$tmp/$p.html"; then die "$p.html references the network"; fi
done
# The analyze page from the recording has every sample's timeline, the JSON's verdict.
grep -q 'id="analyze-gpu0-activity"' "$tmp/analyze.html" || die "analyze.html: no gpu0 timeline"
label=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["label"])' "$tmp/analyze.json")
grep -q "job: $label" "$tmp/analyze.html" || die "analyze.html: verdict $label missing"

# --- bad input: exit 2, a message, no page ---
echo '{"schema":"gpuvet.bench/v1"}' >"$tmp/bad.json"
"$gpuvet" report "$tmp/bad.json" -o "$tmp/bad.html" 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] || die "malformed input: exit $rc, expected 2"
grep -q 'bad.json (gpuvet.bench/v1): (top level): missing key "generated_at"' "$tmp/bad.err" ||
  die "malformed input message: $(cat "$tmp/bad.err")"
[ ! -e "$tmp/bad.html" ] || die "a page was written for a bad input"
"$gpuvet" report "$src/README.md" -o "$tmp/bad.html" 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q 'not JSON' "$tmp/bad.err" || die "foreign input: $(cat "$tmp/bad.err")"

# --- the browser ---
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  if [ "${GPUVET_SKIP_BROWSER:-}" = 1 ]; then
    echo "SKIP: chromium not installed (GPUVET_SKIP_BROWSER=1)"
    [ $fail -eq 0 ] && exit 77 || exit 1
  fi
  echo "FAIL: chromium not installed (apt-get install chromium; scripts/dev.sh TEST_PACKAGES has it)"
  exit 1
fi
run_chrome() {  # PAGE OUT ERR [args…]
  local page=$1 out=$2 err=$3
  shift 3
  HOME=$tmp timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 "$@" \
    "file://$page" >"$out" 2>"$err"
}
printf '<!DOCTYPE html><html><body><script>gpuvetNoSuchFunction();</script></body></html>' \
  >"$tmp/control.html"
run_chrome "$tmp/control.html" "$tmp/control.dom" "$tmp/control.log" --dump-dom
grep -q 'CONSOLE.*Uncaught ReferenceError: gpuvetNoSuchFunction' "$tmp/control.log" ||
  die "the console log does not show a deliberate error: the error check below would be blind"

run_chrome "$tmp/all.html" "$tmp/all.dom" "$tmp/all.log" --dump-dom || die "chromium --dump-dom"
if grep -E 'CONSOLE|Content Security Policy|Refused to' "$tmp/all.log"; then die "console errors"; fi
grep -q 'class="tip"' "$tmp/all.dom" || die "the hover script did not run"
python3 - "$tmp/all.dom" <<'PY' || fail=1
import re, sys
dom = open(sys.argv[1]).read()
charts = {
  "check": [], "bench": ["bench-figures-chart"],
  "trace": ["trace-temporal", "trace-idle", "trace-kernel-classes", "trace-steps-r0", "trace-overlap"],
  "analyze": ["analyze-gpu0-activity", "analyze-gpu0-limits", "analyze-host-cpu", "analyze-threads",
              "analyze-disk", "analyze-labels-chart", "analyze-forecast"],
  "fleet": ["fleet-heatmap"],
  "trace-compare": ["trace-compare-step"],
}
bad = 0
for kind, ids in charts.items():
    for part in ["verdict"]:
        if f'id="{kind}-{part}"' not in dom:
            print(f"FAIL: no #{kind}-{part} in the rendered DOM"); bad = 1
    for cid in ids:
        m = re.search(r'<figure class="chart" id="%s">(.*?)</figure>' % re.escape(cid), dom, re.S)
        if not m:
            print(f"FAIL: chart #{cid} not in the rendered DOM"); bad = 1; continue
        paths = re.findall(r'<path[^>]* d="(M[^"]+)"', m.group(1))
        if not any(len(p) > 8 for p in paths):
            print(f"FAIL: chart #{cid} has no drawn path"); bad = 1
for ids in ["check-findings", "check-gpus", "fleet-quarantine", "trace-stragglers",
            "trace-compare-parts", "trace-compare-kernels-changed", "trace-compare-kernels-added"]:
    if f'id="{ids}"' not in dom:
        print(f"FAIL: #{ids} missing"); bad = 1
sys.exit(bad)
PY
run_chrome "$tmp/all.html" "$tmp/shot.out" "$tmp/shot.log" --window-size=1200,1400 \
  --screenshot="$tmp/all.png"
size=$(stat -c %s "$tmp/all.png" 2>/dev/null || echo 0)
[ "$size" -gt 30000 ] || die "screenshot missing or blank ($size bytes)"
if [ $fail -ne 0 ]; then exit 1; fi
echo "report_browser: all pages rendered (screenshot $size bytes)"
