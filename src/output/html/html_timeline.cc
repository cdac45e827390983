// Downsampling a recording for the HTML timeline (output/html/html_timeline.h).
#include "output/html/html_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "core/gpu_state.h"

namespace gpuvet::html {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sums and counts per bucket for one line.
struct Acc {
  std::vector<double> sum;
  std::vector<uint32_t> n;
  explicit Acc(size_t buckets) : sum(buckets, 0), n(buckets, 0) {}
  void Add(size_t b, std::optional<double> v) {
    if (v && std::isfinite(*v)) {
      sum[b] += *v;
      ++n[b];
    }
  }
  TimelineLine Line(std::string name) const {
    TimelineLine l{std::move(name), std::vector<double>(sum.size(), kNaN)};
    for (size_t i = 0; i < sum.size(); ++i) {
      if (n[i]) l.y[i] = sum[i] / n[i];
    }
    return l;
  }
  bool Any() const {
    return std::any_of(n.begin(), n.end(), [](uint32_t c) { return c > 0; });
  }
};

std::optional<double> Pct(std::optional<double> v, std::optional<double> max) {
  if (!v || !max || !(*max > 0)) return std::nullopt;
  return 100 * *v / *max;
}

struct GpuAcc {
  Acc util, sm, tensor, dram, power, clock, mem;
  explicit GpuAcc(size_t n) : util(n), sm(n), tensor(n), dram(n), power(n), clock(n), mem(n) {}
};

const std::pair<uint64_t, const char*> kReasons[] = {
    {clock_reason::kSwPowerCap, "power cap"},
    {clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown, "thermal"},
    {clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown, "HW slowdown"}};

constexpr size_t kMaxMarks = 500;

// "nfs: server fs1 not responding", at most 120 bytes.
std::string MarkLabel(const RecordingEvent& e) {
  std::string label = e.message.empty() ? RecordingEventKindId(e.kind) : e.message;
  if (label.size() > 120) label = label.substr(0, 117) + "...";
  return label;
}

}  // namespace

struct TimelineBuilder::Impl {
  size_t max_buckets = 1;
  // First pass.
  size_t samples = 0;
  double first_t = 0, last_t = 0;
  std::map<std::pair<int, std::string>, double> thread_total;
  // Second pass.
  const RecordingMeta* meta = nullptr;
  Timeline tl;
  size_t buckets = 1;
  double start = 0, width = 1;
  std::map<int, GpuAcc> gacc;
  std::map<int, const RecordedGpu*> gpu_meta;
  std::map<std::pair<int, int>, ThrottleSpan> open;  // per GPU and reason
  std::map<int, std::vector<ThrottleSpan>> spans;
  // Host lines: CPU user+system, iowait, disk read/write, network rx/tx (set by Start).
  std::optional<Acc> cpu, iowait, disk_r, disk_w, net_rx, net_tx;
  std::vector<std::pair<double, std::pair<int, std::string>>> ranked;  // the busiest threads
  std::vector<Acc> tacc;

  size_t Bucket(double t) const {
    if (!(tl.duration_s > 0)) return 0;
    return std::min(buckets - 1, static_cast<size_t>(std::max(0.0, (t - start) / width)));
  }
};

TimelineBuilder::TimelineBuilder(size_t max_buckets) : impl_(std::make_unique<Impl>()) {
  impl_->max_buckets = std::max<size_t>(1, max_buckets);
}

TimelineBuilder::~TimelineBuilder() = default;

void TimelineBuilder::Scan(const Sample& s) {
  Impl& m = *impl_;
  if (m.samples == 0) m.first_t = s.t;
  m.last_t = s.t;
  ++m.samples;
  for (const ProcessSample& p : s.processes) {
    for (const ThreadSample& t : p.top_threads) m.thread_total[{t.tid, t.comm}] += t.cpu_pct;
  }
}

void TimelineBuilder::Start(const RecordingMeta& meta) {
  Impl& m = *impl_;
  m.meta = &meta;
  Timeline& tl = m.tl;
  tl.samples = m.samples;
  double end = m.samples == 0 ? 0 : m.last_t;
  m.start = m.samples == 0 ? 0 : std::min(0.0, m.first_t);
  tl.duration_s = end - m.start;
  m.buckets = std::max<size_t>(1, std::min(m.max_buckets, m.samples));
  m.width = tl.duration_s > 0 ? tl.duration_s / static_cast<double>(m.buckets) : 1;
  for (size_t b = 0; b < m.buckets; ++b)
    tl.t.push_back(m.start + (static_cast<double>(b) + 0.5) * m.width);
  for (const RecordedGpu& g : meta.gpus) {
    m.gacc.emplace(g.index, GpuAcc(m.buckets));
    m.gpu_meta[g.index] = &g;
  }
  for (std::optional<Acc>* a : {&m.cpu, &m.iowait, &m.disk_r, &m.disk_w, &m.net_rx, &m.net_tx})
    a->emplace(m.buckets);
  for (const auto& [k, v] : m.thread_total) m.ranked.push_back({v, k});
  std::sort(m.ranked.begin(), m.ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (m.ranked.size() > 3) m.ranked.resize(3);
  m.tacc.assign(m.ranked.size(), Acc(m.buckets));
  m.thread_total.clear();
}

void TimelineBuilder::Add(const Sample& s) {
  Impl& m = *impl_;
  const double interval = s.interval_s > 0 ? s.interval_s : m.meta->interval_s;
  // A sample's rates cover the interval that ended at it: bucket it by the interval's middle.
  size_t b = m.Bucket(s.t - 0.5 * interval);
  for (const GpuSample& g : s.gpus) {
    auto it = m.gacc.find(g.gpu);
    if (it == m.gacc.end()) it = m.gacc.emplace(g.gpu, GpuAcc(m.buckets)).first;
    GpuAcc& a = it->second;
    auto mi = m.gpu_meta.find(g.gpu);
    const RecordedGpu* gm = mi == m.gpu_meta.end() ? nullptr : mi->second;
    a.util.Add(b, g.util_pct);
    a.sm.Add(b, g.sm_active_pct);
    a.tensor.Add(b, g.tensor_active_pct);
    a.dram.Add(b, g.dram_bw_util_pct);
    a.power.Add(b, Pct(g.power_w, gm ? gm->power_limit_w : std::nullopt));
    a.clock.Add(b, Pct(g.sm_clock_mhz, gm && gm->sm_clock_max_mhz
                                           ? std::optional<double>(*gm->sm_clock_max_mhz)
                                           : std::nullopt));
    a.mem.Add(b,
              Pct(g.memory_used_bytes ? std::optional<double>(*g.memory_used_bytes) : std::nullopt,
                  gm && gm->memory_total_bytes
                      ? std::optional<double>(static_cast<double>(*gm->memory_total_bytes))
                      : std::nullopt));
    for (int r = 0; r < 3; ++r) {
      bool on = g.clock_event_reasons && (*g.clock_event_reasons & kReasons[r].first);
      auto key = std::make_pair(g.gpu, r);
      auto o = m.open.find(key);
      double t0 = s.t - interval;
      if (on) {
        if (o == m.open.end()) {
          m.open[key] = {std::max(m.start, t0), s.t, kReasons[r].second};
        } else {
          o->second.t1 = s.t;
        }
      } else if (o != m.open.end()) {
        m.spans[g.gpu].push_back(o->second);
        m.open.erase(o);
      }
    }
  }
  std::optional<double> busy;
  if (s.host.cpu_user_pct || s.host.cpu_system_pct) {
    busy = s.host.cpu_user_pct.value_or(0) + s.host.cpu_system_pct.value_or(0);
  }
  m.cpu->Add(b, busy);
  m.iowait->Add(b, s.host.cpu_iowait_pct);
  if (!s.host.disks.empty()) {
    double r = 0, w = 0;
    for (const DiskSample& d : s.host.disks) {
      r += d.read_bytes_per_s;
      w += d.write_bytes_per_s;
    }
    m.disk_r->Add(b, r / 1e6);
    m.disk_w->Add(b, w / 1e6);
  }
  if (!s.host.nets.empty()) {
    double rx = 0, tx = 0;
    for (const NetSample& n : s.host.nets) {
      rx += n.rx_bytes_per_s;
      tx += n.tx_bytes_per_s;
    }
    m.net_rx->Add(b, rx / 1e6);
    m.net_tx->Add(b, tx / 1e6);
  }
  for (size_t i = 0; i < m.ranked.size(); ++i) {
    std::optional<double> v;
    for (const ProcessSample& p : s.processes) {
      for (const ThreadSample& t : p.top_threads) {
        if (t.tid == m.ranked[i].second.first && t.comm == m.ranked[i].second.second) {
          v = t.cpu_pct;
        }
      }
    }
    // A thread absent from a sample's top list was not among the busiest then: 0 is the
    // honest upper bound only while the process was sampled at all.
    if (!v && !s.processes.empty()) v = 0;
    m.tacc[i].Add(b, v);
  }
}

Timeline TimelineBuilder::Finish(const std::vector<RecordingEvent>& events) {
  Impl& m = *impl_;
  Timeline& tl = m.tl;
  for (auto& [key, span] : m.open) m.spans[key.first].push_back(span);
  m.open.clear();
  for (auto& [index, a] : m.gacc) {
    TimelineGpu g;
    g.index = index;
    auto mi = m.gpu_meta.find(index);
    const RecordedGpu* gm = mi == m.gpu_meta.end() ? nullptr : mi->second;
    g.name = gm ? gm->name : "";
    g.gpm = a.sm.Any();
    g.activity.push_back(a.util.Line("GPU-Util"));
    if (a.sm.Any()) g.activity.push_back(a.sm.Line("SM active"));
    if (a.tensor.Any()) g.activity.push_back(a.tensor.Line("tensor active"));
    if (a.dram.Any()) g.activity.push_back(a.dram.Line("DRAM bandwidth"));
    auto with_max = [](std::string name, const std::string& max) {
      return max.empty() ? name : name + " (of " + max + ")";
    };
    std::string plim =
        gm && gm->power_limit_w ? std::to_string(static_cast<int>(*gm->power_limit_w)) + " W" : "";
    std::string clim =
        gm && gm->sm_clock_max_mhz ? std::to_string(*gm->sm_clock_max_mhz) + " MHz" : "";
    std::string mlim;
    if (gm && gm->memory_total_bytes) {
      mlim = std::to_string(static_cast<int>(std::lround(*gm->memory_total_bytes / 1073741824.0))) +
             " GiB";
    }
    if (a.power.Any()) g.limits.push_back(a.power.Line(with_max("power", plim)));
    if (a.clock.Any()) g.limits.push_back(a.clock.Line(with_max("SM clock", clim)));
    if (a.mem.Any()) g.limits.push_back(a.mem.Line(with_max("memory used", mlim)));
    // Merge spans closer than a bucket so a day-long page stays small; at most 500 per GPU.
    std::vector<ThrottleSpan>& sp = m.spans[index];
    std::sort(sp.begin(), sp.end(), [](const ThrottleSpan& x, const ThrottleSpan& y) {
      return x.reason != y.reason ? x.reason < y.reason : x.t0 < y.t0;
    });
    for (const ThrottleSpan& x : sp) {
      if (!g.throttle.empty() && g.throttle.back().reason == x.reason &&
          x.t0 - g.throttle.back().t1 < m.width) {
        g.throttle.back().t1 = std::max(g.throttle.back().t1, x.t1);
      } else if (g.throttle.size() < 500) {
        g.throttle.push_back(x);
      }
    }
    tl.gpus.push_back(std::move(g));
  }
  tl.host_cpu = {m.cpu->Line("CPU user+system"), m.iowait->Line("iowait")};
  for (size_t i = 0; i < m.ranked.size(); ++i) {
    tl.threads.push_back(m.tacc[i].Line(m.ranked[i].second.second + " (tid " +
                                        std::to_string(m.ranked[i].second.first) + ")"));
  }
  if (m.disk_r->Any()) tl.disk = {m.disk_r->Line("read"), m.disk_w->Line("write")};
  if (m.net_rx->Any()) tl.net = {m.net_rx->Line("rx"), m.net_tx->Line("tx")};
  for (size_t i = 0; i < events.size(); ++i) {
    if (i + 1 == kMaxMarks && events.size() > kMaxMarks) {
      tl.events.push_back({events[i].t, MarkLabel(events[i]) + " (and " +
                                            std::to_string(events.size() - i - 1) +
                                            " more events after it)"});
      break;
    }
    tl.events.push_back({events[i].t, MarkLabel(events[i])});
  }
  return std::move(tl);
}

Timeline BuildTimeline(const Recording& rec, size_t max_buckets) {
  TimelineBuilder builder(max_buckets);
  for (const Sample& s : rec.samples) builder.Scan(s);
  builder.Start(rec.meta);
  for (const Sample& s : rec.samples) builder.Add(s);
  return builder.Finish(rec.events);
}

}  // namespace gpuvet::html
