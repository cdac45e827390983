#!/usr/bin/env bash
# Builds the gpuvet .deb from a configured and built CMake tree: package.sh BUILD_DIR OUT_DIR.
# One script for every way the package is made (the Dockerfile's build stage, a release, and
# tests/scripts/package_test.sh), so what the test checks is what the image installs.
# Leaves OUT_DIR/gpuvet_<version>_<arch>.deb and prints its path. Needs cpack (cmake), and
# dpkg-shlibdeps (dpkg-dev) with file(1) for the Depends line. GPUVET_DEB_COMPRESSION (xz, gzip,
# zstd, none; default: CPack's xz) trades size for time: the tests pack an unstripped sanitizer
# build with `none`.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
[ -f "$build/CPackConfig.cmake" ] || { echo "$0: $build is not a configured gpuvet build" >&2; exit 2; }
for tool in cpack dpkg-shlibdeps file; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is missing (apt-get install cmake dpkg-dev file)" >&2; exit 2; }
done
work=$(mktemp -d "$out/.cpack.XXXXXX")
trap 'rm -rf "$work"' EXIT
extra=()
[ -n "${GPUVET_DEB_COMPRESSION:-}" ] && extra=(-D "CPACK_DEBIAN_COMPRESSION_TYPE=$GPUVET_DEB_COMPRESSION")
(cd "$work" && cpack -G DEB "${extra[@]}" --config "$build/CPackConfig.cmake" -B "$work" \
  >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; exit 1; }
deb=$(find "$work" -maxdepth 1 -name 'gpuvet_*.deb' | head -n 1)
[ -n "$deb" ] || { cat "$work/cpack.log" >&2; echo "$0: cpack made no .deb" >&2; exit 1; }
mv "$deb" "$out/"
echo "$out/${deb##*/}"
