// Roofline placement of the kernels of a CUPTI range-profiler trace.
#include "analysis/trace/counter_analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/bottleneck.h"
#include "core/hw/gpu_specs.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr size_t kTopKernels = 10;
constexpr std::string_view kSassPrefix = "smsp__sass_thread_inst_executed_op_";
constexpr std::string_view kSassSuffix = "_pred_on.sum";

enum class Precision { kNone, kFp64, kFp32, kFp16 };

struct FlopCounter {
  Precision precision = Precision::kNone;
  double per_instruction = 0;  // FLOPs per thread instruction
};

// "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" -> FP32, 2 FLOPs per instruction.
FlopCounter ParseFlopCounter(std::string_view metric) {
  if (!StartsWith(metric, kSassPrefix) || !EndsWith(metric, kSassSuffix)) return {};
  std::string_view op =
      metric.substr(kSassPrefix.size(), metric.size() - kSassPrefix.size() - kSassSuffix.size());
  if (op.size() < 4) return {};
  Precision p = op[0] == 'd'   ? Precision::kFp64
                : op[0] == 'f' ? Precision::kFp32
                : op[0] == 'h' ? Precision::kFp16
                               : Precision::kNone;
  std::string_view kind = op.substr(1);
  if (p == Precision::kNone) return {};
  if (kind == "fma") return {p, 2};
  if (kind == "add" || kind == "mul") return {p, 1};
  return {};
}

struct Accumulated {
  uint64_t ranges = 0;
  double flops = 0;
  double dram = 0;
  bool has_dram = false;
};

}  // namespace

CounterStats ComputeCounterStats(const RankTrace& trace) {
  CounterStats c;
  c.gpu_name = trace.gpu_name;
  if (trace.counter_ranges.empty()) return c;
  c.ranges = trace.counter_ranges.size();
  std::set<std::string> metrics;
  std::map<uint32_t, Accumulated> by_kernel;
  for (const CounterRange& r : trace.counter_ranges) {
    Accumulated& k = by_kernel[r.name];
    ++k.ranges;
    double read = 0, write = 0, total = 0;
    bool has_read = false, has_write = false, has_total = false;
    for (uint32_t i = r.first; i < r.first + r.count && i < trace.counter_values.size(); ++i) {
      const CounterValue& v = trace.counter_values[i];
      const std::string& m = trace.Name(v.metric);
      metrics.insert(m);
      FlopCounter f = ParseFlopCounter(m);
      if (f.precision != Precision::kNone) {
        double flops = v.value * f.per_instruction;
        c.has_flops = true;
        k.flops += flops;
        (f.precision == Precision::kFp64   ? c.flops_fp64
         : f.precision == Precision::kFp32 ? c.flops_fp32
                                           : c.flops_fp16) += flops;
      } else if (m == "dram__bytes_read.sum") {
        read += v.value, has_read = true;
      } else if (m == "dram__bytes_write.sum") {
        write += v.value, has_write = true;
      } else if (m == "dram__bytes.sum") {
        total += v.value, has_total = true;
      }
    }
    if (has_read || has_write || has_total) {
      // dram__bytes.sum already is read + write; prefer the split counters when both exist.
      double bytes = has_read || has_write ? read + write : total;
      k.dram += bytes;
      k.has_dram = true;
      c.has_dram = true;
      c.dram_bytes += bytes;
    }
  }
  c.metrics.assign(metrics.begin(), metrics.end());
  c.kernels = by_kernel.size();

  const GpuSpec* spec = trace.gpu_name.empty() ? nullptr : FindGpuSpec(trace.gpu_name);
  double peak_flops = 0, bandwidth = 0;
  if (spec != nullptr && spec->memory_gbps > 0) {
    c.gpu_spec = std::string(spec->key);
    peak_flops = spec->fp32_tflops * 1e12;
    bandwidth = spec->memory_gbps * 1e9;
    c.ridge_flop_per_byte = peak_flops / bandwidth;
  }
  double total_flops = c.flops_fp64 + c.flops_fp32 + c.flops_fp16;
  double memory_time = 0, roofline_time = 0;
  std::vector<KernelCounterStat> all;
  for (const auto& [name, k] : by_kernel) {
    KernelCounterStat s;
    s.name = trace.Name(name);
    s.ranges = k.ranges;
    s.flops = k.flops;
    s.flop_share_pct = total_flops > 0 ? 100.0 * k.flops / total_flops : 0;
    if (k.has_dram) {
      s.dram_bytes = k.dram;
      if (k.dram > 0 && c.has_flops) s.intensity = k.flops / k.dram;
    }
    if (k.has_dram && c.has_flops && c.ridge_flop_per_byte > 0 && (k.flops > 0 || k.dram > 0)) {
      bool memory = k.dram > 0 && k.flops / k.dram < c.ridge_flop_per_byte;
      s.bound = memory ? Bottleneck::kMemoryBound : Bottleneck::kComputeBound;
      ++(memory ? c.memory_bound_kernels : c.compute_bound_kernels);
      double t = std::max(k.flops / peak_flops, k.dram / bandwidth);
      roofline_time += t;
      if (memory) memory_time += t;
    }
    all.push_back(std::move(s));
  }
  if (roofline_time > 0) c.memory_bound_time_pct = 100.0 * memory_time / roofline_time;
  std::stable_sort(all.begin(), all.end(),
                   [](const KernelCounterStat& a, const KernelCounterStat& b) {
                     if (a.flops != b.flops) return a.flops > b.flops;
                     return a.dram_bytes.value_or(0) > b.dram_bytes.value_or(0);
                   });
  if (all.size() > kTopKernels) all.resize(kTopKernels);
  c.top = std::move(all);
  return c;
}

}  // namespace gpuvet
