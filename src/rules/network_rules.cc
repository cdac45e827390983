// Network rules: the InfiniBand / RoCE ports multi-node jobs all-reduce over. Each port must be
// ACTIVE with its physical link up, trained at the width and rate of its peers (the node's other
// ports of the same HCA type) or the policy's minimum, and within the error-counter budgets; and
// each GPU should have an RDMA device on its own NUMA node. Pure functions of HostState and Policy.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

std::string PortSubject(const IbDevice& d, const IbPort& p) {
  return fmt::format("{} port {}", d.name, p.port);
}

std::string LayerName(const IbPort& p) {
  if (!p.link_layer.has()) return "RDMA";
  return *p.link_layer == "Ethernet" ? "RoCE" : "InfiniBand";
}

bool IsUp(const IbPort& p) {
  return p.state.has() && *p.state == "ACTIVE" &&
         (!p.phys_state.has() || *p.phys_state == "LinkUp");
}

std::string RateText(const IbPort& p) {
  if (!p.rate_gbps.has()) return "unknown";
  std::string s = fmt::format("{:g} Gb/s", *p.rate_gbps);
  if (p.width.has())
    s += fmt::format(" ({}X{})", *p.width, p.speed_name.empty() ? "" : " " + p.speed_name);
  return s;
}

struct PortRef {
  const IbDevice* dev;
  const IbPort* port;
};

std::vector<PortRef> AllPorts(const InfinibandState& ib) {
  std::vector<PortRef> out;
  for (const IbDevice& d : ib.devices) {
    for (const IbPort& p : d.ports) out.push_back({&d, &p});
  }
  return out;
}

// Ports of the same HCA type and link layer as `r` (itself included).
bool SameKind(const PortRef& a, const PortRef& b) {
  std::string la = a.port->link_layer.has() ? *a.port->link_layer : "";
  std::string lb = b.port->link_layer.has() ? *b.port->link_layer : "";
  return a.dev->hca_type == b.dev->hca_type && la == lb;
}

// ib.port_state
void CheckPortState(const std::vector<PortRef>& ports, std::vector<Finding>& out) {
  constexpr const char* kId = "ib.port_state";
  const bool any_up =
      std::any_of(ports.begin(), ports.end(), [](const PortRef& r) { return IsUp(*r.port); });
  for (const PortRef& r : ports) {
    const IbPort& p = *r.port;
    const std::string subject = PortSubject(*r.dev, p);
    if (!p.state.has()) {
      out.push_back(
          MakeFinding(kId, subject, Severity::kUnknown, "port state unknown: " + p.state.note));
      continue;
    }
    std::vector<Evidence> ev = {
        {"state", *p.state, "ACTIVE"},
        {"phys_state", p.phys_state.has() ? *p.phys_state : "unknown (" + p.phys_state.note + ")",
         "LinkUp"},
        {"link_layer", LayerName(p), ""}};
    if (IsUp(p)) {
      out.push_back(
          MakeFinding(kId, subject, Severity::kOk,
                      fmt::format("{} port ACTIVE, link up at {}", LayerName(p), RateText(p)), ev));
      continue;
    }
    const bool phys_up = p.phys_state.has() && *p.phys_state == "LinkUp";
    if (phys_up && *p.state != "ACTIVE" && *p.state != "DOWN") {
      out.push_back(MakeFinding(
          kId, subject, Severity::kFail,
          fmt::format("{} port is {} with its physical link up: {}", LayerName(p), *p.state,
                      LayerName(p) == "InfiniBand"
                          ? "the subnet manager has not activated it (no SM reachable, or the "
                            "port is being reconfigured)"
                          : "the port is not ready for RDMA traffic"),
          ev));
      continue;
    }
    // Down: a fault when a peer (the same port number of another HCA of this type) is up, so
    // this node's design cables it; else a port nobody cables here.
    bool peer_up = false;
    for (const PortRef& o : ports) {
      if (o.port != r.port && o.port->port == p.port && SameKind(o, r) && IsUp(*o.port)) {
        peer_up = true;
      }
    }
    if (peer_up) {
      ev.push_back({"peers", "the same port of other HCAs of this type is ACTIVE", ""});
      out.push_back(MakeFinding(
          kId, subject, Severity::kFail,
          fmt::format("{} port is {} (physical state {}) while its peers "
                      "are up: this rail carries no traffic",
                      LayerName(p), *p.state, p.phys_state.has() ? *p.phys_state : "unknown"),
          ev));
    } else if (!any_up) {
      out.push_back(MakeFinding(kId, subject, Severity::kWarn,
                                fmt::format("{} port is {} and no RDMA port on this node is up: "
                                            "multi-node jobs fall back to TCP sockets or fail",
                                            LayerName(p), *p.state),
                                ev));
    } else {
      Finding f = MakeFinding(kId, subject, Severity::kInfo,
                              fmt::format("{} port is {}; no HCA of this type has this port up "
                                          "here, so it is taken as not cabled",
                                          LayerName(p), *p.state),
                              ev);
      f.meaning = "A port that no HCA of its type uses on this node is normally an unused port.";
      f.decision = "Nothing to do unless this port should be cabled.";
      out.push_back(std::move(f));
    }
  }
}

// ib.port_rate
void CheckPortRate(const std::vector<PortRef>& ports, const Policy& policy,
                   std::vector<Finding>& out) {
  constexpr const char* kId = "ib.port_rate";
  const double floor = policy.thresholds.ib_min_rate_gbps;
  for (const PortRef& r : ports) {
    const IbPort& p = *r.port;
    if (!IsUp(p)) continue;  // ib.port_state speaks for it
    const std::string subject = PortSubject(*r.dev, p);
    if (!p.rate_gbps.has()) {
      out.push_back(
          MakeFinding(kId, subject, Severity::kUnknown, "port rate unknown: " + p.rate_gbps.note));
      continue;
    }
    int peer_width = 0;
    double peer_rate = 0;
    std::string peer_name;
    for (const PortRef& o : ports) {
      if (!SameKind(o, r) || !IsUp(*o.port)) continue;
      if (o.port->width.has()) peer_width = std::max(peer_width, *o.port->width);
      if (o.port->rate_gbps.has() && *o.port->rate_gbps > peer_rate) {
        peer_rate = *o.port->rate_gbps;
        peer_name = PortSubject(*o.dev, *o.port);
      }
    }
    std::vector<Evidence> ev = {{"rate", RateText(p), ""}};
    if (peer_rate > 0) {
      ev.push_back({"fastest_peer", fmt::format("{:g} Gb/s ({})", peer_rate, peer_name),
                    "same HCA type and link layer"});
    }
    if (floor > 0) ev.push_back({"policy_min_rate", fmt::format("{:g} Gb/s", floor), ""});
    if (p.width.has() && *p.width < peer_width) {
      out.push_back(MakeFinding(
          kId, subject, Severity::kFail,
          fmt::format("{} port trained at {}X of the {}X its peers run: {} instead of {:g} Gb/s, "
                      "so this rail moves {:.0f} % of its share of every all-reduce",
                      LayerName(p), *p.width, peer_width, RateText(p), peer_rate,
                      100.0 * *p.rate_gbps / peer_rate),
          ev));
    } else if (floor > 0 && *p.rate_gbps < floor) {
      out.push_back(MakeFinding(kId, subject, Severity::kFail,
                                fmt::format("{} port runs at {}, below the policy's {:g} Gb/s",
                                            LayerName(p), RateText(p), floor),
                                ev));
    } else if (*p.rate_gbps < peer_rate) {
      out.push_back(MakeFinding(
          kId, subject, Severity::kWarn,
          fmt::format("{} port runs at {}, slower than its peers' {:g} Gb/s at the same width: "
                      "the link trained at a lower speed",
                      LayerName(p), RateText(p), peer_rate),
          ev));
    } else {
      out.push_back(MakeFinding(
          kId, subject, Severity::kOk,
          fmt::format("{} port at {}{}", LayerName(p), RateText(p),
                      peer_name.empty() || peer_name == subject ? "" : ", as fast as its peers"),
          ev));
    }
  }
}

struct CounterBudget {
  const char* counter;
  uint64_t Thresholds::*budget;
  const char* what;
};

// ib.port_errors
void CheckPortErrors(const std::vector<PortRef>& ports, const HostState& host, const Policy& policy,
                     std::vector<Finding>& out) {
  constexpr const char* kId = "ib.port_errors";
  static constexpr CounterBudget kBudgets[] = {
      {"symbol_error", &Thresholds::ib_symbol_error_max, "symbol errors (bit errors on the wire)"},
      {"link_error_recovery", &Thresholds::ib_link_error_recovery_max, "link recoveries"},
      {"link_downed", &Thresholds::ib_link_downed_max, "link downs"},
      {"port_rcv_errors", &Thresholds::ib_rcv_errors_max, "receive errors (bad packets)"},
      {"local_link_integrity_errors", &Thresholds::ib_rcv_errors_max, "link integrity errors"},
      {"excessive_buffer_overrun_errors", &Thresholds::ib_rcv_errors_max, "buffer overruns"},
      {"port_rcv_remote_physical_errors", &Thresholds::ib_rcv_remote_physical_errors_max,
       "remote physical errors"},
      {"port_xmit_discards", &Thresholds::ib_xmit_discards_max, "transmit discards"},
      {"port_rcv_discards", &Thresholds::ib_xmit_discards_max, "receive discards"},
  };
  const std::string since =
      host.uptime_s.has()
          ? fmt::format("since the driver loaded (uptime {:.1f} days)", *host.uptime_s / 86400)
          : "since the driver loaded";
  for (const PortRef& r : ports) {
    const IbPort& p = *r.port;
    const std::string subject = PortSubject(*r.dev, p);
    if (p.counters.empty() && p.counter_errors.empty()) continue;  // no counters exposed
    std::vector<Evidence> ev;
    std::vector<std::string> over;
    for (const CounterBudget& b : kBudgets) {
      auto it = p.counters.find(b.counter);
      if (it == p.counters.end()) continue;
      uint64_t budget = policy.thresholds.*b.budget;
      ev.push_back({b.counter, std::to_string(it->second), fmt::format("<= {}", budget)});
      if (it->second > budget) over.push_back(fmt::format("{} {}", it->second, b.what));
    }
    if (!over.empty()) {
      out.push_back(MakeFinding(
          kId, subject, Severity::kWarn,
          fmt::format("{} port counted {} {}", LayerName(p), Join(over, ", "), since), ev));
    } else if (!p.counter_errors.empty()) {
      out.push_back(MakeFinding(kId, subject, Severity::kUnknown,
                                "port error counters unreadable: " + p.counter_errors.front(), ev));
    } else {
      out.push_back(MakeFinding(kId, subject, Severity::kOk,
                                "error counters within their budgets " + since, ev));
    }
  }
}

// ib.gpu_nic_affinity
void CheckGpuNicAffinity(const CheckInput& in, const InfinibandState& ib,
                         std::vector<Finding>& out) {
  constexpr const char* kId = "ib.gpu_nic_affinity";
  for (const GpuNicPath& g : ib.gpu_paths) {
    std::string subject;
    for (const GpuState& s : in.gpus.gpus) {
      const GpuPciTopology* t = FindPci(in.host, s.pci_bus_id);
      if (t != nullptr && t->gpu.address == g.gpu_address) subject = GpuSubject(s);
    }
    if (subject.empty() && in.host.pci_gpus.has()) {
      const auto& pci = *in.host.pci_gpus;
      for (size_t i = 0; i < pci.size(); ++i) {
        if (pci[i].gpu.address == g.gpu_address) {
          subject = fmt::format("gpu{} ({})", i, g.gpu_address);
        }
      }
    }
    if (subject.empty()) subject = "gpu (" + g.gpu_address + ")";
    if (g.nic.empty()) continue;  // no RDMA device with a PCI function: nothing to compare
    std::vector<Evidence> ev = {
        {"nearest_nic", g.nic, ""},
        {"relation", g.relation, "PIX, PXB, PHB or NODE (same NUMA node)"},
        {"gpu_numa_node", g.gpu_numa.has() ? std::to_string(*g.gpu_numa) : "unknown", ""},
        {"nic_numa_node", g.nic_numa.has() ? std::to_string(*g.nic_numa) : "unknown", ""}};
    if (g.relation == "SYS") {
      out.push_back(MakeFinding(
          kId, subject, Severity::kWarn,
          fmt::format("the nearest RDMA device {} sits on NUMA node {}, the GPU on node {}: "
                      "GPUDirect RDMA traffic crosses the inter-socket link",
                      g.nic, g.nic_numa.has() ? std::to_string(*g.nic_numa) : "?",
                      g.gpu_numa.has() ? std::to_string(*g.gpu_numa) : "?"),
          ev));
    } else if (g.relation == "?") {
      out.push_back(MakeFinding(kId, subject, Severity::kUnknown,
                                "GPU-to-NIC placement unknown: a NUMA node is not reported", ev));
    } else {
      out.push_back(MakeFinding(kId, subject, Severity::kOk,
                                fmt::format("nearest RDMA device {} ({})", g.nic, g.relation), ev));
    }
  }
}

}  // namespace

void CheckNetwork(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  const Reading<InfinibandState>& ib = in.host.infiniband;
  if (ib.error()) {
    out.push_back(MakeFinding("ib.port_state", "host", Severity::kUnknown,
                              "RDMA devices unreadable: " + ib.note));
    return;
  }
  if (!ib.has()) return;  // no RDMA devices: a single-node box, nothing to judge
  std::vector<PortRef> ports = AllPorts(*ib);
  CheckPortState(ports, out);
  CheckPortRate(ports, policy, out);
  CheckPortErrors(ports, in.host, policy, out);
  CheckGpuNicAffinity(in, *ib, out);
}

}  // namespace gpuvet
