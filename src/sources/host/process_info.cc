// Process source: /proc/PID/status and /proc/PID/maps.
#include "sources/host/process_info.h"

#include <algorithm>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

bool IsGpuMapping(std::string_view path) {
  if (StartsWith(path, "/dev/nvidia")) return true;
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return StartsWith(base, "libcuda.so") || StartsWith(base, "libnvidia-ml.so");
}

}  // namespace

Result<ProcStatus> ParseProcStatus(std::string_view text) {
  ProcStatus status;
  bool have_cpus = false;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = Trim(line.substr(colon + 1));
    if (key == "Name") {
      status.name = std::string(value);
    } else if (key == "Pid") {
      auto v = ParseInt(value);
      if (!v || *v <= 0 || *v > (int64_t{1} << 30)) {
        return InvalidInput("line " + std::to_string(line_no) + ": bad Pid '" + std::string(value) +
                            "'");
      }
      status.pid = static_cast<int>(*v);
    } else if (key == "Cpus_allowed_list") {
      auto cpus = ParseCpuList(value);
      if (!cpus.ok()) {
        return InvalidInput("line " + std::to_string(line_no) + ": " + cpus.status().message());
      }
      status.cpus_allowed = std::move(cpus).value();
      have_cpus = true;
    }
  }
  if (!have_cpus) return InvalidInput("no Cpus_allowed_list line");
  return status;
}

GpuMappings ScanMapsForGpu(std::string_view maps_text) {
  GpuMappings out;
  for (std::string_view line : Split(maps_text, '\n')) {
    // address perms offset dev inode [path]: the path (which may hold spaces) follows 5 fields.
    size_t pos = 0;
    for (int field = 0; field < 5; ++field) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    }
    std::string_view path = Trim(line.substr(pos));
    if (path.empty()) continue;
    if (EndsWith(path, " (deleted)")) path.remove_suffix(10);
    if (!IsGpuMapping(path)) continue;
    out.maps_gpu = true;
    std::string p(path);
    if (out.evidence.size() < kMaxGpuEvidence &&
        std::find(out.evidence.begin(), out.evidence.end(), p) == out.evidence.end()) {
      out.evidence.push_back(std::move(p));
    }
  }
  return out;
}

ProcessState ReadProcess(const HostPaths& paths, int pid) {
  ProcessState state;
  state.pid = pid;
  std::string dir = pid == 0 ? paths.Proc("self") : paths.Proc(std::to_string(pid));
  auto fail_all = [&](const std::string& why) {
    state.cpus_allowed = Reading<std::vector<int>>::Error(why);
    state.maps_gpu = Reading<bool>::Error(why);
    return state;
  };
  if (pid < 0) return fail_all("no such process " + std::to_string(pid));

  auto status_text = ReadFile(dir + "/status", 1 << 20);
  if (!status_text.ok()) {
    if (status_text.status().code() == StatusCode::kNotFound) {
      return fail_all(pid == 0 ? dir + "/status absent" : "no such process " + std::to_string(pid));
    }
    return fail_all(status_text.status().message());
  }
  auto status = ParseProcStatus(*status_text);
  if (!status.ok()) {
    state.cpus_allowed =
        Reading<std::vector<int>>::Error(dir + "/status: " + status.status().message());
  } else {
    state.comm = status->name;
    if (pid == 0) state.pid = status->pid;
    state.cpus_allowed = Reading<std::vector<int>>::Of(status->cpus_allowed);
  }

  // maps of a large process can be tens of MB; 64 MiB (ReadFile's default cap) bounds the read.
  auto maps_text = ReadFile(dir + "/maps");
  if (!maps_text.ok()) {
    state.maps_gpu = Reading<bool>::Error(maps_text.status().message());
  } else {
    GpuMappings m = ScanMapsForGpu(*maps_text);
    state.maps_gpu = Reading<bool>::Of(m.maps_gpu);
    state.gpu_evidence = std::move(m.evidence);
  }
  return state;
}

}  // namespace gpuvet
