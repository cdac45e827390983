// `gpuvet trace --target`: the time budget of a trace window (every instant of the GPU span given
// to the one part that governs it: tensor kernels by precision, memory-bound kernels, kernels of
// unknown class, device copies, communication, host copies, and the idle gaps by who held the
// GPU) and the upgrade forecast built from it (core/forecast.h, docs/forecast.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/trace/op_window.h"
#include "core/forecast.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// The precision a GEMM/convolution/attention kernel computes in, from its (any-case) name:
// "sm90_xmma_gemm_bf16bf16_…" BF16, "volta_h884gemm…" FP16, "ampere_s16816gemm…" TF32,
// "volta_sgemm_128x64_nt" or "implicit_convolve_sgemm<float…" FP32; kUnknown when it says none.
MathPrecision KernelPrecision(std::string_view name);

// The budget of `a`'s GPU span (a.temporal) over the ops of `window`. Overlapping ops count once,
// for the highest of: tensor kernels, memory-bound kernels, unknown kernels, device copies,
// communication, pinned host copies, pageable host copies, other copies. The idle rest is split
// by a.host (syncs, DataLoader, optimizer, other host time) and a.gpu_idle (launch gaps).
TimeBudget ComputeTimeBudget(const RankTrace& trace, const OpWindow& window, const RankAnalysis& a);

// Fills report.forecasts: one per rank with a budget (its steady state's when start-up was
// detected). The source GPU is `source` when given (a spec key or name), else the rank's
// deviceProperties name; unknown otherwise, said so. `target` must be a row of GpuSpecs().
void ForecastTraceReport(TraceReport& report, const GpuSpec& target,
                         const std::optional<std::string>& source);

}  // namespace gpuvet
