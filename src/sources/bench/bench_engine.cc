// RunBenchmarks: opens the driver, describes each GPU, then runs the benchmark table per GPU
// (host thread pinned to the GPU's NUMA node), the remote-node copies, P2P pairs and NCCL. A
// failure is recorded on the measurement it hit; a GPU that stops working skips its remaining work.
#include "sources/bench/bench_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "sources/bench/bench_affinity.h"
#include "sources/bench/bench_copies.h"
#include "sources/bench/bench_cublaslt.h"
#include "sources/bench/bench_cuda.h"
#include "sources/bench/bench_gpu_info.h"
#include "sources/bench/bench_kernels.h"
#include "sources/bench/bench_measure.h"
#include "sources/bench/bench_nccl.h"
#include "sources/bench/bench_p2p.h"
#include "sources/bench/bench_plan.h"
#include "sources/cuda/cuda_loader.h"
#include "util/strings.h"

namespace gpuvet {
namespace bench {
namespace {

struct Step {
  const char* id;
  const char* unit;
  MeasureFn fn;
  bool needs_kernels;
};

// Per-GPU benchmarks, in the order they run. Host copies first, while the GPU is cool.
constexpr Step kHostSteps[] = {
    {"h2d_pinned", "GB/s", MeasureH2dPinned, false},
    {"d2h_pinned", "GB/s", MeasureD2hPinned, false},
    {"h2d_pageable", "GB/s", MeasureH2dPageable, false},
    {"d2h_pageable", "GB/s", MeasureD2hPageable, false},
    {"bidir_pinned", "GB/s", MeasureBidirPinned, false},
};
constexpr Step kRemoteSteps[] = {
    {"h2d_pinned_remote", "GB/s", MeasureH2dPinned, false},
    {"d2h_pinned_remote", "GB/s", MeasureD2hPinned, false},
};
constexpr Step kDeviceSteps[] = {
    {"d2d_copy_engine", "GB/s", MeasureD2dCopyEngine, false},
    {"d2d_sm_copy", "GB/s", MeasureSmCopy, true},
    {"sm_triad", "GB/s", MeasureTriad, true},
    {"fp32_fma", "TFLOP/s", MeasureFma, true},
    {"launch_rate", "launches/s", MeasureLaunchRate, true},
    {"launch_latency", "us", MeasureLaunchLatency, true},
};
struct TensorStep {
  const char* id;
  bool bf16;
};
constexpr TensorStep kTensorSteps[] = {{"bf16_tensor", true}, {"fp16_tensor", false}};

// What the engine keeps per benchmarked GPU.
struct GpuRun {
  int ordinal = 0;
  size_t gpu_index = 0;  // into BenchRun::gpus
  std::unique_ptr<GpuSession> session;
  std::string failed;  // non-empty once the GPU stopped working: why
};

class Engine {
 public:
  Engine(const BenchOptions& options, const BenchPlan& plan, BenchRun& run)
      : options_(options), run_(run), plan_(plan) {}

  void Run();

 private:
  bool OpenDriver();
  std::vector<int> SelectGpus(int count);
  void RunGpu(GpuRun& g);
  void RunSteps(GpuRun& g, const GpuBench& b, std::span<const Step> steps, int numa_node,
                const std::string& kernel_error, const std::string& skip_all);
  void RunTensor(GpuRun& g, const GpuBench& b, int numa_node);
  void SkipGpu(const GpuRun& g);
  void RunP2p();
  void RunNccl();

  // Starts a measurement: progress, and the live state the watchdog reports from.
  BenchMeasurement Begin(const std::string& id, int gpu, const char* unit, int numa_node,
                         int peer = -1);
  // Records `m` with the outcome of `st` (ok: measured; not supported: unavailable; out of
  // memory: incomplete; otherwise failed, and `g` is probed for a sticky error).
  void Finish(BenchMeasurement m, const Status& st, GpuRun* g);
  // Records `m` as not measured.
  void NotMeasured(BenchMeasurement m, BenchOutcome outcome, std::string why);
  // Marks `g` (and its BenchGpu) as failed during `step`; later work on it is abandoned.
  void MarkFailed(GpuRun& g, const std::string& step, const std::string& why);
  // Copies the run so far and the step now starting into options_.live (when set).
  void Publish(const std::string& step, const BenchMeasurement* m);
  void Progress(const std::string& step);

  const BenchOptions& options_;
  BenchRun& run_;
  const BenchPlan& plan_;
  std::unique_ptr<CudaLibrary> cuda_;
  std::vector<GpuRun> gpus_;
  std::optional<Result<std::shared_ptr<const CublasLt>>> cublaslt_;
  int total_steps_ = 1;
  int done_steps_ = 0;
};

bool Engine::OpenDriver() {
  auto lib = CudaLibrary::Load(options_.cuda_lib);
  if (!lib.ok()) {
    run_.state = BenchState::kDriverMissing;
    run_.library = options_.cuda_lib.empty() ? "libcuda.so.1" : options_.cuda_lib;
    std::string why = lib.status().message();
    if (why.starts_with(run_.library + ": ")) why = why.substr(run_.library.size() + 2);
    run_.detail = fmt::format("cannot load {}: {}", run_.library, why);
    return false;
  }
  cuda_ = std::move(lib).value();
  if (options_.live) cuda_->set_tracker(&options_.live->calls);
  run_.library = cuda_->path();
  Publish("initialising the CUDA driver (cuInit)", nullptr);
  const CUresult init = cuda_->cuInit(0);
  if (init != CUDA_SUCCESS) {
    run_.state = init == CUDA_ERROR_NO_DEVICE ? BenchState::kNoDevice : BenchState::kFailed;
    run_.detail = "cuInit: " + DescribeCudaError(*cuda_, init);
    return false;
  }
  int version = 0;
  if (cuda_->cuDriverGetVersion(&version) == CUDA_SUCCESS) run_.driver_version = version;
  return true;
}

std::vector<int> Engine::SelectGpus(int count) {
  std::vector<int> selected;
  if (options_.gpus.empty()) {
    for (int i = 0; i < count; ++i) selected.push_back(i);
    return selected;
  }
  std::vector<int> missing;
  for (int i : options_.gpus) {
    if (i < 0 || i >= count) {
      missing.push_back(i);
    } else if (std::find(selected.begin(), selected.end(), i) == selected.end()) {
      selected.push_back(i);
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> present, asked;
    for (int i = 0; i < count; ++i) {
      auto gpu = DescribeGpu(*cuda_, i, options_.paths);
      present.push_back(gpu.ok() ? fmt::format("{} ({}, {})", i, gpu->name, gpu->pci_bus_id)
                                 : std::to_string(i));
    }
    for (int i : missing) asked.push_back(std::to_string(i));
    run_.state = BenchState::kBadRequest;
    run_.detail = fmt::format("--gpus {}: no such GPU; the driver reports {} GPU(s): {}",
                              Join(asked, ","), count, Join(present, "; "));
    return {};
  }
  std::sort(selected.begin(), selected.end());
  return selected;
}

void Engine::Run() {
  run_.mode = plan_.mode;
  Publish("loading the CUDA driver", nullptr);
  if (!OpenDriver()) return;
  int count = 0;
  const CUresult rc = cuda_->cuDeviceGetCount(&count);
  if (rc != CUDA_SUCCESS) {
    run_.state = rc == CUDA_ERROR_NO_DEVICE ? BenchState::kNoDevice : BenchState::kFailed;
    run_.detail = "cuDeviceGetCount: " + DescribeCudaError(*cuda_, rc);
    return;
  }
  if (count <= 0) {
    run_.state = BenchState::kNoDevice;
    run_.detail = "cuDeviceGetCount reports no CUDA device";
    return;
  }
  const std::vector<int> selected = SelectGpus(count);
  if (run_.state == BenchState::kBadRequest) return;
  for (int ordinal : selected) {
    Publish(fmt::format("describing GPU {}", ordinal), nullptr);
    auto gpu = DescribeGpu(*cuda_, ordinal, options_.paths);
    if (!gpu.ok()) {
      run_.notes.push_back(fmt::format("GPU {} skipped: {}", ordinal, gpu.status().message()));
      continue;
    }
    run_.gpus.push_back(std::move(gpu).value());
    GpuRun g;
    g.ordinal = ordinal;
    g.gpu_index = run_.gpus.size() - 1;
    gpus_.push_back(std::move(g));
  }
  if (gpus_.empty()) {
    run_.state = BenchState::kNoDevice;
    run_.detail = "none of the requested GPUs is present";
    return;
  }

  const int n = static_cast<int>(gpus_.size());
  const int per_gpu =
      static_cast<int>(std::size(kHostSteps) + std::size(kDeviceSteps) + std::size(kTensorSteps)) +
      (options_.numa_compare ? static_cast<int>(std::size(kRemoteSteps)) : 0);
  total_steps_ = n * per_gpu + 2 * n * (n - 1) + (n > 1 ? 1 : 0);

  for (GpuRun& g : gpus_) RunGpu(g);
  if (n > 1) {
    RunP2p();
    RunNccl();
  } else {
    run_.notes.push_back("P2P and NCCL benchmarks need two or more GPUs; one was benchmarked");
  }
  if (options_.progress) options_.progress("done", 1.0);
  Publish("done", nullptr);
}

void Engine::Publish(const std::string& step, const BenchMeasurement* m) {
  if (!options_.live) return;
  std::lock_guard<std::mutex> lock(options_.live->mu);
  BenchLive& live = *options_.live;
  live.snapshot = run_;
  live.step = step;
  live.step_id = m != nullptr ? m->id : "";
  live.step_unit = m != nullptr ? m->unit : "";
  live.step_gpu = m != nullptr ? m->gpu : -1;
  live.step_peer = m != nullptr ? m->peer : -1;
  live.step_numa_node = m != nullptr ? m->numa_node : -1;
  live.step_started = std::chrono::steady_clock::now();
}

void Engine::Progress(const std::string& step) {
  if (options_.progress) {
    options_.progress(step, std::min(1.0, static_cast<double>(done_steps_) / total_steps_));
  }
  ++done_steps_;
}

BenchMeasurement Engine::Begin(const std::string& id, int gpu, const char* unit, int numa_node,
                               int peer) {
  const std::string step = peer >= 0  ? fmt::format("GPU {} -> GPU {}: {}", gpu, peer, id)
                           : gpu >= 0 ? fmt::format("GPU {}: {}", gpu, id)
                                      : id;
  Progress(step);
  BenchMeasurement m;
  m.id = id;
  m.gpu = gpu;
  m.peer = peer;
  m.unit = unit;
  m.numa_node = numa_node;
  Publish(step, &m);
  return m;
}

void Engine::NotMeasured(BenchMeasurement m, BenchOutcome outcome, std::string why) {
  m.outcome = outcome;
  m.skipped = std::move(why);
  run_.measurements.push_back(std::move(m));
}

void Engine::MarkFailed(GpuRun& g, const std::string& step, const std::string& why) {
  if (!g.failed.empty()) return;
  g.failed = fmt::format("GPU {} stopped working during {}: {}", g.ordinal, step, why);
  run_.gpus[g.gpu_index].failed = fmt::format("during {}: {}", step, why);
  run_.notes.push_back(g.failed);
}

void Engine::Finish(BenchMeasurement m, const Status& st, GpuRun* g) {
  if (st.ok()) {
    Summarise(m);
    if (m.samples.empty()) {
      m.outcome = BenchOutcome::kIncomplete;
      m.skipped = "no usable sample (the events measured zero elapsed time)";
    }
    run_.measurements.push_back(std::move(m));
    return;
  }
  m.samples.clear();
  m.median = m.min = m.max = 0;
  if (st.code() == StatusCode::kNotSupported) {
    m.outcome = BenchOutcome::kUnavailable;
  } else if (IsOutOfMemory(st)) {
    // Memory held by other processes or a small host: a local reason, not the GPU's fault.
    m.outcome = BenchOutcome::kIncomplete;
  } else {
    m.outcome = BenchOutcome::kFailed;
    // A sticky error (illegal address, GPU off the bus) breaks the context for good: say so
    // once and skip the rest of this GPU instead of failing every later call the same way.
    if (g != nullptr && g->session != nullptr && g->failed.empty()) {
      if (Status probe = g->session->Probe(); !probe.ok()) {
        MarkFailed(*g, m.id, probe.message());
      }
    }
  }
  m.skipped = st.message();
  run_.measurements.push_back(std::move(m));
}

void Engine::RunSteps(GpuRun& g, const GpuBench& b, std::span<const Step> steps, int numa_node,
                      const std::string& kernel_error, const std::string& skip_all) {
  for (const Step& step : steps) {
    BenchMeasurement m = Begin(step.id, g.ordinal, step.unit, numa_node);
    if (!g.failed.empty()) {
      NotMeasured(std::move(m), BenchOutcome::kAbandoned, "not run: " + g.failed);
      continue;
    }
    if (!skip_all.empty()) {
      NotMeasured(std::move(m), BenchOutcome::kUnavailable, "not run: " + skip_all);
      continue;
    }
    if (step.needs_kernels && !kernel_error.empty()) {
      // The driver could not JIT gpuvet's kernels: a driver failure, not a missing option.
      NotMeasured(std::move(m), BenchOutcome::kFailed,
                  "not run: PTX kernels could not be loaded: " + kernel_error);
      continue;
    }
    Status st = g.session->MakeCurrent();
    if (st.ok()) st = step.fn(b, m);
    Finish(std::move(m), st, &g);
  }
}

void Engine::RunTensor(GpuRun& g, const GpuBench& b, int numa_node) {
  if (!cublaslt_) cublaslt_ = LoadCublasLt();
  for (const TensorStep& step : kTensorSteps) {
    BenchMeasurement m = Begin(step.id, g.ordinal, "TFLOP/s", numa_node);
    if (!g.failed.empty()) {
      NotMeasured(std::move(m), BenchOutcome::kAbandoned, "not run: " + g.failed);
      continue;
    }
    if (!cublaslt_->ok()) {
      NotMeasured(std::move(m), BenchOutcome::kUnavailable, cublaslt_->status().message());
      continue;
    }
    Status st = g.session->MakeCurrent();
    if (st.ok()) st = MeasureTensor(***cublaslt_, step.bf16, b, m);
    Finish(std::move(m), st, &g);
  }
}

// Records every per-GPU measurement of `g` as not run, with g.failed as the reason.
void Engine::SkipGpu(const GpuRun& g) {
  auto skip = [&](const char* id, const char* unit) {
    NotMeasured(Begin(id, g.ordinal, unit, -1), BenchOutcome::kAbandoned, "not run: " + g.failed);
  };
  for (const Step& step : kHostSteps) skip(step.id, step.unit);
  if (options_.numa_compare) {
    for (const Step& step : kRemoteSteps) skip(step.id, step.unit);
  }
  for (const Step& step : kDeviceSteps) skip(step.id, step.unit);
  for (const TensorStep& step : kTensorSteps) skip(step.id, "TFLOP/s");
}

void Engine::RunGpu(GpuRun& g) {
  BenchGpu& gpu = run_.gpus[g.gpu_index];
  Publish(fmt::format("GPU {}: opening its context", g.ordinal), nullptr);
  auto session = GpuSession::Open(*cuda_, g.ordinal);
  if (!session.ok()) {
    MarkFailed(g, "opening its context", session.status().message());
  } else {
    g.session = std::move(session).value();
  }

  // Pin to the GPU's own node for everything but the remote copies; pages are first touched by
  // each benchmark after this, so they land on that node too.
  int local_node = -1;
  std::unique_ptr<ScopedAffinity> pin;
  if (gpu.numa_node.has() && !gpu.local_cpus.empty()) {
    auto p = ScopedAffinity::Pin(gpu.local_cpus);
    if (p.ok()) {
      pin = std::move(p).value();
      local_node = *gpu.numa_node;
    } else {
      run_.notes.push_back(fmt::format("GPU {}: host thread not pinned to NUMA node {}: {}",
                                       g.ordinal, *gpu.numa_node, p.status().message()));
    }
  } else {
    run_.notes.push_back(
        fmt::format("GPU {}: host thread not pinned (NUMA node unknown: {})", g.ordinal,
                    gpu.numa_node.note.empty() ? "no local CPU list" : gpu.numa_node.note));
  }

  if (g.session == nullptr) {
    SkipGpu(g);
    gpu.pcie_gen_loaded = Reading<int>::Error("not read: " + g.failed);
    return;
  }
  std::unique_ptr<KernelModule> module;
  std::string kernel_error;
  static const BenchKernels kNoKernels;
  {
    Publish(fmt::format("GPU {}: loading the PTX kernels", g.ordinal), nullptr);
    auto km = KernelModule::Load(*g.session);
    if (km.ok()) {
      module = std::move(km).value();
    } else {
      kernel_error = km.status().message();
      run_.notes.push_back(fmt::format("GPU {}: {}", g.ordinal, kernel_error));
    }
  }
  Reading<int> loaded_gen;
  GpuBench b{
      *g.session, plan_, gpu, options_.paths, module != nullptr ? module->kernels() : kNoKernels,
      &loaded_gen};

  RunSteps(g, b, kHostSteps, local_node, kernel_error, "");
  // Set now, not at the end, so a run that hangs later still reports the link under load.
  if (loaded_gen.state != Reading<int>::State::kAbsent) {
    gpu.pcie_gen_loaded = loaded_gen;
  } else {
    gpu.pcie_gen_loaded = Reading<int>::Error("not read: the h2d_pinned copies did not run");
  }
  if (options_.numa_compare) {
    std::string why_not;
    std::unique_ptr<ScopedAffinity> remote_pin;
    int remote_node = -1;
    if (!gpu.numa_node.has()) {
      why_not = "the GPU's NUMA node is unknown (" + gpu.numa_node.note + ")";
    } else if (auto remote = RemoteNode(options_.paths, *gpu.numa_node); !remote.ok()) {
      why_not = remote.status().message();
    } else if (auto p = ScopedAffinity::Pin(remote->cpus); !p.ok()) {
      why_not = p.status().message();
    } else {
      remote_pin = std::move(p).value();
      remote_node = remote->node;
    }
    RunSteps(g, b, kRemoteSteps, remote_node, kernel_error, why_not);
  }
  RunSteps(g, b, kDeviceSteps, local_node, kernel_error, "");
  RunTensor(g, b, local_node);
}

void Engine::RunP2p() {
  for (GpuRun& src : gpus_) {
    for (GpuRun& dst : gpus_) {
      if (src.ordinal == dst.ordinal) continue;
      BenchMeasurement bw = Begin("p2p_bandwidth", src.ordinal, "GB/s", -1, dst.ordinal);
      auto latency = [&] { return Begin("p2p_latency", src.ordinal, "us", -1, dst.ordinal); };
      const std::string not_run = !src.failed.empty() ? src.failed : dst.failed;
      if (!not_run.empty()) {
        NotMeasured(std::move(bw), BenchOutcome::kAbandoned, "not run: " + not_run);
        NotMeasured(latency(), BenchOutcome::kAbandoned, "not run: " + not_run);
        continue;
      }
      Status enable = EnablePeerAccess(*src.session, *dst.session);
      if (enable.code() == StatusCode::kNotSupported) {
        NotMeasured(std::move(bw), BenchOutcome::kUnavailable, enable.message());
        NotMeasured(latency(), BenchOutcome::kUnavailable, enable.message());
        continue;
      }
      if (!enable.ok()) {
        Finish(std::move(bw), enable, &src);
        NotMeasured(latency(), BenchOutcome::kAbandoned, "not run: enabling peer access failed");
        continue;
      }
      const Status bw_status = MeasureP2pBandwidth(*src.session, *dst.session, plan_, bw);
      Finish(std::move(bw), bw_status, &src);
      BenchMeasurement lat = latency();
      if (!src.failed.empty()) {
        NotMeasured(std::move(lat), BenchOutcome::kAbandoned, "not run: " + src.failed);
        continue;
      }
      const Status lat_status = MeasureP2pLatency(*src.session, *dst.session, plan_, lat);
      Finish(std::move(lat), lat_status, &src);
    }
  }
}

void Engine::RunNccl() {
  BenchMeasurement m = Begin("nccl_allreduce_busbw", -1, "GB/s", -1);
  std::vector<const GpuSession*> sessions;
  for (const GpuRun& g : gpus_) {
    if (!g.failed.empty()) {
      NotMeasured(std::move(m), BenchOutcome::kAbandoned, "not run: " + g.failed);
      return;
    }
    sessions.push_back(g.session.get());
  }
  auto nccl = LoadNccl();
  if (!nccl.ok()) {
    NotMeasured(std::move(m), BenchOutcome::kUnavailable, nccl.status().message());
    return;
  }
  Status st = MeasureNcclAllReduce(**nccl, sessions, plan_, m);
  Finish(std::move(m), st, nullptr);
}

}  // namespace
}  // namespace bench

BenchRun RunBenchmarks(const BenchOptions& options) {
  return RunBenchmarksWithPlan(options, bench::PlanFor(options.full));
}

BenchRun RunBenchmarksWithPlan(const BenchOptions& options, const bench::BenchPlan& plan) {
  BenchRun run;
  bench::Engine(options, plan, run).Run();
  return run;
}

}  // namespace gpuvet
