#!/bin/sh
# Slurm HealthCheckProgram around `gpuvet check` (slurm.conf: HealthCheckProgram=/usr/local/sbin/
# gpuvet-healthcheck, HealthCheckInterval=300, HealthCheckNodeState=ANY). POSIX sh.
#
# - A failing check drains this node with Reason="gpuvet: <failing checks>".
# - Only a clean pass (exit 0 and no check in the textfile at fail or unknown) resumes the node,
#   and only when gpuvet drained it (the reason starts with "gpuvet:"); drains set by people or
#   other tools are left alone. A pass with unknowns (a check that could not run) keeps a gpuvet
#   drain in place: an ECC drain must not be lifted because the next run could not read ECC.
# - A GPU or driver that does not answer fails `gpuvet check` (gpu.unresponsive) and drains, and
#   so does a GPU the driver counts but cannot open (nvidia-smi: "Unable to determine the device
#   handle": gpu.unresponsive, gpu.lost or gpu.reset_required, named by its PCI address).
# - A usage or internal error of gpuvet (exit 2 or 3), or a hang past GPUVET_TIMEOUT, never
#   drains: the node is not proven sick, and the problem is logged instead.
# - With GPUVET_TEXTFILE set, the results are also written for node_exporter's textfile
#   collector (e.g. /var/lib/prometheus/node-exporter/gpuvet.prom).
#
# Environment: GPUVET (binary, default gpuvet on PATH), GPUVET_ARGS (extra `gpuvet check` flags,
# e.g. "--policy /etc/gpuvet/policy.toml"), GPUVET_TIMEOUT (seconds, default 120),
# GPUVET_NODE_NAME (default: hostname -s), SCONTROL (default scontrol on PATH).
set -u

GPUVET=${GPUVET:-gpuvet}
SCONTROL=${SCONTROL:-scontrol}
TIMEOUT=${GPUVET_TIMEOUT:-120}
NODE=${GPUVET_NODE_NAME:-$(hostname -s)}
REASON_MAX=200  # Slurm keeps longer reasons, but `sinfo -R` shows the start

log() {
  if command -v logger >/dev/null 2>&1; then
    logger -t gpuvet-healthcheck -- "$*"
  fi
  echo "gpuvet-healthcheck: $*" >&2
}

tmp=$(mktemp "${TMPDIR:-/tmp}/gpuvet-hc.XXXXXX") || exit 0
trap 'rm -f "$tmp" "$tmp.prom"' EXIT HUP INT TERM

# shellcheck disable=SC2086  # GPUVET_ARGS is a list of flags on purpose
timeout "$TIMEOUT" "$GPUVET" check --color never --textfile "$tmp.prom" ${GPUVET_ARGS:-} \
  >"$tmp" 2>&1
rc=$?

if [ -n "${GPUVET_TEXTFILE:-}" ] && [ -s "$tmp.prom" ]; then
  # Same directory rename keeps the textfile collector from reading a partial file.
  cp "$tmp.prom" "$GPUVET_TEXTFILE.tmp.$$" && mv -f "$GPUVET_TEXTFILE.tmp.$$" "$GPUVET_TEXTFILE"
fi

# The node's current drain reason ("" when none), from `scontrol show node`.
current_reason() {
  "$SCONTROL" show node "$NODE" 2>/dev/null |
    sed -n 's/^[[:space:]]*Reason=\(.*\)$/\1/p' | sed 's/ \[[^]]*\]$//' | head -n 1
}

# Checks at fail (3) or unknown (4) in the textfile: gpuvet_check_status{check="ID",...} 3|4.
not_clean() {
  sed -n 's/^gpuvet_check_status{check="\([^"]*\)",subject="\([^"]*\)"} [34]$/\1 \2/p' \
    "$tmp.prom" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }'
}

case $rc in
  0)
    case $(current_reason) in
      gpuvet:*)
        if [ ! -s "$tmp.prom" ]; then
          log "checks pass but wrote no results; not resuming $NODE"
        elif unclean=$(not_clean) && [ -n "$unclean" ]; then
          log "checks pass with unknowns ($unclean); not resuming $NODE until a clean pass"
        else
          log "checks pass again; resuming $NODE"
          "$SCONTROL" update NodeName="$NODE" State=RESUME
        fi
        ;;
    esac
    exit 0
    ;;
  1)
    # Failing checks from the textfile: gpuvet_check_status{check="ID",subject="S"} 3
    failing=$(sed -n 's/^gpuvet_check_status{check="\([^"]*\)",subject="\([^"]*\)"} 3$/\1 \2/p' \
      "$tmp.prom" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
    [ -n "$failing" ] || failing="check failed (see gpuvet check on the node)"
    # Reason text: printable ASCII only, no quotes or '=' (scontrol parses key=value), bounded.
    reason=$(printf 'gpuvet: %s' "$failing" | tr -c '[:alnum:] ._:;,()/+-' ' ' |
      cut -c "1-$REASON_MAX")
    existing=$(current_reason)
    case $existing in
      "" | gpuvet:*)
        log "draining $NODE: $reason"
        "$SCONTROL" update NodeName="$NODE" State=DRAIN Reason="$reason"
        ;;
      *)
        log "checks fail ($reason) but $NODE is already drained by someone else: $existing"
        ;;
    esac
    exit 0
    ;;
  124 | 137)
    log "gpuvet check did not finish within ${TIMEOUT}s; not draining (a hung NVML call shows in the exporter)"
    exit 0
    ;;
  *)
    log "gpuvet check could not run (exit $rc): $(tail -n 3 "$tmp" | tr '\n' ' ')"
    exit 0
    ;;
esac
