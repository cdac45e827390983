// CPU sources: /sys/devices/system/cpu/online and the per-CPU cpufreq governors.
#include "sources/host/cpu_sources.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// "cpu12" -> 12; -1 for "cpufreq", "cpuidle" and other entries.
int CpuIndex(std::string_view name) {
  if (!StartsWith(name, "cpu") || name.size() == 3) return -1;
  auto v = ParseInt(name.substr(3));
  if (!v || *v < 0 || *v > 1 << 20) return -1;
  if (!std::isdigit(static_cast<unsigned char>(name[3]))) return -1;  // "cpu+1" is not a CPU
  return static_cast<int>(*v);
}

}  // namespace

Result<int> ParseOnlineCpuCount(std::string_view text) {
  auto cpus = ParseCpuList(text);
  if (!cpus.ok()) return cpus.status();
  if (cpus->empty()) return InvalidInput("empty CPU list");
  return static_cast<int>(cpus->size());
}

Result<std::string> ParseGovernor(std::string_view text) {
  std::string_view g = Trim(text);
  bool word = !g.empty() && std::all_of(g.begin(), g.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!word) return InvalidInput("not a governor name: '" + std::string(g) + "'");
  return std::string(g);
}

Reading<int> ReadOnlineCpus(const HostPaths& paths) {
  std::string path = paths.Sys("devices/system/cpu/online");
  auto text = ReadAttribute(path);
  if (!text.ok()) return Reading<int>::Error(text.status().message());
  auto n = ParseOnlineCpuCount(*text);
  if (!n.ok()) return Reading<int>::Error(path + ": " + n.status().message());
  return Reading<int>::Of(*n);
}

CpuFreqState ReadCpuFreq(const HostPaths& paths) {
  CpuFreqState state;
  const std::string dir = paths.Sys("devices/system/cpu");
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    state.note = "cannot list " + dir + ": " + ec.message();
    return state;
  }
  std::vector<int> cpus;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    int cpu = CpuIndex(it->path().filename().string());
    if (cpu >= 0) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  std::string first_error;
  for (int cpu : cpus) {
    std::string path = dir + "/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor";
    auto text = ReadAttribute(path);
    if (!text.ok()) {
      if (text.status().code() != StatusCode::kNotFound && first_error.empty()) {
        first_error = text.status().message();
      }
      continue;
    }
    auto governor = ParseGovernor(*text);
    if (!governor.ok()) {
      if (first_error.empty()) first_error = path + ": " + governor.status().message();
      continue;
    }
    state.governors[*governor].push_back(cpu);
  }
  if (state.governors.empty()) {
    state.note = !first_error.empty()
                     ? first_error
                     : "cpufreq not exposed (no " + dir + "/cpuN/cpufreq/scaling_governor)";
  } else if (!first_error.empty()) {
    state.note = "some CPUs unreadable: " + first_error;
  }
  return state;
}

}  // namespace gpuvet
