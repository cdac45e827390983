// The GPU's own health verdicts (driver 570+): the recovery action the driver asks for, memory it
// can no longer repair, repairs waiting for a reset, the SRAM error threshold and the NVSwitch
// fabric registration; and, in a capture, the fields where nvidia-smi printed its own error text
// ("Unknown Error", "GPU requires reset") instead of a value. NVML, -q and -q -x give the same
// fields (core/gpu_state.h); a field a driver does not report is skipped.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// What the driver's "GPU Recovery Action" asks for, as the decision; nullopt for "None".
struct RecoveryAdvice {
  std::string_view action;  // as nvidia-smi prints it
  Severity severity;
  std::string_view decision;
};

constexpr RecoveryAdvice kRecoveryAdvice[] = {
    {"Reset", Severity::kFail,
     "Reset the GPU now: stop its processes and run `nvidia-smi -r -i <PCI address>` (or reboot "
     "the node); the driver will not run work on it correctly until then."},
    {"GPU Reset", Severity::kFail,
     "Reset the GPU now: stop its processes and run `nvidia-smi -r -i <PCI address>` (or reboot "
     "the node); the driver will not run work on it correctly until then."},
    {"Drain and Reset", Severity::kFail,
     "Drain the node (let running jobs finish, start no new ones), then reset the GPU "
     "(`nvidia-smi -r -i <PCI address>`) and check again."},
    {"Node Reboot Required", Severity::kFail,
     "Drain the node and reboot it: the driver cannot recover this GPU with a GPU reset."},
    {"Reboot", Severity::kFail,
     "Drain the node and reboot it: the driver cannot recover this GPU with a GPU reset."},
    {"Drain P2P", Severity::kFail,
     "Drain the node's peer-to-peer (NVLink/PCIe P2P) work: stop the jobs using P2P on this GPU, "
     "then reset it and check again."},
};

void CheckRecoveryAction(const GpuState& gpu, std::vector<Finding>& out) {
  if (!gpu.recovery_action.has()) return;
  const std::string& action = *gpu.recovery_action;
  const std::string subject = GpuSubject(gpu);
  std::vector<Evidence> ev = {{"gpu_recovery_action", action, "== None"}};
  if (action == "None") {
    out.push_back(MakeFinding("gpu.recovery_action", subject, Severity::kOk,
                              "the driver asks for no recovery action", ev));
    return;
  }
  for (const RecoveryAdvice& a : kRecoveryAdvice) {
    if (action != a.action) continue;
    Finding f = MakeFinding("gpu.recovery_action", subject, a.severity,
                            fmt::format("the driver asks for recovery: {}", action), ev);
    f.decision = std::string(a.decision);
    out.push_back(std::move(f));
    return;
  }
  out.push_back(MakeFinding(
      "gpu.recovery_action", subject, Severity::kWarn,
      fmt::format("the driver reports a recovery action gpuvet does not know: {}", action), ev));
}

void CheckMemoryRepair(const GpuState& gpu, std::vector<Finding>& out) {
  const std::string subject = GpuSubject(gpu);
  if (gpu.unrepairable_memory.has()) {
    const bool bad = *gpu.unrepairable_memory;
    out.push_back(MakeFinding(
        "ecc.unrepairable_memory", subject, bad ? Severity::kFail : Severity::kOk,
        bad ? "the driver reports memory it can no longer repair (Unrepairable Memory: Yes)"
            : "no unrepairable memory",
        {{"unrepairable_memory", bad ? "Yes" : "No", "== No"}}));
  }
  const Reading<bool>& channel = gpu.channel_repair_pending;
  const Reading<bool>& tpc = gpu.tpc_repair_pending;
  if (channel.has() || tpc.has()) {
    std::vector<std::string> pending;
    if (channel.has() && *channel) pending.push_back("channel");
    if (tpc.has() && *tpc) pending.push_back("TPC");
    std::vector<Evidence> ev;
    if (channel.has()) ev.push_back({"channel_repair_pending", *channel ? "Yes" : "No", "== No"});
    if (tpc.has()) ev.push_back({"tpc_repair_pending", *tpc ? "Yes" : "No", "== No"});
    out.push_back(MakeFinding(
        "ecc.repair_pending", subject, pending.empty() ? Severity::kOk : Severity::kWarn,
        pending.empty()
            ? "no repair waiting for a reset"
            : fmt::format("a {} repair waits for the next GPU reset", Join(pending, " and ")),
        ev));
  }
  if (gpu.sram_threshold_exceeded.has()) {
    const bool over = *gpu.sram_threshold_exceeded;
    out.push_back(MakeFinding(
        "ecc.sram_threshold", subject, over ? Severity::kFail : Severity::kOk,
        over ? "uncorrectable SRAM errors passed the driver's threshold (SRAM Threshold Exceeded: "
               "Yes)"
             : "SRAM uncorrectable errors below the driver's threshold",
        {{"sram_threshold_exceeded", over ? "Yes" : "No", "== No"}}));
  }
}

void CheckFabric(const GpuState& gpu, std::vector<Finding>& out) {
  if (!gpu.fabric_state.has()) return;
  const std::string& state = *gpu.fabric_state;
  const std::string status = gpu.fabric_status.has() ? *gpu.fabric_status : "N/A";
  std::vector<Evidence> ev = {{"fabric_state", state, "== Completed"},
                              {"fabric_status", status, "== Success"}};
  Severity sev = Severity::kOk;
  std::string summary;
  if (state == "Completed") {
    if (status == "Success" || status == "N/A") {
      summary = "registered with the NVSwitch fabric";
    } else {
      sev = Severity::kFail;
      summary = fmt::format("NVSwitch fabric registration completed with status {}", status);
    }
  } else {
    sev = Severity::kWarn;
    summary = fmt::format("NVSwitch fabric registration not completed (state {})", state);
  }
  out.push_back(MakeFinding("nvlink.fabric", GpuSubject(gpu), sev, summary, ev));
}

// Fields nvidia-smi prints "Unknown Error" for on sound GPUs (consumer boards' addressing mode,
// the host's maximum link generation behind some switches): info, not a fault.
bool Benign(const CallFailure& f) {
  return f.message == "Unknown Error" && (f.call.find("/addressing_mode") != std::string::npos ||
                                          f.call.find("/max_host_link_gen") != std::string::npos);
}

void CheckErrorValues(const GpuState& gpu, std::vector<Finding>& out) {
  if (gpu.error_values.empty() || gpu.handle_fault != GpuFault::kNone) return;
  const std::string subject = GpuSubject(gpu);
  const int errors = static_cast<int>(gpu.error_values.size());
  if (errors >= 4 && errors * 2 >= gpu.value_fields) {
    // The whole GPU answers so: as live NVML answering UNKNOWN to every call.
    out.push_back(MakeFinding(
        "gpu.unresponsive", subject, Severity::kFail,
        fmt::format("nvidia-smi printed \"{}\" for {} of this GPU's {} fields: it does not answer "
                    "its driver",
                    gpu.error_values.front().message, errors, gpu.value_fields),
        {{"error_fields", std::to_string(errors), ""},
         {"first", gpu.error_values.front().call, ""}}));
    return;
  }
  std::vector<std::string> benign, bad;
  for (const CallFailure& f : gpu.error_values) {
    if (f.message != "Unknown Error") continue;  // gpu.reset_required / gpu.lost report the rest
    (Benign(f) ? benign : bad).push_back(fmt::format("{}: {}", f.call, f.message));
  }
  if (!bad.empty()) {
    out.push_back(MakeFinding("gpu.error_value", subject, Severity::kWarn,
                              fmt::format("nvidia-smi printed an error instead of {} value(s): {}",
                                          bad.size(), Join(bad, "; ")),
                              {{"error_fields", std::to_string(bad.size()), "== 0"}}));
  }
  if (!benign.empty()) {
    Finding f = MakeFinding(
        "gpu.error_value", subject, Severity::kInfo,
        fmt::format("nvidia-smi printed \"Unknown Error\" for {} field(s) it reports so on sound "
                    "GPUs: {}",
                    benign.size(), Join(benign, "; ")),
        {{"error_fields", std::to_string(benign.size()), ""}});
    f.decision = "Nothing to do: these fields are not supported on this GPU or link.";
    out.push_back(std::move(f));
  }
}

}  // namespace

void CheckGpuHealth(const CheckInput& in, const Policy&, std::vector<Finding>& out) {
  if (in.gpus.state != GpuSourceState::kOk) return;
  for (const GpuState& gpu : in.gpus.gpus) {
    CheckErrorValues(gpu, out);
    if (!Evaluable(gpu)) continue;
    CheckRecoveryAction(gpu, out);
    CheckMemoryRepair(gpu, out);
    CheckFabric(gpu, out);
  }
}

}  // namespace gpuvet
