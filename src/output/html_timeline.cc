// Downsampling a recording for the HTML timeline (output/html_timeline.h).
#include "output/html_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

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

}  // namespace

Timeline BuildTimeline(const Recording& rec, size_t max_buckets) {
  Timeline tl;
  max_buckets = std::max<size_t>(1, max_buckets);
  tl.samples = rec.samples.size();
  double end = rec.samples.empty() ? 0 : rec.samples.back().t;
  double start = rec.samples.empty() ? 0 : std::min(0.0, rec.samples.front().t);
  tl.duration_s = end - start;
  const size_t buckets = std::max<size_t>(1, std::min(max_buckets, rec.samples.size()));
  const double width = tl.duration_s > 0 ? tl.duration_s / static_cast<double>(buckets) : 1;
  for (size_t b = 0; b < buckets; ++b)
    tl.t.push_back(start + (static_cast<double>(b) + 0.5) * width);
  auto bucket = [&](double t) {
    if (!(tl.duration_s > 0)) return size_t{0};
    return std::min(buckets - 1, static_cast<size_t>(std::max(0.0, (t - start) / width)));
  };

  // GPUs by recorded index.
  struct GpuAcc {
    Acc util, sm, tensor, dram, power, clock, mem;
    explicit GpuAcc(size_t n) : util(n), sm(n), tensor(n), dram(n), power(n), clock(n), mem(n) {}
  };
  std::map<int, GpuAcc> gacc;
  std::map<int, const RecordedGpu*> meta;
  for (const RecordedGpu& g : rec.meta.gpus) {
    gacc.emplace(g.index, GpuAcc(buckets));
    meta[g.index] = &g;
  }
  // Open throttle span per GPU and reason.
  std::map<std::pair<int, int>, ThrottleSpan> open;
  std::map<int, std::vector<ThrottleSpan>> spans;
  const std::pair<uint64_t, const char*> kReasons[] = {
      {clock_reason::kSwPowerCap, "power cap"},
      {clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown, "thermal"},
      {clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown, "HW slowdown"}};

  Acc cpu(buckets), iowait(buckets), dr(buckets), dw(buckets), nrx(buckets), ntx(buckets);
  // Busiest threads: total CPU per (tid, comm) first, then their lines.
  std::map<std::pair<int, std::string>, double> thread_total;
  for (const Sample& s : rec.samples) {
    for (const ProcessSample& p : s.processes) {
      for (const ThreadSample& t : p.top_threads) thread_total[{t.tid, t.comm}] += t.cpu_pct;
    }
  }
  std::vector<std::pair<double, std::pair<int, std::string>>> ranked;
  for (const auto& [k, v] : thread_total) ranked.push_back({v, k});
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > 3) ranked.resize(3);
  std::vector<Acc> tacc(ranked.size(), Acc(buckets));

  for (const Sample& s : rec.samples) {
    // A sample's rates cover the interval that ended at it: bucket it by the interval's middle.
    size_t b = bucket(s.t - 0.5 * (s.interval_s > 0 ? s.interval_s : rec.meta.interval_s));
    for (const GpuSample& g : s.gpus) {
      auto it = gacc.find(g.gpu);
      if (it == gacc.end()) it = gacc.emplace(g.gpu, GpuAcc(buckets)).first;
      GpuAcc& a = it->second;
      const RecordedGpu* m = meta.count(g.gpu) ? meta[g.gpu] : nullptr;
      a.util.Add(b, g.util_pct);
      a.sm.Add(b, g.sm_active_pct);
      a.tensor.Add(b, g.tensor_active_pct);
      a.dram.Add(b, g.dram_bw_util_pct);
      a.power.Add(b, Pct(g.power_w, m ? m->power_limit_w : std::nullopt));
      a.clock.Add(b, Pct(g.sm_clock_mhz, m && m->sm_clock_max_mhz
                                             ? std::optional<double>(*m->sm_clock_max_mhz)
                                             : std::nullopt));
      a.mem.Add(
          b, Pct(g.memory_used_bytes ? std::optional<double>(*g.memory_used_bytes) : std::nullopt,
                 m && m->memory_total_bytes
                     ? std::optional<double>(static_cast<double>(*m->memory_total_bytes))
                     : std::nullopt));
      for (int r = 0; r < 3; ++r) {
        bool on = g.clock_event_reasons && (*g.clock_event_reasons & kReasons[r].first);
        auto key = std::make_pair(g.gpu, r);
        auto o = open.find(key);
        double t0 = s.t - (s.interval_s > 0 ? s.interval_s : rec.meta.interval_s);
        if (on) {
          if (o == open.end()) {
            open[key] = {std::max(start, t0), s.t, kReasons[r].second};
          } else {
            o->second.t1 = s.t;
          }
        } else if (o != open.end()) {
          spans[g.gpu].push_back(o->second);
          open.erase(o);
        }
      }
    }
    std::optional<double> busy;
    if (s.host.cpu_user_pct || s.host.cpu_system_pct) {
      busy = s.host.cpu_user_pct.value_or(0) + s.host.cpu_system_pct.value_or(0);
    }
    cpu.Add(b, busy);
    iowait.Add(b, s.host.cpu_iowait_pct);
    if (!s.host.disks.empty()) {
      double r = 0, w = 0;
      for (const DiskSample& d : s.host.disks) {
        r += d.read_bytes_per_s;
        w += d.write_bytes_per_s;
      }
      dr.Add(b, r / 1e6);
      dw.Add(b, w / 1e6);
    }
    if (!s.host.nets.empty()) {
      double rx = 0, tx = 0;
      for (const NetSample& n : s.host.nets) {
        rx += n.rx_bytes_per_s;
        tx += n.tx_bytes_per_s;
      }
      nrx.Add(b, rx / 1e6);
      ntx.Add(b, tx / 1e6);
    }
    for (size_t i = 0; i < ranked.size(); ++i) {
      std::optional<double> v;
      for (const ProcessSample& p : s.processes) {
        for (const ThreadSample& t : p.top_threads) {
          if (t.tid == ranked[i].second.first && t.comm == ranked[i].second.second) {
            v = t.cpu_pct;
          }
        }
      }
      // A thread absent from a sample's top list was not among the busiest then: 0 is the
      // honest upper bound only while the process was sampled at all.
      if (!v && !s.processes.empty()) v = 0;
      tacc[i].Add(b, v);
    }
  }
  for (auto& [key, span] : open) spans[key.first].push_back(span);

  for (auto& [index, a] : gacc) {
    TimelineGpu g;
    g.index = index;
    const RecordedGpu* m = meta.count(index) ? meta[index] : nullptr;
    g.name = m ? m->name : "";
    g.gpm = a.sm.Any();
    g.activity.push_back(a.util.Line("GPU-Util"));
    if (a.sm.Any()) g.activity.push_back(a.sm.Line("SM active"));
    if (a.tensor.Any()) g.activity.push_back(a.tensor.Line("tensor active"));
    if (a.dram.Any()) g.activity.push_back(a.dram.Line("DRAM bandwidth"));
    auto with_max = [](std::string name, const std::string& max) {
      return max.empty() ? name : name + " (of " + max + ")";
    };
    std::string plim =
        m && m->power_limit_w ? std::to_string(static_cast<int>(*m->power_limit_w)) + " W" : "";
    std::string clim =
        m && m->sm_clock_max_mhz ? std::to_string(*m->sm_clock_max_mhz) + " MHz" : "";
    std::string mlim;
    if (m && m->memory_total_bytes) {
      mlim = std::to_string(static_cast<int>(std::lround(*m->memory_total_bytes / 1073741824.0))) +
             " GiB";
    }
    if (a.power.Any()) g.limits.push_back(a.power.Line(with_max("power", plim)));
    if (a.clock.Any()) g.limits.push_back(a.clock.Line(with_max("SM clock", clim)));
    if (a.mem.Any()) g.limits.push_back(a.mem.Line(with_max("memory used", mlim)));
    // Merge spans closer than a bucket so a day-long page stays small; at most 500 per GPU.
    std::vector<ThrottleSpan>& sp = spans[index];
    std::sort(sp.begin(), sp.end(), [](const ThrottleSpan& x, const ThrottleSpan& y) {
      return x.reason != y.reason ? x.reason < y.reason : x.t0 < y.t0;
    });
    for (const ThrottleSpan& x : sp) {
      if (!g.throttle.empty() && g.throttle.back().reason == x.reason &&
          x.t0 - g.throttle.back().t1 < width) {
        g.throttle.back().t1 = std::max(g.throttle.back().t1, x.t1);
      } else if (g.throttle.size() < 500) {
        g.throttle.push_back(x);
      }
    }
    tl.gpus.push_back(std::move(g));
  }
  tl.host_cpu = {cpu.Line("CPU user+system"), iowait.Line("iowait")};
  for (size_t i = 0; i < ranked.size(); ++i) {
    tl.threads.push_back(tacc[i].Line(ranked[i].second.second + " (tid " +
                                      std::to_string(ranked[i].second.first) + ")"));
  }
  if (dr.Any()) tl.disk = {dr.Line("read"), dw.Line("write")};
  if (nrx.Any()) tl.net = {nrx.Line("rx"), ntx.Line("tx")};
  return tl;
}

}  // namespace gpuvet::html
