// System identity from /proc; parsers are pure and take the file text.
#include "sources/host/system_info.h"

#include <cctype>
#include <cmath>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// "550.90.07", "535.54.03", "560.35": digits separated by single dots, at least one dot.
bool IsDottedVersion(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  int dots = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s[i - 1] == '.') return false;
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return dots >= 1;
}

Reading<std::string> ReadText(const std::string& path) {
  auto text = ReadAttribute(path);
  if (!text.ok()) return Reading<std::string>::Error(text.status().message());
  return Reading<std::string>::Of(*text);
}

}  // namespace

Result<std::string> ParseNvidiaModuleVersion(std::string_view text) {
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line);
    if (!StartsWith(line, "NVRM version:")) continue;
    for (std::string_view word : SplitWhitespace(line.substr(13))) {
      if (IsDottedVersion(word)) return std::string(word);
    }
    return InvalidInput("no version number in '" + std::string(line) + "'");
  }
  return InvalidInput("no 'NVRM version:' line");
}

Result<double> ParseUptime(std::string_view text) {
  std::vector<std::string_view> w = SplitWhitespace(text);
  auto v = w.empty() ? std::nullopt : ParseDouble(w[0]);
  if (!v || !std::isfinite(*v) || *v < 0) {
    return InvalidInput("not '<seconds> <idle seconds>': '" + std::string(Trim(text)) + "'");
  }
  return *v;
}

SystemInfo ReadSystemInfo(const HostPaths& paths) {
  SystemInfo info;
  info.hostname = ReadText(paths.Proc("sys/kernel/hostname"));
  info.kernel_release = ReadText(paths.Proc("sys/kernel/osrelease"));

  std::string uptime_path = paths.Proc("uptime");
  auto uptime = ReadAttribute(uptime_path);
  if (!uptime.ok()) {
    info.uptime_s = Reading<double>::Error(uptime.status().message());
  } else if (auto v = ParseUptime(*uptime); !v.ok()) {
    info.uptime_s = Reading<double>::Error(uptime_path + ": " + v.status().message());
  } else {
    info.uptime_s = Reading<double>::Of(*v);
  }

  std::string version_path = paths.Proc("driver/nvidia/version");
  auto version = ReadFile(version_path, 1 << 16);
  if (!version.ok()) {
    info.nvidia_module_version =
        version.status().code() == StatusCode::kNotFound
            ? Reading<std::string>::Unsupported(
                  "nvidia kernel module not loaded (/proc/driver/nvidia/version absent)")
            : Reading<std::string>::Error(version.status().message());
  } else if (auto v = ParseNvidiaModuleVersion(*version); !v.ok()) {
    info.nvidia_module_version =
        Reading<std::string>::Error(version_path + ": " + v.status().message());
  } else {
    info.nvidia_module_version = Reading<std::string>::Of(*v);
  }
  return info;
}

}  // namespace gpuvet
