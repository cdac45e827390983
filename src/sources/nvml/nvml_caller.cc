// NvmlCaller's answer classification (see nvml_caller.h): turns NVML return codes and hangs into
// Reading notes and CallFailure entries, and marks a GPU lost or abandoned.
#include "sources/nvml/nvml_caller.h"

#include <fmt/format.h>

#include <cstring>
#include <string_view>

#include "util/strings.h"

namespace gpuvet::nvml_internal {

GpuFault GpuFaultOf(int code) {
  switch (code) {
    case NVML_SUCCESS:
      return GpuFault::kNone;
    case NVML_ERROR_UNKNOWN:
      return GpuFault::kUnknown;
    case NVML_ERROR_GPU_IS_LOST:
      return GpuFault::kLost;
    case NVML_ERROR_RESET_REQUIRED:
      return GpuFault::kResetRequired;
    case NVML_ERROR_NO_PERMISSION:
      return GpuFault::kNoPermission;
    case NVML_ERROR_INSUFFICIENT_POWER:
      return GpuFault::kInsufficientPower;
    case NVML_ERROR_IRQ_ISSUE:
      return GpuFault::kIrqIssue;
    case NVML_ERROR_CORRUPTED_INFOROM:
      return GpuFault::kCorruptedInforom;
    case NVML_ERROR_TIMEOUT:
      return GpuFault::kTimeout;
    default:
      return GpuFault::kOther;
  }
}

Outcome NvmlCaller::TimedOut(const char* call, const std::string& message) {
  const bool skipped = StartsWith(message, "skipped");
  if (!skipped) AddFailure(call, message, true);
  if (gpu_ != nullptr) gpu_->abandoned = true;
  // "nvmlX: did not return within 2000 ms" / "nvmlX: skipped: nvmlY hung earlier"
  std::string_view what = message;
  if (StartsWith(what, call)) what.remove_prefix(std::strlen(call) + 1);
  return Outcome{true, skipped ? kSkipped : kTimedOut, fmt::format("{}: {}", call, what)};
}

void NvmlCaller::Classify(const char* call, Outcome* o) {
  if (o->code == NVML_SUCCESS) return;
  if (o->code == NVML_ERROR_NOT_SUPPORTED) {
    o->note = fmt::format("{}: not supported", call);
  } else if (o->code == NVML_ERROR_FUNCTION_NOT_FOUND) {
    o->note = fmt::format("{}: not supported (absent from this driver's NVML)", call);
  } else {
    o->note = fmt::format("{}: {}", call, NvmlErrorName(o->code));
    if (o->code == NVML_ERROR_GPU_IS_LOST && gpu_ != nullptr) {
      gpu_->lost = true;
      gpu_->lost_call = call;
    } else if (o->code == NVML_ERROR_RESET_REQUIRED && gpu_ != nullptr) {
      // Not a query that failed: the GPU is unusable until it is reset (gpu.reset_required).
      if (!gpu_->reset_required) gpu_->reset_required_call = call;
      gpu_->reset_required = true;
    } else {
      AddFailure(call, DescribeNvmlError(o->code), false);
    }
  }
}

void NvmlCaller::AddFailure(const char* call, std::string message, bool timed_out) {
  for (const CallFailure& f : *failures_) {
    if (f.call == call) return;  // one entry per function (ECC counters call it four times)
  }
  failures_->push_back(CallFailure{call, std::move(message), timed_out});
}

}  // namespace gpuvet::nvml_internal
