// Driver-level checks: is the driver usable, does it see every GPU on the bus, do the kernel
// module and library agree, are versions in the allowed set, and did any GPU stop answering.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Number of NVIDIA GPU functions on the PCI bus, or -1 when sysfs could not be read.
int PciGpuCount(const HostState& host) {
  return host.pci_gpus.has() ? static_cast<int>(host.pci_gpus->size()) : -1;
}

bool DriverExpected(const HostState& host) {
  return PciGpuCount(host) > 0 || host.nvidia_module_version.has();
}

void CheckLoaded(const CheckInput& in, std::vector<Finding>& out) {
  const GpuInventory& g = in.gpus;
  const int pci = PciGpuCount(in.host);
  std::vector<Evidence> ev = {{"gpu_source", g.origin, ""}};
  if (pci >= 0) ev.push_back({"pci_nvidia_gpus", std::to_string(pci), ""});
  if (in.host.nvidia_module_version.has()) {
    ev.push_back({"kernel_module", *in.host.nvidia_module_version, ""});
  }
  switch (g.state) {
    case GpuSourceState::kNotRun:
      return;
    case GpuSourceState::kOk: {
      std::string driver = g.driver_version.has()           ? *g.driver_version
                           : NotInCapture(g.driver_version) ? "version not in the capture"
                                                            : "unknown";
      std::string summary = fmt::format(
          "{} GPU(s) via {}; driver {}{}", g.gpus.size(), g.origin, driver,
          g.cuda_driver_version.has() ? ", CUDA " + FormatCudaVersion(*g.cuda_driver_version) : "");
      out.push_back(MakeFinding("driver.loaded", "host", Severity::kOk, summary, ev));
      return;
    }
    case GpuSourceState::kLibraryMissing:
    case GpuSourceState::kDriverNotLoaded: {
      ev.push_back({"detail", g.detail, ""});
      if (!g.from_capture && !DriverExpected(in.host)) {
        Finding f = MakeFinding(
            "driver.loaded", "host", Severity::kInfo,
            "no NVIDIA GPU or driver found on this host: GPU checks skipped, host checks ran", ev);
        f.meaning =
            "There is no NVIDIA GPU on the PCI bus and no NVIDIA driver, so only the host "
            "checks could run.";
        f.decision =
            "Nothing to do if this host is not meant to have GPUs. If it is, check that "
            "the cards are seated and powered (`lspci -d 10de:` lists none) and that the "
            "BIOS enables their slots.";
        out.push_back(std::move(f));
        return;
      }
      std::string why = g.from_capture ? g.detail
                        : g.state == GpuSourceState::kLibraryMissing
                            ? "libnvidia-ml.so.1 could not be loaded"
                            : "the NVIDIA kernel driver is not loaded";
      if (g.from_capture) {
        Finding f = MakeFinding("driver.loaded", "host", Severity::kFail,
                                "the saved nvidia-smi output says: " + why, ev);
        out.push_back(std::move(f));
        return;
      }
      Finding f = MakeFinding(
          "driver.loaded", "host", Severity::kFail,
          fmt::format("{} NVIDIA GPU(s) on the PCI bus but {}", std::max(pci, 0), why), ev);
      out.push_back(std::move(f));
      return;
    }
    case GpuSourceState::kInitFailed: {
      ev.push_back({"detail", g.detail, ""});
      Finding f = MakeFinding("driver.loaded", "host", Severity::kFail,
                              "NVML failed to initialise: " + g.detail, ev);
      if (g.detail.find("UNKNOWN") != std::string::npos ||
          g.detail.find("Unknown") != std::string::npos) {
        f.decision =
            "Inside a container, 'Unknown Error' at NVML initialisation usually means the "
            "container lost its device-cgroup access after a `systemctl daemon-reload` on the "
            "host: restart the container (or pod), and configure the runtime so the devices "
            "survive reloads. On bare metal, check the kernel log and reload the driver.";
      }
      out.push_back(std::move(f));
      return;
    }
    case GpuSourceState::kHung: {
      // A hang is not a missing driver: the library loaded and called into the kernel module,
      // which did not come back. A driver that does not answer is not a healthy node, so this
      // fails (gpu.unresponsive; a policy can lower it to unknown).
      ev.push_back({"detail", g.detail, ""});
      if (!g.budget_exhausted.empty()) ev.push_back({"time_budget", g.budget_exhausted, ""});
      Finding f = MakeFinding("gpu.unresponsive", "host", Severity::kFail,
                              "NVML did not answer: " + g.detail, ev);
      f.meaning =
          "The NVIDIA library loaded but a call into the driver did not return in time: the "
          "driver or a GPU is wedged" +
          std::string(in.host.nvidia_module_version.has()
                          ? " (the kernel module is loaded: /proc/driver/nvidia/version exists)."
                          : ".") +
          " Every CUDA program on this node is likely to hang the same way.";
      f.decision =
          "Drain the node; capture `nvidia-bug-report.sh` (and `dmesg` for Xid lines) while it "
          "is wedged; then reset the GPUs (`nvidia-smi -r`, needs no running GPU processes) or "
          "reboot. Do not reinstall the driver: it is loaded.";
      out.push_back(std::move(f));
      return;
    }
  }
}

bool IsLiveNvml(const GpuInventory& g) { return StartsWith(g.origin, "nvml"); }

void CheckVisible(const CheckInput& in, std::vector<Finding>& out) {
  const GpuInventory& g = in.gpus;
  if (g.state != GpuSourceState::kOk) return;
  int enumerated = static_cast<int>(g.gpus.size());
  if (g.from_capture && g.device_count.has() && *g.device_count > enumerated) {
    // `nvidia-smi -q -x -i N` captures one GPU of several: the others were not asked, not lost.
    // Only a capture that says so (its saved command line) is read that way; one cut short says
    // it is truncated; otherwise a GPU the driver counted has no section: it may be missing.
    std::vector<Evidence> ev = {{"attached_gpus", std::to_string(*g.device_count), ""},
                                {"gpus_in_capture", std::to_string(enumerated), ""}};
    if (g.capture_truncated) {
      Finding f = MakeFinding(
          "driver.gpus_visible", "host", Severity::kUnknown,
          fmt::format("the capture is truncated: it holds {} of {} attached GPUs, the text ends "
                      "inside the last one",
                      enumerated, *g.device_count),
          ev);
      f.decision = "Ask for the whole capture: `nvidia-smi -q > capture.txt` sent as a file.";
      out.push_back(std::move(f));
      return;
    }
    Finding f = MakeFinding(
        "driver.gpus_visible", "host", g.capture_selected ? Severity::kInfo : Severity::kWarn,
        g.capture_selected
            ? fmt::format("capture of selected GPUs (-i) holds {} of {} attached GPUs; the "
                          "others were not captured",
                          enumerated, *g.device_count)
            : fmt::format("capture holds {} of {} attached GPUs: a GPU the driver counts has no "
                          "section (missing, or the capture was taken with -i)",
                          enumerated, *g.device_count),
        ev);
    f.meaning =
        "The driver of the captured host listed more GPUs than the capture holds. `nvidia-smi -q "
        "-i N` captures a single GPU; without -i every attached GPU has a section, so a missing "
        "one was not readable when the capture was taken.";
    f.decision =
        g.capture_selected
            ? "To check every GPU, ask for a capture of all of them: `nvidia-smi -q -x > "
              "capture.xml` (no -i)."
            : "Ask how the capture was taken; if without -i, read the node's kernel log for Xid 79 "
              "or initialisation errors of the missing GPU and check `nvidia-smi -L` on it.";
    out.push_back(std::move(f));
    return;
  }
  if (g.device_count.has() && *g.device_count > enumerated) {
    out.push_back(MakeFinding(
        "driver.gpus_visible", "host", Severity::kFail,
        fmt::format("driver reports {} GPUs but only {} could be opened", *g.device_count,
                    enumerated),
        {{"device_count", std::to_string(*g.device_count), ""},
         {"opened", std::to_string(enumerated), fmt::format("== {}", *g.device_count)}}));
    return;
  }
  if (!IsLiveNvml(g) || !in.host.pci_gpus.has()) {
    out.push_back(MakeFinding("driver.gpus_visible", "host", Severity::kOk,
                              fmt::format("{} GPU(s) enumerated", enumerated),
                              {{"device_count", std::to_string(enumerated), ""}}));
    return;
  }
  std::set<std::string> seen;
  int unidentified = 0;  // GPUs the driver lists but whose address could not be read
  int never_asked = 0;   // of those, GPUs NVML stopped answering for before they were asked
  std::string hang;      // what hung, from the first such GPU
  for (const GpuState& gpu : g.gpus) {
    if (gpu.pci_bus_id.empty()) {
      ++unidentified;
      if (gpu.abandoned) {
        ++never_asked;
        if (hang.empty() && !gpu.failures.empty()) hang = gpu.failures.front().message;
      }
    } else {
      seen.insert(gpu.pci_bus_id);
    }
  }
  std::vector<std::string> missing, elsewhere;
  for (const GpuPciTopology& t : *in.host.pci_gpus) {
    if (seen.count(t.gpu.address)) continue;
    if (t.gpu.driver.empty() || t.gpu.driver == "nvidia") {
      missing.push_back(t.gpu.address);
    } else {
      elsewhere.push_back(fmt::format("{} ({})", t.gpu.address, t.gpu.driver));
    }
  }
  std::vector<Evidence> ev = {{"nvml_gpus", std::to_string(enumerated), ""},
                              {"pci_nvidia_gpus", std::to_string(in.host.pci_gpus->size()), ""}};
  if (!missing.empty() && static_cast<int>(missing.size()) <= unidentified) {
    ev.push_back({"not_matched", Join(missing, ", "), ""});
    ev.push_back({"gpus_without_address", std::to_string(unidentified), ""});
    const char* verb = missing.size() == 1 ? "is" : "are";
    if (never_asked == unidentified) {
      // NVML hung before these GPUs were asked anything: say so, not that they failed to answer.
      if (!hang.empty()) ev.push_back({"first_skipped_call", hang, ""});
      Finding f = MakeFinding(
          "driver.gpus_visible", "host", Severity::kUnknown,
          fmt::format("NVML stopped answering before {} GPU(s) were asked for their PCI address, "
                      "so it is unknown whether {} {} visible to the driver",
                      unidentified, Join(missing, ", "), verb),
          ev);
      f.meaning =
          "An NVML call hung on an earlier GPU, so the driver was not asked about these; "
          "nothing says they are missing.";
      f.decision = "See gpu.unresponsive for the call that hung and what to do about it.";
      out.push_back(std::move(f));
      return;
    }
    out.push_back(MakeFinding(
        "driver.gpus_visible", "host", Severity::kUnknown,
        fmt::format("{} GPU(s) could not report their PCI address, so it is unknown whether {} "
                    "{} visible to the driver",
                    unidentified, Join(missing, ", "), verb),
        ev));
    return;
  }
  if (!missing.empty() && in.host.container.in_container) {
    // /sys is not namespaced: a container sees every GPU of the node on the bus but NVML only
    // those the runtime gave it (container.visible_devices checks the assignment).
    ev.push_back({"not_in_container", Join(missing, ", "), ""});
    out.push_back(MakeFinding(
        "driver.gpus_visible", "host", Severity::kOk,
        fmt::format("{} GPU(s) enumerated: the {} container was given {} of the node's {}",
                    enumerated, in.host.container.runtime, enumerated, in.host.pci_gpus->size()),
        ev));
    return;
  }
  if (!missing.empty()) {
    ev.push_back({"missing_from_driver", Join(missing, ", "), "none"});
    if (unidentified > 0) ev.push_back({"gpus_without_address", std::to_string(unidentified), ""});
    out.push_back(MakeFinding(
        "driver.gpus_visible", "host", Severity::kFail,
        fmt::format("{} of {} NVIDIA GPU(s) on the PCI bus are not visible to the driver: {}",
                    missing.size(), in.host.pci_gpus->size(), Join(missing, ", ")),
        ev));
    return;
  }
  if (!elsewhere.empty()) {
    ev.push_back({"bound_to_other_driver", Join(elsewhere, ", "), ""});
    out.push_back(MakeFinding("driver.gpus_visible", "host", Severity::kInfo,
                              fmt::format("{} GPU(s) bound to another driver (passthrough?): {}",
                                          elsewhere.size(), Join(elsewhere, ", ")),
                              ev));
    return;
  }
  out.push_back(MakeFinding("driver.gpus_visible", "host", Severity::kOk,
                            fmt::format("all {} NVIDIA GPU(s) on the PCI bus are visible to the "
                                        "driver",
                                        enumerated),
                            ev));
}

void CheckExpectedCount(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  if (!policy.expected_gpu_count) return;
  int expected = *policy.expected_gpu_count;
  int have = -1;
  std::string how;
  if (in.gpus.state == GpuSourceState::kOk) {
    have =
        in.gpus.device_count.has() ? *in.gpus.device_count : static_cast<int>(in.gpus.gpus.size());
    how = "driver";
  } else if (in.host.pci_gpus.has()) {
    have = static_cast<int>(in.host.pci_gpus->size());
    how = "PCI bus (driver unavailable)";
  }
  if (have < 0) {
    out.push_back(MakeFinding("gpu.count_expected", "host", Severity::kUnknown,
                              "could not count GPUs: neither the driver nor sysfs answered"));
    return;
  }
  std::vector<Evidence> ev = {{"gpus_found", std::to_string(have), fmt::format("== {}", expected)},
                              {"counted_by", how, ""},
                              {"policy", policy.source, ""}};
  if (have != expected) {
    out.push_back(MakeFinding("gpu.count_expected", "host", Severity::kFail,
                              fmt::format("{} GPU(s) found, policy expects {}", have, expected),
                              ev));
  } else {
    out.push_back(MakeFinding("gpu.count_expected", "host", Severity::kOk,
                              fmt::format("{} GPU(s), as expected", have), ev));
  }
}

void CheckVersionMismatch(const CheckInput& in, std::vector<Finding>& out) {
  const GpuInventory& g = in.gpus;
  if (g.state == GpuSourceState::kInitFailed &&
      g.detail.find("RM_VERSION_MISMATCH") != std::string::npos) {
    std::vector<Evidence> ev = {{"nvml_init", g.detail, ""}};
    if (in.host.nvidia_module_version.has()) {
      ev.push_back({"kernel_module", *in.host.nvidia_module_version, ""});
    }
    out.push_back(MakeFinding("driver.version_mismatch", "host", Severity::kFail,
                              "NVML refuses to start: the kernel module and the library come "
                              "from different driver versions",
                              ev));
    return;
  }
  if (g.state != GpuSourceState::kOk || !IsLiveNvml(g) || !g.driver_version.has() ||
      !in.host.nvidia_module_version.has()) {
    return;
  }
  const std::string& lib = *g.driver_version;
  const std::string& mod = *in.host.nvidia_module_version;
  std::vector<Evidence> ev = {{"kernel_module", mod, "== library"}, {"nvml_library", lib, ""}};
  if (lib != mod) {
    out.push_back(MakeFinding(
        "driver.version_mismatch", "host", Severity::kFail,
        fmt::format("kernel module {} but user-space driver {}: reboot pending?", mod, lib), ev));
  } else {
    out.push_back(MakeFinding("driver.version_mismatch", "host", Severity::kOk,
                              fmt::format("kernel module and library are both {}", lib), ev));
  }
}

bool MatchesAny(const std::vector<std::string>& globs, const std::string& v) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& g) { return GlobMatch(g, v); });
}

void CheckAllowed(std::string_view id, std::string_view what,
                  const std::vector<std::string>& allowed, const Reading<std::string>& version,
                  const Policy& policy, std::vector<Finding>& out) {
  if (allowed.empty()) return;
  if (!version.has()) {
    out.push_back(MakeFinding(
        id, "host", Severity::kUnknown,
        fmt::format("{} unknown: {}", what, version.note.empty() ? "not reported" : version.note)));
    return;
  }
  std::vector<Evidence> ev = {{std::string(what), *version, "in " + Join(allowed, ", ")},
                              {"policy", policy.source, ""}};
  if (MatchesAny(allowed, *version)) {
    out.push_back(MakeFinding(id, "host", Severity::kOk,
                              fmt::format("{} {} is allowed", what, *version), ev));
  } else {
    out.push_back(MakeFinding(
        id, "host", Severity::kFail,
        fmt::format("{} {} is not in the allowed set ({})", what, *version, Join(allowed, ", ")),
        ev));
  }
}

// The call of this GPU that did not return in time (its own hang, or the one the time budget cut
// short), or null when the GPU was only skipped behind a hang elsewhere.
const CallFailure* OwnHang(const GpuState& gpu) {
  for (const CallFailure& f : gpu.failures) {
    if (f.timed_out && f.message.find("skipped") == std::string::npos) return &f;
  }
  return nullptr;
}

// Live NVML answered nothing for this GPU: every call on its handle failed (UNKNOWN, say), none
// returned a value. "Not supported" answers are not failures and never make a GPU unresponsive.
bool AnsweredNothing(const GpuInventory& g, const GpuState& gpu) {
  return IsLiveNvml(g) && gpu.answered_nothing && !gpu.lost && !gpu.abandoned &&
         !gpu.failures.empty();
}

Finding Unresponsive(const GpuState& gpu, std::string summary, std::vector<Evidence> ev) {
  return MakeFinding("gpu.unresponsive", GpuSubject(gpu), Severity::kFail, std::move(summary),
                     std::move(ev));
}

// The PCI address of a GPU NVML named none for (its handle could not be opened), from sysfs:
// NVML numbers the GPUs it counts in PCI bus order, so the index-th NVIDIA-bound GPU on the bus
// when sysfs holds as many as NVML counts and every GPU NVML did name sits at its own place;
// otherwise the one GPU on the bus no NVML GPU names, when only one GPU is unnamed. Empty when
// it cannot be told.
std::string SysfsAddressOf(const CheckInput& in, const GpuState& gpu) {
  if (!gpu.pci_bus_id.empty()) return gpu.pci_bus_id;
  if (!in.host.pci_gpus.has()) return "";
  std::vector<std::string> bus;
  for (const GpuPciTopology& t : *in.host.pci_gpus) {
    if (t.gpu.driver.empty() || t.gpu.driver == "nvidia") bus.push_back(t.gpu.address);
  }
  std::sort(bus.begin(), bus.end());
  const std::vector<GpuState>& gpus = in.gpus.gpus;
  bool in_order = bus.size() == gpus.size();
  std::set<std::string> named;
  int unnamed = 0;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].pci_bus_id.empty()) {
      ++unnamed;
    } else {
      named.insert(gpus[i].pci_bus_id);
      if (in_order && bus[i] != gpus[i].pci_bus_id) in_order = false;
    }
  }
  const auto index = static_cast<size_t>(gpu.index);
  if (in_order && index < bus.size()) return bus[index];
  std::vector<std::string> left;
  for (const std::string& a : bus) {
    if (!named.count(a)) left.push_back(a);
  }
  return unnamed == 1 && left.size() == 1 ? left.front() : "";
}

// "GPU0000:9a:00.0" as nvidia-smi names a GPU it cannot open, or "gpu4" when sysfs cannot say.
std::string HandleName(const GpuState& gpu, const std::string& address) {
  return address.empty() ? fmt::format("gpu{}", gpu.index) : "GPU" + address;
}

// The GPU the driver counts but NVML could not open (nvmlDeviceGetHandleByIndex failed): one
// finding per NVML code, naming the PCI address from sysfs. GPU_IS_LOST is gpu.lost and
// RESET_REQUIRED gpu.reset_required (their own checks); the rest say what the code means.
void AddHandleFinding(const CheckInput& in, const GpuState& gpu, std::vector<Finding>& out) {
  const std::string address = SysfsAddressOf(in, gpu);
  const std::string message = gpu.failures.empty() ? "" : gpu.failures.front().message;
  std::vector<Evidence> ev = {{"call", "nvmlDeviceGetHandleByIndex_v2", ""}};
  if (!message.empty()) ev.push_back({"answer", message, ""});
  ev.push_back({"pci_address", address.empty() ? "unknown" : address + " (from sysfs)", ""});
  ev.push_back(
      {"nvidia_smi",
       fmt::format("Unable to determine the device handle for {}", HandleName(gpu, address)), ""});
  std::string what;
  std::string decision;
  switch (gpu.handle_fault) {
    case GpuFault::kNone:
    case GpuFault::kLost:
    case GpuFault::kResetRequired:
      return;  // gpu.lost / gpu.reset_required report these
    case GpuFault::kNoPermission: {
      Finding f = MakeFinding(
          "gpu.query_failed", GpuSubject(gpu), Severity::kUnknown,
          fmt::format("this process may not open {} (NO_PERMISSION): its checks did not run",
                      HandleName(gpu, address)),
          ev);
      f.decision =
          "Run gpuvet as root, or give its container the GPU's device node "
          "(/dev/nvidiaN) and the device cgroup access; then check again.";
      out.push_back(std::move(f));
      return;
    }
    case GpuFault::kUnknown:
    case GpuFault::kOther:
      what = "the driver counts it but cannot open it: it does not answer its driver";
      break;
    case GpuFault::kTimeout:
      what = "the driver timed out talking to it: it does not answer its driver";
      break;
    case GpuFault::kIrqIssue:
      what = "its interrupts do not reach the kernel (IRQ_ISSUE)";
      decision =
          "Drain the node; read the kernel log for NVRM interrupt and Xid lines; reboot. If it "
          "repeats after a reboot, check the slot, riser and BIOS interrupt settings, then RMA.";
      break;
    case GpuFault::kInsufficientPower:
      what = "its external power is not connected or not delivering (INSUFFICIENT_POWER)";
      decision =
          "Drain the node; check the GPU's auxiliary power cables and the power supplies (the "
          "BMC's PSU events), reseat the power connectors, then check again.";
      break;
    case GpuFault::kCorruptedInforom:
      what = "its InfoROM is corrupted (CORRUPTED_INFOROM)";
      decision =
          "Drain the node and open an RMA with NVIDIA or the system vendor: a corrupted InfoROM "
          "is not fixed by a reset.";
      break;
  }
  Finding f = Unresponsive(gpu,
                           fmt::format("NVML could not open {}{}: {}", HandleName(gpu, address),
                                       message.empty() ? "" : " (" + message + ")", what),
                           ev);
  if (!decision.empty()) f.decision = decision;
  out.push_back(std::move(f));
}

void CheckLostAndFailures(const CheckInput& in, std::vector<Finding>& out) {
  const GpuInventory& g = in.gpus;
  if (g.state != GpuSourceState::kOk) return;
  int lost = 0;
  int silent = 0;  // GPUs that did not answer (hung, answered nothing, or were never read)
  std::vector<std::string> not_read;  // GPUs skipped once the time budget ran out
  for (const GpuState& gpu : g.gpus) {
    const std::string address = SysfsAddressOf(in, gpu);
    const std::string where =
        gpu.pci_bus_id.empty() && !address.empty() ? " at " + address + " (from sysfs)" : "";
    if (gpu.lost) {
      ++lost;
      std::vector<Evidence> ev = {
          {"call", gpu.lost_call, ""}, {"name", gpu.name, ""}, {"uuid", gpu.uuid, ""}};
      if (!where.empty()) ev.push_back({"pci_address", address + " (from sysfs)", ""});
      out.push_back(MakeFinding(
          "gpu.lost", GpuSubject(gpu), Severity::kFail,
          gpu.handle_fault == GpuFault::kLost
              ? fmt::format("the driver reports this GPU{} as lost: it could not be opened "
                            "(nvmlDeviceGetHandleByIndex_v2: GPU_IS_LOST; nvidia-smi prints "
                            "\"Unable to determine the device handle for {}: GPU is lost\")",
                            where, HandleName(gpu, address))
              : fmt::format("the driver reports this GPU{} as lost (NVML_ERROR_GPU_IS_LOST)",
                            where),
          ev));
    }
    if (gpu.reset_required) {
      ++silent;
      std::vector<Evidence> ev = {{"call", gpu.reset_required_call, ""},
                                  {"pci_address", address.empty() ? "unknown" : address, ""}};
      out.push_back(MakeFinding(
          "gpu.reset_required", GpuSubject(gpu), Severity::kFail,
          fmt::format(
              "the driver says this GPU{} needs a reset before it can be used ({}: "
              "RESET_REQUIRED){}",
              where, gpu.reset_required_call,
              address.empty() ? "" : fmt::format("; reset it with `nvidia-smi -r -i {}`", address)),
          ev));
    }
    if (gpu.handle_fault != GpuFault::kNone) {
      if (gpu.handle_fault != GpuFault::kLost && gpu.handle_fault != GpuFault::kResetRequired) {
        ++silent;
      }
      AddHandleFinding(in, gpu, out);
      continue;
    }
    if (gpu.failures.empty() && !gpu.abandoned) continue;
    std::vector<std::string> calls;
    std::vector<Evidence> ev;
    for (const CallFailure& f : gpu.failures) {
      calls.push_back(f.call);
      ev.push_back({f.call, f.message, ""});
    }
    if (const CallFailure* hang = gpu.abandoned ? OwnHang(gpu) : nullptr) {
      ++silent;
      out.push_back(Unresponsive(
          gpu,
          fmt::format("{}: this GPU does not answer its driver, its checks did not run",
                      hang->message),
          ev));
      continue;
    }
    if (AnsweredNothing(g, gpu)) {
      ++silent;
      // Dozens of identical failures say nothing more than their count and the first one.
      ev = {{"failed_calls", std::to_string(calls.size()), ""},
            {gpu.failures.front().call, gpu.failures.front().message, ""}};
      out.push_back(Unresponsive(
          gpu,
          fmt::format("every NVML call on this GPU failed ({}: {}), none answered: it does not "
                      "answer its driver",
                      calls.size() == 1 ? calls.front() : fmt::format("{} calls", calls.size()),
                      gpu.failures.front().message),
          ev));
      continue;
    }
    std::string summary;
    if (gpu.abandoned) {
      ++silent;
      // Skipped behind a hang (here or on an earlier GPU) or after the time budget ran out.
      std::string why = !calls.empty()                ? gpu.failures.front().message
                        : !g.budget_exhausted.empty() ? "the time budget ran out"
                                                      : "an NVML call hung";
      if (!g.budget_exhausted.empty()) not_read.push_back(GpuSubject(gpu));
      summary = fmt::format("NVML stopped answering ({}): this GPU's checks did not run", why);
    } else if (g.from_capture) {
      // A capture has no calls: its "failures" are fields whose text could not be parsed.
      summary = fmt::format(
          "{} field(s) of the capture could not be parsed: {}; checks that need "
          "them are unknown",
          calls.size(), Join(calls, ", "));
    } else {
      summary = fmt::format("{} NVML call(s) failed: {}; checks that need them are unknown",
                            calls.size(), Join(calls, ", "));
    }
    Finding f = MakeFinding("gpu.query_failed", GpuSubject(gpu), Severity::kUnknown, summary, ev);
    if (g.from_capture && !gpu.abandoned) {
      f.meaning =
          "nvidia-smi wrote a value gpuvet cannot read in the capture (garbled, truncated or an "
          "error text in place of the value).";
      f.decision =
          "Check the element named in the evidence; ask for a fresh capture if the file was "
          "edited or cut.";
    }
    out.push_back(std::move(f));
  }
  if (!g.budget_exhausted.empty()) {
    // The overall budget (`check --timeout`) ended the read: a fail naming what did not answer.
    std::vector<Evidence> ev = {{"time_budget", g.budget_exhausted, ""}};
    if (!not_read.empty()) ev.push_back({"not_read", Join(not_read, ", "), ""});
    out.push_back(MakeFinding(
        "gpu.unresponsive", "host", Severity::kFail,
        fmt::format("the time budget of {} ran out before NVML answered{}", g.budget_exhausted,
                    not_read.empty() ? "" : " for " + Join(not_read, ", ")),
        ev));
  }
  if (!g.failures.empty()) {
    std::vector<std::string> calls;
    std::vector<Evidence> ev;
    for (const CallFailure& f : g.failures) {
      calls.push_back(f.call);
      ev.push_back({f.call, f.message, ""});
    }
    out.push_back(MakeFinding("gpu.query_failed", "host", Severity::kUnknown,
                              "NVML system call(s) failed: " + Join(calls, ", "), ev));
  }
  if (lost == 0 && !g.gpus.empty()) {
    out.push_back(
        MakeFinding("gpu.lost", "host", Severity::kOk,
                    silent == 0 ? fmt::format("all {} GPU(s) answered", g.gpus.size())
                                : fmt::format("no GPU reported lost ({} of {} did not answer: see "
                                              "gpu.unresponsive and gpu.query_failed)",
                                              silent, g.gpus.size())));
  }
}

}  // namespace

void CheckDriver(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  CheckLoaded(in, out);
  CheckVisible(in, out);
  CheckVersionMismatch(in, out);
  if (in.gpus.state == GpuSourceState::kOk) {
    CheckAllowed("driver.version_allowed", "driver", policy.allowed_driver_versions,
                 in.gpus.driver_version, policy, out);
    Reading<std::string> cuda;
    if (in.gpus.cuda_driver_version.has()) {
      cuda = Reading<std::string>::Of(FormatCudaVersion(*in.gpus.cuda_driver_version));
    } else if (in.gpus.cuda_driver_version.unsupported()) {
      cuda = Reading<std::string>::Unsupported(in.gpus.cuda_driver_version.note);
    } else {
      cuda = Reading<std::string>::Error(in.gpus.cuda_driver_version.note);
    }
    CheckAllowed("driver.cuda_version_allowed", "CUDA", policy.allowed_cuda_versions, cuda, policy,
                 out);
  }
  CheckExpectedCount(in, policy, out);
  CheckLostAndFailures(in, out);
}

}  // namespace gpuvet
