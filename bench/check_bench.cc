// Benchmark of `gpuvet check` as a user runs it: the real binary, end to end, on the 8-GPU
// healthy fixture tree with the fake NVML (tests/fixtures/healthy-8gpu). Reports wall time per run
// and the child's peak RSS (ru_maxrss from wait4). Targets (issue #2): < 150 ms, < 15 MB.
//   build/test/bench/check_bench [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Outcome {
  int status = -1;
  long max_rss_kb = 0;
};

Outcome RunOnce(const std::vector<std::string>& argv, const std::string& scenario) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("GPUVET_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  Outcome o;
  struct rusage ru {};
  wait4(pid, &o.status, 0, &ru);
  o.max_rss_kb = ru.ru_maxrss;
  return o;
}

void BM_CheckHealthy8Gpu(benchmark::State& state, const char* format) {
  const std::string fixture = std::string(GPUVET_FIXTURES_DIR) + "/healthy-8gpu";
  std::vector<std::string> argv = {GPUVET_BINARY, "check",
                                   "--root",      fixture + "/root",
                                   "--nvml-lib",  GPUVET_FAKE_NVML_LIB,
                                   "--policy",    fixture + "/policy.toml",
                                   "--format",    format};
  long peak_kb = 0;
  for (auto _ : state) {
    Outcome o = RunOnce(argv, fixture + "/nvml.json");
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) > 1) {
      state.SkipWithError("gpuvet check failed");
      break;
    }
    peak_kb = std::max(peak_kb, o.max_rss_kb);
  }
  state.counters["peak_rss_MB"] = static_cast<double>(peak_kb) / 1024.0;
}

BENCHMARK_CAPTURE(BM_CheckHealthy8Gpu, text, "text")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CheckHealthy8Gpu, json, "json")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
