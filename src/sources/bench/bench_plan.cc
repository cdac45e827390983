// The quick/full size table and sample statistics (bench_plan.h).
#include "sources/bench/bench_plan.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuvet::bench {

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// Device-memory buffers are 4x the transfer size: HBM moves 3-5 TB/s, so a 256 MiB copy still
// lasts ~100 us, long enough for event timing (resolution ~0.5 us, CUDA programming guide).
// launch_count: 2000 launches take ~5 ms at the ~2.5 us floor of current GPUs.
// p2p latency: 8-byte copies, as small as one transaction, averaged over 100 copies.
// tensor_dim 8192: the square GEMM size PyTorch matmul benchmarks quote (~1.1 TFLOP per matmul,
// ~1.4 ms on an H200), large enough to reach peak. nccl: nccl-tests reports bus bandwidth at
// 256 MiB-1 GiB as the plateau.
constexpr BenchPlan kQuick = {
    .mode = "quick",
    .transfer_bytes = 64 * kMiB,
    .transfer_copies = 4,
    .pageable_copies = 2,
    .device_bytes = 256 * kMiB,
    .device_reps = 4,
    .samples = 3,
    .fma_iterations = 4096,
    .launch_count = 2000,
    .latency_samples = 100,
    .p2p_latency_copies = 100,
    .p2p_latency_bytes = 8,
    .verify_bytes = 4 * kKiB,
    .tensor_dim = 8192,
    .tensor_reps = 10,
    .nccl_bytes = 256 * kMiB,
    .nccl_reps = 5,
};

constexpr BenchPlan kFull = {
    .mode = "full",
    .transfer_bytes = 512 * kMiB,
    .transfer_copies = 8,
    .pageable_copies = 4,
    .device_bytes = 1024 * kMiB,
    .device_reps = 8,
    .samples = 5,
    .fma_iterations = 16384,
    .launch_count = 10000,
    .latency_samples = 1000,
    .p2p_latency_copies = 1000,
    .p2p_latency_bytes = 8,
    .verify_bytes = 16 * kKiB,
    .tensor_dim = 16384,
    .tensor_reps = 10,
    .nccl_bytes = 1024 * kMiB,
    .nccl_reps = 10,
};

// For tests against the fake driver, which copies every byte on the CPU: the same steps with
// buffers small enough that a whole run takes well under a second. Figures on a real GPU would
// be dominated by overheads, so the CLI only offers it as the hidden `--plan tiny`. Device buffers
// stay at 32 MiB so a modelled kernel outlasts the fake's launch overhead (a 2 MiB copy at
// 3 TB/s would not, and the figure would show the overhead instead of the bandwidth).
constexpr BenchPlan kTiny = {
    .mode = "tiny",
    .transfer_bytes = 1 * kMiB,
    .transfer_copies = 2,
    .pageable_copies = 1,
    .device_bytes = 32 * kMiB,
    .device_reps = 2,
    .samples = 3,
    .fma_iterations = 64,
    .launch_count = 100,
    .latency_samples = 10,
    .p2p_latency_copies = 10,
    .p2p_latency_bytes = 8,
    .verify_bytes = 4 * kKiB,
    .tensor_dim = 256,
    .tensor_reps = 2,
    .nccl_bytes = 1 * kMiB,
    .nccl_reps = 2,
};

}  // namespace

const BenchPlan& PlanFor(bool full) { return full ? kFull : kQuick; }

const BenchPlan& TinyPlan() { return kTiny; }

void Summarise(BenchMeasurement& m) {
  if (m.samples.empty()) return;
  std::vector<double> sorted = m.samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  m.min = sorted.front();
  m.max = sorted.back();
  m.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double GigabytesPerSecond(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} B", bytes);
}

}  // namespace gpuvet::bench
