#!/usr/bin/env bash
# The install layout and the .deb, end to end: scripts/package.sh (the script the Dockerfile's
# build stage runs) packs the built tree; the package is installed with `dpkg --root` into a
# scratch root (dpkg -x when not root) and its gpuvet answers --version; the FHS layout, the
# systemd units' binary path, the man page (groff lint, every command listed), the bash
# completion (driven like bash does) and `cmake --install --prefix` are checked; and the
# Dockerfile's structure (Debian 12, multi-stage, non-root, the same package script, build
# packages in step with scripts/dev.sh) is checked, since no Docker runs here.
# Usage: package_test.sh GPUVET BUILD_DIR SRC
set -u
gpuvet=$1 build=$2 src=$3
base=${GPUVET_TEST_TMPDIR:-${TMPDIR:-/tmp}}
mkdir -p "$base" && tmp=$(mktemp -d "$base/package-test.$$.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
has() { [ -e "$1" ] || fail "missing $1"; }

# --- the .deb ----------------------------------------------------------------------------------
deb=$(GPUVET_DEB_COMPRESSION=none "$src/scripts/package.sh" "$build" "$tmp/out" 2>"$tmp/package.err") ||
  { fail "package.sh: $(cat "$tmp/package.err")"; exit 1; }
[ "$(basename "$deb")" = "gpuvet_$("$gpuvet" --version | sed -n 's/^gpuvet \([0-9.]*\) .*/\1/p')_$(dpkg --print-architecture).deb" ] ||
  fail "package name $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libfmt9 libsqlite3-0; do
  printf '%s' "$depends" | grep -q "$lib" || fail "Depends lacks $lib: $depends"
done
printf '%s' "$depends" | grep -qi nvidia && fail "Depends names NVIDIA (NVML is dlopen()ed): $depends"
root=$tmp/root
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  touch "$root/var/lib/dpkg/status"
  # The scratch root has no libc in its dpkg database: dependencies are the host's.
  dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
    fail "dpkg -i --root: $(cat "$tmp/dpkg.log")"
  dpkg --root="$root" -s gpuvet 2>/dev/null | grep -q '^Status: install ok installed' ||
    fail "dpkg database of the scratch root does not list gpuvet installed"
else
  echo "not root: dpkg -x instead of dpkg -i --root"
  dpkg -x "$deb" "$root"
fi
out=$("$root/usr/bin/gpuvet" --version) || fail "installed gpuvet --version failed"
printf '%s\n' "$out" | grep -qE '^gpuvet [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,40}|unknown)\)$' ||
  fail "installed --version: $out"
for f in usr/bin/gpuvet usr/sbin/gpuvet-healthcheck usr/libexec/gpuvet/gpuvet-npd-check.sh \
  usr/share/man/man1/gpuvet.1 usr/share/bash-completion/completions/gpuvet \
  usr/share/zsh/vendor-completions/_gpuvet usr/share/doc/gpuvet/README.md \
  usr/share/gpuvet/deploy/prometheus/gpuvet-alerts.yml \
  usr/share/gpuvet/deploy/prometheus/gpuvet-dcgm-compat.yml \
  usr/share/gpuvet/deploy/grafana/gpuvet-dashboard.json \
  usr/share/gpuvet/deploy/kubernetes/gpuvet-exporter.yaml \
  usr/share/gpuvet/deploy/node-problem-detector/gpuvet-monitor.json \
  usr/lib/systemd/system/gpuvet-exporter.service usr/lib/systemd/system/gpuvet-check.service \
  usr/lib/systemd/system/gpuvet-check.timer; do
  has "$root/$f"
done
for f in usr/bin/gpuvet usr/sbin/gpuvet-healthcheck usr/libexec/gpuvet/gpuvet-npd-check.sh; do
  [ -x "$root/$f" ] || fail "$f not executable"
done
dpkg-deb -c "$deb" | grep -E 'fake|_test|libnvidia|libcuda' && fail "test files in the package"
for unit in gpuvet-exporter.service gpuvet-check.service; do
  grep -q '^ExecStart=/usr/bin/gpuvet ' "$root/usr/lib/systemd/system/$unit" ||
    fail "$unit: ExecStart not /usr/bin/gpuvet: $(grep ExecStart "$root/usr/lib/systemd/system/$unit")"
done
grep -l '/usr/local/bin/gpuvet' "$root"/usr/lib/systemd/system/* | grep -q . &&
  fail "a unit still names /usr/local/bin/gpuvet"

# --- cmake --install --prefix: the units follow the prefix ------------------------------------
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  fail "cmake --install: $(tail -n 3 "$tmp/install.log")"
grep -q "^ExecStart=$tmp/prefix/bin/gpuvet exporter " "$tmp/prefix/lib/systemd/system/gpuvet-exporter.service" ||
  fail "cmake --install --prefix: exporter unit names $(grep ExecStart "$tmp/prefix/lib/systemd/system/gpuvet-exporter.service")"
has "$tmp/prefix/share/man/man1/gpuvet.1"
has "$tmp/prefix/bin/gpuvet"

# --- commands: --help, man page and completions agree ------------------------------------------
commands=$("$gpuvet" --help | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  \([a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
[ -n "$commands" ] || fail "no commands in gpuvet --help"
man=$root/usr/share/man/man1/gpuvet.1
grep -q '^\.TH GPUVET 1 .*gpuvet [0-9]' "$man" || fail "man page version not filled in"
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  [ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
else
  fail "groff is missing (groff-base, in scripts/dev.sh TEST_PACKAGES)"
fi
for c in $commands; do
  grep -qE "^\.B $c( |$)" "$man" || fail "man page lacks command $c"
done
comp=$root/usr/share/bash-completion/completions/gpuvet
bash_complete() {  # bash_complete WORD... -> COMPREPLY of the last word, sorted, one line
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuvet
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$comp" "$@"
}
got=$(bash_complete "$gpuvet" "")
want=$(printf '%s\n' $commands --help --version | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "bash completion of commands: '$got', --help says '$want'"
[ "$(bash_complete "$gpuvet" ch)" = "check checks " ] || fail "bash completion of 'ch': $(bash_complete "$gpuvet" ch)"
bash_complete "$gpuvet" check --ro | grep -q -- '--root' || fail "bash completion of check --ro"
[ "$(bash_complete "$gpuvet" check --format "")" = "json text " ] || fail "bash completion of --format"
bash_complete "$gpuvet" explain pcie.link_w | grep -q 'pcie.link_width_reduced' ||
  fail "bash completion of explain ids: $(bash_complete "$gpuvet" explain pcie.link_w)"
zcmds=$(sed -n "s/^    '\([a-z]*\):.*/\1/p" "$root/usr/share/zsh/vendor-completions/_gpuvet" | sort | tr '\n' ' ')
[ "$zcmds" = "$commands" ] || fail "zsh completion commands '$zcmds', --help says '$commands'"
if command -v zsh >/dev/null; then
  zsh -n "$root/usr/share/zsh/vendor-completions/_gpuvet" || fail "zsh syntax"
fi

# --- Dockerfile structure ------------------------------------------------------------------------
python3 - "$src" <<'PY' || fail "Dockerfile (above)"
import re, sys, pathlib
src = pathlib.Path(sys.argv[1])
text = (src / "Dockerfile").read_text()
lines = re.sub(r"\\\n", " ", text).splitlines()
ins = [l.strip() for l in lines if l.strip() and not l.strip().startswith("#")]
errors = []
froms = [l for l in ins if l.startswith("FROM ")]
if len(froms) < 2: errors.append("multi-stage: at least two FROM")
if not re.fullmatch(r"FROM debian:12 AS build", froms[0]): errors.append(f"build stage {froms[0]}")
if not re.fullmatch(r"FROM debian:12(-slim)?", froms[-1]): errors.append(f"runtime stage {froms[-1]}")
final = ins[ins.index(froms[-1]):]
users = [l.split()[1] for l in final if l.startswith("USER ")]
if not users or users[-1] in ("0", "root"): errors.append("the runtime stage runs as non-root")
if not any(re.search(r'ENTRYPOINT \["/usr/bin/gpuvet"\]', l) for l in final): errors.append("ENTRYPOINT /usr/bin/gpuvet")
if not any("COPY --from=build /out/" in l for l in final): errors.append("runtime copies the build stage's /out/")
if not any("apt-get install" in l and "gpuvet_*.deb" in l for l in final): errors.append("runtime installs the .deb")
build = ins[:ins.index(froms[-1])]
if not any("scripts/package.sh /build /out" in l for l in build): errors.append("build runs scripts/package.sh /build /out")
if not any("-DGPUVET_BUILD_TESTS=OFF" in l and "-DCMAKE_BUILD_TYPE=Release" in l for l in build): errors.append("Release build without tests")
apt = " ".join(l for l in build if "apt-get install" in l)
pkgs = {w for w in apt.split() if re.fullmatch(r"[a-z0-9][a-z0-9.+-]+", w)} - {"apt-get", "install", "update", "rm", "debian_frontend=noninteractive"}
pkgs = {p for p in pkgs if p not in ("-y", "rf")}
dev = (src / "scripts/dev.sh").read_text()
build_pkgs = set(re.search(r"\nBUILD_PACKAGES=\((.*?)\)", dev, re.S).group(1).split())
test_pkgs = set(re.search(r"\nTEST_PACKAGES=\((.*?)\)", dev, re.S).group(1).split())
listed = build_pkgs | test_pkgs
need = build_pkgs | {"dpkg-dev", "file"}
if need - pkgs: errors.append(f"build stage lacks {sorted(need - pkgs)} (scripts/dev.sh BUILD_PACKAGES)")
if pkgs - listed: errors.append(f"build stage installs {sorted(pkgs - listed)} not in scripts/dev.sh BUILD_PACKAGES or TEST_PACKAGES")
ignore = (src / ".dockerignore").read_text().split()
for p in (".git", "build"):
    if p not in ignore: errors.append(f".dockerignore lacks {p}")
if errors:
    print("\n".join("Dockerfile: " + e for e in errors), file=sys.stderr)
    sys.exit(1)
PY

[ "$failures" = 0 ] && echo "package_test: all passed"
exit $((failures > 0))
