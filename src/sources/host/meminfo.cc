// Memory sources: /proc/meminfo and /proc/pressure/*. Parsers are pure; readers add the paths.
#include "sources/host/meminfo.h"

#include <cmath>
#include <limits>
#include <string>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Bytes per meminfo "kB" (the kernel means KiB: fs/proc/meminfo.c shifts pages by PAGE_SHIFT-10).
constexpr uint64_t kBytesPerKb = 1024;

template <typename T>
Reading<T> ErrorOrUnsupported(const Status& s) {
  // A kernel booted with psi=0 keeps the files but answers reads with EOPNOTSUPP.
  if (s.code() == StatusCode::kNotFound || s.message().find("not supported") != std::string::npos) {
    return Reading<T>::Unsupported("PSI not available: " + s.message());
  }
  return Reading<T>::Error(s.message());
}

}  // namespace

MemInfo ParseMeminfo(std::string_view text, std::string_view path) {
  struct Key {
    std::string_view name;
    Reading<uint64_t> MemInfo::*field;
  };
  const Key keys[] = {{"MemTotal", &MemInfo::total_bytes},
                      {"MemAvailable", &MemInfo::available_bytes},
                      {"SwapTotal", &MemInfo::swap_total_bytes},
                      {"SwapFree", &MemInfo::swap_free_bytes}};
  MemInfo info;
  for (const Key& k : keys) {
    info.*k.field =
        Reading<uint64_t>::Unsupported(std::string(k.name) + " not in " + std::string(path));
  }
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    for (const Key& k : keys) {
      if (name != k.name) continue;
      std::vector<std::string_view> w = SplitWhitespace(line.substr(colon + 1));
      auto v = w.empty() ? std::nullopt : ParseUint(w[0]);
      bool ok = v && !StartsWith(w[0], "0x") && (w.size() == 1 || (w.size() == 2 && w[1] == "kB"));
      uint64_t scale = w.size() == 2 ? kBytesPerKb : 1;
      if (!ok || *v > std::numeric_limits<uint64_t>::max() / scale) {
        info.*k.field =
            Reading<uint64_t>::Error(std::string(path) + ":" + std::to_string(line_no) +
                                     ": not '<number> kB': '" + std::string(line) + "'");
      } else {
        info.*k.field = Reading<uint64_t>::Of(*v * scale);
      }
    }
  }
  return info;
}

Result<PsiLine> ParsePsiLine(std::string_view fields) {
  PsiLine out;
  bool seen[4] = {false, false, false, false};
  for (std::string_view field : SplitWhitespace(fields)) {
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) return InvalidInput("bad field '" + std::string(field) + "'");
    std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "total") {
      auto v = ParseUint(value);
      if (!v || StartsWith(value, "0x"))
        return InvalidInput("bad total '" + std::string(value) + "'");
      out.total_us = *v;
      seen[3] = true;
      continue;
    }
    double* target = key == "avg10"    ? &out.avg10
                     : key == "avg60"  ? &out.avg60
                     : key == "avg300" ? &out.avg300
                                       : nullptr;
    if (target == nullptr) continue;  // unknown keys from future kernels are ignored
    auto v = ParseDouble(value);
    if (!v || !std::isfinite(*v) || *v < 0 || *v > 100) {
      return InvalidInput("bad " + std::string(key) + " '" + std::string(value) + "'");
    }
    *target = *v;
    seen[key == "avg10" ? 0 : key == "avg60" ? 1 : 2] = true;
  }
  if (!seen[0] || !seen[1] || !seen[2] || !seen[3]) {
    return InvalidInput("missing avg10/avg60/avg300/total in '" + std::string(Trim(fields)) + "'");
  }
  return out;
}

Result<PsiFile> ParsePsiFile(std::string_view text) {
  PsiFile file;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    std::string_view t = Trim(line);
    if (t.empty()) continue;
    size_t space = t.find(' ');
    std::string_view kind = t.substr(0, space);
    std::string_view rest = space == std::string_view::npos ? std::string_view() : t.substr(space);
    if (kind != "some" && kind != "full") {
      return InvalidInput("line " + std::to_string(line_no) + ": not a some/full line: '" +
                          std::string(t) + "'");
    }
    auto parsed = ParsePsiLine(rest);
    if (!parsed.ok()) {
      return InvalidInput("line " + std::to_string(line_no) + ": " + parsed.status().message());
    }
    (kind == "some" ? file.some : file.full) = *parsed;
  }
  if (!file.some) return InvalidInput("no 'some' line");
  return file;
}

MemInfo ReadMeminfo(const HostPaths& paths) {
  std::string path = paths.Proc("meminfo");
  auto text = ReadFile(path, 1 << 20);
  if (!text.ok()) {
    MemInfo info;
    auto e = Reading<uint64_t>::Error(text.status().message());
    info.total_bytes = info.available_bytes = info.swap_total_bytes = info.swap_free_bytes = e;
    return info;
  }
  return ParseMeminfo(*text, path);
}

PsiState ReadPsi(const HostPaths& paths) {
  PsiState psi;
  struct Resource {
    const char* name;
    Reading<PsiLine> PsiState::*some;  // nullptr: not used
    Reading<PsiLine> PsiState::*full;
  };
  // cpu "full" exists since Linux 5.13 but is meaningless system-wide; it is not kept.
  const Resource resources[] = {{"cpu", &PsiState::cpu_some, nullptr},
                                {"memory", &PsiState::memory_some, &PsiState::memory_full},
                                {"io", &PsiState::io_some, &PsiState::io_full}};
  for (const Resource& r : resources) {
    std::string path = paths.Proc(std::string("pressure/") + r.name);
    auto text = ReadFile(path, 1 << 16);
    Reading<PsiLine> some, full;
    if (!text.ok()) {
      some = full = ErrorOrUnsupported<PsiLine>(text.status());
    } else if (auto parsed = ParsePsiFile(*text); !parsed.ok()) {
      some = full = Reading<PsiLine>::Error(path + ": " + parsed.status().message());
    } else {
      some = Reading<PsiLine>::Of(*parsed->some);
      full = parsed->full ? Reading<PsiLine>::Of(*parsed->full)
                          : Reading<PsiLine>::Unsupported("no 'full' line in " + path);
    }
    psi.*r.some = some;
    if (r.full != nullptr) psi.*r.full = full;
  }
  return psi;
}

}  // namespace gpuvet
