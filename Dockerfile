# gpuvet image: Debian 12, multi-stage. The build stage compiles a Release gpuvet without tests and
# packs it as the same .deb that `cpack` makes outside Docker (scripts/package.sh); the runtime
# stage installs that .deb, so its run-time libraries come from the package's Depends and the
# layout is the FHS one of docs/deploy.md. NVML is not in the image: the NVIDIA container
# runtime injects the host driver's libnvidia-ml.so.1 (deploy/kubernetes/gpuvet-exporter.yaml).
#   docker build --build-arg GPUVET_GIT_COMMIT=$(git rev-parse --short=12 HEAD) -t gpuvet .
# tests/scripts/package_test.sh checks this file's structure and runs its build steps' script.

FROM debian:12 AS build
# The build packages of scripts/dev.sh (BUILD_PACKAGES), plus dpkg-dev and file for cpack's
# dpkg-shlibdeps.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config \
      libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libpugixml-dev \
      libsqlite3-dev zlib1g-dev \
      dpkg-dev file \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# No .git in the build context (.dockerignore): the commit for --version comes as an argument.
ARG GPUVET_GIT_COMMIT=unknown
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUVET_BUILD_TESTS=OFF \
      -DGPUVET_GIT_COMMIT=${GPUVET_GIT_COMMIT} \
 && cmake --build /build \
 && scripts/package.sh /build /out

FROM debian:12-slim
COPY --from=build /out/ /tmp/gpuvet-deb/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/gpuvet-deb/gpuvet_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/gpuvet-deb \
 && useradd --system --uid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin gpuvet \
 && gpuvet --version
# Non-root by default (`docker run gpuvet check` works as any user: NVML's device nodes are
# world-readable). The DaemonSet runs it as root, privileged, for /dev/kmsg: docs/deploy.md.
USER 10001
EXPOSE 9835
ENTRYPOINT ["/usr/bin/gpuvet"]
CMD ["exporter", "--listen", ":9835"]
