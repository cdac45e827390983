// Sampler: composes the host, process-tree and GPU samplers, keeps the clock between samples and
// gathers their notes into the recording's metadata.
#include "sources/sampler/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sources/host/cgroup.h"
#include "sources/host/cpu_sources.h"
#include "sources/host/system_info.h"
#include "sources/sampler/gpu_sampler.h"
#include "sources/sampler/host_sampler.h"
#include "sources/sampler/process_sampler.h"

namespace gpuvet {

namespace {

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The cgroup CPU quota of `pid` (0: this process) in cores, when limited.
std::optional<double> CpuQuota(const HostPaths& paths, int pid) {
  CgroupState cg = ReadCgroup(paths, pid);
  if (cg.cpu_quota_cores.has()) return *cg.cpu_quota_cores;
  return std::nullopt;
}

}  // namespace

Sampler::Sampler(const SamplerOptions& options)
    : options_(options),
      host_(std::make_unique<HostSampler>(options.paths)),
      processes_(std::make_unique<ProcessSampler>(options.paths)) {}

Sampler::~Sampler() = default;

Result<std::unique_ptr<Sampler>> Sampler::Create(const SamplerOptions& options) {
  if (options.root_pid < 0) {
    return InvalidInput(fmt::format("root pid {} is not a process id", options.root_pid));
  }
  std::unique_ptr<Sampler> s(new Sampler(options));
  RecordingMeta& m = s->meta_;
  SystemInfo sys = ReadSystemInfo(options.paths);
  if (sys.hostname.has()) m.host = *sys.hostname;
  if (sys.kernel_release.has()) m.kernel_release = *sys.kernel_release;
  if (Reading<int> cpus = ReadOnlineCpus(options.paths); cpus.has()) {
    m.online_cpus = *cpus;
  } else {
    m.notes["sampler.host.online_cpus"] = cpus.note;
  }
  m.cpu_quota_cores = CpuQuota(options.paths, options.root_pid);

  if (options.read_gpus) {
    s->gpus_ = GpuSampler::Open(options.nvml, options.paths, &m);
  } else {
    m.notes["sampler.gpu"] = "GPUs not sampled (host only)";
  }
  // The kernel module version stands in for the driver when NVML could not say.
  if (m.driver_version.empty() && sys.nvidia_module_version.has()) {
    m.driver_version = *sys.nvidia_module_version;
  }

  s->host_->Take(0);  // baseline
  if (options.root_pid > 0) s->processes_->SetRoot(options.root_pid);
  s->last_ = std::chrono::steady_clock::now();
  s->MergeNotes();
  return s;
}

void Sampler::SetRootPid(int pid) {
  processes_->SetRoot(std::max(0, pid));
  meta_.cpu_quota_cores = CpuQuota(options_.paths, std::max(0, pid));
  MergeNotes();
}

void Sampler::MergeNotes() {
  for (const auto* notes : {&host_->notes(), &processes_->notes()}) {
    for (const auto& [k, v] : *notes) meta_.notes[k] = v;
  }
  if (gpus_) {
    for (const auto& [k, v] : gpus_->notes()) meta_.notes[k] = v;
  }
}

Sample Sampler::Take() {
  Sample s;
  const auto now = std::chrono::steady_clock::now();
  // A zero interval (two Takes in the same clock tick) would divide by zero: count 1 µs.
  s.interval_s = std::max(1e-6, std::chrono::duration<double>(now - last_).count());
  last_ = now;
  s.unix_time = UnixNow();
  // Host and processes first: their rates use this interval, measured just before. GPU figures
  // do not depend on it (NVML times its own windows), and a slow NVML call must not skew them.
  s.host = host_->Take(s.interval_s);
  s.processes = processes_->Take(s.interval_s, &s.workload);
  if (gpus_) s.gpus = gpus_->Take(s.interval_s);
  // GPU processes are those of the workload's tree when one is followed (all of them otherwise).
  if (processes_->root() > 0) {
    std::set<uint32_t> tree;
    for (const ProcessSample& p : s.processes) tree.insert(static_cast<uint32_t>(p.pid));
    for (GpuSample& g : s.gpus) {
      std::erase_if(g.processes, [&](const GpuProcessSample& p) { return !tree.count(p.pid); });
    }
  }
  MergeNotes();
  return s;
}

}  // namespace gpuvet
