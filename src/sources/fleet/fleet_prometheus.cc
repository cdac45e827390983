// Fleet input from the Prometheus HTTP API (see fleet_prometheus.h). Every series is joined to
// its node through the `instance` label of gpuvet_node_info (Prometheus adds it per target); the
// node's name is that series' `hostname` label.
#include "sources/fleet/fleet_prometheus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "util/strings.h"

namespace gpuvet {

namespace {

// How check_status values map to severities (the exporter's contract: 0 ok … 4 unknown).
std::optional<Severity> CheckSeverity(double v) {
  switch (static_cast<int>(v)) {
    case 0:
      return Severity::kOk;
    case 1:
      return Severity::kInfo;
    case 2:
      return Severity::kWarn;
    case 3:
      return Severity::kFail;
    case 4:
      return Severity::kUnknown;
  }
  return std::nullopt;
}

class Builder {
 public:
  Builder(PrometheusClient& c, double now, double window_s)
      : client_(c), now_(now), window_s_(window_s), step_(FleetQueryStep(window_s)) {}

  Result<FleetInput> Run() {
    // Node identity: the newest gpuvet_node_info series per instance within the window.
    auto info = Range("gpuvet_node_info");
    if (!info.ok()) return info.status();
    std::map<std::string, double> newest;
    for (const PromSeries& s : *info) {
      if (s.samples.empty()) continue;
      const std::string instance = s.Label("instance");
      const double t = s.samples.back().t;
      if (newest.count(instance) && newest[instance] > t) continue;
      newest[instance] = t;
      std::string host = s.Label("hostname");
      if (host.empty()) host = instance;
      instance_host_[instance] = host;
      FleetNode& n = nodes_[host];
      n.name = host;
      n.driver_version = s.Label("driver_version");
      n.cuda_version = s.Label("cuda_version");
      n.last_seen = std::max(n.last_seen, t);
      if (std::find(n.sources.begin(), n.sources.end(), instance) == n.sources.end()) {
        n.sources.push_back(instance);
      }
    }
    if (nodes_.empty()) {
      return InvalidInput(fmt::format(
          "{}: no gpuvet_node_info series in the last {} s: is Prometheus scraping `gpuvet "
          "exporter`?",
          client_.url(), window_s_));
    }
    auto gpu_info = Range("gpuvet_gpu_info");
    if (!gpu_info.ok()) return gpu_info.status();
    std::map<std::pair<std::string, std::string>, double> gpu_newest;
    for (const PromSeries& s : *gpu_info) {
      FleetGpu* g = Gpu(s);
      if (!g || s.samples.empty()) continue;
      auto key = std::make_pair(s.Label("instance"), s.Label("gpu"));
      if (gpu_newest.count(key) && gpu_newest[key] > s.samples.back().t) continue;
      gpu_newest[key] = s.samples.back().t;
      g->uuid = s.Label("uuid");
      g->name = s.Label("name");
      g->pci_bus_id = s.Label("pci_bus_id");
      g->vbios_version = s.Label("vbios_version");
    }
    struct Latest {
      const char* metric;
      std::optional<double> FleetGpu::*field;
    };
    for (const Latest& l :
         {Latest{"gpuvet_gpu_pcie_link_generation", &FleetGpu::pcie_gen},
          Latest{"gpuvet_gpu_pcie_link_generation_max", &FleetGpu::pcie_gen_max},
          Latest{"gpuvet_gpu_pcie_link_width_lanes", &FleetGpu::pcie_width},
          Latest{"gpuvet_gpu_pcie_link_width_max_lanes", &FleetGpu::pcie_width_max},
          Latest{"gpuvet_gpu_utilization_ratio", &FleetGpu::utilization}}) {
      auto r = Last(l.metric);
      if (!r.ok()) return r.status();
      for (const PromSeries& s : *r) {
        if (FleetGpu* g = Gpu(s); g && !s.samples.empty()) (g->*l.field) = s.samples.back().v;
      }
    }
    auto dbe = Last(R"(gpuvet_gpu_ecc_errors_total{type="uncorrected",scope="volatile"})");
    if (!dbe.ok()) return dbe.status();
    for (const PromSeries& s : *dbe) {
      if (FleetGpu* g = Gpu(s); g && !s.samples.empty()) g->ecc_uncorrected = s.samples.back().v;
    }
    auto sbe = Range(R"(gpuvet_gpu_ecc_errors_total{type="corrected",scope="volatile"})");
    if (!sbe.ok()) return sbe.status();
    for (const PromSeries& s : *sbe) {
      if (FleetGpu* g = Gpu(s)) g->ecc_corrected = s.samples;
    }
    auto thermal = Range(
        R"(max by (instance, gpu) (gpuvet_gpu_clock_event_reason_active{reason=~"sw_thermal|hw_thermal|hw_slowdown"}))");
    if (!thermal.ok()) return thermal.status();
    for (const PromSeries& s : *thermal) {
      if (FleetGpu* g = Gpu(s)) g->thermal_active = s.samples;
    }
    auto power = Range(
        R"(max by (instance, gpu) (gpuvet_gpu_clock_event_reason_active{reason=~"sw_power_cap|hw_power_brake"}))");
    if (!power.ok()) return power.status();
    for (const PromSeries& s : *power) {
      if (FleetGpu* g = Gpu(s)) g->power_active = s.samples;
    }
    auto checks = Last("gpuvet_check_status");
    if (!checks.ok()) return checks.status();
    for (const PromSeries& s : *checks) {
      auto host = instance_host_.find(s.Label("instance"));
      if (host == instance_host_.end() || s.samples.empty()) continue;
      FleetNode& n = nodes_[host->second];
      n.has_checks = true;
      std::optional<Severity> sev = CheckSeverity(s.samples.back().v);
      if (sev && *sev != Severity::kOk)
        n.checks.push_back({s.Label("check"), s.Label("subject"), *sev, ""});
    }

    FleetInput in;
    in.origin = "prometheus " + client_.url();
    in.now = now_;
    in.window_s = window_s_;
    // Not scraped for three steps (at least 5 minutes, Prometheus's own staleness lookback).
    in.stale_after_s = std::min(window_s_, std::max(300.0, 3 * step_));
    for (auto& [name, n] : nodes_) {
      std::sort(n.gpus.begin(), n.gpus.end(),
                [](const FleetGpu& a, const FleetGpu& b) { return a.index < b.index; });
      std::sort(n.checks.begin(), n.checks.end(), [](const FleetCheck& a, const FleetCheck& b) {
        return std::tie(a.check, a.subject) < std::tie(b.check, b.subject);
      });
      in.nodes.push_back(std::move(n));
    }
    return in;
  }

 private:
  Result<std::vector<PromSeries>> Range(const std::string& q) {
    return client_.QueryRange(q, now_ - window_s_, now_, step_);
  }
  // The newest value of each series within the window.
  Result<std::vector<PromSeries>> Last(const std::string& q) {
    return client_.Query(fmt::format("last_over_time({}[{}s])", q, std::llround(window_s_)), now_);
  }

  // The GPU a per-GPU series belongs to, created on first sight; nullptr for unknown nodes.
  FleetGpu* Gpu(const PromSeries& s) {
    auto host = instance_host_.find(s.Label("instance"));
    if (host == instance_host_.end()) return nullptr;
    std::optional<int64_t> index = ParseInt(s.Label("gpu"));
    if (!index) return nullptr;
    FleetNode& n = nodes_[host->second];
    for (FleetGpu& g : n.gpus) {
      if (g.index == *index) return &g;
    }
    n.gpus.push_back({});
    n.gpus.back().index = static_cast<int>(*index);
    return &n.gpus.back();
  }

  PrometheusClient& client_;
  double now_, window_s_, step_;
  std::map<std::string, std::string> instance_host_;
  std::map<std::string, FleetNode> nodes_;
};

}  // namespace

double FleetQueryStep(double window_s) { return std::max(1.0, std::ceil(window_s / 500)); }

Result<FleetInput> ReadFleetFromPrometheus(PrometheusClient& client, double now, double window_s) {
  return Builder(client, now, window_s).Run();
}

}  // namespace gpuvet
