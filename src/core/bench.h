// The benchmark model: what `gpuvet bench` measured on each GPU and link, with the method, sizes,
// repetitions and spread of every figure, so a number can be judged and compared with a baseline.
// The measurement engine (sources/bench_*.cc) fills it; judgement (rules/bench_*.cc) reads it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/finding.h"
#include "core/reading.h"

namespace gpuvet {

// What became of one figure. Each outcome is judged differently (rules/bench_rules.cc):
enum class BenchOutcome {
  kMeasured,     // samples hold the figure
  kUnavailable,  // not applicable here (no cuBLASLt or NCCL, one GPU, unsupported P2P): info
  kFailed,       // the GPU or driver failed it (a CUDA error, wrong data, a hang): fail
  kIncomplete,   // could not run for a local reason (out of host or device memory): unknown
  kAbandoned,    // not run because of a failure reported elsewhere (BenchGpu::failed, the
                 // failed P2P bandwidth of the same pair)
};

// One measured figure. Stable ids (used by baselines and the JSON schema):
//   h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable, bidir_pinned (sum of both directions),
//   h2d_pinned_remote, d2h_pinned_remote (host thread and memory on a NUMA node remote to the GPU),
//   d2d_copy_engine, d2d_sm_copy (read+write counted), sm_triad,
//   fp32_fma (TFLOP/s), bf16_tensor, fp16_tensor (TFLOP/s, cuBLASLt),
//   launch_rate (launches/s), launch_latency (µs, launch to completion),
//   p2p_bandwidth, p2p_latency (gpu -> peer), nccl_allreduce_busbw (GB/s, all GPUs).
struct BenchMeasurement {
  std::string id;
  int gpu = -1;         // CUDA ordinal; -1 for all-GPU measurements (NCCL)
  int peer = -1;        // P2P destination
  int numa_node = -1;   // node the host thread and memory were bound to; -1 unbound
  std::string unit;     // "GB/s", "TFLOP/s", "launches/s", "us"
  std::string method;   // how, in words: API, buffer size, copies per sample, samples, timing
  uint64_t bytes = 0;   // bytes per copy (transfers) or per kernel (memory kernels)
  int repetitions = 0;  // operations per sample
  std::vector<double> samples;          // one figure per sample
  double median = 0, min = 0, max = 0;  // meaningful only when outcome is kMeasured
  BenchOutcome outcome = BenchOutcome::kMeasured;
  // Not measured: why (e.g. "libcublasLt.so.* not found", "cuMemcpyDtoDAsync_v2: an illegal
  // memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS = 700)"); empty when measured.
  std::string skipped;

  bool measured() const { return outcome == BenchOutcome::kMeasured; }
};

struct BenchGpu {
  int index = 0;  // CUDA ordinal
  std::string name;
  std::string pci_bus_id;  // sysfs form "0000:3b:00.0"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;   // max SM clock
  double mem_clock_mhz = 0;  // memory clock
  int memory_bus_bits = 0;
  uint64_t memory_bytes = 0;
  int copy_engines = 0;
  Reading<int> numa_node;
  std::vector<int> local_cpus;
  // PCIe as read from NVML/sysfs before the run (idle) and again while a copy kept the link busy:
  // links downshift at idle, so only the loaded reading tells a real downgrade (pcie.* in check).
  Reading<int> pcie_gen_idle, pcie_gen_loaded, pcie_gen_max;
  Reading<int> pcie_width, pcie_width_max;
  // Non-empty once the GPU stopped working during the run: the step, the call and the CUDA error
  // ("during d2d_copy_engine: cuCtxSynchronize: … (CUDA_ERROR_ILLEGAL_ADDRESS = 700)").
  std::string failed;
};

enum class BenchState {
  kOk,
  kDriverMissing,  // libcuda.so.1 not loadable
  kNoDevice,       // cuInit/cuDeviceGetCount: no CUDA device
  kFailed,         // the driver failed otherwise (detail says how)
  kTimedOut,       // the watchdog fired: a driver call did not return (detail names it); what
                   // was measured before is kept
  kBadRequest,     // the options asked for GPUs the driver does not report (a usage error)
};

struct BenchRun {
  BenchState state = BenchState::kOk;
  std::string detail;      // why state is not kOk
  std::string mode;        // "quick" or "full"
  std::string library;     // the libcuda path loaded
  int driver_version = 0;  // cuDriverGetVersion, e.g. 12040
  std::vector<BenchGpu> gpus;
  std::vector<BenchMeasurement> measurements;
  std::vector<std::string> notes;  // optional parts skipped and why, JIT logs on failure, …
};

// What one figure was held against (rules/bench_rules.cc), kept for the report's table and JSON.
struct BenchExpectation {
  std::string id;  // measurement id
  int gpu = -1, peer = -1, numa_node = -1;
  double expected = 0;  // in the measurement's unit; a maximum for latencies
  std::string basis;    // where the number comes from, e.g. "PCIe Gen5 x16 theoretical × 0.85"
  double ratio = 0;     // measured median / expected
};

// An earlier run read back as a baseline (output/json/bench_json.cc): its figures, the PCI bus id
// of each of its CUDA ordinals (when it recorded them) and its mode.
struct BenchBaseline {
  std::string mode;  // "quick", "full", "tiny"; empty when not recorded
  std::vector<std::pair<int, std::string>> bus_ids;  // (CUDA ordinal, PCI bus id)
  std::vector<BenchMeasurement> measurements;
};

inline constexpr const char* kBenchSchema = "gpuvet.bench/v1";

// Everything `gpuvet bench` produced, handed to the renderers (output/bench_*.cc).
// True when the run measured nothing and nothing failed: no libcuda, no CUDA device, or every
// figure unavailable. `gpuvet bench` then ends "NOTHING MEASURED" with a non-zero exit instead
// of passing: a node whose GPUs were never exercised is not proven fast. (A failed or hung
// driver is a fail of its own and not "nothing measured".)
inline bool NothingMeasured(const BenchRun& run) {
  if (run.state == BenchState::kFailed || run.state == BenchState::kTimedOut) return false;
  for (const BenchMeasurement& m : run.measurements) {
    if (m.outcome != BenchOutcome::kUnavailable) return false;
  }
  return true;
}

struct BenchReport {
  std::string gpuvet_version;
  std::string generated_at;     // ISO 8601 UTC, from the clock or --now
  std::string policy_source;    // "built-in defaults" or the policy file path
  std::string baseline_source;  // --baseline FILE, or empty
  BenchRun run;
  std::vector<BenchExpectation> expectations;
  std::vector<Finding> findings;
  Severity verdict = Severity::kOk;
};

}  // namespace gpuvet
