#!/usr/bin/env bash
# Collects the seed corpus of one fuzz target into DIR (scripts/fuzz-seeds.sh TARGET DIR) from the
# project's fixtures, fuzz/seeds/TARGET/ and, when present, ../shared/data. Nothing large is
# committed: seeds are copied (named by content hash, so reruns add nothing twice) into the build
# tree. Files over 256 KiB are left out (libFuzzer's -max_len; big inputs only slow the search).
# The recording target's seeds are SQL dumps of recordings made with `gpuvet import` from the
# nvidia-smi logs in tests/data/smi-logs ($GPUVET_BIN, default build/test/gpuvet).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz-seeds.sh TARGET DIR}
dir=${2:?usage: scripts/fuzz-seeds.sh TARGET DIR}
shared=../shared/data
mkdir -p "$dir"

add() {  # add FILE…: copy each regular file of at most 256 KiB
  local f
  for f in "$@"; do
    [[ -f $f ]] || continue
    [[ $(stat -c %s "$f") -le 262144 ]] || continue
    cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
  done
}
add_found() {  # add_found DIR FIND-ARGS…: files under DIR (absent DIR: nothing)
  local base=$1
  shift
  [[ -d $base ]] || return 0
  local files
  mapfile -t files < <(find "$base" -type f "$@" | sort)
  add "${files[@]}"
}

[[ -d fuzz/seeds/$target ]] && add_found "fuzz/seeds/$target"
case "$target" in
  kineto_json) add_found tests/fixtures/traces -name '*.json' -path '*/input/*'
    add_found "$shared/traces" -name '*.json' ;;
  kineto_gzip) add_found tests/fixtures/traces -name '*.json.gz'
    add_found "$shared/traces" -name '*.json.gz' ;;
  nsys_sqlite)
    # One seed per export of make_synthetic.sql ("-- @@export NAME" starts each).
    awk -v out="$dir/seed-nsys-" '/^-- @@export /{n++} n{print > (out n ".sql")}' \
      tests/data/nsys/make_synthetic.sql ;;
  smi_xml) add_found tests/fixtures -name 'capture.xml'
    add_found "$shared/nvidia-smi" -name '*.xml' ;;
  smi_text) add_found tests/fixtures -name 'capture.txt'
    add_found "$shared/nvidia-smi" -name '*.txt' ;;
  kernel_log) add_found tests/fixtures -name 'kernel.log'
    # The real logs, cut to their first 64 KiB.
    if [[ -d $shared/kmsg ]]; then
      for f in "$shared"/kmsg/*; do head -c 65536 "$f" > "$dir/seed-kmsg-$(basename "$f")"; done
    fi ;;
  policy) add_found tests/fixtures -name '*.toml'
    awk '/^```toml/{on=1; next} /^```/{on=0} on' docs/policy.md > "$dir/seed-docs-policy.toml" ;;
  env_file) add_found tests/fixtures -name 'environ'
    printf 'export CUDA_VISIBLE_DEVICES="0,1"\n# comment\nNVIDIA_VISIBLE_DEVICES=all\nKUBERNETES_SERVICE_HOST\n' \
      > "$dir/seed-docker.env" ;;
  smi_dmon) add_found tests/data/smi-logs -name 'dmon-*' ;;
  smi_csv) add_found tests/data/smi-logs -name 'query-gpu-*' ;;
  recording)
    bin=${GPUVET_BIN:-build/test/gpuvet}
    command -v sqlite3 >/dev/null || { echo "fuzz-seeds: sqlite3 missing (apt-get install sqlite3)" >&2; exit 2; }
    [[ -x $bin ]] || { echo "fuzz-seeds: $bin not built (GPUVET_BIN=…)" >&2; exit 2; }
    tmp=$(mktemp -d)
    for f in tests/data/smi-logs/*; do
      name=$(basename "$f")
      args=()
      [[ $name == *noheader* ]] && args=(--columns "timestamp,index,utilization.gpu,memory.used,power.draw")
      if "$bin" import "$f" -o "$tmp/$name.gpuvet" "${args[@]}" >/dev/null 2>&1; then
        # .dump leaves out the header's application_id and user_version, without which the
        # reader refuses the file before reading anything: put them first.
        {
          echo "PRAGMA application_id = $(sqlite3 "$tmp/$name.gpuvet" 'PRAGMA application_id');"
          echo "PRAGMA user_version = $(sqlite3 "$tmp/$name.gpuvet" 'PRAGMA user_version');"
          sqlite3 "$tmp/$name.gpuvet" .dump
        } >"$dir/seed-rec-$name.sql"
      fi
    done
    rm -rf "$tmp" ;;
  fleet_report) add_found tests/fixtures/fleet -name '*.json' ! -name 'expected.json' ;;
  prom_response) ;;  # fuzz/seeds/prom_response only
  # Every JSON golden `gpuvet report` reads: check, bench, trace, trace --compare, analyze, fleet.
  report_doc) add_found tests/fixtures -name 'expected.json' ;;
  nvml_scenario) add_found tests/fixtures -name 'nvml.json' ;;
  *) echo "fuzz-seeds: unknown target $target" >&2; exit 2 ;;
esac
echo "fuzz-seeds: $target: $(find "$dir" -type f | wc -l) seed(s) in $dir"
