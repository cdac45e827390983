// The bottleneck vocabulary that `gpuvet analyze`, `watch` and `trace` share: one table of every
// label and sub-case they can emit, each with its stable id, what it means, the evidence it needs
// and the decision to take. The analyses hold the enums; strings appear only at the output edge
// (renderers, `gpuvet checks`, `gpuvet explain LABEL`).
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string_view>

#include "core/finding.h"

namespace gpuvet {

// A label of the shared vocabulary. Its string id (BottleneckName) is part of the JSON schemas.
enum class Bottleneck {
  kNone,               // "none": the GPU is not the limit and nothing waits
  kIdle,               // "idle"
  kCpuFallback,        // "cpu_fallback"
  kHostCpuBound,       // "host_cpu_bound"
  kHostIoBound,        // "host_io_bound"
  kTransferBound,      // "transfer_bound"
  kLaunchBound,        // "launch_bound"
  kMemoryBound,        // "memory_bound"
  kComputeBound,       // "compute_bound"
  kCommBound,          // "comm_bound"
  kThrottled,          // "throttled"
  kPeriodicStall,      // "periodic_stall"
  kMemoryLeak,         // "memory_leak"
  kInsufficientData,   // "insufficient_data"
  kCountersOnly,       // "counters_only"
  kStartup,            // "startup"
  kUnsupportedDevice,  // "unsupported_device"
  kNoGpuActivity,      // "no_gpu_activity"
  kGpuImbalance,       // "gpu_imbalance": one GPU of the node unlike the others
  kStalled,            // "stalled": GPU-Util pinned while nothing moves (a hung kernel/collective)
  kCount,              // not a label: the number of labels; append new labels above it
};
inline constexpr int kBottleneckCount = static_cast<int>(Bottleneck::kCount);

// A sub-diagnosis of a label (the `detail` of a recording label); kNone when there is none.
enum class Subcase {
  kNone,                // ""
  kCpuQuota,            // host_cpu_bound/cpu_quota
  kSingleThreadFeeder,  // host_cpu_bound/single_thread_feeder
  kCpuSaturated,        // host_cpu_bound/cpu_saturated
  kSmallFiles,          // host_io_bound/small_files
  kStorage,             // host_io_bound/storage
  kBusyNotProductive,   // launch_bound/busy_not_productive
  kBursty,              // none/bursty
  kNoHostData,          // idle/no_host_data
  kPowerCap,            // throttled/power_cap
  kThermal,             // throttled/thermal
  kHwSlowdown,          // throttled/hw_slowdown
  kWriteBurst,          // periodic_stall/write_burst
  kHostRss,             // memory_leak/host_rss
  kGpuMemory,           // memory_leak/gpu_memory
  kInputBursts,         // periodic_stall/input_bursts
  kNetwork,             // comm_bound/network
  kIdleGpu,             // gpu_imbalance/idle_gpu
  kSlowGpu,             // gpu_imbalance/slow_gpu
  kHotGpu,              // gpu_imbalance/hot_gpu
  kStraggler,           // gpu_imbalance/straggler
  kNfsOutage,           // periodic_stall/nfs_outage
  kKernelEvent,         // periodic_stall/kernel_event
  kCount,               // not a sub-case: the number of sub-cases; append new ones above it
};
inline constexpr int kSubcaseCount = static_cast<int>(Subcase::kCount);

// One row of the vocabulary: a label (subcase kNone) or one of its sub-cases.
struct BottleneckInfo {
  Bottleneck label;
  Subcase subcase;
  std::string_view id;          // "host_cpu_bound", "host_cpu_bound/cpu_quota"
  std::string_view emitted_by;  // the commands that can report it: "analyze", "trace", both
  // What the label means for the job, the one answer every screen and analysis reads:
  //   kOk      not a bottleneck: the GPU is the limit or nothing waits (none, compute_bound)
  //   kInfo    not a bottleneck, worth knowing: the GPU is unused or the window is start-up
  //   kWarn    the job waits on something and runs slower than it could
  //   kFail    the job will fail if nothing changes (memory_leak)
  //   kUnknown the input cannot say how the job runs (insufficient_data, counters_only, ...)
  Severity severity;
  int chart_colour;           // palette slot (0-7) of the label on charts; 7 is neutral grey
  std::string_view title;     // a few words
  std::string_view meaning;   // what it says about the job
  std::string_view evidence;  // the signals and thresholds that decide it
  std::string_view decision;  // what to change (the `decision` of an analyze label)
};

// Every row, sorted by id (a label's row comes right before its sub-cases). Static storage.
std::span<const BottleneckInfo> Bottlenecks();

// The row for `id`, "label" or "label/subcase"; nullptr when the table has none.
const BottleneckInfo* FindBottleneck(std::string_view id);

// The row for exactly this label and sub-case; nullptr when the pair is not in the table.
const BottleneckInfo* FindBottleneckRow(Bottleneck label, Subcase subcase);

// The stable string id of a label ("host_cpu_bound"); every enum value has one.
std::string_view BottleneckName(Bottleneck label);

// The stable string of a sub-case ("cpu_quota"), "" for Subcase::kNone.
std::string_view SubcaseName(Subcase subcase);

// The sub-case whose string is `name`, or nullopt ("" is Subcase::kNone).
std::optional<Subcase> FindSubcase(std::string_view name);

// The decision for a label and sub-case: the pair's row, else the label's own row.
std::string_view DecisionFor(Bottleneck label, Subcase subcase = Subcase::kNone);

// What a label (and sub-case) means for the job: the pair's row, else the label's own row
// (BottleneckInfo::severity). Every screen colours a label by this and nothing else.
Severity LabelSeverity(Bottleneck label, Subcase subcase = Subcase::kNone);

// The severity of the row `id` ("label" or "label/subcase"); kUnknown when the table has none.
Severity LabelSeverity(std::string_view id);

// True when the job waits on this label (its severity is warn or fail); compute_bound, none and
// idle are not bottlenecks.
bool IsBottleneck(Bottleneck label, Subcase subcase = Subcase::kNone);

// The chart palette slot of the row `id` ("label" or "label/subcase"); 7 (grey) when unknown.
int LabelChartColour(std::string_view id);

// The catalogue finding that restates a label for `gpuvet trace` ("trace.idle"), or "" when the
// label has none. Its meaning and decision are the label row's (core/catalogue generates them).
std::string_view TraceFindingId(Bottleneck label);

// Print the string ids (for test failure messages and logs).
std::ostream& operator<<(std::ostream& os, Bottleneck label);
std::ostream& operator<<(std::ostream& os, Subcase subcase);

}  // namespace gpuvet
