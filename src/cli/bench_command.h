// `gpuvet bench`: the active acceptance benchmarks. Measure (sources/bench_engine) -> judge
// (rules/bench_rules) -> render (output/bench_*), with the exit codes of `gpuvet check`.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gpuvet {

struct BenchFlags {
  bool quick = false, full = false;  // --quick (default) or --full
  bool numa_compare = false;         // --numa-compare
  std::string gpus;                  // --gpus 0,1 ("" = all)
  std::string baseline;              // --baseline FILE (an earlier --format json output)
  std::string policy;                // --policy FILE
  std::string format = "text";       // --format text|json
  std::string cuda_lib;              // --cuda-lib PATH (or GPUVET_CUDA_LIB)
  std::string root;                  // --root DIR: read /sys under it
  std::string now;                   // --now (ISO timestamp, for reproducible output)
  std::string html;                  // --html FILE: also write the report as an HTML page
  std::string color = "auto";        // --color auto|always|never
  bool verbose = false;
  int timeout_s = 0;  // --timeout-s: give up on a silent driver (0 = 300 s, 1800 s with --full)
  std::string plan;   // hidden --plan tiny: tiny buffers for tests against the fake driver
};

// Registers the `bench` subcommand on `app`; the callback stores its exit code in *exit_code.
void AddBenchCommand(CLI::App& app, int* exit_code);

// Runs the benchmarks with already-parsed flags; returns 0 (no fail), 1 (a figure failed),
// 2 (bad flag, unreadable policy or baseline) or 3 (internal error).
int RunBench(const BenchFlags& flags);

}  // namespace gpuvet
