// PCIe checks for each GPU and the bridge above it: link width and generation against what both
// ends support, the GPU's replay counter against a bit-error budget, and AER error counts. NVML
// values are preferred; sysfs alone still checks every NVIDIA function when NVML did not run.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

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

std::optional<Verdict> WidthVerdict(const LinkPair& p) {
  switch (p.state) {
    case LinkPair::State::kSkip:
      return std::nullopt;
    case LinkPair::State::kError:
      return Verdict{Severity::kUnknown, "PCIe link width unknown: " + p.error, {}, {}};
    case LinkPair::State::kValue:
      break;
  }
  std::vector<Evidence> ev = {
      {"current_width", std::to_string(p.current), fmt::format("== max_width {}", p.max)},
      {"source", p.source, ""}};
  if (p.current == 0 && p.max > 0) {
    return Verdict{
        Severity::kFail,
        fmt::format("PCIe link down (x0 on a x{} link): the device below is gone", p.max), ev,
        "Drain the node; reboot, and reseat or replace the GPU or riser if the link "
        "stays down.",
        "The link has no lanes up: the device below no longer answers (a GPU that fell "
        "off the bus, or a link that never trained) and is lost to every job."};
  }
  if (p.current < p.max) {
    return Verdict{
        Severity::kFail, fmt::format("PCIe x{} on a x{} link", p.current, p.max), ev, {}};
  }
  return Verdict{Severity::kOk, fmt::format("PCIe x{} at full width", p.current), ev, {}};
}

std::string BandwidthLoss(int gens_lost) {
  if (gens_lost == 1) return "host-device bandwidth halved";
  return fmt::format("host-device bandwidth cut to about 1/{}", 1 << std::min(gens_lost, 5));
}

std::optional<Verdict> GenVerdict(const LinkPair& p, const GpuActivity& activity) {
  switch (p.state) {
    case LinkPair::State::kSkip:
      return std::nullopt;
    case LinkPair::State::kError:
      return Verdict{Severity::kUnknown, "PCIe link generation unknown: " + p.error, {}, {}};
    case LinkPair::State::kValue:
      break;
  }
  std::vector<Evidence> ev = {
      {"current_gen", std::to_string(p.current), fmt::format("== max_gen {}", p.max)},
      {"source", p.source, ""},
      activity.evidence};
  if (p.current >= p.max) {
    return Verdict{Severity::kOk, fmt::format("PCIe Gen{}, the link's maximum", p.current), ev, {}};
  }
  if (activity.busy) {
    return Verdict{Severity::kWarn,
                   fmt::format("Gen{} under load on a Gen{} link: {}", p.current, p.max,
                               BandwidthLoss(p.max - p.current)),
                   ev,
                   {}};
  }
  return Verdict{Severity::kInfo,
                 fmt::format("Gen{} on a Gen{} link while idle (power saving)", p.current, p.max),
                 ev,
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

  auto bridge_width = bridge ? WidthVerdict(WidthOf(nullptr, bridge)) : std::nullopt;
  EmitPair("pcie.link_width_reduced", t, WidthVerdict(WidthOf(t.gpu, fn)), bridge_width, out);

  auto bridge_gen = bridge ? GenVerdict(GenOf(nullptr, bridge), activity) : std::nullopt;
  EmitPair("pcie.link_gen_reduced", t, GenVerdict(GenOf(t.gpu, fn), activity), bridge_gen, out);

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
