// PCIe checks for each GPU and the bridge above it: link width and generation against what both
// ends support, the GPU's replay counter against a bit-error budget, and AER error counts. NVML
// values are preferred; sysfs alone still checks every NVIDIA function when NVML did not run.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "core/hw/pcie.h"
#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// DCGM pcie diagnostic "max_pcie_replays": the raw-count limit used when no rate can be formed.
constexpr uint64_t kReplayCountMax = 80;

// A GPU to check: from NVML (gpu set) or, when NVML did not run, a bare sysfs PCI function.
struct Target {
  std::string subject;         // "gpu0 (0000:3b:00.0)" or "pci 0000:3b:00.0"
  std::string short_name;      // "gpu0" or "pci 0000:3b:00.0": prefix of the bridge subject
  const GpuState* gpu;         // nullptr: sysfs only
  const GpuPciTopology* topo;  // nullptr: not found in sysfs
};

// A current/maximum pair of one link property, where it came from, or why it is missing.
struct LinkPair {
  enum class State { kSkip, kValue, kError };
  State state = State::kSkip;
  int current = 0;
  int max = 0;
  std::string source;  // "gpu" (NVML or a capture) or "sysfs"
  std::string error;   // what could not be read, when kError
};

// The judgement on one PCI function for one check id; nullopt means "not applicable".
struct Verdict {
  Severity severity = Severity::kOk;
  std::string summary;
  std::vector<Evidence> evidence;
  std::string decision;   // empty: the catalogue's text
  std::string meaning{};  // empty: the catalogue's text (initialised: most verdicts omit it)
};

template <typename T>
void NoteError(const Reading<T>& r, std::string_view name, std::vector<std::string>& errors) {
  if (r.error()) errors.push_back(fmt::format("{}: {}", name, r.note));
  if (NotInCapture(r)) errors.push_back(fmt::format("{}: field not in the capture", name));
}

LinkPair Finish(const std::vector<std::string>& errors) {
  LinkPair p;
  if (!errors.empty()) {
    p.state = LinkPair::State::kError;
    p.error = Join(errors, "; ");
  }
  return p;
}

LinkPair Value(int current, int max, std::string source) {
  return {LinkPair::State::kValue, current, max, std::move(source), {}};
}

// Link width: NVML when both values are there, else sysfs of `fn`.
LinkPair WidthOf(const GpuState* gpu, const PciFunction* fn) {
  std::vector<std::string> errors;
  if (gpu != nullptr) {
    if (gpu->pcie_width.has() && gpu->pcie_width_max.has()) {
      return Value(*gpu->pcie_width, *gpu->pcie_width_max, "gpu");
    }
    NoteError(gpu->pcie_width, "gpu pcie_width", errors);
    NoteError(gpu->pcie_width_max, "gpu pcie_width_max", errors);
  }
  if (fn != nullptr) {
    if (fn->link.width.has() && fn->link.max_width.has()) {
      return Value(*fn->link.width, *fn->link.max_width, "sysfs");
    }
    NoteError(fn->link.width, "sysfs current_link_width", errors);
    NoteError(fn->link.max_width, "sysfs max_link_width", errors);
  }
  return Finish(errors);
}

// Link generation: NVML when both values are there, else sysfs link speeds mapped to generations.
LinkPair GenOf(const GpuState* gpu, const PciFunction* fn) {
  std::vector<std::string> errors;
  if (gpu != nullptr) {
    if (gpu->pcie_gen.has() && gpu->pcie_gen_max.has()) {
      return Value(*gpu->pcie_gen, *gpu->pcie_gen_max, "gpu");
    }
    NoteError(gpu->pcie_gen, "gpu pcie_gen", errors);
    NoteError(gpu->pcie_gen_max, "gpu pcie_gen_max", errors);
  }
  if (fn != nullptr) {
    const PciLink& l = fn->link;
    if (l.speed_gts.has() && l.max_speed_gts.has()) {
      const int cur = PcieGenFromGts(*l.speed_gts), max = PcieGenFromGts(*l.max_speed_gts);
      if (cur != 0 && max != 0) return Value(cur, max, "sysfs");
      errors.push_back(fmt::format("sysfs link speed {} / max {} GT/s is not a PCIe rate",
                                   *l.speed_gts, *l.max_speed_gts));
    }
    NoteError(l.speed_gts, "sysfs current_link_speed", errors);
    NoteError(l.max_speed_gts, "sysfs max_link_speed", errors);
  }
  return Finish(errors);
}

// What the host side tells about a GPU's link: the slot (the upstream port: the root port or
// switch port the GPU's link ends at), and whether the host is a virtual machine.
struct HostSide {
  int slot_max_width = 0;       // 0: unknown
  int slot_max_gen = 0;         // 0: unknown
  std::string slot_unknown;     // why the slot's maximum width is unknown
  int card_max_gen = 0;         // the GPU's own maximum generation (sysfs LnkCap), 0: unknown
  std::string vm;               // "" on bare metal, else the hypervisor and where it was seen
  bool virtual_bridge = false;  // the upstream port is the hypervisor's model
};

bool IsVirtualBridge(const HostState& host, const PciFunction& bridge) {
  const auto& v = host.virtual_machine.virtual_bridges;
  return std::find(v.begin(), v.end(), bridge.address) != v.end();
}

HostSide HostSideOf(const HostState& host, const GpuState* gpu, const PciFunction* fn,
                    const PciFunction* bridge) {
  HostSide h;
  const VirtualMachineState& vm = host.virtual_machine;
  if (vm.detected) {
    // The signs themselves are in host.virtual_machine; here only what the link judgement needs.
    h.vm = fmt::format("{} (host.virtual_machine)",
                       vm.hypervisor.empty() ? "hypervisor unknown" : vm.hypervisor);
  } else if (gpu != nullptr && gpu->virtualization_mode.has() &&
             (*gpu->virtualization_mode == "Pass-Through" || *gpu->virtualization_mode == "VGPU")) {
    h.vm = fmt::format("virtualization_mode {} in the capture", *gpu->virtualization_mode);
  }
  if (fn != nullptr && fn->link.max_speed_gts.has()) {
    h.card_max_gen = PcieGenFromGts(*fn->link.max_speed_gts);
  }
  if (bridge == nullptr) {
    if (fn != nullptr) {
      h.slot_unknown = "no PCIe port above the GPU in sysfs";
    } else if (host.pci_gpus.state == Reading<std::vector<GpuPciTopology>>::State::kAbsent) {
      h.slot_unknown = "an offline capture has no slot data";
    } else {
      h.slot_unknown = "the GPU is not in the sysfs PCI scan";
    }
    return h;
  }
  if (IsVirtualBridge(host, *bridge)) {
    h.virtual_bridge = true;
    h.slot_unknown = fmt::format("the port above, {}, is virtual", bridge->address);
    return h;
  }
  if (bridge->link.max_width.has()) {
    h.slot_max_width = *bridge->link.max_width;
  } else {
    h.slot_unknown = fmt::format("max_link_width of {} not readable", bridge->address);
  }
  if (bridge->link.max_speed_gts.has())
    h.slot_max_gen = PcieGenFromGts(*bridge->link.max_speed_gts);
  return h;
}

// "15.8 of 31.5 GB/s": the one-direction bandwidth of `width` against `full` lanes at `gen`.
std::string WidthCost(int gen, int width, int full) {
  if (PcieLinkGbps(gen, full) <= 0) return fmt::format("{}/{} of the lanes", width, full);
  return fmt::format("at most {} of {} GB/s per direction at Gen{}",
                     FormatNumber(PcieLinkGbps(gen, width), 1),
                     FormatNumber(PcieLinkGbps(gen, full), 1), gen);
}

constexpr char kVmLinkDecision[] =
    "This is a virtual machine: there is no slot to reseat from here. Stop and start the instance "
    "(it moves to other hardware) or report the GPU to the provider with this finding; on your "
    "own hypervisor, read the link on the host (`lspci -vv`) and fix it there.";

Verdict LinkDown(int max, std::vector<Evidence> ev, const HostSide& h, std::string_view what) {
  return Verdict{
      Severity::kFail,
      fmt::format("PCIe link down ({} on a x{} link): the device below is gone", what, max),
      std::move(ev),
      h.vm.empty() ? "Drain the node; reboot, and reseat or replace the GPU or riser if the link "
                     "stays down."
                   : kVmLinkDecision,
      "The link has no lanes up: the device below no longer answers (a GPU that fell "
      "off the bus, or a link that never trained) and is lost to every job."};
}

// The GPU end of the link: its width against min(GPU maximum, slot maximum).
std::optional<Verdict> GpuWidthVerdict(const LinkPair& p, const HostSide& h, const PciFunction* fn,
                                       int gen) {
  std::vector<Evidence> ev;
  if (!h.vm.empty()) ev.push_back({"virtual_machine", h.vm, ""});
  // sysfs alone (NVML did not answer): "Unknown" speed against a known maximum is a link down
  // too, unless the function is powered off (runtime power management).
  if (p.source != "gpu" && fn != nullptr && fn->power_state.has() &&
      StartsWith(*fn->power_state, "D3") &&
      (fn->link.speed_unknown || (p.state == LinkPair::State::kValue && p.current == 0))) {
    ev.insert(ev.begin(), {"power_state", *fn->power_state, "D0"});
    return Verdict{Severity::kInfo,
                   fmt::format("PCIe link not up: the GPU is powered down ({})", *fn->power_state),
                   ev,
                   "Runtime power management put the GPU to sleep (common on laptops and idle "
                   "workstations); it wakes on first use. If a job cannot open it, check the "
                   "driver's power management settings.",
                   "The GPU is in a low-power state with its link off; the link is judged when it "
                   "is awake."};
  }
  if (p.source != "gpu" && fn != nullptr && fn->link.speed_unknown && fn->link.max_width.has() &&
      !(p.state == LinkPair::State::kValue && p.current == 0)) {
    ev.insert(ev.begin(), {"current_link_speed", "Unknown", "a PCIe rate"});
    return LinkDown(*fn->link.max_width, ev, h, "speed Unknown");
  }
  switch (p.state) {
    case LinkPair::State::kSkip:
      return std::nullopt;
    case LinkPair::State::kError:
      return Verdict{Severity::kUnknown, "PCIe link width unknown: " + p.error, {}, {}};
    case LinkPair::State::kValue:
      break;
  }
  const int expected = h.slot_max_width > 0 ? std::min(p.max, h.slot_max_width) : p.max;
  ev.insert(ev.begin(),
            {"current_width", std::to_string(p.current), fmt::format("== max_width {}", expected)});
  ev.insert(ev.begin() + 1, {"source", p.source, ""});
  if (p.current == 0 && p.max > 0) return LinkDown(p.max, ev, h, "x0");
  if (p.current >= p.max) {
    return Verdict{Severity::kOk, fmt::format("PCIe x{} at full width", p.current), ev, {}};
  }
  ev.push_back({"gpu_max_width", std::to_string(p.max), ""});
  ev.push_back(
      {"slot_max_width",
       h.slot_max_width > 0 ? std::to_string(h.slot_max_width) : "unknown: " + h.slot_unknown, ""});
  const std::string cost = WidthCost(gen, p.current, p.max);
  if (h.slot_max_width > 0 && p.current < expected) {
    return Verdict{
        Severity::kFail,
        fmt::format("PCIe x{} on a x{} link (GPU x{}, slot x{}): host-device bandwidth {}",
                    p.current, expected, p.max, h.slot_max_width,
                    WidthCost(gen, p.current, expected)),
        ev, h.vm.empty() ? "" : kVmLinkDecision};
  }
  if (h.slot_max_width > 0) {
    return Verdict{
        Severity::kInfo,
        fmt::format("PCIe x{}, the slot's maximum (slot wired x{}; the GPU supports x{}): "
                    "host-device bandwidth {}",
                    p.current, h.slot_max_width, p.max, cost),
        ev,
        "No fault: nothing to reseat. If the workload is bound by host-device copies, put the GPU "
        "in a x" +
            std::to_string(p.max) + " slot (or a board that does not split its lanes).",
        "The link trained at every lane its slot offers: the slot is wired with fewer lanes than "
        "the card (a x8 slot, or a board that splits x16 lanes x8/x8 between two cards). Not a "
        "fault, but host-device bandwidth is capped for good."};
  }
  return Verdict{
      Severity::kWarn,
      fmt::format("PCIe x{} on a x{} GPU, slot maximum unknown ({}): host-device bandwidth {}",
                  p.current, p.max, h.slot_unknown, cost),
      ev,
      h.vm.empty()
          ? "Confirm against the slot: `sudo lspci -vv` shows LnkCap of the port above the GPU "
            "(or run `gpuvet check` on the host itself; a capture has no slot data). Below the "
            "slot's width is a fault: drain and reseat; equal to it is how the slot is wired."
          : "In a virtual machine the guest cannot see the physical slot: compare with the "
            "instance type's documented PCIe link (some cloud GPU instances are wired x8) or ask "
            "the provider. There is nothing to reseat from the guest.",
      "The GPU runs with fewer lanes than it supports, and the slot's own maximum is not known "
      "here, so this may be a slot wired that way or a link that trained badly."};
}

// The upstream port's own link: its width against min(its maximum, the GPU's maximum). Not
// judged on a virtual bridge (the hypervisor's model) or when it is the GPU's link seen from the
// other end and the GPU's verdict already says so.
std::optional<Verdict> BridgeWidthVerdict(const LinkPair& p, int gpu_max, int gpu_current,
                                          bool same_link_judged, const HostSide& h) {
  if (h.virtual_bridge) return std::nullopt;
  switch (p.state) {
    case LinkPair::State::kSkip:
      return std::nullopt;
    case LinkPair::State::kError:
      return Verdict{Severity::kUnknown, "PCIe link width unknown: " + p.error, {}, {}};
    case LinkPair::State::kValue:
      break;
  }
  const int expected = gpu_max > 0 ? std::min(p.max, gpu_max) : p.max;
  std::vector<Evidence> ev = {
      {"current_width", std::to_string(p.current), fmt::format("== max_width {}", expected)},
      {"source", p.source, ""}};
  // The GPU's link seen from the port's end: already judged under the GPU.
  if (same_link_judged && p.current == gpu_current) return std::nullopt;
  if (p.current == 0 && p.max > 0) return LinkDown(p.max, ev, h, "x0");
  if (p.current < expected) {
    return Verdict{Severity::kFail, fmt::format("PCIe x{} on a x{} link", p.current, expected), ev,
                   h.vm.empty() ? "" : kVmLinkDecision};
  }
  return Verdict{Severity::kOk, fmt::format("PCIe x{} at full width", p.current), ev, {}};
}

std::string BandwidthLoss(int gens_lost) {
  if (gens_lost == 1) return "host-device bandwidth halved";
  return fmt::format("host-device bandwidth cut to about 1/{}", 1 << std::min(gens_lost, 5));
}

// One end's generation against `expected` (min of both ends' maxima), idle-aware; `capped_by` is
// set for the GPU end when the host port's maximum is below the card's.
std::optional<Verdict> GenVerdict(const LinkPair& p, const GpuActivity& activity, int expected,
                                  int card_max, int host_max) {
  switch (p.state) {
    case LinkPair::State::kSkip:
      return std::nullopt;
    case LinkPair::State::kError:
      return Verdict{Severity::kUnknown, "PCIe link generation unknown: " + p.error, {}, {}};
    case LinkPair::State::kValue:
      break;
  }
  std::vector<Evidence> ev = {
      {"current_gen", std::to_string(p.current), fmt::format("== max_gen {}", expected)},
      {"source", p.source, ""},
      activity.evidence};
  const bool capped = host_max > 0 && card_max > host_max;
  if (capped) {
    ev.push_back({"gpu_max_gen", std::to_string(card_max), ""});
    ev.push_back({"host_port_max_gen", std::to_string(host_max), ""});
  }
  if (p.current >= expected) {
    if (!capped) {
      return Verdict{
          Severity::kOk, fmt::format("PCIe Gen{}, the link's maximum", p.current), ev, {}};
    }
    const double ratio = PcieLinkGbps(host_max, 16) / PcieLinkGbps(card_max, 16);
    return Verdict{
        Severity::kInfo,
        fmt::format("Gen{} host port, Gen{} GPU: the link tops out at Gen{}, {} % of the card's "
                    "host-device bandwidth (x16: {} of {} GB/s)",
                    host_max, card_max, host_max, FormatNumber(ratio * 100, 0),
                    FormatNumber(PcieLinkGbps(host_max, 16), 1),
                    FormatNumber(PcieLinkGbps(card_max, 16), 1)),
        ev,
        "No fault: the host's port is older than the card. If the workload is bound by "
        "host-device copies, run it on a host (or slot) of the card's generation.",
        "The port above the GPU supports an older PCIe generation than the card, so the link "
        "runs at the host's speed: not a fault, a cap on host-device bandwidth."};
  }
  if (activity.busy) {
    return Verdict{Severity::kWarn,
                   fmt::format("Gen{} under load on a Gen{} link: {}", p.current, expected,
                               BandwidthLoss(expected - p.current)),
                   ev,
                   {}};
  }
  return Verdict{
      Severity::kInfo,
      fmt::format("Gen{} on a Gen{} link while idle (power saving)", p.current, expected), ev,
      "Idle GPUs lower the link speed to save power; confirm under load with `gpuvet "
      "bench` or `nvidia-smi -q -d PCI` while a job runs."};
}

// Host uptime in minutes (at least 1, so a fresh boot does not inflate rates), or nullopt.
std::optional<double> UptimeMinutes(const HostState& host) {
  if (!host.uptime_s.has() || *host.uptime_s <= 0) return std::nullopt;
  return std::max(*host.uptime_s / 60.0, 1.0);
}

std::string UptimeUnknownWhy(const HostState& host) {
  return host.uptime_s.note.empty() ? "host uptime not read" : "host uptime: " + host.uptime_s.note;
}

std::optional<Verdict> AerCorrectedVerdict(const PciFunction& fn, const Thresholds& t,
                                           const HostState& host) {
  if (fn.aer.error()) {
    return Verdict{Severity::kUnknown, "AER counters unreadable: " + fn.aer.note, {}, {}};
  }
  if (!fn.aer.has()) return std::nullopt;  // AER not supported or not enabled
  const uint64_t count = fn.aer->correctable;
  // DCGM raises its 16/min default to 32/min for Gen5 x16 links (Hopper); scale the policy value
  // the same way so a policy override still applies to those links.
  const bool gen5_x16 = fn.link.max_speed_gts.has() && *fn.link.max_speed_gts >= 32 &&
                        fn.link.max_width.has() && *fn.link.max_width >= 16;
  const double limit = t.aer_corrected_per_min * (gen5_x16 ? 2 : 1);
  std::vector<Evidence> ev = {{"correctable_total", std::to_string(count), ""}};
  std::optional<double> minutes = UptimeMinutes(host);
  if (!minutes) {
    if (count == 0) return Verdict{Severity::kOk, "no corrected AER errors", ev, {}};
    return Verdict{
        Severity::kUnknown,
        fmt::format("{} corrected AER errors, no rate: {}", count, UptimeUnknownWhy(host)),
        ev,
        {}};
  }
  const double rate = static_cast<double>(count) / *minutes;
  ev.push_back({"correctable_per_min", FormatNumber(rate, 2),
                fmt::format("<= {}/min{}", FormatNumber(limit, 0), gen5_x16 ? " (Gen5 x16)" : "")});
  ev.push_back({"uptime_min", FormatNumber(*minutes, 0), ""});
  if (rate > limit) {
    return Verdict{Severity::kWarn,
                   fmt::format("{} corrected AER errors, {}/min over the {}/min budget", count,
                               FormatNumber(rate, 2), FormatNumber(limit, 0)),
                   ev,
                   {}};
  }
  return Verdict{Severity::kOk,
                 fmt::format("{} corrected AER errors ({}/min)", count, FormatNumber(rate, 2)),
                 ev,
                 {}};
}

std::optional<Verdict> AerUncorrectedVerdict(const PciFunction& fn) {
  if (fn.aer.error()) {
    return Verdict{Severity::kUnknown, "AER counters unreadable: " + fn.aer.note, {}, {}};
  }
  if (!fn.aer.has()) return std::nullopt;
  std::vector<Evidence> ev = {{"fatal_total", std::to_string(fn.aer->fatal), "== 0"},
                              {"nonfatal_total", std::to_string(fn.aer->nonfatal), "== 0"}};
  if (fn.aer->fatal > 0) {
    return Verdict{Severity::kFail,
                   fmt::format("{} fatal uncorrectable AER error{}", fn.aer->fatal,
                               fn.aer->fatal == 1 ? "" : "s"),
                   ev,
                   {}};
  }
  if (fn.aer->nonfatal > 0) {
    return Verdict{Severity::kWarn,
                   fmt::format("{} non-fatal uncorrectable AER error{}", fn.aer->nonfatal,
                               fn.aer->nonfatal == 1 ? "" : "s"),
                   ev,
                   {}};
  }
  return Verdict{Severity::kOk, "no uncorrectable AER errors", ev, {}};
}

Finding ToFinding(std::string_view id, std::string subject, Verdict v) {
  Finding f =
      MakeFinding(id, std::move(subject), v.severity, std::move(v.summary), std::move(v.evidence));
  f.decision = std::move(v.decision);
  f.meaning = std::move(v.meaning);
  return f;
}

// Emits the GPU function's and the upstream bridge's verdicts for one id. A problem gets its own
// finding under its own subject; a passing bridge is folded into the GPU's ok finding, so each GPU
// has at most one ok per id.
void EmitPair(std::string_view id, const Target& t, std::optional<Verdict> gpu_v,
              std::optional<Verdict> bridge_v, std::vector<Finding>& out) {
  const std::string bridge_subject =
      t.topo != nullptr && t.topo->upstream_bridge
          ? fmt::format("{} upstream bridge {}", t.short_name, t.topo->upstream_bridge->address)
          : "";
  const bool gpu_ok = gpu_v && gpu_v->severity == Severity::kOk;
  const bool bridge_ok = bridge_v && bridge_v->severity == Severity::kOk;
  if (gpu_v && !gpu_ok) out.push_back(ToFinding(id, t.subject, std::move(*gpu_v)));
  if (bridge_v && !bridge_ok) out.push_back(ToFinding(id, bridge_subject, std::move(*bridge_v)));
  if (gpu_ok) {
    if (bridge_ok) {
      gpu_v->summary += "; upstream bridge " + bridge_v->summary;
      for (Evidence& e : bridge_v->evidence) {
        if (e.name == "gpu_util_pct") continue;  // already there
        gpu_v->evidence.push_back({"upstream_bridge " + e.name, e.value, e.threshold});
      }
    }
    out.push_back(ToFinding(id, t.subject, std::move(*gpu_v)));
  } else if (bridge_ok) {
    out.push_back(ToFinding(id, bridge_subject, std::move(*bridge_v)));
  }
}

void CheckReplay(const Target& t, const Thresholds& th, const HostState& host,
                 std::vector<Finding>& out) {
  const Reading<uint64_t>& r = t.gpu->pcie_replay_counter;
  if (r.error()) {
    out.push_back(MakeFinding("pcie.replay_counter", t.subject, Severity::kUnknown,
                              "PCIe replay counter unreadable: " + r.note));
    return;
  }
  if (NotInCapture(r)) {
    out.push_back(MakeFinding("pcie.replay_counter", t.subject, Severity::kUnknown,
                              "PCIe replay counter: field not in the capture"));
    return;
  }
  if (!r.has()) return;
  const uint64_t count = *r;
  const PciFunction* fn = t.topo != nullptr ? &t.topo->gpu : nullptr;
  // The budget uses the link at its best (max gen and width): replays happen under load, when
  // the link runs at full speed; the idle downshift would shrink the budget for no reason.
  const LinkPair gen = GenOf(t.gpu, fn), width = WidthOf(t.gpu, fn);
  std::optional<double> minutes = UptimeMinutes(host);
  std::vector<Evidence> ev = {{"replay_count", std::to_string(count), ""}};
  const double lane_gts = gen.state == LinkPair::State::kValue ? PcieGenGts(gen.max) : 0;
  if (gen.state == LinkPair::State::kValue && width.state == LinkPair::State::kValue && minutes &&
      lane_gts > 0) {
    const double budget = th.pcie_replay_ber * lane_gts * 1e9 * 60 * width.max;
    // The counter accumulates since the driver loaded; uptime is an upper bound on that time,
    // so the rate is a lower bound.
    const double rate = static_cast<double>(count) / *minutes;
    ev.push_back({"replays_per_min", FormatNumber(rate, 2),
                  fmt::format("<= {}/min (BER {} x Gen{} x{})", FormatNumber(budget, 2),
                              th.pcie_replay_ber, gen.max, width.max)});
    ev.push_back({"uptime_min", FormatNumber(*minutes, 0), ""});
    if (rate > budget) {
      out.push_back(MakeFinding(
          "pcie.replay_counter", t.subject, Severity::kWarn,
          fmt::format("PCIe replays at {}/min, budget {}/min for Gen{} x{}", FormatNumber(rate, 2),
                      FormatNumber(budget, 2), gen.max, width.max),
          ev));
    } else {
      out.push_back(MakeFinding("pcie.replay_counter", t.subject, Severity::kOk,
                                fmt::format("{} PCIe replays ({}/min, budget {}/min)", count,
                                            FormatNumber(rate, 2), FormatNumber(budget, 2)),
                                ev));
    }
    return;
  }
  ev[0].threshold = fmt::format("<= {} (DCGM max_pcie_replays; no rate: {})", kReplayCountMax,
                                minutes ? "link speed/width unknown" : UptimeUnknownWhy(host));
  if (count > kReplayCountMax) {
    out.push_back(MakeFinding("pcie.replay_counter", t.subject, Severity::kWarn,
                              fmt::format("{} PCIe replays, over {}", count, kReplayCountMax), ev));
  } else {
    out.push_back(MakeFinding("pcie.replay_counter", t.subject, Severity::kOk,
                              fmt::format("{} PCIe replays", count), ev));
  }
}

void CheckTarget(const Target& t, const HostState& host, const Thresholds& th,
                 std::vector<Finding>& out) {
  const PciFunction* fn = t.topo != nullptr ? &t.topo->gpu : nullptr;
  const PciFunction* bridge =
      t.topo != nullptr && t.topo->upstream_bridge ? &*t.topo->upstream_bridge : nullptr;
  const GpuActivity activity = GpuActivityOf(t.gpu, th);

  const HostSide side = HostSideOf(host, t.gpu, fn, bridge);
  const LinkPair width = WidthOf(t.gpu, fn), gen = GenOf(t.gpu, fn);
  const bool width_known = width.state == LinkPair::State::kValue;
  const bool gen_known = gen.state == LinkPair::State::kValue;

  // Generation: the card's own maximum (sysfs LnkCap; NVML's maximum already counts the host)
  // against the host port's.
  const int card_max_gen = std::max(side.card_max_gen, gen_known ? gen.max : 0);
  const int host_max_gen = side.virtual_bridge ? 0 : side.slot_max_gen;
  const int expected_gen =
      gen_known && host_max_gen > 0 ? std::min(gen.max, host_max_gen) : (gen_known ? gen.max : 0);
  // Bandwidth figures use the generation the link can reach (the GPU's, capped by the host).
  const int cost_gen = expected_gen > 0 ? expected_gen : card_max_gen;

  std::optional<Verdict> gpu_width = GpuWidthVerdict(width, side, fn, cost_gen);
  const bool width_judged = gpu_width && gpu_width->severity != Severity::kOk;
  std::optional<Verdict> bridge_width =
      bridge ? BridgeWidthVerdict(WidthOf(nullptr, bridge), width_known ? width.max : 0,
                                  width_known ? width.current : -1, width_judged, side)
             : std::nullopt;
  EmitPair("pcie.link_width_reduced", t, std::move(gpu_width), std::move(bridge_width), out);

  std::optional<Verdict> gpu_gen =
      GenVerdict(gen, activity, expected_gen, card_max_gen, host_max_gen);
  std::optional<Verdict> bridge_gen;
  if (bridge != nullptr && !side.virtual_bridge) {
    const LinkPair b = GenOf(nullptr, bridge);
    const int b_expected = b.state == LinkPair::State::kValue && card_max_gen > 0
                               ? std::min(b.max, card_max_gen)
                               : b.max;
    const bool same_link = gpu_gen && gpu_gen->severity != Severity::kOk &&
                           b.state == LinkPair::State::kValue && gen_known &&
                           b.current == gen.current && gen.current < expected_gen;
    if (!same_link) bridge_gen = GenVerdict(b, activity, b_expected, 0, 0);
  }
  EmitPair("pcie.link_gen_reduced", t, std::move(gpu_gen), std::move(bridge_gen), out);

  if (t.gpu != nullptr) CheckReplay(t, th, host, out);

  if (fn == nullptr && host.pci_gpus.error()) {
    const std::string why = "PCI scan failed: " + host.pci_gpus.note;
    out.push_back(MakeFinding("pcie.aer_corrected", t.subject, Severity::kUnknown, why));
    out.push_back(MakeFinding("pcie.aer_uncorrected", t.subject, Severity::kUnknown, why));
    return;
  }
  if (fn == nullptr) return;  // the GPU is not in the sysfs scan: no AER counters to read
  EmitPair("pcie.aer_corrected", t, AerCorrectedVerdict(*fn, th, host),
           bridge ? AerCorrectedVerdict(*bridge, th, host) : std::nullopt, out);
  EmitPair("pcie.aer_uncorrected", t, AerUncorrectedVerdict(*fn),
           bridge ? AerUncorrectedVerdict(*bridge) : std::nullopt, out);
}

}  // namespace

void CheckPcie(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  const Thresholds& th = policy.thresholds;
  if (in.gpus.state == GpuSourceState::kOk) {
    std::set<std::string> checked;  // PCI addresses whose sysfs link and AER were checked
    for (const GpuState& gpu : in.gpus.gpus) {
      if (!Evaluable(gpu)) continue;  // gpu.lost / gpu.query_failed report it
      const GpuPciTopology* topo = FindPci(in.host, gpu.pci_bus_id);
      if (topo != nullptr) checked.insert(topo->gpu.address);
      CheckTarget({GpuSubject(gpu), fmt::format("gpu{}", gpu.index), &gpu, topo}, in.host, th, out);
    }
    // NVIDIA functions NVML did not answer for (lost, hung, or fallen off the bus): their sysfs
    // link state and AER counters, and those of their upstream bridge, still say what happened.
    if (!in.host.pci_gpus.has()) return;
    for (const GpuPciTopology& topo : *in.host.pci_gpus) {
      if (checked.count(topo.gpu.address)) continue;
      std::string subject = "pci " + topo.gpu.address, short_name = subject;
      for (const GpuState& gpu : in.gpus.gpus) {
        if (gpu.pci_bus_id != topo.gpu.address) continue;
        subject = GpuSubject(gpu);
        short_name = fmt::format("gpu{}", gpu.index);
      }
      CheckTarget({subject, short_name, nullptr, &topo}, in.host, th, out);
    }
    return;
  }
  // No GPU source: check the links of every NVIDIA function sysfs found.
  if (in.host.pci_gpus.error()) {
    out.push_back(MakeFinding("pcie.link_width_reduced", "host", Severity::kUnknown,
                              "no PCIe link checked: GPU source unavailable and PCI scan failed: " +
                                  in.host.pci_gpus.note));
    return;
  }
  if (!in.host.pci_gpus.has()) return;
  for (const GpuPciTopology& topo : *in.host.pci_gpus) {
    std::string name = "pci " + topo.gpu.address;
    CheckTarget({name, name, nullptr, &topo}, in.host, th, out);
  }
}

}  // namespace gpuvet
