// The sizes and counts each benchmark uses in --quick and --full mode (one table, so the method
// text, the tests and the docs agree), and the sample statistics every measurement reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/bench.h"

namespace gpuvet::bench {

struct BenchPlan {
  const char* mode;            // "quick" or "full"
  uint64_t transfer_bytes;     // host<->device and P2P copies
  int transfer_copies;         // copies per sample (between two events)
  int pageable_copies;         // synchronous pageable copies per sample
  uint64_t device_bytes;       // device-memory copies and kernels (per buffer)
  int device_reps;             // copies / kernels per sample
  int samples;                 // samples per figure
  int fma_iterations;          // FMA loop trips per thread in gpuvet_fma
  int launch_count;            // empty launches per launch_rate sample
  int latency_samples;         // single-launch samples for launch_latency
  int p2p_latency_copies;      // small copies per p2p_latency sample
  uint64_t p2p_latency_bytes;  // size of one small P2P copy
  uint64_t verify_bytes;       // bytes pattern-checked after a copy
  int tensor_dim;              // M = N = K of the cuBLASLt matmul
  int tensor_reps;             // matmuls per sample
  uint64_t nccl_bytes;         // all-reduce buffer per GPU
  int nccl_reps;               // all-reduces per sample
};

// The plan for --quick (full == false) or --full. --quick aims at ~10 s on one GPU: 64 MiB x 4
// copies x 3 samples per direction (bandwidthTest used 32 MiB; 64 MiB already saturates a Gen5
// x16 link). --full is close to nvbandwidth's defaults (512 MiB buffers, 16 copies x 3 samples),
// as 512 MiB x 8 copies x 5 samples so the spread is measured too.
const BenchPlan& PlanFor(bool full);

// A plan with tiny buffers for tests against the fake driver (hidden `--plan tiny`).
const BenchPlan& TinyPlan();

// Sorts nothing in place: sets m.median, m.min, m.max from m.samples (median of an even count is
// the mean of the two middle values). Leaves them 0 when there are no samples.
void Summarise(BenchMeasurement& m);

// The figure for `bytes` moved in `seconds`, in GB/s (10^9 bytes/s, as nvbandwidth and
// bandwidthTest report). 0 when seconds <= 0.
double GigabytesPerSecond(double bytes, double seconds);

// "64 MiB", "512 KiB", "8 B": the size as method text shows it.
std::string FormatBytes(uint64_t bytes);

}  // namespace gpuvet::bench
