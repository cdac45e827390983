// Environment reader for the GPU visibility checks. Only a fixed list of variables is kept so
// that secrets in a job's environment never reach a report.
#include "sources/host/gpu_environment.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>

#include "util/file.h"
#include "util/strings.h"
#include "util/utf8.h"

extern char** environ;

namespace gpuvet {

namespace {

constexpr std::array<std::string_view, 7> kVariables = {
    "CUDA_DEVICE_ORDER",          "CUDA_VISIBLE_DEVICES",   "KUBERNETES_SERVICE_HOST",
    "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_VISIBLE_DEVICES", "container",
    "NVIDIA_REQUIRE_CUDA"};

bool Wanted(std::string_view key) {
  for (std::string_view v : kVariables) {
    if (v == key) return true;
  }
  return false;
}

bool ValidName(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string Unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return std::string(v);
}

}  // namespace

std::span<const std::string_view> GpuEnvironmentVariables() { return kVariables; }

Result<std::map<std::string, std::string>> ParseEnvironment(std::string_view text,
                                                            std::string_view shown_path) {
  std::map<std::string, std::string> out;
  if (text.find('\0') != std::string_view::npos) {
    // /proc/PID/environ: exactly what the process was started with, values taken literally.
    for (std::string_view rec : Split(text, '\0')) {
      size_t eq = rec.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view key = rec.substr(0, eq);
      if (Wanted(key)) out[std::string(key)] = MakeValidUtf8(rec.substr(eq + 1));
    }
    return out;
  }
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') continue;
    if (StartsWith(t, "export ")) t = Trim(t.substr(7));
    size_t eq = t.find('=');
    std::string_view key = eq == std::string_view::npos ? t : t.substr(0, eq);
    if (!ValidName(key)) {
      return InvalidInput(fmt::format("{}:{}: '{}' is not a KEY=VALUE line", shown_path, line_no,
                                      MakeValidUtf8(t.substr(0, 60))));
    }
    if (eq == std::string_view::npos) continue;  // docker: take KEY from the caller's environment
    // Values are quoted in findings: invalid UTF-8 becomes U+FFFD (util/utf8.h).
    if (Wanted(key)) out[std::string(key)] = MakeValidUtf8(Unquote(t.substr(eq + 1)));
  }
  return out;
}

GpuEnvironment ReadGpuEnvironment(const HostPaths& paths, int pid, const std::string& env_file) {
  GpuEnvironment env;
  using Vars = std::map<std::string, std::string>;
  // `--env-file <(…)` is a pipe the user named; an environ file under /proc is regular only.
  auto from_file = [&](const std::string& path, const std::string& shown,
                       FileKinds kinds = FileKinds::kRegular) {
    auto text = ReadFile(path, 4 << 20, kinds);
    if (!text.ok()) {
      if (text.status().code() == StatusCode::kPermissionDenied) {
        env.vars = Reading<Vars>::Error(fmt::format(
            "cannot read {}: permission denied (another user's process: run as that user or "
            "root)",
            shown));
      } else if (text.status().code() == StatusCode::kNotFound && !paths.is_live() &&
                 env_file.empty()) {
        env.vars = Reading<Vars>::Unsupported(shown + " is not in this tree");
      } else {
        env.vars = Reading<Vars>::Error(text.status().message());
      }
      return;
    }
    auto vars = ParseEnvironment(*text, shown);
    env.vars = vars.ok() ? Reading<Vars>::Of(std::move(vars).value())
                         : Reading<Vars>::Error(vars.status().message());
  };
  if (!env_file.empty()) {
    env.source = "--env-file " + env_file;
    from_file(env_file, env_file, FileKinds::kRegularOrPipe);
  } else if (pid > 0) {
    env.source = fmt::format("/proc/{}/environ", pid);
    from_file(paths.Proc(fmt::format("{}/environ", pid)), env.source);
  } else if (!paths.is_live()) {
    env.source = "/proc/self/environ";
    from_file(paths.Proc("self/environ"), env.source);
  } else {
    env.source = "environment of gpuvet";
    Vars vars;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view rec(*e);
      size_t eq = rec.find('=');
      if (eq != std::string_view::npos && Wanted(rec.substr(0, eq))) {
        vars[std::string(rec.substr(0, eq))] = std::string(rec.substr(eq + 1));
      }
    }
    env.vars = Reading<Vars>::Of(std::move(vars));
  }
  return env;
}

}  // namespace gpuvet
