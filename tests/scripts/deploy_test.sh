#!/usr/bin/env bash
# The deploy assets as far as this machine can run them (no cluster, no Docker):
# - the Kubernetes manifest checked structurally against what the DaemonSet needs (python3-yaml:
#   Debian ships no Kubernetes schema validator that works without an API server), then the
#   exporter started with the manifest's own arguments over a fixture and probed on the
#   manifest's readiness and liveness paths (a node without a driver: not ready, still live);
# - the node-problem-detector plugin: its JSON config, and the wrapper's exit codes and one-line
#   messages for a healthy node, a failing one, a usage error, an internal error and a hang;
# - the DCGM compatibility rules with promtool (check + unit tests).
# Usage: deploy_test.sh GPUVET FAKE_NVML SRC
set -u
gpuvet=$1 fake_nvml=$2 src=$3
base=${GPUVET_TEST_TMPDIR:-${TMPDIR:-/tmp}}
mkdir -p "$base" && tmp=$(mktemp -d "$base/deploy-test.$$.XXXXXX") || exit 1
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
  { echo "FAIL: python3 with python3-yaml is needed (scripts/dev.sh TEST_PACKAGES)" >&2; exit 1; }

# --- Kubernetes manifest --------------------------------------------------------------------
manifest=$src/deploy/kubernetes/gpuvet-exporter.yaml
python3 - "$manifest" "$tmp/args" <<'PY' || fail "kubernetes manifest (above)"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
errors = []
def need(cond, what):
    if not cond: errors.append(what)
for d in docs:
    need(isinstance(d.get("apiVersion"), str) and isinstance(d.get("kind"), str), f"apiVersion/kind in {d}")
    need(d.get("metadata", {}).get("name"), f"metadata.name of {d.get('kind')}")
kinds = {d["kind"]: d for d in docs}
need(set(kinds) == {"Namespace", "ServiceAccount", "DaemonSet"}, f"kinds {sorted(kinds)}")
ds = kinds["DaemonSet"]
need(ds["apiVersion"] == "apps/v1", "DaemonSet apps/v1")
ns = kinds["Namespace"]["metadata"]["name"]
need(ds["metadata"].get("namespace") == ns and kinds["ServiceAccount"]["metadata"].get("namespace") == ns, "one namespace")
spec = ds["spec"]; tpl = spec["template"]; pod = tpl["spec"]
sel = spec["selector"]["matchLabels"]
need(all(tpl["metadata"]["labels"].get(k) == v for k, v in sel.items()), "selector matches the pod labels")
need(pod.get("serviceAccountName") == kinds["ServiceAccount"]["metadata"]["name"], "service account")
need(pod.get("automountServiceAccountToken") is False, "no service-account token")
need(pod.get("runtimeClassName") == "nvidia", "runtimeClassName nvidia")
need(pod.get("hostPID") is True, "hostPID")
need(not pod.get("hostNetwork"), "no host network")
need(any(t.get("operator") == "Exists" and "key" not in t for t in pod.get("tolerations", [])), "tolerates every taint")
need(len(pod["containers"]) == 1, "one container")
c = pod["containers"][0]
env = {e["name"]: e.get("value") for e in c.get("env", [])}
need(env.get("NVIDIA_VISIBLE_DEVICES") == "all", "NVIDIA_VISIBLE_DEVICES=all")
need(env.get("NVIDIA_DRIVER_CAPABILITIES") == "utility", "NVIDIA_DRIVER_CAPABILITIES=utility")
res = c.get("resources", {})
for part in ("requests", "limits"):
    need("nvidia.com/gpu" not in res.get(part, {}), f"no nvidia.com/gpu in {part}: a monitor takes no GPU")
need("memory" in res.get("limits", {}), "a memory limit")
sc = c.get("securityContext", {})
need(sc.get("privileged") is True, "privileged (runc's device list refuses /dev/kmsg otherwise)")
need(sc.get("allowPrivilegeEscalation") is not False, "allowPrivilegeEscalation=false is invalid with privileged")
need(sc.get("readOnlyRootFilesystem") is True, "read-only root filesystem")
ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
need("metrics" in ports, "a port named metrics")
for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/livez")):
    g = c.get(probe, {}).get("httpGet", {})
    need(g.get("path") == path and g.get("port") in ("metrics", ports.get("metrics")), f"{probe} GET {path} on the metrics port")
args = c.get("args", [])
need(args[:1] == ["exporter"], "args start with the exporter command (the image's entrypoint is gpuvet)")
need("--root=/host" in args, "--root=/host")
listen = [a.split("=", 1)[1] for a in args if a.startswith("--listen=")]
need(listen and listen[0].rsplit(":", 1)[1] == str(ports.get("metrics")), "--listen port = containerPort")
vols = {v["name"]: v for v in pod.get("volumes", [])}
mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
for host in ("/proc", "/sys", "/dev"):
    m = mounts.get("/host" + host)
    need(m is not None and m.get("readOnly") is True, f"host {host} mounted read-only at /host{host}")
    if m:
        need(vols.get(m["name"], {}).get("hostPath", {}).get("path") == host, f"volume of /host{host} is hostPath {host}")
need(tpl["metadata"].get("annotations", {}).get("prometheus.io/port") == str(ports.get("metrics")), "scrape annotation port")
if errors:
    print("\n".join("kubernetes: " + e for e in errors), file=sys.stderr)
    sys.exit(1)
open(sys.argv[2], "w").write("\n".join(args) + "\n")
PY

# The exporter with the manifest's arguments (the host root swapped for a fixture, the listen
# address for a free loopback port): ready on a healthy node, not ready but live without a driver.
probe() {  # probe NAME SCENARIO(or "") -> checks /readyz status and /livez
  local name=$1 scenario=$2 want_ready=$3
  local args=() a
  while IFS= read -r a; do
    case $a in
      --root=/host) args+=("--root=$src/tests/fixtures/healthy-8gpu/root") ;;
      --listen=*) args+=("--listen=127.0.0.1:0") ;;
      *) args+=("$a") ;;
    esac
  done <"$tmp/args"
  GPUVET_FAKE_NVML_SCENARIO=$scenario "$gpuvet" "${args[@]}" --nvml-lib "$fake_nvml" \
    --kernel-log "$src/tests/fixtures/xid79-off-bus/kernel.log" 2>"$tmp/$name.err" &
  local pid=$!
  pids+=("$pid")
  local port="" i
  for i in $(seq 1 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/$name.err")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { fail "$name: exporter did not start: $(cat "$tmp/$name.err")"; return; }
  local ready live
  # The exporter serves before its first collection completes (not ready until then): poll.
  for i in $(seq 1 50); do
    ready=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
    [ "$ready" = "$want_ready" ] && break
    sleep 0.1
  done
  live=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/livez")
  [ "$ready" = "$want_ready" ] || fail "$name: /readyz $ready, expected $want_ready"
  [ "$live" = 200 ] || fail "$name: /livez $live, expected 200"
  kill "$pid"
  wait "$pid" 2>/dev/null
}
if [ -s "$tmp/args" ]; then
  probe healthy "$src/tests/fixtures/healthy-8gpu/nvml.json" 200
  probe no-driver "" 503
fi

# --- node-problem-detector plugin -------------------------------------------------------------
npd=$src/deploy/node-problem-detector
python3 - "$npd/gpuvet-monitor.json" "$npd/node-problem-detector-gpuvet.yaml" <<'PY' || fail "NPD config (above)"
import json, sys, yaml
def check(cfg, where, path_prefix):
    errors = []
    if cfg.get("plugin") != "custom": errors.append("plugin must be custom")
    pc = cfg.get("pluginConfig", {})
    conds = {c["type"]: c for c in cfg.get("conditions", [])}
    if "GpuvetUnhealthy" not in conds: errors.append("condition GpuvetUnhealthy")
    rules = cfg.get("rules", [])
    perm = [r for r in rules if r.get("type") == "permanent" and r.get("condition") == "GpuvetUnhealthy"]
    if len(perm) != 1: errors.append("one permanent rule for GpuvetUnhealthy")
    for r in perm:
        if not r.get("path", "").startswith(path_prefix) or not r["path"].endswith("/gpuvet-npd-check.sh"):
            errors.append(f"rule path {r.get('path')}")
        if r.get("reason") == conds.get("GpuvetUnhealthy", {}).get("reason"):
            errors.append("the problem's reason must differ from the healthy default")
    # The wrapper's own limit (GPUVET_TIMEOUT, 50 s) must end before NPD kills it.
    if pc.get("timeout") != "60s": errors.append("pluginConfig.timeout 60s (wrapper ends at 50 s)")
    return [f"{where}: {e}" for e in errors]
errors = check(json.load(open(sys.argv[1])), "gpuvet-monitor.json", "/usr/libexec/gpuvet/")
docs = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
errors += check(json.loads(cm["data"]["gpuvet-monitor.json"]), "ConfigMap", "/host/usr/libexec/gpuvet/")
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
PY
wrapper=$npd/gpuvet-npd-check.sh
npd_expect() {  # npd_expect NAME CODE PATTERN env...
  local name=$1 code=$2 pattern=$3
  shift 3
  local out rc
  out=$(env "$@" sh "$wrapper" 2>"$tmp/npd-$name.err")
  rc=$?
  [ "$rc" = "$code" ] || fail "npd $name: exit $rc, expected $code ($out $(cat "$tmp/npd-$name.err"))"
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "npd $name: not one line: $out"
  printf '%s\n' "$out" | grep -qE "$pattern" || fail "npd $name: '$out' lacks /$pattern/"
}
real=(GPUVET="$gpuvet" GPUVET_TMPDIR="$tmp")
npd_expect healthy 0 '^gpuvet: all GPU checks pass$' "${real[@]}" \
  GPUVET_FAKE_NVML_SCENARIO="$src/tests/fixtures/healthy-8gpu/nvml.json" \
  GPUVET_ARGS="--root $src/tests/fixtures/healthy-8gpu/root --nvml-lib $fake_nvml"
npd_expect failing 1 '^GPU check failed: .*pcie\.link_width_reduced on gpu3 \(0000:5d:00\.0\)' \
  "${real[@]}" GPUVET_FAKE_NVML_SCENARIO="$src/tests/fixtures/pcie-x8/nvml.json" \
  GPUVET_ARGS="--root $src/tests/fixtures/pcie-x8/root --nvml-lib $fake_nvml"
npd_expect usage 2 '^gpuvet check could not run \(exit 2\): .*--bogus' "${real[@]}" \
  GPUVET_ARGS="--bogus"
printf '#!/bin/sh\nexit 3\n' >"$tmp/internal" && chmod +x "$tmp/internal"
npd_expect internal 2 'could not run \(exit 3\)' GPUVET="$tmp/internal" GPUVET_TMPDIR="$tmp"
printf '#!/bin/sh\nexec sleep 30\n' >"$tmp/hang" && chmod +x "$tmp/hang"
npd_expect hang 2 'did not finish within 1s' GPUVET="$tmp/hang" GPUVET_TMPDIR="$tmp" GPUVET_TIMEOUT=1
# Through a root prefix, as in the NPD pod (GPUVET_ROOT=/host): the file is made under the
# prefix and named to gpuvet without it.
mkdir -p "$tmp/hostroot/state"
printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do [ "$1" = --textfile ] && f=$2; shift; done\n'\
'[ "${f#/state/}" != "$f" ] || { echo "bad path $f" >&2; exit 2; }\n'\
'printf "gpuvet_check_status{check=\\"ecc.row_remap\\",subject=\\"gpu1 (0000:2a:00.0)\\"} 3\\n" >"%s$f"\nexit 1\n' \
  "$tmp/hostroot" >"$tmp/rooted" && chmod +x "$tmp/rooted"
npd_expect rooted 1 '^GPU check failed: ecc\.row_remap on gpu1 \(0000:2a:00\.0\)$' \
  GPUVET="$tmp/rooted" GPUVET_ROOT="$tmp/hostroot" GPUVET_TMPDIR=/state
leftover=$(find "$tmp" "$tmp/hostroot/state" -maxdepth 1 -name 'gpuvet-npd.*')
[ -z "$leftover" ] || fail "npd: results files left behind: $leftover"

# --- DCGM compatibility rules -------------------------------------------------------------------
if command -v promtool >/dev/null; then
  (cd "$src/deploy/prometheus" && promtool check rules gpuvet-dcgm-compat.yml >"$tmp/promtool.log" 2>&1 &&
    promtool test rules gpuvet-dcgm-compat.test.yml >>"$tmp/promtool.log" 2>&1) ||
    fail "promtool on gpuvet-dcgm-compat: $(cat "$tmp/promtool.log")"
else
  fail "promtool is missing (Debian package prometheus, in scripts/dev.sh TEST_PACKAGES)"
fi

[ "$failures" = 0 ] && echo "deploy_test: all passed"
exit $((failures > 0))
