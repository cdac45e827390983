// Window statistics and the label rules. Every label states the numbers that decided it and the
// threshold each was held against (AnalyzeThresholds), like the trace verdict.
#include "analysis/recording/recording_labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuvet {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool Has(double v) { return std::isfinite(v); }
std::string P(double v) { return Has(v) ? fmt::format("{:.1f} %", v) : "n/a"; }
std::string Ge(double v) { return fmt::format(">= {:.1f} %", v); }
std::string Lt(double v) { return fmt::format("< {:.1f} %", v); }

std::string Size(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) bytes /= 1024, ++u;
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

// "high" when the deciding value clears its threshold by half again, else "medium"; capped at
// medium when activity is GPU-Util (coarse) and at low for short windows.
std::string Confidence(const WindowStats& w, double margin, bool needs_activity,
                       const AnalyzeThresholds& th) {
  if (static_cast<int>(w.n) < th.min_samples_for_confidence) return "low";
  std::string c = margin >= 1.5 ? "high" : "medium";
  if (needs_activity && !w.gpm && c == "high") c = "medium";
  return c;
}

struct Cause {
  std::string label, detail, reason;
  std::vector<Evidence> evidence;
  double margin = 1;  // deciding value / threshold (for low-is-bad tests: threshold / value)
};

bool SmallFiles(const WindowStats& w, const AnalyzeThresholds& th, double* avg_read) {
  if (!Has(w.read_syscalls) || !Has(w.rchar) || w.read_syscalls <= 0) return false;
  *avg_read = w.rchar / w.read_syscalls;
  bool many =
      (Has(w.opens) && w.opens >= th.opens_per_s) || w.read_syscalls >= th.read_syscalls_per_s;
  return *avg_read < th.small_read_bytes && many;
}

}  // namespace

WindowStats StatsOf(const RecordingSignals& sig, size_t begin, size_t end,
                    const AnalyzeThresholds& th) {
  WindowStats w;
  const auto& v = sig.samples;
  end = std::min(end, v.size());
  if (begin >= end) return w;
  w.n = end - begin;
  w.activity = MeanOf(v, begin, end, &SampleSignals::activity);
  w.util = MeanOf(v, begin, end, &SampleSignals::util);
  w.sm_active = MeanOf(v, begin, end, &SampleSignals::sm_active);
  w.gpm = Has(w.sm_active) && Has(w.activity) && std::fabs(w.sm_active - w.activity) < 1e-9;
  w.occupancy = MeanOf(v, begin, end, &SampleSignals::sm_occupancy);
  w.tensor = MeanOf(v, begin, end, &SampleSignals::tensor_active);
  w.dram = MeanOf(v, begin, end, &SampleSignals::dram_bw);
  w.mem_util = MeanOf(v, begin, end, &SampleSignals::mem_util);
  w.pcie = MeanOf(v, begin, end, &SampleSignals::pcie_link_pct);
  w.cpu_busy = MeanOf(v, begin, end, &SampleSignals::cpu_busy);
  w.iowait = MeanOf(v, begin, end, &SampleSignals::iowait);
  w.psi_io = MeanOf(v, begin, end, &SampleSignals::psi_io);
  w.psi_cpu = MeanOf(v, begin, end, &SampleSignals::psi_cpu);
  w.disk_busy = MeanOf(v, begin, end, &SampleSignals::disk_busy);
  w.busiest_thread = MeanOf(v, begin, end, &SampleSignals::busiest_thread);
  w.wl_cpu = MeanOf(v, begin, end, &SampleSignals::wl_cpu);
  w.cgroup_throttled = MeanOf(v, begin, end, &SampleSignals::cgroup_throttled);
  w.rchar = MeanOf(v, begin, end, &SampleSignals::wl_rchar_bps);
  w.read_syscalls = MeanOf(v, begin, end, &SampleSignals::wl_read_syscalls);
  w.opens = MeanOf(v, begin, end, &SampleSignals::wl_opens);
  w.clock_loss = MeanOf(v, begin, end, &SampleSignals::sm_clock_loss);
  size_t troughs = 0, transitions = 0, busy = 0, thr = 0, pw = 0, therm = 0, hw = 0;
  double pegged = 0;
  for (size_t i = begin; i < end; ++i) {
    const SampleSignals& s = v[i];
    w.seconds += s.dt;
    pegged += s.pegged_cores;
    bool trough = Has(s.activity) && s.activity < th.gpu_starved_pct;
    troughs += trough;
    if (i > begin) {
      bool prev = Has(v[i - 1].activity) && v[i - 1].activity < th.gpu_starved_pct;
      transitions += prev != trough;
    }
    if (Has(s.activity) && s.activity > th.gpu_idle_pct) {
      ++busy;
      bool any = s.throttle_power || s.throttle_thermal || s.throttle_hw;
      thr += any;
      pw += s.throttle_power;
      therm += s.throttle_thermal;
      hw += s.throttle_hw;
    }
  }
  double n = static_cast<double>(w.n);
  w.pegged_cores = pegged / n;
  w.trough_share = 100.0 * static_cast<double>(troughs) / n;
  w.transitions_pct = 100.0 * static_cast<double>(transitions) / n;
  if (busy > 0) {
    double b = static_cast<double>(busy);
    w.throttle_share = 100.0 * static_cast<double>(thr) / b;
    w.power_share = 100.0 * static_cast<double>(pw) / b;
    w.thermal_share = 100.0 * static_cast<double>(therm) / b;
    w.hw_share = 100.0 * static_cast<double>(hw) / b;
  }
  return w;
}

// The workload CPU that makes a GPU-less job a CPU fallback rather than an idle one: halved on a
// host whose tasks wait for a CPU (PSI), where a CPU-bound job gets only part of what it asks.
double FallbackCpuPct(const WindowStats& w, const AnalyzeThresholds& th) {
  const bool contended = Has(w.psi_cpu) && w.psi_cpu >= th.psi_cpu_pct;
  return contended ? th.fallback_cpu_pct / 2 : th.fallback_cpu_pct;
}

bool IsCpuFallback(const RecordingSignals& sig, const AnalyzeThresholds& th) {
  if (sig.process_gpu_seen || sig.samples.empty()) return false;
  bool processes = false;
  for (const SampleSignals& s : sig.samples) processes |= s.has_processes;
  if (!processes) return false;
  WindowStats w = StatsOf(sig, 0, sig.samples.size(), th);
  bool gpus_idle = Has(w.activity) && w.activity <= th.gpu_idle_pct;  // no readings: no claim
  return gpus_idle && Has(w.wl_cpu) && w.wl_cpu >= FallbackCpuPct(w, th);
}

BottleneckLabel LabelWindow(const RecordingSignals& sig, size_t begin, size_t end,
                            const RecordingMeta& meta, const AnalyzeThresholds& th,
                            bool fallback_run) {
  WindowStats w = StatsOf(sig, begin, end, th);
  BottleneckLabel out;
  out.seconds = w.seconds;
  std::string metric = w.gpm ? "sm_active" : "gpu_util";
  Evidence act_ev{"gpu_activity (" + metric + ")", P(w.activity), Lt(th.gpu_starved_pct)};
  auto finish = [&](Cause c, bool needs_activity) {
    out.label = c.label;
    out.detail = c.detail;
    out.reason = c.reason;
    out.evidence = std::move(c.evidence);
    out.confidence = Confidence(w, c.margin, needs_activity, th);
    out.decision = DecisionFor(out.label, out.detail);
    return out;
  };

  if (fallback_run) {
    const double fallback_cpu = FallbackCpuPct(w, th);
    Evidence cpu_ev{
        "workload_cpu", P(w.wl_cpu) + " of one core",
        Ge(fallback_cpu) + (fallback_cpu < th.fallback_cpu_pct
                                ? " (halved: tasks wait for a CPU, PSI " + P(w.psi_cpu) + ")"
                                : "")};
    Evidence gpu_ev{"gpu_activity (" + metric + ")", P(w.activity),
                    fmt::format("<= {:.1f} %", th.gpu_idle_pct)};
    Evidence proc_ev{"workload_processes_on_gpu", "0", "> 0"};
    if (Has(w.wl_cpu) && w.wl_cpu >= fallback_cpu) {
      return finish({"cpu_fallback",
                     "",
                     fmt::format("the workload never appears on a GPU and uses {} of a core while "
                                 "the GPUs idle",
                                 P(w.wl_cpu)),
                     {proc_ev, cpu_ev, gpu_ev},
                     w.wl_cpu / fallback_cpu},
                    false);
    }
    return finish({"idle",
                   "",
                   "the workload does not use the GPUs and is not busy",
                   {proc_ev, cpu_ev, gpu_ev},
                   2},
                  false);
  }
  if (!Has(w.activity)) {
    out.label = "none";
    out.confidence = "low";
    out.reason = "no GPU activity readings in this window";
    out.decision = DecisionFor("none", "");
    return out;
  }

  bool starved = w.activity < th.gpu_starved_pct;
  if (starved) {
    std::string sawtooth =
        w.transitions_pct >= th.sawtooth_transitions_pct
            ? fmt::format(" in a sawtooth ({} of samples switch between busy and trough)",
                          P(w.transitions_pct))
            : "";
    Evidence saw_ev{"busy_trough_switches", P(w.transitions_pct),
                    Ge(th.sawtooth_transitions_pct) + " for a sawtooth"};
    // Busy but not productive: kernels resident (GPU-Util high) while SMs stay mostly idle.
    if (w.gpm && Has(w.util) && w.util >= th.busy_util_pct) {
      return finish({"launch_bound",
                     "busy_not_productive",
                     fmt::format("GPU-Util {} but SM activity only {}: tiny kernels or per-step "
                                 "synchronisation keep the GPU nominally busy",
                                 P(w.util), P(w.sm_active)),
                     {{"gpu_util", P(w.util), Ge(th.busy_util_pct)},
                      act_ev,
                      {"sm_occupancy", P(w.occupancy), ""},
                      {"busiest_thread", P(w.busiest_thread) + " of one core", ""}},
                     th.gpu_starved_pct / std::max(w.sm_active, 1.0)},
                    false);
    }
    double avg_read = 0;
    bool small = SmallFiles(w, th, &avg_read);
    // Storage wait is host-wide: when the workload's own reads are known and next to nothing,
    // the wait belongs to another tenant and does not explain this job's starved GPU.
    const bool workload_reads_nothing = Has(w.rchar) && w.rchar < th.own_read_bytes_per_s;
    bool io = !workload_reads_nothing && ((Has(w.iowait) && w.iowait >= th.iowait_pct) ||
                                          (Has(w.psi_io) && w.psi_io >= th.psi_io_pct) ||
                                          (Has(w.disk_busy) && w.disk_busy >= th.disk_busy_pct));
    if (io || small) {
      std::vector<Evidence> ev = {act_ev,
                                  {"iowait", P(w.iowait), Ge(th.iowait_pct)},
                                  {"psi_io_some", P(w.psi_io), Ge(th.psi_io_pct)},
                                  {"busiest_disk_busy", P(w.disk_busy), Ge(th.disk_busy_pct)}};
      if (Has(w.read_syscalls) && w.read_syscalls > 0 && Has(w.rchar)) {
        ev.push_back({"avg_read_size", Size(w.rchar / w.read_syscalls),
                      fmt::format("< {}", Size(th.small_read_bytes))});
        ev.push_back({"read_syscalls_per_s", fmt::format("{:.0f}", w.read_syscalls),
                      fmt::format(">= {:.0f}", th.read_syscalls_per_s)});
      }
      if (Has(w.opens)) {
        ev.push_back({"opens_per_s", fmt::format("{:.1f}", w.opens),
                      fmt::format(">= {:.0f}", th.opens_per_s)});
      }
      if (!sawtooth.empty()) ev.push_back(saw_ev);
      double margin = std::max({Has(w.iowait) ? w.iowait / th.iowait_pct : 0.0,
                                Has(w.psi_io) ? w.psi_io / th.psi_io_pct : 0.0,
                                Has(w.disk_busy) ? w.disk_busy / th.disk_busy_pct : 0.0,
                                small ? th.small_read_bytes / std::max(avg_read, 1.0) : 0.0});
      std::string reason =
          small ? fmt::format(
                      "GPU activity {} while the workload opens {} files/s and issues "
                      "{:.0f} reads/s of {} on average{}: small-file/metadata-bound input",
                      P(w.activity), Has(w.opens) ? fmt::format("{:.0f}", w.opens) : "?",
                      w.read_syscalls, Size(avg_read), sawtooth)
                : fmt::format(
                      "GPU activity {} while tasks wait on storage: iowait {}, PSI io {}, "
                      "busiest disk {}{}",
                      P(w.activity), P(w.iowait), P(w.psi_io), P(w.disk_busy), sawtooth);
      return finish({"host_io_bound", small ? "small_files" : "storage", reason, ev, margin}, true);
    }
    double quota_used = meta.cpu_quota_cores && *meta.cpu_quota_cores > 0 && Has(w.wl_cpu)
                            ? w.wl_cpu / *meta.cpu_quota_cores
                            : kNaN;
    bool quota = (Has(w.cgroup_throttled) && w.cgroup_throttled >= th.cgroup_throttled_pct) ||
                 (Has(quota_used) && quota_used >= th.quota_used_pct);
    bool thread = w.busiest_thread >= th.pegged_pct;
    int cpus = std::max(meta.online_cpus, 1);
    const bool contended = Has(w.psi_cpu) && w.psi_cpu >= th.psi_cpu_pct;
    bool saturated = (Has(w.cpu_busy) && w.cpu_busy >= th.host_cpu_busy_pct) ||
                     w.pegged_cores >= std::max(2.0, cpus / 2.0) || contended;
    if (quota || thread || saturated) {
      std::vector<Evidence> ev = {
          act_ev,
          {"host_cpu_busy", P(w.cpu_busy), Ge(th.host_cpu_busy_pct)},
          {"pegged_cores", fmt::format("{:.1f} of {}", w.pegged_cores, cpus),
           fmt::format(">= {:.0f} (busy >= {:.0f} %)", std::max(2.0, cpus / 2.0), th.pegged_pct)},
          {"busiest_thread", P(w.busiest_thread) + " of one core", Ge(th.pegged_pct)},
          {"workload_cpu", P(w.wl_cpu) + " of one core", ""}};
      if (Has(w.psi_cpu)) ev.push_back({"psi_cpu_some", P(w.psi_cpu), Ge(th.psi_cpu_pct)});
      if (Has(w.cgroup_throttled)) {
        ev.push_back({"cgroup_throttled", P(w.cgroup_throttled), Ge(th.cgroup_throttled_pct)});
      }
      if (Has(quota_used)) {
        ev.push_back({"quota_used",
                      P(quota_used) + fmt::format(" of {:.1f} cores", *meta.cpu_quota_cores),
                      Ge(th.quota_used_pct)});
      }
      if (!sawtooth.empty()) ev.push_back(saw_ev);
      // Each threshold reads as the condition that held for the detail chosen.
      auto set = [&ev](const char* name, std::string threshold) {
        for (Evidence& e : ev) {
          if (e.name == name) e.threshold = std::move(threshold);
        }
      };
      if (!quota) {
        set("cgroup_throttled", Lt(th.cgroup_throttled_pct));
        set("quota_used", Lt(th.quota_used_pct));
      }
      if (!saturated) {
        set("host_cpu_busy", Lt(th.host_cpu_busy_pct) + " (CPUs to spare)");
        set("pegged_cores", fmt::format("< {:.0f}", std::max(2.0, cpus / 2.0)));
        set("psi_cpu_some", Lt(th.psi_cpu_pct));
      }
      if (quota) {
        double m =
            std::max(Has(w.cgroup_throttled) ? w.cgroup_throttled / th.cgroup_throttled_pct : 0,
                     Has(quota_used) ? quota_used / th.quota_used_pct : 0);
        return finish(
            {"host_cpu_bound", "cpu_quota",
             fmt::format("GPU activity {} while the workload's cgroup CPU quota holds it back "
                         "(throttled {}, quota used {}){}",
                         P(w.activity), P(w.cgroup_throttled), P(quota_used), sawtooth),
             ev, m},
            true);
      }
      if (thread && !saturated) {
        return finish(
            {"host_cpu_bound", "single_thread_feeder",
             fmt::format("GPU activity {} while one workload thread is pegged at {} of a core "
                         "and the host has CPUs to spare (busy {}){}",
                         P(w.activity), P(w.busiest_thread), P(w.cpu_busy), sawtooth),
             ev,
             w.busiest_thread / th.pegged_pct * (th.gpu_starved_pct / std::max(w.activity, 1.0))},
            true);
      }
      return finish(
          {"host_cpu_bound", "cpu_saturated",
           fmt::format(
               "GPU activity {} while the host CPUs are saturated: busy {}, {:.1f} of {} "
               "cores pegged{}{}",
               P(w.activity), P(w.cpu_busy), w.pegged_cores, cpus,
               contended ? fmt::format(", tasks wait for a CPU {} of the time (PSI)", P(w.psi_cpu))
                         : "",
               sawtooth),
           ev,
           std::max({Has(w.cpu_busy) ? w.cpu_busy / th.host_cpu_busy_pct : 0,
                     w.pegged_cores / std::max(2.0, cpus / 2.0),
                     contended ? w.psi_cpu / th.psi_cpu_pct : 0}) *
               (th.gpu_starved_pct / std::max(w.activity, 1.0))},
          true);
    }
    if (Has(w.pcie) && w.pcie >= th.pcie_link_pct) {
      return finish({"transfer_bound",
                     "",
                     fmt::format("GPU activity {} while PCIe carries {} of the link's rate",
                                 P(w.activity), P(w.pcie)),
                     {act_ev, {"pcie_link_share", P(w.pcie), Ge(th.pcie_link_pct)}},
                     w.pcie / th.pcie_link_pct},
                    true);
    }
    std::vector<Evidence> ev = {
        act_ev,
        {"host_cpu_busy", P(w.cpu_busy), Lt(th.host_cpu_busy_pct)},
        {"iowait", P(w.iowait), Lt(th.iowait_pct)},
        {"busiest_thread", P(w.busiest_thread) + " of one core", Lt(th.pegged_pct)},
        saw_ev};
    // An import (nvidia-smi logs) has GPU figures only: starvation is visible, its cause is not.
    if (!Has(w.cpu_busy) && !Has(w.iowait) && !Has(w.wl_cpu)) {
      BottleneckLabel l = finish(
          {"idle",
           "no_host_data",
           fmt::format("GPU activity {} but the recording holds no host or workload figures to "
                       "say what the GPU waits on",
                       P(w.activity)),
           {act_ev},
           1},
          false);
      l.confidence = "low";
      return l;
    }
    if (w.activity < th.gpu_idle_pct) {
      ev[0].threshold = Lt(th.gpu_idle_pct);
      return finish({"idle", "",
                     fmt::format("GPU activity {} and nothing on the host is busy: no work is "
                                 "being given to the GPU",
                                 P(w.activity)),
                     ev, th.gpu_idle_pct / std::max(w.activity, 0.5)},
                    false);
    }
    bool bursty = w.transitions_pct >= th.sawtooth_transitions_pct;
    return finish(
        {"none", bursty ? "bursty" : "",
         bursty ? fmt::format("GPU activity {} in bursts ({} of samples switch) with the host "
                              "idle between them: the job waits for work, not for a resource",
                              P(w.activity), P(w.transitions_pct))
                : fmt::format("GPU activity {} with nothing waiting (host CPU {}, iowait {}, "
                              "busiest thread {}): the GPU is not the limit",
                              P(w.activity), P(w.cpu_busy), P(w.iowait), P(w.busiest_thread)),
         ev, 1.5},
        false);
  }

  // Not starved: the GPU is doing the work; how well?
  if (w.throttle_share >= th.throttle_share_pct && Has(w.clock_loss) &&
      w.clock_loss >= th.clock_loss_pct) {
    std::string detail = w.thermal_share >= w.power_share && w.thermal_share >= w.hw_share
                             ? "thermal"
                         : w.power_share >= w.hw_share ? "power_cap"
                                                       : "hw_slowdown";
    return finish(
        {"throttled",
         detail,
         fmt::format("clock slowdown ({}) active {} of busy time; SM clock {} below "
                     "maximum",
                     detail, P(w.throttle_share), P(w.clock_loss)),
         {{"throttle_share_of_busy", P(w.throttle_share), Ge(th.throttle_share_pct)},
          {"power_cap_share", P(w.power_share), ""},
          {"thermal_share", P(w.thermal_share), ""},
          {"hw_slowdown_share", P(w.hw_share), ""},
          {"sm_clock_below_max", P(w.clock_loss), Ge(th.clock_loss_pct)}},
         std::min(w.throttle_share / th.throttle_share_pct, w.clock_loss / th.clock_loss_pct)},
        false);
  }
  Evidence busy_ev{"gpu_activity (" + metric + ")", P(w.activity), Ge(th.gpu_starved_pct)};
  if (Has(w.pcie) && w.pcie >= th.pcie_link_pct) {
    return finish({"transfer_bound",
                   "",
                   fmt::format("PCIe carries {} of the link's rate while the GPU is {} active",
                               P(w.pcie), P(w.activity)),
                   {{"pcie_link_share", P(w.pcie), Ge(th.pcie_link_pct)}, busy_ev},
                   w.pcie / th.pcie_link_pct},
                  false);
  }
  if (Has(w.dram) && w.dram >= th.dram_bw_pct &&
      (!Has(w.tensor) || w.tensor < th.tensor_active_pct)) {
    return finish({"memory_bound",
                   "",
                   fmt::format("DRAM bandwidth {} busy while tensor cores are active {}", P(w.dram),
                               P(w.tensor)),
                   {{"dram_bw_util", P(w.dram), Ge(th.dram_bw_pct)},
                    {"tensor_active", P(w.tensor), Lt(th.tensor_active_pct)},
                    busy_ev},
                   w.dram / th.dram_bw_pct},
                  false);
  }
  if (!Has(w.dram) && Has(w.mem_util) && w.mem_util >= th.mem_util_pct) {
    BottleneckLabel l = finish(
        {"memory_bound",
         "",
         fmt::format("memory controller busy {} of the time (NVML memory utilisation; no GPM "
                     "DRAM figures)",
                     P(w.mem_util)),
         {{"mem_util", P(w.mem_util), Ge(th.mem_util_pct)}, busy_ev},
         w.mem_util / th.mem_util_pct},
        false);
    if (l.confidence == "high") l.confidence = "medium";
    return l;
  }
  std::vector<Evidence> ev = {busy_ev};
  if (Has(w.tensor)) ev.push_back({"tensor_active", P(w.tensor), ""});
  if (Has(w.dram)) ev.push_back({"dram_bw_util", P(w.dram), Lt(th.dram_bw_pct)});
  if (Has(w.pcie)) ev.push_back({"pcie_link_share", P(w.pcie), Lt(th.pcie_link_pct)});
  BottleneckLabel l = finish(
      {"compute_bound", "",
       fmt::format("the GPU is {} active ({}) and nothing upstream waits", P(w.activity), metric),
       ev, w.activity / th.gpu_starved_pct},
      true);
  return l;
}

std::string DecisionFor(std::string_view label, std::string_view detail) {
  if (label == "host_cpu_bound") {
    if (detail == "cpu_quota") {
      return "Raise the job's CPU limit (cgroup cpu.max, Kubernetes limits.cpu, Slurm "
             "--cpus-per-task) to match the GPU's appetite; a faster GPU would not help.";
    }
    if (detail == "single_thread_feeder") {
      return "One thread feeds the GPU: add data-loader workers (num_workers), move decode and "
             "augmentation to worker processes or the GPU (DALI), or cut per-step Python "
             "(torch.compile, CUDA graphs); a faster GPU would not help.";
    }
    return "The host CPUs cannot prepare data fast enough: move decode/tokenisation off the "
           "critical path (GPU decode, precomputed features), use more or faster cores local to "
           "the GPU's NUMA node; a faster GPU would not help.";
  }
  if (label == "host_io_bound") {
    if (detail == "small_files") {
      return "Many small files starve the GPU through metadata latency: shard the dataset into "
             "larger files (tar/WebDataset, TFRecord, LMDB) or stage it on local NVMe before the "
             "job.";
    }
    return "Storage cannot deliver the input fast enough: cache the dataset on local NVMe, "
           "increase read-ahead and loader parallelism, or move to a faster tier.";
  }
  if (label == "transfer_bound") {
    return "Host-device copies fill the PCIe link: pin host memory, overlap copies with compute, "
           "keep tensors resident on the GPU, and confirm the link runs at full width and "
           "generation (`gpuvet check`).";
  }
  if (label == "launch_bound") {
    return "The GPU is nominally busy with tiny kernels: batch more work per kernel, fuse ops "
           "(torch.compile), capture the step in a CUDA graph and remove per-step "
           "synchronisation; a faster GPU makes this worse, not better.";
  }
  if (label == "memory_bound") {
    return "Kernels are limited by memory bandwidth: fuse memory-bound ops, use lower precision "
           "(BF16/FP8) to move fewer bytes; a GPU with more memory bandwidth (H200, B200) helps, "
           "more FLOPS alone does not.";
  }
  if (label == "compute_bound") {
    return "The GPU itself is the limit, which is where it should be: lower precision on tensor "
           "cores, fused kernels or a faster GPU speed this job up.";
  }
  if (label == "throttled") {
    if (detail == "thermal") {
      return "Clocks drop because the GPU is hot: fix airflow, fan curves and inlet temperature "
             "before tuning software.";
    }
    if (detail == "hw_slowdown") {
      return "Hardware slowdown or power brake: check PSUs, power cables and BMC events; drain "
             "the node if it persists.";
    }
    return "The GPU runs into its power limit and lowers clocks: check the limit against the "
           "board default (`gpuvet check --only power`) and raise it if it was lowered.";
  }
  if (label == "periodic_stall") {
    return "Make the periodic work asynchronous: write checkpoints in a background thread to "
           "local disk then upload, evaluate less often or on another GPU, and batch logging.";
  }
  if (label == "memory_leak") {
    return "Memory grows without bound: find the growing cache or reference (tracemalloc, "
           "torch.cuda.memory_snapshot), bound caches, or recycle workers before it runs out.";
  }
  if (label == "cpu_fallback") {
    return "The job runs on the CPU: check that it sees a GPU (CUDA_VISIBLE_DEVICES, container "
           "GPU runtime, device permissions), that the framework build has CUDA, and that the "
           "model is moved to the device; do not scale up.";
  }
  if (label == "idle" && detail == "no_host_data") {
    return "Record the job with `gpuvet record` (host CPU, iowait, threads, reads) to see what the "
           "GPU waits on; GPU figures alone show the starvation, not its cause.";
  }
  if (label == "idle") {
    return "Nothing is given to the GPU: check whether the job is still starting, waiting on "
           "another service, or has finished its work.";
  }
  return "Nothing to fix here: the GPU is not the limit and nothing waits.";
}

}  // namespace gpuvet
