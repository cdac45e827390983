// Container and runtime rules: whether the check runs inside a container (and the evidence), the
// GPU visibility variables against the GPUs this node or container really has, /dev/nvidia*
// nodes the device cgroup refuses, and NVML's "Unknown Error" inside a container — each with what
// to fix on the node rather than in the application.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// What the checks know about the GPUs visible here: their count and UUIDs (UUIDs only from NVML).
struct VisibleGpus {
  int count = -1;  // -1: unknown (no NVML answer and no PCI listing)
  std::vector<std::string> uuids;
  std::string from;  // "NVML", "PCI bus"
};

VisibleGpus Visible(const CheckInput& in) {
  VisibleGpus v;
  if (in.gpus.state == GpuSourceState::kOk) {
    v.count = static_cast<int>(in.gpus.gpus.size());
    for (const GpuState& g : in.gpus.gpus) {
      if (!g.uuid.empty()) v.uuids.push_back(g.uuid);
    }
    v.from = "NVML";
  } else if (in.host.pci_gpus.has()) {
    v.count = static_cast<int>(in.host.pci_gpus->size());
    v.from = "PCI bus";
  }
  return v;
}

// Why one entry of a visibility list names no GPU here, or "" when it is fine or cannot be told.
std::string BadEntry(std::string_view entry, const VisibleGpus& gpus) {
  entry = Trim(entry);
  if (auto idx = ParseInt(entry)) {
    if (*idx < 0) return fmt::format("'{}' is negative", entry);
    if (gpus.count >= 0 && *idx >= gpus.count) {
      return fmt::format("index {} but only {} GPU(s) here", *idx, gpus.count);
    }
    return "";
  }
  if (StartsWith(entry, "GPU-")) {
    if (gpus.uuids.empty()) return "";  // cannot tell without NVML
    for (const std::string& u : gpus.uuids) {
      if (StartsWith(u, entry)) return "";  // CUDA accepts unique UUID prefixes
    }
    return fmt::format("{} is not a GPU of this node", entry);
  }
  if (StartsWith(entry, "MIG-")) return "";  // MIG device UUIDs are not listed by the GPU source
  return fmt::format("'{}' is neither an index nor a GPU UUID", entry);
}

std::string Subject(const CheckInput& in, std::string_view var) {
  if (in.host.process_is_target) return fmt::format("pid {} {}", in.host.process.pid, var);
  return std::string(var);
}

void CheckCudaVisible(const CheckInput& in, const std::string& value, const VisibleGpus& gpus,
                      std::vector<Finding>& out) {
  std::vector<Evidence> ev = {{"CUDA_VISIBLE_DEVICES", value.empty() ? "(empty)" : value, ""}};
  if (gpus.count >= 0) {
    // Where the count comes from is a fact, not a threshold (text output reads thresholds as
    // expectations).
    ev.push_back({"gpus_here", std::to_string(gpus.count), ""});
    ev.push_back({"gpus_counted_by", gpus.from, ""});
  }
  std::string_view v = Trim(value);
  if (v.empty() || v == "-1" || v == "none" || v == "NoDevFiles") {
    out.push_back(MakeFinding("container.visible_devices", Subject(in, "CUDA_VISIBLE_DEVICES"),
                              Severity::kWarn,
                              fmt::format("CUDA_VISIBLE_DEVICES='{}' hides every GPU from CUDA: "
                                          "the job runs on the CPU or fails",
                                          value),
                              ev));
    return;
  }
  std::vector<std::string> bad;
  int usable = 0;
  bool stopped = false;
  for (std::string_view entry : Split(v, ',')) {
    std::string why = BadEntry(entry, gpus);
    if (!why.empty()) {
      bad.push_back(why);
      stopped = true;
    } else if (!stopped) {
      ++usable;  // CUDA ignores everything from the first invalid entry on
    }
  }
  if (bad.empty()) {
    out.push_back(
        MakeFinding("container.visible_devices", Subject(in, "CUDA_VISIBLE_DEVICES"), Severity::kOk,
                    fmt::format("CUDA_VISIBLE_DEVICES={} names GPUs present here", value), ev));
    return;
  }
  ev.push_back({"invalid", Join(bad, "; "), "every entry names a GPU here"});
  ev.push_back({"gpus_cuda_will_use", std::to_string(usable), ""});
  out.push_back(MakeFinding(
      "container.visible_devices", Subject(in, "CUDA_VISIBLE_DEVICES"), Severity::kFail,
      fmt::format("CUDA_VISIBLE_DEVICES={} names GPU(s) this {} does not have ({}); CUDA stops at "
                  "the first bad entry and will use {} GPU(s)",
                  value, in.host.container.in_container ? "container" : "node", bad.front(),
                  usable),
      ev));
}

void CheckNvidiaVisible(const CheckInput& in, const std::string& value, const VisibleGpus& gpus,
                        std::vector<Finding>& out) {
  const bool inside = in.host.container.in_container;
  std::vector<Evidence> ev = {{"NVIDIA_VISIBLE_DEVICES", value.empty() ? "(empty)" : value, ""}};
  if (gpus.count >= 0) {
    // Where the count comes from is a fact, not a threshold (text output reads thresholds as
    // expectations).
    ev.push_back({"gpus_here", std::to_string(gpus.count), ""});
    ev.push_back({"gpus_counted_by", gpus.from, ""});
  }
  std::string subject = Subject(in, "NVIDIA_VISIBLE_DEVICES");
  std::string_view v = Trim(value);
  if (v.empty() || v == "void" || v == "none") {
    std::string what =
        v == "none" ? "driver libraries but no GPU device" : "no GPU and no driver libraries";
    Finding f = MakeFinding(
        "container.visible_devices", subject, inside ? Severity::kWarn : Severity::kInfo,
        fmt::format("NVIDIA_VISIBLE_DEVICES='{}': the NVIDIA container runtime passes {} into a "
                    "container started with it",
                    value, what),
        ev);
    out.push_back(std::move(f));
    return;
  }
  if (v == "all") {
    out.push_back(MakeFinding("container.visible_devices", subject, Severity::kOk,
                              "NVIDIA_VISIBLE_DEVICES=all", ev));
    return;
  }
  std::vector<std::string_view> entries = Split(v, ',');
  std::vector<std::string> bad;
  for (std::string_view entry : entries) {
    // Inside a container the runtime's indices are the host's: only UUIDs can be checked here.
    if (inside && ParseInt(Trim(entry))) continue;
    std::string why = BadEntry(entry, gpus);
    if (!why.empty()) bad.push_back(why);
  }
  if (inside && gpus.count >= 0 && gpus.count < static_cast<int>(entries.size())) {
    bad.push_back(
        fmt::format("{} GPU(s) requested but the container sees {}", entries.size(), gpus.count));
  }
  if (bad.empty()) {
    out.push_back(MakeFinding("container.visible_devices", subject, Severity::kOk,
                              fmt::format("NVIDIA_VISIBLE_DEVICES={} matches the GPUs here", value),
                              ev));
    return;
  }
  ev.push_back({"invalid", Join(bad, "; "), "every entry names a GPU here"});
  out.push_back(MakeFinding(
      "container.visible_devices", subject, Severity::kFail,
      fmt::format("NVIDIA_VISIBLE_DEVICES={} does not match the GPUs here: {}", value, bad.front()),
      ev));
}

void CheckVisibility(const CheckInput& in, std::vector<Finding>& out) {
  const GpuEnvironment& env = in.host.container.env;
  if (env.vars.state == decltype(env.vars)::State::kAbsent) return;
  if (!env.vars.has()) {
    std::vector<Evidence> ev = {{"source", env.source, ""}};
    if (env.vars.unsupported()) {
      out.push_back(NotChecked("container.visible_devices", "host", env.vars.note, ev));
    } else {
      out.push_back(
          MakeFinding("container.visible_devices", "host", Severity::kUnknown, env.vars.note, ev));
    }
    return;
  }
  VisibleGpus gpus = Visible(in);
  const auto& vars = *env.vars;
  auto nvidia = vars.find("NVIDIA_VISIBLE_DEVICES");
  auto cuda = vars.find("CUDA_VISIBLE_DEVICES");
  if (nvidia == vars.end() && cuda == vars.end()) {
    out.push_back(MakeFinding("container.visible_devices", "host", Severity::kOk,
                              "NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES are not set: "
                              "every GPU here is visible",
                              {{"source", env.source, ""}}));
    return;
  }
  if (nvidia != vars.end()) CheckNvidiaVisible(in, nvidia->second, gpus, out);
  if (cuda != vars.end()) CheckCudaVisible(in, cuda->second, gpus, out);
}

void CheckRuntime(const CheckInput& in, std::vector<Finding>& out) {
  const ContainerState& c = in.host.container;
  if (!c.in_container) {
    out.push_back(MakeFinding("container.runtime", "host", Severity::kOk,
                              "not in a container (no /.dockerenv, /run/.containerenv, container "
                              "cgroup path or overlay root)"));
    return;
  }
  std::vector<Evidence> ev = {{"runtime", c.runtime, ""}};
  for (const std::string& e : c.evidence) ev.push_back({"evidence", e, ""});
  out.push_back(MakeFinding("container.runtime", "host", Severity::kInfo,
                            fmt::format("running in a {} container ({})", c.runtime,
                                        c.evidence.empty() ? "" : c.evidence.front()),
                            ev));
}

std::string Numbers(const DeviceCgroupAccess& a) {
  if (a.major < 0) return "?";
  return fmt::format("{}:{}", a.major, a.minor);
}

void CheckDeviceCgroup(const CheckInput& in, std::vector<Finding>& out) {
  const DeviceCgroupState& d = in.host.container.device_cgroup;
  if (d.nodes.empty()) return;  // no /dev/nvidia* node: device.nodes reports that
  std::vector<std::string> denied, by_rules, by_probe;
  std::vector<Evidence> ev = {{"cgroup_version", d.version ? std::to_string(d.version) : "?", ""}};
  if (!d.path.empty()) ev.push_back({"cgroup", d.path, ""});
  if (!d.note.empty()) ev.push_back({"note", d.note, ""});
  for (const DeviceCgroupAccess& a : d.nodes) {
    std::string node = fmt::format("{} ({})", a.path, Numbers(a));
    if (a.v1_verdict == "denied") by_rules.push_back(node);
    if (a.probe_errno == EPERM) by_probe.push_back(node);
    if (a.v1_verdict == "denied" || a.probe_errno == EPERM) denied.push_back(a.path);
  }
  if (!by_rules.empty()) {
    ev.push_back({"no_devices_list_rule", Join(by_rules, ", "), "a c MAJOR:MINOR rw rule"});
  }
  if (!by_probe.empty()) ev.push_back({"open_eperm", Join(by_probe, ", "), "opens"});
  if (d.v1_rules.has()) {
    std::vector<std::string> rules = *d.v1_rules;
    if (rules.size() > 6) rules.resize(6);
    ev.push_back({"devices.list", Join(rules, "; "), ""});
  } else if (d.v1_rules.error()) {
    ev.push_back({"devices.list", d.v1_rules.note, ""});
  }
  if (!denied.empty()) {
    out.push_back(MakeFinding("container.device_cgroup", "host", Severity::kFail,
                              fmt::format("{} of {} GPU device node(s) exist but the device cgroup "
                                          "refuses them: {}",
                                          denied.size(), d.nodes.size(), Join(denied, ", ")),
                              ev));
    return;
  }
  if (d.version == 1 && d.v1_rules.error()) {
    out.push_back(MakeFinding("container.device_cgroup", "host", Severity::kUnknown,
                              "the devices cgroup policy could not be read: " + d.v1_rules.note,
                              ev));
    return;
  }
  int probed = 0;
  for (const DeviceCgroupAccess& a : d.nodes) probed += a.probe_errno >= 0;
  std::string how = d.version == 1 && d.v1_rules.has() ? "devices.list allows them"
                    : probed > 0 ? fmt::format("{} opened without EPERM", probed)
                                 : "no denial visible (not probed: outside a container, another "
                                   "process, or not real device nodes)";
  out.push_back(MakeFinding("container.device_cgroup", "host", Severity::kOk,
                            fmt::format("{} GPU device node(s), {}", d.nodes.size(), how), ev));
}

bool IsUnknownError(const GpuInventory& g) {
  return g.state == GpuSourceState::kInitFailed &&
         (g.detail.find("UNKNOWN") != std::string::npos ||
          g.detail.find("Unknown Error") != std::string::npos);
}

void CheckNvmlInContainer(const CheckInput& in, std::vector<Finding>& out) {
  const ContainerState& c = in.host.container;
  if (!c.in_container) return;  // outside a container driver.loaded says it all
  if (IsUnknownError(in.gpus)) {
    std::vector<Evidence> ev = {{"nvml_init", in.gpus.detail, ""}, {"runtime", c.runtime, ""}};
    for (const std::string& e : c.evidence) ev.push_back({"evidence", e, ""});
    int denied = 0;
    for (const DeviceCgroupAccess& a : c.device_cgroup.nodes) {
      denied += a.v1_verdict == "denied" || a.probe_errno == EPERM;
    }
    ev.push_back({"device_nodes_present", std::to_string(c.device_cgroup.nodes.size()), ""});
    ev.push_back({"device_nodes_denied", std::to_string(denied), "0"});
    std::string summary =
        denied > 0 ? fmt::format(
                         "NVML fails with 'Unknown Error' in this {} container and the device "
                         "cgroup refuses {} GPU node(s): the container lost its GPUs (host "
                         "daemon-reload)",
                         c.runtime, denied)
                   : fmt::format(
                         "NVML fails with 'Unknown Error' in this {} container: the known "
                         "lost-GPU state after a host daemon-reload",
                         c.runtime);
    out.push_back(MakeFinding("container.nvml_unknown_error", "host", Severity::kFail,
                              std::move(summary), ev));
    return;
  }
  if (in.gpus.state == GpuSourceState::kOk) {
    out.push_back(MakeFinding("container.nvml_unknown_error", "host", Severity::kOk,
                              "NVML initialised inside the container"));
  }
}

}  // namespace

void CheckContainer(const CheckInput& in, const Policy& /*policy*/, std::vector<Finding>& out) {
  CheckRuntime(in, out);
  CheckVisibility(in, out);
  CheckDeviceCgroup(in, out);
  CheckNvmlInContainer(in, out);
}

}  // namespace gpuvet
