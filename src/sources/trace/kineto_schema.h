// What the strings of a Kineto (PyTorch profiler) trace mean: event categories in their current
// and older spellings, CUDA/HIP runtime API names, memcpy names, and exact microsecond times.
// Pure functions, so the reader stays about structure and these stay testable one by one.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/trace/trace.h"

namespace gpuvet {

// An event category ("cat") as the reader uses it.
enum class KinetoCategory : uint8_t {
  kKernel,             // kernel, Kernel, mtia_ccp_events (MTIA on-device events)
  kMemcpy,             // gpu_memcpy, Memcpy
  kMemset,             // gpu_memset, Memset
  kRuntime,            // cuda_runtime, Runtime, cuda_driver; mtia/xpu/privateuse1 runtime, hpu_op
  kHostOp,             // cpu_op, Operator: a step when named ProfilerStep#N
  kUserAnnotation,     // user_annotation: a step when named ProfilerStep#N, else an annotation
  kGpuUserAnnotation,  // gpu_user_annotation: the GPU-side copy of an annotation
  kProfilerRange,      // cuda_profiler_range: one kernel's CUPTI range-profiler counters
  // An accelerator category whose events are not a timeline gpuvet can analyse (mtia_insight,
  // mtia_counters, mtia_workloadd): counted for `unsupported_device`.
  kAcceleratorOther,
  kIgnored,  // a known category the analyses do not use (python_function, ac2g, …)
  kUnknown,  // a category this reader does not know
};

// Classifies a category case-insensitively ("Kernel" and "kernel" are the same).
KinetoCategory ClassifyCategory(std::string_view cat);

// The accelerator a category belongs to ("mtia", "xpu", "hpu", "privateuse1"); "" for CUDA/HIP
// and host categories. Case-insensitive.
std::string_view AcceleratorOfCategory(std::string_view cat);

// The host phase a host op's name marks (`enumerate(DataLoader)#...`,
// `_MultiProcessingDataLoaderIter.__next__`, `_SingleProcessDataLoaderIter.__next__`,
// `DataLoader.__next__`, `Optimizer.step#...`, `Optimizer.zero_grad#...`); nullopt otherwise.
std::optional<HostPhaseKind> ClassifyHostPhase(std::string_view name);

// What a runtime/driver API call does, from its name (cudaLaunchKernel, cuLaunchKernelEx,
// hipExtModuleLaunchKernel, cudaMemcpyAsync_ptsz, cuMemcpyDtoH_v2, …); kOther when unknown.
RuntimeKind ClassifyRuntimeCall(std::string_view name);

// True for HIP (ROCm) runtime names: they start with "hip".
bool IsHipApiName(std::string_view name);

// True for a profiler step range name: "ProfilerStep#<N>".
bool IsProfilerStepName(std::string_view name);

// Direction and memory kinds of a copy, from its Kineto name.
struct CopyInfo {
  CopyKind copy = CopyKind::kOther;
  MemKind src = MemKind::kUnknown;
  MemKind dst = MemKind::kUnknown;
};

// Parses "Memcpy HtoD (Pageable -> Device)"; "Memcpy HtoD" (older, no kinds) gives kUnknown
// kinds; an unrecognised direction gives kOther; "Host" (ROCm) is kUnknown.
CopyInfo ParseMemcpyName(std::string_view name);

// Converts a JSON number of microseconds ("4458676522690.655", "12", "1.5e3", "-0.25") to
// integer nanoseconds exactly from its decimal text, rounding half away from zero at the
// nanosecond. nullopt when the text is not a JSON number or the result overflows int64.
std::optional<int64_t> MicrosTextToNanos(std::string_view text);

}  // namespace gpuvet
