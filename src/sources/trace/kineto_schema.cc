// Name tables for Kineto traces. Category names: Kineto's ActivityType strings
// (libkineto/src/ActivityType.cpp) plus the 2020-2021 spellings (Kernel, Memcpy, Runtime,
// Operator) of the PyTorch 1.8 profiler.
#include "sources/trace/kineto_schema.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "util/strings.h"

namespace gpuvet {
namespace {

struct CategoryName {
  std::string_view name;  // lower case
  KinetoCategory category;
};

constexpr std::array kCategories = {
    CategoryName{"kernel", KinetoCategory::kKernel},
    CategoryName{"gpu_memcpy", KinetoCategory::kMemcpy},
    CategoryName{"memcpy", KinetoCategory::kMemcpy},
    CategoryName{"gpu_memset", KinetoCategory::kMemset},
    CategoryName{"memset", KinetoCategory::kMemset},
    CategoryName{"cuda_runtime", KinetoCategory::kRuntime},
    CategoryName{"runtime", KinetoCategory::kRuntime},
    CategoryName{"cuda_driver", KinetoCategory::kRuntime},
    CategoryName{"cpu_op", KinetoCategory::kHostOp},
    CategoryName{"operator", KinetoCategory::kHostOp},
    CategoryName{"user_annotation", KinetoCategory::kUserAnnotation},
    CategoryName{"gpu_user_annotation", KinetoCategory::kGpuUserAnnotation},
    CategoryName{"cuda_profiler_range", KinetoCategory::kProfilerRange},
    // Known categories that carry nothing the trace model keeps.
    CategoryName{"python_function", KinetoCategory::kIgnored},
    CategoryName{"python", KinetoCategory::kIgnored},
    CategoryName{"cuda_sync", KinetoCategory::kIgnored},
    CategoryName{"trace", KinetoCategory::kIgnored},
    CategoryName{"ac2g", KinetoCategory::kIgnored},
    CategoryName{"fwdbwd", KinetoCategory::kIgnored},
    CategoryName{"async", KinetoCategory::kIgnored},
    CategoryName{"flow", KinetoCategory::kIgnored},
    CategoryName{"cpu_instant_event", KinetoCategory::kIgnored},
    CategoryName{"overhead", KinetoCategory::kIgnored},
    CategoryName{"external_correlation", KinetoCategory::kIgnored},
    // Accelerators other than CUDA/HIP. Kineto aliases these to its accelerator-agnostic types
    // (libkineto ActivityType.h: MTIA_CCP_EVENTS = CONCURRENT_KERNEL, MTIA_RUNTIME, HPU_OP,
    // XPU_RUNTIME, PRIVATEUSE1_RUNTIME = RUNTIME, PRIVATEUSE1_DRIVER = DRIVER); XPU and
    // PrivateUse1 device work is written as `kernel` / `gpu_memcpy` / `gpu_memset`.
    CategoryName{"mtia_ccp_events", KinetoCategory::kKernel},
    CategoryName{"mtia_runtime", KinetoCategory::kRuntime},
    CategoryName{"glow_runtime", KinetoCategory::kRuntime},
    CategoryName{"hpu_op", KinetoCategory::kRuntime},
    CategoryName{"xpu_runtime", KinetoCategory::kRuntime},
    CategoryName{"xpu_driver", KinetoCategory::kRuntime},
    CategoryName{"privateuse1_runtime", KinetoCategory::kRuntime},
    CategoryName{"privateuse1_driver", KinetoCategory::kRuntime},
    // MTIA samples that are not a timeline of device work.
    CategoryName{"mtia_insight", KinetoCategory::kAcceleratorOther},
    CategoryName{"mtia_counters", KinetoCategory::kAcceleratorOther},
    CategoryName{"mtia_workloadd", KinetoCategory::kAcceleratorOther},
    CategoryName{"collective_comm", KinetoCategory::kIgnored},
    CategoryName{"gpu_pm_counter", KinetoCategory::kIgnored},
};

bool EqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != lower[i]) return false;
  }
  return true;
}

// Removes the per-thread-stream and versioned-entry-point suffixes of CUDA API names
// (cudaMemcpyAsync_ptsz, cuMemcpyDtoHAsync_v2, cuLaunchKernel_ptsz; CUDA driver API docs).
std::string_view StripApiSuffixes(std::string_view name) {
  constexpr std::array<std::string_view, 5> kSuffixes = {"_ptsz", "_ptds", "_v2", "_v3", "_spt"};
  bool stripped = true;
  while (stripped) {
    stripped = false;
    for (std::string_view s : kSuffixes) {
      if (EndsWith(name, s)) {
        name.remove_suffix(s.size());
        stripped = true;
      }
    }
  }
  return name;
}

MemKind ParseMemKind(std::string_view s) {
  if (s == "Pageable") return MemKind::kPageable;
  if (s == "Pinned") return MemKind::kPinned;
  if (s == "Device") return MemKind::kDevice;
  if (s == "Managed") return MemKind::kManaged;
  if (s == "Array") return MemKind::kArray;
  return MemKind::kUnknown;
}

}  // namespace

KinetoCategory ClassifyCategory(std::string_view cat) {
  for (const CategoryName& c : kCategories) {
    if (EqualsLower(cat, c.name)) return c.category;
  }
  return KinetoCategory::kUnknown;
}

std::string_view AcceleratorOfCategory(std::string_view cat) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kPrefixes = {{
      {"mtia_", "mtia"},
      {"glow_", "mtia"},  // Glow is the runtime of MTIA's first generation
      {"hpu_", "hpu"},
      {"xpu_", "xpu"},
      {"privateuse1_", "privateuse1"},
  }};
  for (const auto& [prefix, device] : kPrefixes) {
    if (cat.size() >= prefix.size() && EqualsLower(cat.substr(0, prefix.size()), prefix)) {
      return device;
    }
  }
  return "";
}

std::optional<HostPhaseKind> ClassifyHostPhase(std::string_view name) {
  if (name.empty()) return std::nullopt;
  switch (name[0]) {  // most host ops are aten::..., rejected by the first character
    case 'e':
      if (StartsWith(name, "enumerate(DataLoader)")) return HostPhaseKind::kDataLoader;
      break;
    case '_':
      if (StartsWith(name, "_MultiProcessingDataLoaderIter.__next__") ||
          StartsWith(name, "_SingleProcessDataLoaderIter.__next__")) {
        return HostPhaseKind::kDataLoader;
      }
      break;
    case 'D':
      if (StartsWith(name, "DataLoader.__next__")) return HostPhaseKind::kDataLoader;
      break;
    case 'O':
      if (StartsWith(name, "Optimizer.step#")) return HostPhaseKind::kOptimizerStep;
      if (StartsWith(name, "Optimizer.zero_grad#")) return HostPhaseKind::kZeroGrad;
      break;
    default:
      break;
  }
  return std::nullopt;
}

bool IsHipApiName(std::string_view name) { return StartsWith(name, "hip"); }

bool IsProfilerStepName(std::string_view name) { return StartsWith(name, "ProfilerStep#"); }

RuntimeKind ClassifyRuntimeCall(std::string_view name) {
  std::string_view rest = StripApiSuffixes(name);
  if (StartsWith(rest, "cuda")) {
    rest.remove_prefix(4);
  } else if (StartsWith(rest, "hip")) {
    rest.remove_prefix(3);
  } else if (StartsWith(rest, "cu")) {
    rest.remove_prefix(2);
  } else {
    return RuntimeKind::kOther;
  }
  if (rest == "GraphLaunch") return RuntimeKind::kGraphLaunch;
  if (StartsWith(rest, "Memcpy")) {
    return EndsWith(rest, "Async") ? RuntimeKind::kMemcpyAsync : RuntimeKind::kMemcpy;
  }
  if (StartsWith(rest, "Memset")) return RuntimeKind::kMemset;
  if (rest == "DeviceSynchronize" || rest == "CtxSynchronize" || rest == "ThreadSynchronize") {
    return RuntimeKind::kDeviceSync;
  }
  if (rest == "StreamSynchronize") return RuntimeKind::kStreamSync;
  if (rest == "EventSynchronize") return RuntimeKind::kEventSync;
  // LaunchKernel, LaunchKernelExC, LaunchCooperativeKernel, ExtLaunchKernel, ModuleLaunchKernel,
  // ExtModuleLaunchKernel, HccModuleLaunchKernel; and the pre-CUDA-7 cudaLaunch / cuLaunchGrid.
  // Not LaunchHostFunc, which runs a host callback.
  bool launch = rest.find("Launch") != std::string_view::npos;
  if (launch && rest.find("Kernel") != std::string_view::npos) return RuntimeKind::kLaunch;
  if (rest == "Launch" || StartsWith(rest, "LaunchGrid")) return RuntimeKind::kLaunch;
  return RuntimeKind::kOther;
}

CopyInfo ParseMemcpyName(std::string_view name) {
  CopyInfo info;
  if (!StartsWith(name, "Memcpy ")) return info;
  name.remove_prefix(7);
  std::string_view dir = name.substr(0, name.find(' '));
  if (dir == "HtoD") {
    info.copy = CopyKind::kHtoD;
  } else if (dir == "DtoH") {
    info.copy = CopyKind::kDtoH;
  } else if (dir == "DtoD") {
    info.copy = CopyKind::kDtoD;
  } else if (dir == "HtoH") {
    info.copy = CopyKind::kHtoH;
  } else if (dir == "PtoP") {
    info.copy = CopyKind::kPtoP;
  }
  // "(Pageable -> Device)"
  size_t open = name.find('(');
  size_t arrow = name.find(" -> ", open == std::string_view::npos ? 0 : open);
  size_t close = name.rfind(')');
  if (open == std::string_view::npos || arrow == std::string_view::npos ||
      close == std::string_view::npos || close < arrow) {
    return info;
  }
  info.src = ParseMemKind(name.substr(open + 1, arrow - open - 1));
  info.dst = ParseMemKind(name.substr(arrow + 4, close - arrow - 4));
  return info;
}

std::optional<int64_t> MicrosTextToNanos(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && text[i] == '-') {
    negative = true;
    ++i;
  }
  auto is_digit = [&](size_t k) { return k < n && text[k] >= '0' && text[k] <= '9'; };
  size_t int_begin = i;
  while (is_digit(i)) ++i;
  std::string_view int_part = text.substr(int_begin, i - int_begin);
  if (int_part.empty()) return std::nullopt;
  std::string_view frac_part;
  if (i < n && text[i] == '.') {
    size_t frac_begin = ++i;
    while (is_digit(i)) ++i;
    frac_part = text.substr(frac_begin, i - frac_begin);
    if (frac_part.empty()) return std::nullopt;
  }
  int64_t exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (!is_digit(i)) return std::nullopt;
    while (is_digit(i)) {
      // Saturate: beyond a million the value is 0 or an overflow either way.
      if (exponent < 1000000) exponent = exponent * 10 + (text[i] - '0');
      ++i;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return std::nullopt;

  // value = digits(int_part frac_part) * 10^(exponent - |frac_part|) µs; ×10^3 for ns.
  const int64_t num_digits = static_cast<int64_t>(int_part.size() + frac_part.size());
  auto digit = [&](int64_t k) -> uint64_t {
    if (k >= num_digits) return 0;
    size_t u = static_cast<size_t>(k);
    return static_cast<uint64_t>(
        (u < int_part.size() ? int_part[u] : frac_part[u - int_part.size()]) - '0');
  };
  bool all_zero = true;
  for (int64_t k = 0; k < num_digits && all_zero; ++k) all_zero = digit(k) == 0;
  if (all_zero) return 0;
  int64_t shift = exponent - static_cast<int64_t>(frac_part.size()) + 3;
  // Digits kept as the integer part; the next one decides the rounding.
  int64_t keep = num_digits + shift;
  const uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  uint64_t value = 0;
  for (int64_t k = 0; k < keep; ++k) {
    // Leading zeros cost nothing; after the first non-zero digit this overflows within 20 steps.
    if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
        __builtin_add_overflow(value, digit(k), &value) || value > limit) {
      return std::nullopt;
    }
  }
  if (keep >= 0 && keep < num_digits && digit(keep) >= 5) {
    if (++value > limit) return std::nullopt;
  }
  if (negative) return value == (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(value);
  return static_cast<int64_t>(value);
}

}  // namespace gpuvet
