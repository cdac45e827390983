// Fuzz target: a TOML policy. Besides not crashing, an accepted policy must hold only values a
// check can compare against: finite numbers (a NaN threshold makes every comparison false and
// turns its check off without a word) and warn levels not above their fail levels.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/policy.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuvet;
  Result<Policy> p = ParsePolicy(fuzz::AsText(data, size), "fuzz.toml");
  if (!p.ok()) return 0;
  const Thresholds& t = p->thresholds;
  const BenchThresholds& b = p->bench;
  const FleetThresholds& f = p->fleet;
  for (double v : {t.power_limit_min_ratio,    t.sm_clock_min_ratio,       t.pcie_replay_ber,
                   t.aer_corrected_per_min,    t.cpu_cores_per_gpu_min,    t.memory_per_gpu_min_gib,
                   t.memory_available_min_pct, t.psi_memory_full_warn_pct, t.psi_io_full_warn_pct,
                   t.psi_cpu_some_warn_pct,    b.min_fraction_of_expected, b.pageable_min_ratio,
                   b.numa_max_penalty,         b.launch_latency_max_us,    b.regression_max_drop,
                   f.ecc_sbe_rate_warn_per_h,  f.ecc_sbe_rate_fail_per_h,  f.thermal_share_warn,
                   f.thermal_share_fail,       f.power_share_warn,         f.bench_z,
                   f.bench_min_drop,           f.bench_fail_drop}) {
    if (!std::isfinite(v) || v < 0) std::abort();
  }
  for (const auto& [id, v] : b.minimums) {
    if (!std::isfinite(v) || v < 0) std::abort();
  }
  if (f.ecc_sbe_rate_warn_per_h > f.ecc_sbe_rate_fail_per_h) std::abort();
  if (f.thermal_share_warn > f.thermal_share_fail) std::abort();
  if (f.bench_min_drop > f.bench_fail_drop) std::abort();
  return 0;
}
