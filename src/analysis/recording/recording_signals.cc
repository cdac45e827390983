// Reduction of samples to signals. One pass per sample, no allocation in the hot loop beyond the
// output vector: a 24 h × 8 GPU × 1 Hz recording (86,400 samples) reduces in milliseconds.
#include "analysis/recording/recording_signals.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/gpu_state.h"
#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"

namespace gpuvet {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxGpuIndex = 4096;  // indexes beyond this are ignored as garbage

using recording_signals_internal::GpuFacts;

std::vector<GpuFacts> Facts(const RecordingMeta& meta) {
  std::vector<GpuFacts> out;
  for (const RecordedGpu& g : meta.gpus) {
    if (g.index < 0 || g.index >= kMaxGpuIndex) continue;
    if (out.size() <= static_cast<size_t>(g.index)) out.resize(g.index + 1);
    GpuFacts& f = out[g.index];
    int gen = g.pcie_gen_max.value_or(0), width = g.pcie_width_max.value_or(0);
    if (gen == 0 || width == 0) {
      if (const GpuSpec* s = FindGpuSpec(g.name)) gen = s->pcie_gen, width = s->pcie_width;
    }
    f.link_bps = PcieLinkGbps(gen, width) * 1e9;
    f.sm_clock_max = g.sm_clock_max_mhz.value_or(0);
    f.power_limit_w = g.power_limit_w.value_or(0);
  }
  return out;
}

double ActivityOf(const GpuSample& g) {
  if (g.sm_active_pct) return *g.sm_active_pct;
  return g.util_pct.value_or(kNaN);
}

// Mean accumulator that skips absent values.
struct Mean {
  double sum = 0;
  int n = 0;
  void Add(const std::optional<double>& v) {
    if (v && std::isfinite(*v)) sum += *v, ++n;
  }
  void Add(double v) {
    if (std::isfinite(v)) sum += v, ++n;
  }
  double Get() const { return n ? sum / n : kNaN; }
};

SampleSignals Reduce(const Sample& s, const std::vector<GpuFacts>& facts,
                     const std::vector<char>& judged, const AnalyzeThresholds& th) {
  SampleSignals x;
  x.t = s.t;
  x.dt = s.interval_s > 0 ? s.interval_s : 0;
  Mean util, sm, occupancy, tensor, dram, mem, loss, power, power_pct, nvlink;
  double link_pct = kNaN;
  bool all_gpm = true;
  int judged_seen = 0;
  for (const GpuSample& g : s.gpus) {
    if (g.gpu < 0 || g.gpu >= static_cast<int>(judged.size()) || !judged[g.gpu]) continue;
    ++judged_seen;
    util.Add(g.util_pct);
    sm.Add(g.sm_active_pct);
    occupancy.Add(g.sm_occupancy_pct);
    tensor.Add(g.tensor_active_pct);
    dram.Add(g.dram_bw_util_pct);
    mem.Add(g.mem_util_pct);
    power.Add(g.power_w);
    if (!g.sm_active_pct) all_gpm = false;
    const GpuFacts* f = static_cast<size_t>(g.gpu) < facts.size() ? &facts[g.gpu] : nullptr;
    if (f && f->power_limit_w > 0 && g.power_w)
      power_pct.Add(100.0 * *g.power_w / f->power_limit_w);
    if (g.nvlink_tx_bytes_per_s || g.nvlink_rx_bytes_per_s) {
      nvlink.Add(g.nvlink_tx_bytes_per_s.value_or(0) + g.nvlink_rx_bytes_per_s.value_or(0));
    }
    std::optional<double> tx =
        g.pcie_tx_bytes_per_s ? g.pcie_tx_bytes_per_s : g.gpm_pcie_tx_bytes_per_s;
    std::optional<double> rx =
        g.pcie_rx_bytes_per_s ? g.pcie_rx_bytes_per_s : g.gpm_pcie_rx_bytes_per_s;
    if (f && f->link_bps > 0 && (tx || rx)) {
      // Each direction has its own lanes: the busier one against one direction's rate.
      double pct = 100.0 * std::max(tx.value_or(0), rx.value_or(0)) / f->link_bps;
      link_pct = std::isnan(link_pct) ? pct : std::max(link_pct, pct);
    }
    double act = ActivityOf(g);
    if (f && f->sm_clock_max > 0 && g.sm_clock_mhz && std::isfinite(act) && act > th.gpu_idle_pct) {
      loss.Add(100.0 * (1.0 - *g.sm_clock_mhz / f->sm_clock_max));
    }
    if (g.clock_event_reasons && std::isfinite(act) && act > th.gpu_idle_pct) {
      uint64_t r = *g.clock_event_reasons;
      x.throttle_power |= (r & clock_reason::kSwPowerCap) != 0;
      x.throttle_thermal |=
          (r & (clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown)) != 0;
      x.throttle_hw |= (r & (clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown)) != 0;
    }
    if (!g.processes.empty()) x.wl_on_gpu = true;
  }
  x.util = util.Get();
  x.sm_active = sm.Get();
  x.sm_occupancy = occupancy.Get();
  x.tensor_active = tensor.Get();
  x.dram_bw = dram.Get();
  x.mem_util = mem.Get();
  x.power_w = power.Get();
  x.power_pct = power_pct.Get();
  x.nvlink_bps = nvlink.Get();
  x.pcie_link_pct = link_pct;
  x.sm_clock_loss = loss.Get();
  x.activity = judged_seen > 0 && all_gpm ? x.sm_active : x.util;

  const HostSample& h = s.host;
  x.cpu_busy = h.cpu_user_pct && h.cpu_system_pct ? *h.cpu_user_pct + *h.cpu_system_pct : kNaN;
  x.iowait = h.cpu_iowait_pct.value_or(kNaN);
  x.psi_io = h.psi_io_some_pct.value_or(kNaN);
  x.psi_cpu = h.psi_cpu_some_pct.value_or(kNaN);
  x.mem_available = h.mem_available_bytes ? static_cast<double>(*h.mem_available_bytes) : kNaN;
  x.disk_busy = h.disks.empty() ? kNaN : 0;
  for (const DiskSample& d : h.disks) {
    x.disk_busy = std::max(x.disk_busy, d.busy_pct);
    x.disk_write_bps += d.write_bytes_per_s;
  }
  x.max_core = h.core_busy_pct.empty() ? kNaN : 0;
  for (double c : h.core_busy_pct) {
    x.max_core = std::max(x.max_core, c);
    if (c >= th.pegged_pct) ++x.pegged_cores;
  }

  x.has_processes = !s.processes.empty();
  bool any_rchar = false, any_sys = false, any_opens = false, any_read = false;
  for (const ProcessSample& p : s.processes) {
    x.wl_cpu += p.cpu_pct;
    for (const ThreadSample& t : p.top_threads)
      x.busiest_thread = std::max(x.busiest_thread, t.cpu_pct);
    if (p.top_threads.empty() && p.threads == 1) {
      x.busiest_thread = std::max(x.busiest_thread, p.cpu_pct);  // a single-threaded process
    }
    if (p.rchar_per_s) x.wl_rchar_bps += *p.rchar_per_s, any_rchar = true;
    if (p.read_syscalls_per_s) x.wl_read_syscalls += *p.read_syscalls_per_s, any_sys = true;
    if (p.opens_per_s) x.wl_opens += *p.opens_per_s, any_opens = true;
    if (p.read_bytes_per_s) x.wl_read_bps += *p.read_bytes_per_s, any_read = true;
  }
  if (s.processes.empty()) x.wl_cpu = kNaN;  // no workload followed (an import): unknown, not 0
  if (!any_rchar) x.wl_rchar_bps = kNaN;
  if (!any_sys) x.wl_read_syscalls = kNaN;
  if (!any_opens) x.wl_opens = kNaN;
  if (!any_read) x.wl_read_bps = kNaN;
  x.cgroup_throttled = s.workload.cgroup_throttled_pct.value_or(kNaN);
  x.work_total = s.workload.work_total.value_or(kNaN);
  return x;
}

std::vector<char> Judged(const std::vector<int>& gpus) {
  std::vector<char> judged;
  for (int g : gpus) {
    if (g < 0 || g >= kMaxGpuIndex) continue;
    if (judged.size() <= static_cast<size_t>(g)) judged.resize(g + 1, 0);
    judged[g] = 1;
  }
  return judged;
}

// The figures merged as dt-weighted means when rows hold several samples.
constexpr double SampleSignals::*kMeanFields[] = {
    &SampleSignals::activity,       &SampleSignals::util,          &SampleSignals::sm_active,
    &SampleSignals::sm_occupancy,   &SampleSignals::tensor_active, &SampleSignals::dram_bw,
    &SampleSignals::mem_util,       &SampleSignals::power_w,       &SampleSignals::power_pct,
    &SampleSignals::nvlink_bps,     &SampleSignals::pcie_link_pct, &SampleSignals::sm_clock_loss,
    &SampleSignals::cpu_busy,       &SampleSignals::iowait,        &SampleSignals::psi_io,
    &SampleSignals::psi_cpu,        &SampleSignals::disk_busy,     &SampleSignals::disk_write_bps,
    &SampleSignals::max_core,       &SampleSignals::mem_available, &SampleSignals::wl_cpu,
    &SampleSignals::busiest_thread, &SampleSignals::wl_rchar_bps,  &SampleSignals::wl_read_syscalls,
    &SampleSignals::wl_opens,       &SampleSignals::wl_read_bps,   &SampleSignals::cgroup_throttled,
    &SampleSignals::net_link_pct,   &SampleSignals::net_cnp_per_s,
};

SampleSignals Merge(const std::vector<SampleSignals>& v) {
  if (v.size() == 1) return v.front();
  SampleSignals x = v.back();  // t, work_total: the last sample's
  x.dt = 0;
  for (const SampleSignals& s : v) x.dt += s.dt;
  for (auto field : kMeanFields) {
    double sum = 0, w = 0;
    for (const SampleSignals& s : v) {
      if (std::isfinite(s.*field)) sum += s.*field * s.dt, w += s.dt;
    }
    x.*field = w > 0 ? sum / w : kNaN;
  }
  double power = 0, thermal = 0, hw = 0, pegged = 0;
  x.wl_on_gpu = x.has_processes = false;
  for (const SampleSignals& s : v) {
    if (s.throttle_power) power += s.dt;
    if (s.throttle_thermal) thermal += s.dt;
    if (s.throttle_hw) hw += s.dt;
    pegged += s.pegged_cores * s.dt;
    x.wl_on_gpu |= s.wl_on_gpu;
    x.has_processes |= s.has_processes;
  }
  x.throttle_power = 2 * power >= x.dt;
  x.throttle_thermal = 2 * thermal >= x.dt;
  x.throttle_hw = 2 * hw >= x.dt;
  x.pegged_cores = x.dt > 0 ? static_cast<int>(std::lround(pegged / x.dt)) : 0;
  // The row's RDMA port: that of its sample with the busiest port.
  x.net_port = -1;
  double busiest = -std::numeric_limits<double>::infinity();
  for (const SampleSignals& s : v) {
    if (s.net_port >= 0 && std::isfinite(s.net_link_pct) && s.net_link_pct > busiest) {
      busiest = s.net_link_pct;
      x.net_port = s.net_port;
    }
  }
  return x;
}

}  // namespace

WorkloadGpuSurvey::WorkloadGpuSurvey(const RecordingMeta& meta, const AnalyzeThresholds& th)
    : th_(th) {
  for (const RecordedGpu& g : meta.gpus) all_.insert(g.index);
}

void WorkloadGpuSurvey::Insert(std::set<int>* set, uint8_t bit, int gpu) {
  if (gpu < 0 || gpu >= kMaxGpuIndex) {
    set->insert(gpu);
    return;
  }
  if (seen_.empty()) seen_.assign(kMaxGpuIndex, 0);
  uint8_t& seen = seen_[static_cast<size_t>(gpu)];
  if (seen & bit) return;
  seen |= bit;
  set->insert(gpu);
}

void WorkloadGpuSurvey::Add(const Sample& s) {
  for (const GpuSample& g : s.gpus) {
    Insert(&all_, 1, g.gpu);
    if (!g.processes.empty()) Insert(&with_process_, 2, g.gpu);
    double a = ActivityOf(g);
    if (std::isfinite(a) && a > th_.gpu_idle_pct) Insert(&active_, 4, g.gpu);
  }
}

std::vector<int> WorkloadGpuSurvey::Result() const {
  const std::set<int>& pick = !with_process_.empty() ? with_process_
                              : !active_.empty()     ? active_
                                                     : all_;
  std::vector<int> out;
  for (int g : pick) {
    if (g >= 0 && g < kMaxGpuIndex) out.push_back(g);
  }
  return out;
}

namespace {

// The RDMA-port signals of one sample (net_* of SampleSignals), registering port names.
void NetSignals(const Sample& s, RecordingSignals* out, SampleSignals* x) {
  x->net_link_pct = kNaN;
  x->net_cnp_per_s = kNaN;
  for (const IbPortSample& p : s.host.ib_ports) {
    if (p.cnp_per_s) {
      x->net_cnp_per_s = (std::isfinite(x->net_cnp_per_s) ? x->net_cnp_per_s : 0) + *p.cnp_per_s;
    }
    if (!p.active || p.rate_gbps <= 0) continue;
    double pct = 100.0 * std::max(p.rx_bytes_per_s, p.tx_bytes_per_s) * 8 / (p.rate_gbps * 1e9);
    if (std::isfinite(x->net_link_pct) && pct <= x->net_link_pct) continue;
    x->net_link_pct = pct;
    auto it = std::find(out->net_ports.begin(), out->net_ports.end(), p.port);
    if (it == out->net_ports.end()) {
      out->net_ports.push_back(p.port);
      out->net_port_gbps.push_back(p.rate_gbps);
      out->net_port_layer.push_back(p.link_layer);
      it = out->net_ports.end() - 1;
    }
    x->net_port = static_cast<int>(it - out->net_ports.begin());
    out->net_port_gbps[static_cast<size_t>(x->net_port)] = p.rate_gbps;
  }
}

}  // namespace

std::vector<int> WorkloadGpus(const Recording& rec, const AnalyzeThresholds& th) {
  WorkloadGpuSurvey survey(rec.meta, th);
  for (const Sample& s : rec.samples) survey.Add(s);
  return survey.Result();
}

SignalSeries::SignalSeries(const RecordingMeta& meta, std::vector<int> workload_gpus,
                           const AnalyzeThresholds& th, size_t expected_samples)
    : meta_(meta), th_(th) {
  judged_ = Judged(workload_gpus);
  facts_ = Facts(meta);
  out_.workload_gpus = std::move(workload_gpus);
  out_.step = static_cast<int>(
      std::max<size_t>(1, (expected_samples + kMaxSignalRows - 1) / kMaxSignalRows));
  out_.samples.reserve(std::min(expected_samples / out_.step + 1, kMaxSignalRows + 1));
  pending_.reserve(out_.step);
}

void SignalSeries::Add(const Sample& s) {
  SampleSignals x = Reduce(s, facts_, judged_, th_);
  NetSignals(s, &out_, &x);
  if (std::isfinite(x.sm_active)) ++gpm_;
  out_.process_gpu_seen |= x.wl_on_gpu;
  // The first sample's interval may be unknown (no baseline): take the recording's interval.
  if (x.dt <= 0) x.dt = meta_.interval_s > 0 ? meta_.interval_s : 1.0;
  ++out_.sample_count;
  if (out_.step == 1) {
    out_.samples.push_back(x);
    return;
  }
  pending_.push_back(x);
  if (pending_.size() >= static_cast<size_t>(out_.step)) Flush();
}

void SignalSeries::Flush() {
  if (pending_.empty()) return;
  out_.samples.push_back(Merge(pending_));
  pending_.clear();
}

RecordingSignals SignalSeries::Finish() {
  Flush();
  out_.gpm = out_.sample_count > 0 && gpm_ * 2 > out_.sample_count;
  return std::move(out_);
}

RecordingSignals ComputeSignals(const Recording& rec, const AnalyzeThresholds& th) {
  SignalSeries series(rec.meta, WorkloadGpus(rec, th), th, rec.samples.size());
  for (const Sample& s : rec.samples) series.Add(s);
  return series.Finish();
}

double MeanOf(const std::vector<SampleSignals>& v, size_t begin, size_t end,
              double SampleSignals::*field) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = begin; i < end && i < v.size(); ++i) {
    double x = v[i].*field;
    if (std::isfinite(x)) sum += x, ++n;
  }
  return n ? sum / static_cast<double>(n) : kNaN;
}

}  // namespace gpuvet
