// TimedOutRun (bench_live.h): turns what a hung benchmark had measured into a reportable run.
#include "sources/bench/bench_live.h"

#include <fmt/format.h>

namespace gpuvet {

BenchRun TimedOutRun(BenchLive& live, int limit_s) {
  const auto [call, call_s] = live.calls.InFlight();
  std::lock_guard<std::mutex> lock(live.mu);
  BenchRun run = live.snapshot;
  const double step_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - live.step_started).count();
  const std::string in_call =
      call != nullptr ? fmt::format("inside {} for {:.1f} s", call, call_s)
                      : "outside any CUDA driver call (in NCCL, cuBLASLt or gpuvet itself)";
  run.state = BenchState::kTimedOut;
  run.detail = fmt::format(
      "step '{}' had been running for {:.1f} s, {}, when the {} s limit of the whole run "
      "(--timeout-s) ran out: a wedged GPU or driver (the run was abandoned; see `gpuvet check` "
      "and the kernel log)",
      live.step, step_s, in_call, limit_s);
  if (!live.step_id.empty()) {
    BenchMeasurement m;
    m.id = live.step_id;
    m.gpu = live.step_gpu;
    m.peer = live.step_peer;
    m.unit = live.step_unit;
    m.numa_node = live.step_numa_node;
    m.outcome = BenchOutcome::kFailed;
    m.skipped = call != nullptr ? fmt::format("hung: {} did not return in {:.1f} s", call, call_s)
                                : fmt::format("hung: the step did not finish in {:.1f} s", step_s);
    // Reported as this figure's failure (and bench.driver's); BenchGpu::failed stays for errors
    // the engine saw, so one hang is not reported three times.
    run.measurements.push_back(std::move(m));
  }
  run.notes.push_back(fmt::format("the run stopped at '{}': later steps did not run", live.step));
  return run;
}

}  // namespace gpuvet
