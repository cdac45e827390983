// Host sampler: one read of each counter file per sample, then plain arithmetic on the deltas.
// Every file failure is a note, never a crash or a zero.
#include "sources/sampler/host_sampler.h"

#include <dirent.h>

#include <algorithm>

#include "sources/host/infiniband.h"
#include "sources/host/meminfo.h"
#include "util/file.h"

namespace gpuvet {

namespace {

// Largest /proc file the sampler reads (/proc/stat on a 1024-CPU host is ~150 KiB).
constexpr size_t kMaxProcFile = 4 << 20;

// "N/A (no PMA)": a counter the port's management agent does not offer.
bool StartsWithNa(std::string_view s) { return s.substr(0, 3) == "N/A"; }

// b - a, or 0 when the counter went backwards.
uint64_t Delta(uint64_t a, uint64_t b) { return b >= a ? b - a : 0; }

std::optional<double> Pct(uint64_t part, uint64_t whole) {
  if (whole == 0) return std::nullopt;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// PSI total delta (µs) as a percent of the interval, capped at 100 (rounding of the two clocks).
std::optional<double> PsiPct(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b,
                             double interval_s) {
  if (!a || !b) return std::nullopt;
  return std::min(100.0, static_cast<double>(Delta(*a, *b)) / (interval_s * 1e4));
}

void DiffCpu(const ProcStatCounters& a, const ProcStatCounters& b, HostSample* out) {
  if (a.total && b.total) {
    const CpuTicks& x = *a.total;
    const CpuTicks& y = *b.total;
    const uint64_t total = Delta(x.Total(), y.Total());
    out->cpu_user_pct = Pct(Delta(x.user + x.nice, y.user + y.nice), total);
    out->cpu_system_pct =
        Pct(Delta(x.system + x.irq + x.softirq, y.system + y.irq + y.softirq), total);
    out->cpu_idle_pct = Pct(Delta(x.idle, y.idle), total);
    if (std::min(x.fields, y.fields) >= 5)
      out->cpu_iowait_pct = Pct(Delta(x.iowait, y.iowait), total);
    if (std::min(x.fields, y.fields) >= 8) out->cpu_steal_pct = Pct(Delta(x.steal, y.steal), total);
  }
  const size_t n = std::max(a.cores.size(), b.cores.size());
  out->core_busy_pct.assign(n, -1.0);
  for (size_t i = 0; i < std::min(a.cores.size(), b.cores.size()); ++i) {
    if (!a.cores[i] || !b.cores[i]) continue;
    const uint64_t total = Delta(a.cores[i]->Total(), b.cores[i]->Total());
    // A core whose tick counters did not move (tickless idle that was never sampled) was idle.
    out->core_busy_pct[i] =
        total == 0 ? 0.0
                   : std::min(100.0, *Pct(Delta(a.cores[i]->Busy(), b.cores[i]->Busy()), total));
  }
  if (b.procs_running) out->run_queue = *b.procs_running;
}

}  // namespace

HostSample DiffHost(const HostSnapshot& prev, const HostSnapshot& cur, double interval_s) {
  HostSample out;
  if (interval_s <= 0) return out;
  if (prev.stat && cur.stat) DiffCpu(*prev.stat, *cur.stat, &out);
  out.psi_cpu_some_pct = PsiPct(prev.psi_cpu_some_us, cur.psi_cpu_some_us, interval_s);
  out.psi_io_some_pct = PsiPct(prev.psi_io_some_us, cur.psi_io_some_us, interval_s);
  out.psi_io_full_pct = PsiPct(prev.psi_io_full_us, cur.psi_io_full_us, interval_s);
  out.psi_memory_some_pct = PsiPct(prev.psi_memory_some_us, cur.psi_memory_some_us, interval_s);
  out.psi_memory_full_pct = PsiPct(prev.psi_memory_full_us, cur.psi_memory_full_us, interval_s);
  out.mem_available_bytes = cur.mem_available_bytes;
  if (prev.major_faults && cur.major_faults) {
    out.major_faults_per_s =
        static_cast<double>(Delta(*prev.major_faults, *cur.major_faults)) / interval_s;
  }
  if (prev.disks && cur.disks) {
    for (const DiskCounters& d : *cur.disks) {
      auto p = std::find_if(prev.disks->begin(), prev.disks->end(),
                            [&](const DiskCounters& x) { return x.device == d.device; });
      if (p == prev.disks->end()) continue;
      DiskSample s;
      s.device = d.device;
      s.read_bytes_per_s =
          512.0 * static_cast<double>(Delta(p->sectors_read, d.sectors_read)) / interval_s;
      s.write_bytes_per_s =
          512.0 * static_cast<double>(Delta(p->sectors_written, d.sectors_written)) / interval_s;
      s.busy_pct = std::min(
          100.0, static_cast<double>(Delta(p->io_ticks_ms, d.io_ticks_ms)) / (interval_s * 10.0));
      out.disks.push_back(std::move(s));
    }
  }
  for (const IbCounters& c : cur.ib) {
    auto p = std::find_if(prev.ib.begin(), prev.ib.end(),
                          [&](const IbCounters& x) { return x.port == c.port; });
    // Without both data counters in both reads the port's traffic is unknown: left out (absent),
    // never recorded as zero.
    if (p == prev.ib.end() || !p->xmit_words || !c.xmit_words || !p->rcv_words || !c.rcv_words) {
      continue;
    }
    IbPortSample s;
    s.port = c.port;
    s.link_layer = c.link_layer;
    s.rate_gbps = c.rate_gbps;
    s.active = c.active;
    auto rate = [&](const std::optional<uint64_t>& a, const std::optional<uint64_t>& b,
                    double scale) -> std::optional<double> {
      if (!a || !b) return std::nullopt;
      return static_cast<double>(Delta(*a, *b)) * scale / interval_s;
    };
    // port_*_data count octets divided by 4 (the four lanes of the IB spec's PortCounters).
    s.rx_bytes_per_s = rate(p->rcv_words, c.rcv_words, 4).value_or(0);
    s.tx_bytes_per_s = rate(p->xmit_words, c.xmit_words, 4).value_or(0);
    s.xmit_wait_per_s = rate(p->xmit_wait, c.xmit_wait, 1);
    s.cnp_per_s = rate(p->cnp, c.cnp, 1);
    s.errors_per_s = rate(p->errors, c.errors, 1);
    out.ib_ports.push_back(std::move(s));
  }
  if (prev.nets && cur.nets) {
    for (const NetCounters& n : *cur.nets) {
      auto p = std::find_if(prev.nets->begin(), prev.nets->end(),
                            [&](const NetCounters& x) { return x.interface == n.interface; });
      if (p == prev.nets->end()) continue;
      out.nets.push_back(
          NetSample{n.interface, static_cast<double>(Delta(p->rx_bytes, n.rx_bytes)) / interval_s,
                    static_cast<double>(Delta(p->tx_bytes, n.tx_bytes)) / interval_s});
    }
  }
  return out;
}

HostSampler::HostSampler(const HostPaths& paths)
    : stat_path_(paths.Proc("stat")),
      diskstats_path_(paths.Proc("diskstats")),
      netdev_path_(paths.Proc("net/dev")),
      meminfo_path_(paths.Proc("meminfo")),
      vmstat_path_(paths.Proc("vmstat")),
      psi_cpu_path_(paths.Proc("pressure/cpu")),
      psi_io_path_(paths.Proc("pressure/io")),
      psi_memory_path_(paths.Proc("pressure/memory")) {
  if (DIR* dir = ::opendir(paths.Sys("block").c_str())) {
    sys_block_.emplace();
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] != '.') sys_block_->insert(e->d_name);
    }
    ::closedir(dir);
  }
  const std::string ib_root = paths.Sys("class/infiniband");
  std::vector<std::string> devices;
  if (DIR* dir = ::opendir(ib_root.c_str())) {
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] != '.' && devices.size() < 256) devices.push_back(e->d_name);
    }
    ::closedir(dir);
  }
  std::sort(devices.begin(), devices.end());
  for (const std::string& d : devices) {
    const std::string ports = ib_root + "/" + d + "/ports";
    std::vector<std::string> numbers;
    if (DIR* dir = ::opendir(ports.c_str())) {
      while (const dirent* e = ::readdir(dir)) {
        if (e->d_name[0] != '.' && numbers.size() < 64) numbers.push_back(e->d_name);
      }
      ::closedir(dir);
    }
    std::sort(numbers.begin(), numbers.end());
    for (const std::string& n : numbers) {
      IbPortPath p{d + "/" + n, ports + "/" + n, ""};
      if (auto layer = ReadAttribute(p.dir + "/link_layer"); layer.ok()) {
        p.link_layer = std::string(*layer).substr(0, 16);
      }
      ib_ports_.push_back(std::move(p));
    }
  }
}

IbCounters HostSampler::ReadIbPort(const IbPortPath& p) {
  IbCounters c;
  c.port = p.name;
  c.link_layer = p.link_layer;
  auto counter = [&](const std::string& rel) -> std::optional<uint64_t> {
    Result<std::string> text = ReadAttribute(p.dir + "/" + rel);
    if (!text.ok()) {
      // hw_counters and port_xmit_wait are absent on some drivers: not worth a note.
      if (text.status().code() != StatusCode::kNotFound) {
        Note("sampler.host.infiniband", text.status().message());
      }
      return std::nullopt;
    }
    if (StartsWithNa(*text)) return std::nullopt;
    Result<uint64_t> v = ParseIbCounter(*text);
    if (!v.ok()) {
      Note("sampler.host.infiniband", p.dir + "/" + rel + ": " + v.status().message());
      return std::nullopt;
    }
    return *v;
  };
  if (auto st = ReadAttribute(p.dir + "/state"); st.ok()) {
    auto name = ParseIbState(*st);
    c.active = name.ok() && *name == "ACTIVE";
  }
  if (auto r = ReadAttribute(p.dir + "/rate"); r.ok()) {
    if (auto rate = ParseIbRate(*r); rate.ok()) c.rate_gbps = rate->gbps;
  }
  c.xmit_words = counter("counters/port_xmit_data");
  c.rcv_words = counter("counters/port_rcv_data");
  c.xmit_wait = counter("counters/port_xmit_wait");
  auto sent = counter("hw_counters/np_cnp_sent"), handled = counter("hw_counters/rp_cnp_handled");
  if (sent || handled) c.cnp = sent.value_or(0) + handled.value_or(0);
  std::optional<uint64_t> errors;
  for (const char* e : {"counters/symbol_error", "counters/port_rcv_errors", "counters/link_downed",
                        "counters/link_error_recovery"}) {
    if (auto v = counter(e)) errors = errors.value_or(0) + *v;
  }
  c.errors = errors;
  return c;
}

void HostSampler::Note(const std::string& key, const std::string& text) {
  notes_.emplace(key, text);  // the first reason stays
}

bool HostSampler::KeepDisk(const std::string& name, const std::vector<std::string>& all) const {
  if (IsVirtualBlockDevice(name)) return false;
  if (sys_block_ && !sys_block_->empty()) return sys_block_->count(name) > 0;
  return !IsPartition(name, all);
}

HostSnapshot HostSampler::Read() {
  HostSnapshot s;
  if (Result<std::string> text = ReadFile(stat_path_, kMaxProcFile); !text.ok()) {
    Note("sampler.host.cpu", text.status().message());
  } else if (Result<ProcStatCounters> c = ParseProcStat(*text); !c.ok()) {
    Note("sampler.host.cpu", stat_path_ + ": " + c.status().message());
  } else {
    s.stat = std::move(c).value();
  }

  struct PsiSource {
    const std::string* path;
    std::optional<uint64_t>* some;
    std::optional<uint64_t>* full;
  };
  for (const PsiSource& p :
       {PsiSource{&psi_cpu_path_, &s.psi_cpu_some_us, nullptr},
        PsiSource{&psi_io_path_, &s.psi_io_some_us, &s.psi_io_full_us},
        PsiSource{&psi_memory_path_, &s.psi_memory_some_us, &s.psi_memory_full_us}}) {
    Result<std::string> text = ReadFile(*p.path, 1 << 16);
    if (!text.ok()) {
      Note("sampler.host.psi", text.status().code() == StatusCode::kNotFound
                                   ? *p.path + " absent (kernel without PSI, or psi=0)"
                                   : text.status().message());
      continue;
    }
    Result<PsiFile> f = ParsePsiFile(*text);
    if (!f.ok()) {
      Note("sampler.host.psi", *p.path + ": " + f.status().message());
      continue;
    }
    if (f->some) *p.some = f->some->total_us;
    if (p.full != nullptr && f->full) *p.full = f->full->total_us;
  }

  if (Result<std::string> text = ReadFile(meminfo_path_, 1 << 20); !text.ok()) {
    Note("sampler.host.memory", text.status().message());
  } else {
    MemInfo m = ParseMeminfo(*text, meminfo_path_);
    if (m.available_bytes.has()) {
      s.mem_available_bytes = *m.available_bytes;
    } else {
      Note("sampler.host.memory", m.available_bytes.note);
    }
  }

  if (Result<std::string> text = ReadFile(vmstat_path_, 1 << 20); !text.ok()) {
    Note("sampler.host.major_faults", text.status().message());
  } else if (std::optional<uint64_t> v = ParseKeyValue(*text, "pgmajfault")) {
    s.major_faults = *v;
  } else {
    Note("sampler.host.major_faults", vmstat_path_ + ": no numeric pgmajfault line");
  }

  if (Result<std::string> text = ReadFile(diskstats_path_, kMaxProcFile); !text.ok()) {
    Note("sampler.host.disks", text.status().message());
  } else if (Result<std::vector<DiskCounters>> d = ParseDiskstats(*text); !d.ok()) {
    Note("sampler.host.disks", diskstats_path_ + ": " + d.status().message());
  } else {
    std::vector<std::string> names;
    names.reserve(d->size());
    for (const DiskCounters& c : *d) names.push_back(c.device);
    s.disks.emplace();
    for (const DiskCounters& c : *d) {
      if (KeepDisk(c.device, names)) s.disks->push_back(c);
    }
  }

  if (Result<std::string> text = ReadFile(netdev_path_, kMaxProcFile); !text.ok()) {
    Note("sampler.host.network", text.status().message());
  } else if (Result<std::vector<NetCounters>> n = ParseNetDev(*text); !n.ok()) {
    Note("sampler.host.network", netdev_path_ + ": " + n.status().message());
  } else {
    s.nets.emplace();
    for (const NetCounters& c : *n) {
      if (c.interface != "lo") s.nets->push_back(c);
    }
  }
  s.ib.reserve(ib_ports_.size());
  for (const IbPortPath& p : ib_ports_) s.ib.push_back(ReadIbPort(p));
  return s;
}

HostSample HostSampler::Take(double interval_s) {
  HostSnapshot cur = Read();
  HostSample out = prev_ ? DiffHost(*prev_, cur, interval_s) : HostSample{};
  if (!prev_) out.mem_available_bytes = cur.mem_available_bytes;
  prev_ = std::move(cur);
  return out;
}

}  // namespace gpuvet
