#!/bin/sh
# node-problem-detector custom plugin around `gpuvet check` (gpuvet-monitor.json runs it).
# NPD's protocol: exit 0 = OK, 1 = NonOK (the problem is present), anything else = Unknown; the
# first line of stdout (cut at max_output_length) becomes the condition's message.
# gpuvet's own codes are 0 healthy, 1 a check failed, 2 usage/input error, 3 internal error, so
# the codes already line up; the wrapper exists for the message: gpuvet's report is a page of
# text, NPD shows one line, so this prints "GPU check failed: <check> on <subject>, ..." from the
# results gpuvet writes with --textfile (the same file format the Slurm health check reads).
# A hang past GPUVET_TIMEOUT or a gpuvet that cannot run is Unknown (exit 2): the node is not
# proven sick. POSIX sh, no jq (the NPD image has none).
#
# Environment: GPUVET (command, default gpuvet; "chroot /host /usr/bin/gpuvet" from an NPD pod
# with the host's root mounted), GPUVET_ARGS (extra `gpuvet check` flags, e.g.
# "--policy /etc/gpuvet/policy.toml"), GPUVET_TIMEOUT (seconds gpuvet may take, default 50; keep
# it under the plugin's timeout in gpuvet-monitor.json), GPUVET_TMPDIR (a writable directory for
# the results file as gpuvet sees it, default /tmp), GPUVET_ROOT (where gpuvet's / is as this
# script sees it: /host with the chroot above, default empty).
set -u
GPUVET=${GPUVET:-gpuvet}
GPUVET_ARGS=${GPUVET_ARGS:-}
GPUVET_TIMEOUT=${GPUVET_TIMEOUT:-50}
GPUVET_ROOT=${GPUVET_ROOT:-}
dir=${GPUVET_TMPDIR:-/tmp}
results=$(mktemp "$GPUVET_ROOT$dir/gpuvet-npd.XXXXXX") ||
  { echo "gpuvet: cannot create a file in $GPUVET_ROOT$dir"; exit 2; }
trap 'rm -f "$results" "$results.err"' EXIT
# Word splitting of GPUVET and GPUVET_ARGS is intended (a command with arguments).
# shellcheck disable=SC2086
timeout "$GPUVET_TIMEOUT" $GPUVET check --color never --timeout "$GPUVET_TIMEOUT" $GPUVET_ARGS \
  --textfile "$dir/${results##*/}" >/dev/null 2>"$results.err"
rc=$?
err=$(head -n 1 "$results.err" 2>/dev/null)
case $rc in
  0)
    echo "gpuvet: all GPU checks pass"
    exit 0
    ;;
  1)
    # gpuvet_check_status{check="ID",subject="SUBJECT"} 3 -> "ID on SUBJECT" (3 = fail).
    failing=$(sed -n 's/^gpuvet_check_status{check="\([^"]*\)",subject="\([^"]*\)"} 3$/\1 on \2/p' \
      "$results" | paste -sd ',' - | sed 's/,/, /g')
    echo "GPU check failed: ${failing:-see gpuvet check}"
    exit 1
    ;;
  124 | 137)
    echo "gpuvet check did not finish within ${GPUVET_TIMEOUT}s"
    exit 2
    ;;
  *)
    echo "gpuvet check could not run (exit $rc): ${err:-no message}"
    exit 2
    ;;
esac
