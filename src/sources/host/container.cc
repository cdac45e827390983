// Container detection from files every container runtime leaves behind. Each marker found adds a
// line of evidence; the runtime is ranked so Kubernetes wins over the engine underneath it.
#include "sources/host/container.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Most specific first: a pod runs under containerd or cri-o, which may use docker names.
constexpr std::array<std::string_view, 6> kRank = {"kubernetes", "podman",     "cri-o",
                                                   "docker",     "containerd", "lxc"};

int RankOf(std::string_view runtime) {
  for (size_t i = 0; i < kRank.size(); ++i) {
    if (kRank[i] == runtime) return static_cast<int>(i);
  }
  return static_cast<int>(kRank.size());
}

void Propose(ContainerState* out, std::string_view runtime, std::string evidence) {
  out->in_container = true;
  out->evidence.push_back(std::move(evidence));
  if (out->runtime.empty() || RankOf(runtime) < RankOf(out->runtime)) {
    out->runtime = std::string(runtime);
  }
}

// Scans a /proc/PID/cgroup file for a container path; adds evidence for the first one found.
void ScanCgroupFile(const HostPaths& paths, const std::string& host_path, ContainerState* out) {
  auto text = ReadFile(paths.Resolve(host_path), 1 << 20);
  if (!text.ok()) return;
  for (std::string_view line : Split(*text, '\n')) {
    size_t second = line.find(':', line.find(':') + 1);
    if (second == std::string_view::npos) continue;
    std::string_view path = line.substr(second + 1);
    std::string_view runtime = RuntimeFromCgroupPath(path);
    if (runtime.empty()) continue;
    std::string shown(line.substr(0, 120));
    Propose(out, runtime, fmt::format("{}: {}", host_path, shown));
    return;
  }
}

}  // namespace

std::string_view RuntimeFromCgroupPath(std::string_view path) {
  auto has = [&](std::string_view s) { return path.find(s) != std::string_view::npos; };
  if (has("kubepods")) return "kubernetes";
  if (has("libpod")) return "podman";
  if (has("crio-") || has("/crio/")) return "cri-o";
  // cgroupfs driver "/docker/ID", systemd driver "docker-ID.scope" (not docker.service: the
  // daemon).
  if (has("/docker/") || has("docker-")) return "docker";
  if (has("containerd")) return "containerd";
  if (has("/lxc/") || has("lxc.payload")) return "lxc";
  return "";
}

bool MountinfoHasOverlayRoot(std::string_view mountinfo) {
  // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS"
  for (std::string_view line : Split(mountinfo, '\n')) {
    std::vector<std::string_view> f = SplitWhitespace(line);
    if (f.size() < 7 || f[4] != "/") continue;
    for (size_t i = 6; i + 1 < f.size(); ++i) {
      if (f[i] == "-") {
        if (f[i + 1] == "overlay" || f[i + 1] == "fuse-overlayfs") return true;
        break;
      }
    }
  }
  return false;
}

void DetectContainer(const HostPaths& paths, int pid, const GpuEnvironment& env,
                     ContainerState* out) {
  if (PathExists(paths.Resolve("/.dockerenv"))) Propose(out, "docker", "/.dockerenv exists");
  if (PathExists(paths.Resolve("/run/.containerenv"))) {
    // podman writes engine="podman-4.9.3" (and the container name when privileged) here.
    std::string evidence = "/run/.containerenv exists";
    if (auto text = ReadFile(paths.Resolve("/run/.containerenv"), 64 << 10); text.ok()) {
      for (std::string_view line : Split(*text, '\n')) {
        if (StartsWith(line, "engine=")) evidence += fmt::format(" ({})", Trim(line));
      }
    }
    Propose(out, "podman", std::move(evidence));
  }
  size_t before = out->evidence.size();
  ScanCgroupFile(paths, "/proc/1/cgroup", out);
  std::string self = pid > 0 ? std::to_string(pid) : "self";
  // The inspected process may sit in a container that init does not (a pod on a host).
  if (pid > 0 || out->evidence.size() == before) {
    ScanCgroupFile(paths, "/proc/" + self + "/cgroup", out);
  }
  std::string mountinfo = "/proc/" + self + "/mountinfo";
  if (auto text = ReadFile(paths.Resolve(mountinfo), 4 << 20);
      text.ok() && MountinfoHasOverlayRoot(*text)) {
    out->in_container = true;
    out->evidence.push_back(mountinfo + ": / is an overlay mount");
  }
  if (env.vars.has()) {
    if (auto it = env.vars->find("container"); it != env.vars->end() && !it->second.empty()) {
      // podman sets "podman", LXC "lxc", systemd-nspawn "systemd-nspawn", others "oci".
      Propose(out, it->second, fmt::format("container={} in the environment", it->second));
    }
    if (env.vars->count("KUBERNETES_SERVICE_HOST")) {
      Propose(out, "kubernetes", "KUBERNETES_SERVICE_HOST is set (a Kubernetes pod)");
    }
  }
  if (out->in_container && out->runtime.empty()) out->runtime = "unknown";
}

}  // namespace gpuvet
