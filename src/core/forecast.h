// The upgrade forecast model shared by `gpuvet trace --target` and `gpuvet analyze --target`: a
// time budget measured on the source GPU (parts of wall time, each tagged with what governs it),
// each part scaled by the target's datasheet figure for that resource, and the sum (Amdahl's law)
// with a low-high range wherever the inputs cannot tell what limits a part. docs/forecast.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/hw/gpu_specs.h"

namespace gpuvet {

inline constexpr const char* kForecastSchema = "gpuvet.forecast/v1";

// What a part's time scales with on another GPU.
enum class ForecastGovernor {
  kTensor,            // GEMM/convolution/attention: dense throughput in BudgetPart::precision
  kMemory,            // elementwise, reduction, normalisation, device-to-device copies: bandwidth
  kKernelUnknown,     // a kernel whose class the name does not give: memory .. FP32 compute
  kBusyUnsplit,       // GPU-busy time nothing splits (GPU-Util only): memory .. tensor (BF16/FP16)
  kHostLink,          // host<->device copies over PCIe or NVLink-C2C
  kHostLinkPageable,  // the same through pageable memory: host staging may set the pace
  kInterconnect,      // communication kernels and peer copies: NVLink or the network
  kUnchanged,         // idle, launch gaps, syncs, host and data-loader time
};

// One part of the measured budget.
struct BudgetPart {
  std::string part;  // stable id: "gemm_bf16", "memory_kernels", "idle_sync", …
  ForecastGovernor governor = ForecastGovernor::kUnchanged;
  MathPrecision precision = MathPrecision::kUnknown;  // kTensor only
  double seconds = 0;
  std::string note;  // why it is unchanged, or what it holds ("data loader")
};

// A measured budget: its parts and, when the input does not name its GPU, what the kernel names
// suggest ("volta_sgemm… kernels: a Volta GPU, e.g. V100") for the user to confirm with --source.
struct TimeBudget {
  std::vector<BudgetPart> parts;
  std::string arch_hint;
};

// One part of the wall time and how it scales on the target GPU.
struct ForecastTerm {
  std::string part;       // BudgetPart::part (recordings: "host_side", "busy", "transfer", …)
  double share_pct = 0;   // of the budget's wall time
  double scale = 1;       // time on target / time now, the middle assumption
  double scale_low = 1;   // the most favourable assumption (smallest time on the target)
  double scale_high = 1;  // the least favourable
  bool fixed = false;     // does not depend on the GPU (counts against the ceiling)
  std::string basis;      // "BF16 dense 989 -> 2250 TFLOPS"
};

struct UpgradeForecast {
  std::string subject;  // "rank 0", a file name; "" for a recording
  std::string current;  // table key, or the name the input gave when unknown
  std::string target;
  bool current_known = false;
  // Where the source GPU came from: "trace deviceProperties", "--source", "recording"; "".
  std::string current_from;
  bool computed = false;  // false: the source GPU is unknown, so no ratio can be formed
  double window_s = 0;    // seconds of the budget
  double speedup = 1;     // wall time now / estimated wall time on the target (middle)
  double speedup_low = 1;
  double speedup_high = 1;
  bool range = false;      // some part's scale is uncertain: give the range, never one number
  double max_speedup = 0;  // any GPU, however fast: 1 / share of fixed time; 0 = unbounded
  std::vector<ForecastTerm> terms;
  std::string summary;                // one line
  std::string first_change;           // what must change first for the upgrade to pay
  std::string range_reason;           // why it is a range ("" when it is not)
  std::string narrow_by;              // the metric or input that would narrow it
  std::vector<std::string> evidence;  // supporting lines (power against the board limit, GPM)
  std::vector<std::string> notes;     // assumptions the reader should know
  std::vector<std::string> sources;   // where the spec rows come from
};

// Scales one part from `from` to `to` (both rows of GpuSpecs()). Share is left 0.
ForecastTerm ScaleBudgetPart(const BudgetPart& part, const GpuSpec& from, const GpuSpec& to);

// Builds the forecast from a budget: terms for every part with time, speedups (middle, low,
// high), the ceiling, the range flag and the sources, and a summary line. `from` may be null
// (source unknown): the terms then carry shares only and `computed` stays false. first_change,
// range_reason and narrow_by are the caller's.
UpgradeForecast ForecastFromBudget(const std::vector<BudgetPart>& budget, const GpuSpec* from,
                                   const GpuSpec& to);

// "2.07x" or "1.45x-2.07x" as the forecast allows.
std::string SpeedupText(const UpgradeForecast& f);

}  // namespace gpuvet
