// GPU sampler session: NVML init and enumeration at Open, then one bounded batch per GPU per
// sample (gpu_sample_batch.cc). After a hang the executor is wedged; each later Take asks it
// whether the stuck call has returned and resumes when it has.
#include "sources/sampler/gpu_sampler.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_loader.h"
#include "sources/sampler/gpu_sample_batch.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

using gpu_sampler_internal::GpuSlot;

namespace {

// Most GPUs one node can hold, as in ReadNvml (a larger count is a driver bug).
constexpr unsigned kMaxGpus = 64;

std::optional<int> NumaNode(const HostPaths& paths, const std::string& bdf) {
  if (bdf.empty()) return std::nullopt;
  Result<std::string> text = ReadAttribute(paths.Sys("bus/pci/devices/" + bdf + "/numa_node"));
  if (!text.ok()) return std::nullopt;
  std::optional<int64_t> n = ParseInt(*text);
  if (!n || *n < 0 || *n > 1024) return std::nullopt;  // -1: no NUMA affinity
  return static_cast<int>(*n);
}

}  // namespace

GpuSampler::GpuSampler() = default;

std::unique_ptr<GpuSampler> GpuSampler::Open(const NvmlOptions& options, const HostPaths& paths,
                                             RecordingMeta* meta) {
  auto& note = meta->notes["sampler.gpu"];
  Result<std::unique_ptr<NvmlLibrary>> loaded = NvmlLibrary::Load(options.library_path);
  if (!loaded.ok()) {
    note = "no GPU figures: NVML library not loadable (" + loaded.status().message() + ")";
    return nullptr;
  }
  std::unique_ptr<GpuSampler> s(new GpuSampler());
  s->lib_ = std::move(loaded).value();
  s->exec_ = std::make_unique<BoundedExecutor>(options.call_timeout);
  // Every closure holds the library: a hung call keeps it alive until it returns (its destructor
  // never dlcloses, so freeing it afterwards is safe).
  std::shared_ptr<const NvmlLibrary> lib = s->lib_;
  BoundedExecutor& exec = *s->exec_;

  struct Empty {};
  Result<BoundedAnswer<Empty>> init =
      exec.CallWith<Empty>("nvmlInit_v2", [lib](Empty&) { return lib->nvmlInit_v2(); });
  if (!init.ok()) {
    note = "no GPU figures: " + init.status().message();
    return nullptr;  // the hung call's closure keeps the library alive
  }
  if (init->code != NVML_SUCCESS) {
    note = init->code == NVML_ERROR_DRIVER_NOT_LOADED
               ? "no GPU figures: NVIDIA driver not loaded (nvmlInit_v2: " +
                     DescribeNvmlError(init->code) + ")"
               : "no GPU figures: nvmlInit_v2 failed: " + DescribeNvmlError(init->code);
    return nullptr;
  }

  using DriverText = std::array<char, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE>;
  Result<BoundedAnswer<DriverText>> driver = exec.CallWith<DriverText>(
      "nvmlSystemGetDriverVersion",
      [lib](DriverText& b) { return lib->nvmlSystemGetDriverVersion(b.data(), b.size() - 1); });
  if (driver.ok() && driver->code == NVML_SUCCESS) {
    meta->driver_version.assign(driver->out.data(),
                                strnlen(driver->out.data(), driver->out.size()));
  }
  Result<BoundedAnswer<int>> cuda =
      exec.CallWith<int>("nvmlSystemGetCudaDriverVersion_v2",
                         [lib](int& v) { return lib->nvmlSystemGetCudaDriverVersion_v2(&v); });
  if (cuda.ok() && cuda->code == NVML_SUCCESS) meta->cuda_version = FormatCudaVersion(cuda->out);
  Result<BoundedAnswer<unsigned>> count = exec.CallWith<unsigned>(
      "nvmlDeviceGetCount_v2", [lib](unsigned& n) { return lib->nvmlDeviceGetCount_v2(&n); });
  if (!count.ok() || count->code != NVML_SUCCESS || count->out == 0) {
    note = !count.ok() ? "no GPU figures: " + count.status().message()
           : count->code != NVML_SUCCESS
               ? "no GPU figures: nvmlDeviceGetCount_v2: " + DescribeNvmlError(count->code)
               : "no GPUs: NVML reports 0 devices";
    return nullptr;  // the destructor shuts NVML down (or leaves it to a hung call)
  }
  const unsigned n = std::min(count->out, kMaxGpus);
  if (count->out > kMaxGpus) {
    s->notes_["sampler.gpu.count"] =
        fmt::format("implausible device count {}; sampling the first {}", count->out, kMaxGpus);
  }

  std::vector<std::string> gpm_off;
  for (unsigned i = 0; i < n; ++i) {
    auto slot = std::make_shared<GpuSlot>();
    slot->index = static_cast<int>(i);
    s->slots_.push_back(slot);
    RecordedGpu gpu;
    Result<BoundedAnswer<RecordedGpu>> opened = exec.CallWith<RecordedGpu>(
        fmt::format("opening GPU {}", i),
        [lib, slot](RecordedGpu& out) { return gpu_sampler_internal::OpenGpu(*lib, *slot, out); });
    if (opened.ok()) {
      gpu = opened->out;
      if (opened->code != NVML_SUCCESS) {
        s->notes_[fmt::format("sampler.gpu.{}", i)] = fmt::format(
            "not sampled: nvmlDeviceGetHandleByIndex_v2: {}", DescribeNvmlError(opened->code));
      }
      s->NoteSlot(i);
      if (!slot->gpm) {
        gpm_off.push_back(
            fmt::format("GPU {}: {}", i, slot->handle == nullptr ? "not opened" : slot->gpm_note));
      }
    } else {
      gpm_off.push_back(fmt::format("GPU {}: not opened (NVML hung)", i));
      if (!s->notes_.count("sampler.gpu.hang")) {
        std::lock_guard<std::mutex> lock(slot->mu);
        s->notes_["sampler.gpu.hang"] = fmt::format(
            "{} hung while opening GPU {} ({}); static facts of GPUs from index {} on are missing "
            "and GPU fields stay absent until NVML answers again",
            slot->current_call.empty() ? std::string("NVML") : slot->current_call, i,
            opened.status().message(), i);
      }
    }
    gpu.index = static_cast<int>(i);
    gpu.numa_node = NumaNode(paths, gpu.pci_bus_id);
    meta->gpus.push_back(std::move(gpu));
  }
  if (gpm_off.empty()) {
    s->notes_["sampler.gpm"] = fmt::format(
        "GPM metrics on {} GPU{}", n == 1 ? "the" : fmt::format("all {}", n), n == 1 ? "" : "s");
  } else {
    s->notes_["sampler.gpm"] =
        "no GPM metrics (SM activity/occupancy, tensor, DRAM, NVLink) on " + Join(gpm_off, "; ");
  }
  note = fmt::format("{} GPU{} through {}", n, n == 1 ? "" : "s", s->lib_->path());
  return s;
}

GpuSampler::~GpuSampler() {
  if (!exec_) return;
  // A call still hung keeps the library and its slot alive through its closure.
  if (exec_->wedged() && !exec_->Recover()) return;
  std::shared_ptr<const NvmlLibrary> lib = lib_;
  for (const auto& slot : slots_) {
    if (slot->gpm_prev == nullptr && slot->gpm_next == nullptr) continue;
    (void)exec_->Call("nvmlGpmSampleFree",
                      [lib, slot] { return gpu_sampler_internal::FreeGpm(*lib, *slot); });
  }
  (void)exec_->Call("nvmlShutdown", [lib] { return lib->nvmlShutdown(); });
}

void GpuSampler::NoteSlot(size_t i) {
  GpuSlot& g = *slots_[i];
  if (g.lost) {
    notes_[fmt::format("sampler.gpu.{}", i)] = fmt::format(
        "lost: {} answered GPU_IS_LOST; its fields are absent from then on", g.lost_call);
  }
  if (g.gpm_too_close > 0) {
    notes_[fmt::format("sampler.gpu.{}.gpm", i)] = fmt::format(
        "{} sample(s) without GPM metrics: taken less than {} ms after the previous GPM sample "
        "(NVML's minimum spacing); the interval is too short for GPM on every sample",
        g.gpm_too_close, gpu_sampler_internal::kGpmMinSpacing.count());
  }
  if (!g.errors.empty()) {
    std::string& e = notes_[fmt::format("sampler.gpu.{}.errors", i)];
    for (const std::string& x : g.errors) e += (e.empty() ? "" : "; ") + x;
    g.errors.clear();
  }
  if (!g.unsupported.empty()) {
    std::vector<std::string> calls(g.unsupported.begin(), g.unsupported.end());
    notes_[fmt::format("sampler.gpu.{}.not_supported", i)] = Join(calls, ", ");
  }
}

std::vector<GpuSample> GpuSampler::Take(double /*interval_s*/) {
  std::vector<GpuSample> out(slots_.size());
  for (size_t i = 0; i < out.size(); ++i) out[i].gpu = static_cast<int>(i);
  if (exec_->wedged()) {
    const std::string hung = exec_->hung_call();
    if (!exec_->Recover()) return out;  // still hung: every GPU field absent (noted at the hang)
    notes_["sampler.gpu.recovered"] =
        fmt::format("NVML answered again after {} hung; sampling resumed", hung);
  }
  std::shared_ptr<const NvmlLibrary> lib = lib_;
  for (size_t i = 0; i < slots_.size(); ++i) {
    std::shared_ptr<GpuSlot> slot = slots_[i];
    if (slot->handle == nullptr || slot->lost) continue;
    Result<int> r = exec_->Call(fmt::format("GPU {} sample", i), [lib, slot] {
      return gpu_sampler_internal::SampleGpu(*lib, *slot);
    });
    std::lock_guard<std::mutex> lock(slot->mu);
    out[i] = slot->published;
    if (!r.ok()) {
      notes_["sampler.gpu.hang"] = fmt::format(
          "{} on GPU {} did not return within {} ms: the rest of that sample was dropped, and GPU "
          "fields stay absent until NVML answers again",
          slot->current_call, i, exec_->timeout().count());
      break;  // the executor is wedged: the other GPUs stay absent this time
    }
    NoteSlot(i);
  }
  return out;
}

}  // namespace gpuvet
