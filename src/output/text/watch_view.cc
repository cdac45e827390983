// The watch frame and line. Units follow what operators read at a glance: percent, W, C, MHz,
// GiB for memory, MB/s (10^6) for rates.
#include "output/text/watch_view.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "core/gpu_state.h"
#include "output/text/severity_colour.h"

namespace gpuvet {

namespace {

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Pct(const std::optional<double>& v) { return v ? Fmt("%.0f%%", *v) : "-"; }

std::string Rate(double bytes_per_s) {
  if (bytes_per_s >= 1e9) return Fmt("%.1f GB/s", bytes_per_s / 1e9);
  if (bytes_per_s >= 1e6) return Fmt("%.0f MB/s", bytes_per_s / 1e6);
  if (bytes_per_s >= 1e3) return Fmt("%.0f kB/s", bytes_per_s / 1e3);
  return Fmt("%.0f B/s", bytes_per_s);
}

std::string GiB(uint64_t bytes) { return Fmt("%.1f", bytes / 1073741824.0); }

// Characters, not bytes: UTF-8 continuation bytes do not take a column.
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Cut(std::string line, int width) {
  if (width > 0 && Columns(line) > static_cast<size_t>(width)) {
    size_t cols = 0, i = 0;
    for (; i < line.size(); ++i) {
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 &&
          cols++ == static_cast<size_t>(width)) {
        break;
      }
    }
    line.resize(i);
  }
  return line + "\n";
}

std::string Column(const std::string& text, size_t width) {
  size_t n = Columns(text);
  return n >= width ? text + " " : text + std::string(width - n, ' ');
}

// Wraps a whole (already cut) line in an SGR colour.
std::string Paint(const std::string& line, const char* sgr, bool color) {
  if (!color || sgr == nullptr || line.size() <= 1) return line;
  return "\x1b[" + std::string(sgr) + "m" + line.substr(0, line.size() - 1) + "\x1b[0m\n";
}

// Red for a health problem or a degraded link, yellow for a throttled or idle GPU, green for a
// busy one, none when nothing is known.
const char* GpuColor(const GpuSample& g, const WatchLink* link) {
  std::string health = GpuHealth(g);
  if ((health != "ok" && health != "thermal") || (link && link->degraded)) return "31";
  if (health == "thermal") return "33";
  if (!g.util_pct) return nullptr;
  return *g.util_pct >= 80 ? "32" : *g.util_pct >= 30 ? "33" : nullptr;
}

const RecordedGpu* FindGpu(const RecordingMeta& meta, int index) {
  for (const RecordedGpu& g : meta.gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

std::string GpuRow(const GpuSample& g, const RecordedGpu* info, const WatchLink* link) {
  std::string mem = "-";
  if (g.memory_used_bytes) {
    mem = GiB(*g.memory_used_bytes);
    if (info && info->memory_total_bytes) mem += "/" + GiB(*info->memory_total_bytes);
    mem += " GiB";
  }
  std::string power = g.power_w ? Fmt("%.0f", *g.power_w) : "-";
  if (info && info->power_limit_w) power += Fmt("/%.0f", *info->power_limit_w);
  power += " W";
  std::string pcie = "-";
  if (g.pcie_rx_bytes_per_s || g.pcie_tx_bytes_per_s) {
    pcie =
        Rate(g.pcie_rx_bytes_per_s.value_or(0)) + " / " + Rate(g.pcie_tx_bytes_per_s.value_or(0));
  }
  // The variable-length throttle names come last, so a narrow terminal cuts only them.
  return Column(Fmt("%.0f", g.gpu), 4) + Column(Pct(g.util_pct), 6) +
         Column(Pct(g.sm_active_pct), 7) + Column(Pct(g.mem_util_pct), 5) + Column(mem, 14) +
         Column(power, 11) + Column(g.temperature_c ? Fmt("%.0fC", *g.temperature_c) : "-", 6) +
         Column(GpuHealth(g), 10) + Column(g.sm_clock_mhz ? Fmt("%.0f", *g.sm_clock_mhz) : "-", 7) +
         Column(g.mem_clock_mhz ? Fmt("%.0f", *g.mem_clock_mhz) : "-", 7) +
         Column(link ? link->text + (link->degraded ? "!" : "") : "-", 10) + Column(pcie, 20) +
         (g.clock_event_reasons ? ClockReasonNames(*g.clock_event_reasons) : "-");
}

// "  gpu0 procs 1234 python3 12.3 GiB, 1240 ? 1.0 GiB" from the GPU's processes, named from the
// workload's process samples where the pid is one of them.
std::string GpuProcesses(const GpuSample& g, const Sample& s) {
  std::string out = Fmt("  gpu%.0f procs", g.gpu);
  for (size_t i = 0; i < g.processes.size(); ++i) {
    const GpuProcessSample& p = g.processes[i];
    std::string comm = "?";
    for (const ProcessSample& ps : s.processes) {
      if (static_cast<uint32_t>(ps.pid) == p.pid) comm = ps.comm;
    }
    out += (i ? ", " : " ") + Fmt("%.0f", p.pid) + " " + comm;
    if (p.used_memory_bytes) out += " " + GiB(*p.used_memory_bytes) + " GiB";
    if (p.sm_util_pct) out += Fmt(" sm %.0f%%", *p.sm_util_pct);
  }
  return out;
}

}  // namespace

std::string GpuHealth(const GpuSample& g) {
  if (g.ecc_uncorrected_volatile && *g.ecc_uncorrected_volatile > 0) {
    return Fmt("ECC-UE %.0f", static_cast<double>(*g.ecc_uncorrected_volatile));
  }
  if (g.clock_event_reasons &&
      (*g.clock_event_reasons & (clock_reason::kHwSlowdown | clock_reason::kHwThermalSlowdown |
                                 clock_reason::kHwPowerBrakeSlowdown))) {
    return "HW-SLOW";
  }
  if (g.clock_event_reasons && (*g.clock_event_reasons & clock_reason::kSwThermalSlowdown)) {
    return "thermal";
  }
  if (!g.util_pct && !g.temperature_c && !g.power_w && !g.memory_used_bytes) return "no answer";
  return "ok";
}

std::string Sparkline(const std::vector<double>& values) {
  static constexpr const char* kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                            "\u2585", "\u2586", "\u2587", "\u2588"};
  std::string out;
  for (double v : values) {
    if (v < 0 || v != v) {
      out += ' ';
      continue;
    }
    int i = static_cast<int>(std::min(100.0, v) / 100.0 * 7.0 + 0.5);
    out += kBlocks[std::clamp(i, 0, 7)];
  }
  return out;
}

std::string ClockReasonNames(uint64_t bits) {
  static constexpr std::pair<uint64_t, const char*> kNames[] = {
      {clock_reason::kApplicationsClocksSetting, "app-clocks"},
      {clock_reason::kSwPowerCap, "sw-power"},
      {clock_reason::kHwSlowdown, "hw-slowdown"},
      {clock_reason::kSyncBoost, "sync-boost"},
      {clock_reason::kSwThermalSlowdown, "sw-thermal"},
      {clock_reason::kHwThermalSlowdown, "hw-thermal"},
      {clock_reason::kHwPowerBrakeSlowdown, "power-brake"},
      {clock_reason::kDisplayClockSetting, "display"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (bits & bit) out += (out.empty() ? "" : ",") + std::string(name);
  }
  if (out.empty()) return bits & clock_reason::kGpuIdle ? "idle" : "none";
  return out;
}

std::string RenderWatchFrame(const RecordingMeta& meta, const Sample& s,
                             const WatchViewOptions& o) {
  std::string out;
  char title[256];
  std::snprintf(title, sizeof(title), "gpuvet watch  %s  %zu GPU%s  every %gs  %s  (q quits)",
                meta.host.c_str(), meta.gpus.size(), meta.gpus.size() == 1 ? "" : "s",
                meta.interval_s, o.clock.c_str());
  out += Cut(title, o.width);
  out += "\n";
  if (s.gpus.empty()) {
    auto why = meta.notes.find("sampler.gpu");
    out += Cut("no GPUs" + (why != meta.notes.end() ? ": " + why->second : std::string()), o.width);
  } else {
    out += Cut(Column("GPU", 4) + Column("util", 6) + Column("SM-act", 7) + Column("mem", 5) +
                   Column("mem used", 14) + Column("power", 11) + Column("temp", 6) +
                   Column("health", 10) + Column("SM MHz", 7) + Column("memMHz", 7) +
                   Column("PCIe link", 10) + Column("PCIe rx / tx", 20) + "throttle",
               o.width);
    for (const GpuSample& g : s.gpus) {
      auto link = o.links.find(g.gpu);
      const WatchLink* l = link == o.links.end() ? nullptr : &link->second;
      out += Paint(Cut(GpuRow(g, FindGpu(meta, g.gpu), l), o.width), GpuColor(g, l), o.color);
    }
    bool any_history = false;
    for (const GpuSample& g : s.gpus) any_history |= o.util_history.count(g.gpu) > 0;
    if (any_history) {
      // Two GPUs per line when there are more than two, each keeping its most recent points.
      out += "\n";
      const int per_line = s.gpus.size() > 2 ? 2 : 1;
      const size_t cell = static_cast<size_t>(std::max(20, o.width / per_line));
      const size_t points = cell - 14;
      std::string line;
      int in_line = 0;
      for (const GpuSample& g : s.gpus) {
        auto h = o.util_history.find(g.gpu);
        if (h == o.util_history.end()) continue;
        const std::vector<double>& v = h->second;
        std::vector<double> recent(v.end() - static_cast<long>(std::min(points, v.size())),
                                   v.end());
        std::string text = Fmt("  gpu%.0f util ", g.gpu) + Sparkline(recent);
        line += in_line + 1 < per_line ? Column(text, cell) : text;
        if (++in_line == per_line) {
          out += Cut(line, o.width);
          line.clear();
          in_line = 0;
        }
      }
      if (!line.empty()) out += Cut(line, o.width);
    }
    for (const GpuSample& g : s.gpus) {
      if (!g.processes.empty()) out += Cut(GpuProcesses(g, s), o.width);
    }
  }
  out += "\n";
  const HostSample& h = s.host;
  std::string cpu = "host  cpu usr " + Pct(h.cpu_user_pct) + " sys " + Pct(h.cpu_system_pct) +
                    " iowait " + Pct(h.cpu_iowait_pct) + " steal " + Pct(h.cpu_steal_pct) +
                    " idle " + Pct(h.cpu_idle_pct) +
                    (h.run_queue ? Fmt("  runq %.0f", *h.run_queue) : "");
  if (!h.core_busy_pct.empty()) {
    double busiest = *std::max_element(h.core_busy_pct.begin(), h.core_busy_pct.end());
    int pegged = static_cast<int>(std::count_if(h.core_busy_pct.begin(), h.core_busy_pct.end(),
                                                [](double c) { return c >= 90; }));
    cpu += Fmt("  busiest core %.0f%%", busiest) + Fmt(", %.0f cores >= 90%%", pegged);
  }
  out += Cut(cpu, o.width);
  out += Cut("      psi cpu " + Pct(h.psi_cpu_some_pct) + " io " + Pct(h.psi_io_some_pct) + "/" +
                 Pct(h.psi_io_full_pct) + " mem " + Pct(h.psi_memory_some_pct) + "  memavail " +
                 (h.mem_available_bytes ? GiB(*h.mem_available_bytes) + " GiB" : "-") +
                 (h.major_faults_per_s ? Fmt("  majflt %.0f/s", *h.major_faults_per_s) : ""),
             o.width);
  std::string io = "      disk";
  for (const DiskSample& d : h.disks) {
    if (d.read_bytes_per_s + d.write_bytes_per_s == 0 && d.busy_pct == 0) continue;
    io += " " + d.device + " r " + Rate(d.read_bytes_per_s) + " w " + Rate(d.write_bytes_per_s) +
          Fmt(" %.0f%%", d.busy_pct);
  }
  if (io == "      disk") io += " idle";
  io += "  net";
  std::string nets;
  for (const NetSample& n : h.nets) {
    if (n.rx_bytes_per_s + n.tx_bytes_per_s == 0) continue;
    nets += " " + n.interface + " rx " + Rate(n.rx_bytes_per_s) + " tx " + Rate(n.tx_bytes_per_s);
  }
  out += Cut(io + (nets.empty() ? " idle" : nets), o.width);
  out += "\n";
  // The live verdict (analysis VerdictForWindow, formatted by the watch command).
  out +=
      Paint(Cut("verdict: " + (o.verdict.empty() ? std::string("(gathering samples)") : o.verdict),
                o.width),
            o.verdict.empty() ? nullptr : SeveritySgr(o.verdict_severity), o.color);
  if (!s.processes.empty()) {
    out += "\n";
    out += Cut(Column("PID", 9) + Column("process", 17) + Column("CPU%", 8) + Column("RSS GiB", 9) +
                   Column("read", 11) + "threads (busiest)",
               o.width);
    std::vector<const ProcessSample*> procs;
    for (const ProcessSample& p : s.processes) procs.push_back(&p);
    std::sort(procs.begin(), procs.end(), [](const ProcessSample* a, const ProcessSample* b) {
      return a->cpu_pct > b->cpu_pct;
    });
    for (size_t i = 0; i < procs.size() && i < static_cast<size_t>(o.max_processes); ++i) {
      const ProcessSample& p = *procs[i];
      std::string threads;
      for (size_t t = 0; t < p.top_threads.size() && t < 3; ++t) {
        threads +=
            (t ? ", " : "") + p.top_threads[t].comm + Fmt(" %.0f%%", p.top_threads[t].cpu_pct);
      }
      out += Cut(Column(Fmt("%.0f", p.pid), 9) + Column(p.comm, 17) +
                     Column(Fmt("%.0f%%", p.cpu_pct), 8) +
                     Column(p.rss_bytes ? GiB(*p.rss_bytes) : "-", 9) +
                     Column(p.read_bytes_per_s ? Rate(*p.read_bytes_per_s) : "-", 11) + threads,
                 o.width);
    }
  }
  return out;
}

std::string RenderWatchLine(const Sample& s) {
  std::string out = Fmt("t=%.1fs", s.t);
  for (const GpuSample& g : s.gpus) {
    out += Fmt(" gpu%.0f", g.gpu) + " util=" + Pct(g.util_pct) + " sm=" + Pct(g.sm_active_pct) +
           " mem=" + Pct(g.mem_util_pct) + " pwr=" + (g.power_w ? Fmt("%.0fW", *g.power_w) : "-") +
           " temp=" + (g.temperature_c ? Fmt("%.0fC", *g.temperature_c) : "-") +
           " clk=" + (g.sm_clock_mhz ? Fmt("%.0fMHz", *g.sm_clock_mhz) : "-");
  }
  const HostSample& h = s.host;
  out += " | cpu usr=" + Pct(h.cpu_user_pct) + " sys=" + Pct(h.cpu_system_pct) +
         " iowait=" + Pct(h.cpu_iowait_pct) + " psi_io=" + Pct(h.psi_io_some_pct);
  const ProcessSample* top = nullptr;
  for (const ProcessSample& p : s.processes) {
    if (top == nullptr || p.cpu_pct > top->cpu_pct) top = &p;
  }
  if (top != nullptr)
    out += Fmt(" | top %.0f ", top->pid) + top->comm + Fmt(" %.0f%%", top->cpu_pct);
  return out + "\n";
}

}  // namespace gpuvet
