// The Xid table. Codes, meanings and NVIDIA's immediate actions follow NVIDIA's Xid catalogue
// (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, the "Resolution Bucket
// (Immediate Action)" column, r570-r590); codes NVIDIA marks "Unused" on Ampere and newer are
// kept only where its list for Volta and older GPUs still describes them. The class follows
// NVIDIA's action: RESET_GPU, RESTART_BM, RESTART_VM, mechanical checks and the drain workflows
// are critical (fail); IGNORE is informational; application faults (RESTART_APP on a bad
// program) stay application (info); the rest (RESTART_APP on a hardware engine, CONTACT_SUPPORT,
// UPDATE_SWFW, CHECK_UVM) is recoverable (warn).
#include "rules/xid_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace gpuvet {

namespace {

constexpr XidClass kApp = XidClass::kApplication;
constexpr XidClass kInfo = XidClass::kInformational;
constexpr XidClass kRec = XidClass::kRecoverable;
constexpr XidClass kCrit = XidClass::kCritical;
constexpr XidSource kOlder = XidSource::kNvidiaOlder;
constexpr XidSource kNoAction = XidSource::kNvidiaNoAction;

// Actions shared by several codes.
constexpr std::string_view kFixApp =
    "Restart the job and debug the application (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1); "
    "suspect the GPU only if unrelated jobs hit it on this GPU alone.";
constexpr std::string_view kEngineException =
    "Restart the application; if the error repeats across jobs on this GPU, reset the GPU and "
    "report it with nvidia-bug-report.sh.";
constexpr std::string_view kResetGpu =
    "Drain the GPU and reset it (nvidia-smi -r) or reboot; if the Xid returns after the reset, "
    "keep the node drained and report it with nvidia-bug-report.sh.";
constexpr std::string_view kIgnore =
    "No action on the node (NVIDIA: ignore); look at it only if it comes with other Xids or "
    "failing jobs.";
constexpr std::string_view kContactSupport =
    "Restart the job; if it repeats on this GPU, collect nvidia-bug-report.sh and contact "
    "NVIDIA support.";
constexpr std::string_view kGsp =
    "Drain the node and reset the GPU or reboot; update the driver if GSP errors recur on "
    "healthy hardware.";
constexpr std::string_view kNvlink5 =
    "Read the message: a 'Fatal' report needs a GPU reset, repeated 'Nonfatal' ones mean a "
    "degrading link; check `nvidia-smi nvlink -e` and the NVSwitch/fabric-manager logs.";

// Sorted by code; one line per entry: {code, meaning, class, NVIDIA's action, gpuvet's decision}.
constexpr XidInfo kXids[] = {
    {8, "GPU stopped processing (idle timeout)", kRec, "RESTART_APP", kEngineException},
    {11, "invalid or corrupted push buffer stream", kApp, "RESTART_APP", kFixApp},
    {13, "graphics engine exception", kApp, "RESTART_APP", kFixApp},
    {25, "invalid push buffer stream", kApp, "RESTART_APP", kFixApp},
    {31, "GPU memory page fault", kApp, "RESTART_APP", kFixApp},
    {32, "corrupted push buffer stream (PBDMA)", kApp, "RESTART_APP", kFixApp},
    {37, "driver firmware error", kInfo, "IGNORE", kIgnore},
    {38, "driver firmware watchdog timeout", kInfo, "IGNORE", kIgnore},
    {39, "copy engine exception", kRec, "RESTART_APP", kEngineException},
    {40, "copy engine exception", kRec, "RESTART_APP", kEngineException},
    {41, "copy engine exception", kRec, "RESTART_APP", kEngineException},
    // 43: the channel was stopped after an application fault (NVIDIA: IGNORE).
    {43, "GPU stopped processing (channel reset after an application fault)", kApp, "IGNORE",
     kFixApp},
    {44, "graphics engine fault during context switch", kInfo, "IGNORE", kIgnore},
    // 45: NVIDIA's workflow: alone, restart fabric manager; with other Xids, follow those.
    {45, "preemptive channel cleanup", kApp, "WORKFLOW_XID_45",
     "Usually follows a killed process or another Xid: act on that one. Alone and repeated on an "
     "NVSwitch system, restart nvidia-fabricmanager and check the application."},
    {46, "GPU stopped processing (timeout)", kCrit, "RESET_GPU", kResetGpu},
    {48, "double-bit ECC error", kCrit, "WORKFLOW_XID_48",
     "Drain the GPU and reset it so the page is retired or the row remapped; check `nvidia-smi "
     "-q -d ECC,ROW_REMAPPER` and plan an RMA if retirements or remap failures grow."},
    {54, "auxiliary power not connected", kCrit, "CHECK_MECHANICALS",
     "Power the node down and check the GPU's auxiliary power cables and the PSU."},
    {56, "display engine error", kRec, "", kResetGpu, kOlder},
    {57, "framebuffer link training failure", kCrit, "", kResetGpu, kOlder},
    {58, "framebuffer memory error", kCrit, "", kResetGpu, kOlder},
    {60, "video processor exception", kApp, "RESTART_APP", kEngineException},
    {61, "internal micro-controller breakpoint", kCrit, "", kResetGpu, kOlder},
    {62, "internal micro-controller halt", kCrit, "RESET_GPU", kResetGpu},
    // 63: the repair worked (row remapped / page retired); the ECC checks show what is pending.
    {63, "ECC page retirement / row remapping event", kInfo, "IGNORE",
     "No action now: the memory was repaired. Reset the GPU when it is free so a pending remap "
     "takes effect (see the ecc.row_remap finding)."},
    {64, "ECC page retirement / row remapping failure", kCrit, "RESET_GPU",
     "Drain the GPU and reset it; if Xid 64 returns the memory can no longer be repaired: plan an "
     "RMA."},
    {65, "video processor exception", kRec, "", kEngineException, kOlder},
    {66, "illegal access by the driver", kInfo, "IGNORE", kIgnore},
    {67, "illegal access by the driver", kInfo, "IGNORE", kIgnore},
    {68, "video decoder exception", kApp, "RESTART_APP", kFixApp},
    {69, "graphics engine class error", kApp, "RESTART_APP", kFixApp},
    {70, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {71, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {72, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {74, "NVLink error", kCrit, "WORKFLOW_NVLINK_ERR",
     "Drain the node; check `nvidia-smi nvlink -s -e`, reset the GPU (and NVSwitches through "
     "fabric manager) and reseat or replace the link if the Xid repeats."},
    {75, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {76, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {77, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {78, "vGPU start error", kRec, "UPDATE_SWFW",
     "Check the vGPU manager and guest driver versions match; update them."},
    {79, "GPU has fallen off the bus", kCrit, "RESTART_BM",
     "Drain the node and reboot it; if the GPU falls off again, inspect power, riser and "
     "seating (PCIe AER errors in the kernel log point at the link)."},
    {80, "corrupted data sent to the GPU", kApp, "RESTART_APP", kFixApp},
    {82, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {83, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {84, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {85, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {86, "optical flow engine exception", kApp, "RESTART_APP", kEngineException},
    {88, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {89, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {92, "high single-bit ECC error rate", kInfo, "IGNORE",
     "No action now; watch the corrected-error counters (ecc.volatile_sbe) and plan an RMA if the "
     "rate stays high."},
    {93, "InfoROM write wear limit exceeded", kInfo, "IGNORE",
     "Non-fatal; report it to the vendor, as further InfoROM updates (ECC records) may fail."},
    {94, "contained ECC error", kRec, "RESTART_APP",
     "Restart the affected job; reset the GPU when free so the bad row is remapped. Repeats "
     "after resets mean failing memory."},
    {95, "uncontained ECC error", kCrit, "RESET_GPU",
     "Drain the GPU and reset it (reboot if the reset fails); check row remapping and plan an "
     "RMA if it repeats."},
    {96, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {97, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {98, "video decoder exception", kApp, "RESTART_APP", kEngineException},
    {99, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {100, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {101, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {102, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {103, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {104, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    {105, "JPEG engine exception", kApp, "RESTART_APP", kEngineException},
    // 106, 107: the BMC's SMBPBI interface sent a test message.
    {106, "SMBPBI test message", kInfo, "IGNORE", kIgnore},
    {107, "SMBPBI test message (silent)", kInfo, "IGNORE", kIgnore},
    // 109: NVIDIA says RESET_GPU (the k8s device plugin ignores it as an application fault).
    {109, "context switch timeout", kCrit, "RESET_GPU",
     "Drain the GPU and reset it; if it follows one job only, look for a kernel that never "
     "yields."},
    {110, "security fault", kCrit, "RESET_GPU", kResetGpu},
    {119, "GSP RPC timeout", kCrit, "RESET_GPU", kGsp},
    {120, "GSP error", kCrit, "RESET_GPU", kGsp},
    {121, "C2C link error", kInfo, "IGNORE",
     "No action now (the chip-to-chip link corrected it); contact support if it repeats."},
    {126, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {127, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {128, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {129, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {130, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {131, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {132, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {133, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {134, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {135, "copy engine error", kRec, "RESTART_APP", kEngineException},
    {136, "NVLink training failed", kCrit, "RESET_GPU",
     "Drain the GPU and reset it; if link training fails again, inspect the NVLink connection "
     "(signal integrity, cable or tray)."},
    {137, "NVLink privilege error", kInfo, "IGNORE", kIgnore},
    {139, "optical flow engine exception", kApp, "RESTART_APP", kEngineException},
    {140, "unrecovered ECC error", kCrit, "RESET_GPU",
     "Drain the GPU and reset it; check row remapping and plan an RMA if it repeats."},
    {141, "CUDA fast path error", kInfo, "IGNORE", kIgnore},
    {142, "video encoder (NVENC3) error", kRec, "CONTACT_SUPPORT", kContactSupport},
    {143, "GPU initialisation error", kCrit, "RESET_GPU",
     "Reset the GPU or reboot; a GPU that fails to initialise again needs hardware inspection."},
    // 144-150: NVLink5 unit errors; the message says Fatal or Nonfatal (ClassifyXidEvent).
    {144, "NVLink SAW error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {145, "NVLink RLW error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {146, "NVLink TLW error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {147, "NVLink TREX error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {148, "NVLink NVLPW control error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {149, "NVLink NETIR error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {150, "NVLink MSE error", kRec, "WORKFLOW_NVLINK5_ERR", kNvlink5},
    {151, "key rotation error", kCrit, "RESTART_VM",
     "Restart the VM that owns the GPU (confidential computing); contact support if it repeats."},
    // 152, 153: the deep-learning accelerator (DLA, Jetson/Grace platforms).
    {152, "DLA SMMU error", kInfo, "IGNORE", kIgnore},
    {153, "DLA timeout", kInfo, "IGNORE", kIgnore},
    // 154: informs about another Xid; the message names the action (ClassifyXidEvent).
    {154, "GPU recovery action changed", kCrit, "XID_154",
     "Follow the recovery action in the message (reset the GPU, drain, or reboot the node) and "
     "act on the Xid that caused it."},
    {155, "NVLink software-defined error", kCrit, "RESET_GPU", kResetGpu},
    {156, "resource retirement event", kCrit, "RESET_GPU",
     "Drain the GPU and reset it so the retirement takes effect."},
    {157, "resource retirement failure", kInfo, "IGNORE",
     "No action now (NVIDIA: ignore); contact support if it repeats."},
    {158, "GPU fatal timeout", kCrit, "RESET_GPU", kResetGpu},
    {159, "CHI non-data error", kRec, "CHECK_UVM",
     "Check the UVM (unified memory) driver and the application's use of it; contact support if "
     "it repeats."},
    {160, "channel retirement event", kInfo, "IGNORE", kIgnore},
    {161, "channel retirement failure", kInfo, "IGNORE", kIgnore},
    {162, "power smoothing re-engaged", kInfo, "", "Informational; no action unless it flaps.",
     kNoAction},
    {163, "power smoothing disengaged", kRec, "",
     "Watch power behaviour; report it to the vendor if it persists.", kNoAction},
    {164, "power smoothing circuitry low lifetime", kRec, "",
     "Plan a replacement with the vendor before the circuitry's lifetime is exhausted.", kNoAction},
    {165, "power smoothing circuitry lifetime exhausted", kCrit, "",
     "The power smoothing circuitry is worn out: plan an RMA with the vendor.", kNoAction},
    // 166, 170: NVLink in confidential-computing mode.
    {166, "NVLink traffic before encryption was set up", kRec, "",
     "Check the confidential-computing configuration of the NVLink fabric; contact support if it "
     "repeats.",
     kNoAction},
    {167, "PCIe fatal timeout", kCrit, "",
     "Drain the node and reboot; inspect the PCIe link (AER errors, riser, seating) if it "
     "repeats.",
     kNoAction},
    {168, "reduced GPU memory capacity", kCrit, "",
     "Drain the GPU and reset it; plan an RMA if memory capacity stays reduced.", kNoAction},
    {169, "internal micro-controller (SEC2) halt", kCrit, "", kResetGpu, kNoAction},
    {170, "interrupt in confidential-computing mode", kRec, "",
     "Check the confidential-computing configuration of the NVLink fabric; contact support if it "
     "repeats.",
     kNoAction},
    // 171, 172: details of an Xid 48 (DRAM vs SRAM).
    {171, "uncorrectable DRAM error", kCrit, "",
     "Drain the GPU and reset it so the row is remapped; plan an RMA if remapping fails.",
     kNoAction},
    {172, "uncorrectable SRAM error", kCrit, "",
     "Drain the GPU and reset it; repeated SRAM errors need an RMA.", kNoAction},
};

constexpr std::string_view kUnknownAction =
    "Look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors) and act on "
    "its recommended action.";

bool IsNvlink5(int code) { return code >= 144 && code <= 150; }

bool Has(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

}  // namespace

std::string_view XidClassName(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
      return "application";
    case XidClass::kInformational:
      return "informational";
    case XidClass::kRecoverable:
      return "recoverable";
    case XidClass::kCritical:
      return "critical";
  }
  return "recoverable";
}

std::string_view XidSourceName(XidSource s) {
  switch (s) {
    case XidSource::kNvidiaCatalog:
      return "NVIDIA Xid catalogue";
    case XidSource::kNvidiaOlder:
      return "NVIDIA Xid catalogue (Volta and older)";
    case XidSource::kNvidiaNoAction:
      return "NVIDIA Xid catalogue (no action given; gpuvet's judgement)";
  }
  return "NVIDIA Xid catalogue";
}

const XidInfo* FindXid(int code) {
  const XidInfo* it = std::lower_bound(std::begin(kXids), std::end(kXids), code,
                                       [](const XidInfo& x, int c) { return x.code < c; });
  if (it == std::end(kXids) || it->code != code) return nullptr;
  return it;
}

XidInfo ClassifyXid(int code) {
  if (const XidInfo* info = FindXid(code)) return *info;
  return XidInfo{code, "unknown Xid", XidClass::kRecoverable, "", kUnknownAction};
}

XidInfo ClassifyXidEvent(int code, std::string_view detail) {
  XidInfo info = ClassifyXid(code);
  if (IsNvlink5(code)) {
    if (detail == "fatal") {
      info.xid_class = XidClass::kCritical;
      info.nvidia_action = "RESET_GPU";
      info.action =
          "A fatal NVLink5 error: drain the GPU and reset it (with its NVSwitch tray through "
          "fabric manager); if it repeats, inspect the link and contact support.";
    } else if (detail == "nonfatal") {
      info.xid_class = XidClass::kRecoverable;
      info.action =
          "A non-fatal NVLink5 error: no reset needed now; repeated ones mean a degrading link: "
          "watch `nvidia-smi nvlink -e` and the fabric-manager log.";
    }
    return info;
  }
  if (code != 154 || detail.empty()) return info;
  if (detail == "None") {
    info.xid_class = XidClass::kInformational;
    info.nvidia_action = "IGNORE";
    info.action = "The driver cleared the recovery action: nothing more to do for this GPU.";
  } else if (Has(detail, "Reboot")) {
    info.nvidia_action = "RESTART_BM";
    info.action =
        "Drain the node and reboot it: the driver says a GPU reset cannot recover this GPU.";
  } else if (Has(detail, "Drain and Reset")) {
    info.nvidia_action = "RESET_GPU";
    info.action =
        "Drain the GPU (stop its jobs and their peer-to-peer/NVLink traffic), then reset it.";
  } else if (Has(detail, "Drain")) {
    info.action =
        "Drain the GPU's peer-to-peer (NVLink) traffic: stop the jobs using it, then let the "
        "driver recover it.";
  } else if (Has(detail, "Reset") || Has(detail, "FLR")) {
    info.nvidia_action = "RESET_GPU";
    info.action = "Drain the GPU and reset it (nvidia-smi -r): the driver requires a reset.";
  }
  return info;
}

std::span<const XidInfo> XidCatalog() { return kXids; }

std::string XidCatalogMarkdown() {
  std::string out =
      "| Xid | meaning | gpuvet class (severity) | NVIDIA immediate action | gpuvet decision | "
      "source |\n|---|---|---|---|---|---|\n";
  auto severity = [](XidClass c) -> std::string_view {
    switch (c) {
      case XidClass::kApplication:
      case XidClass::kInformational:
        return "info";
      case XidClass::kCritical:
        return "fail";
      case XidClass::kRecoverable:
        break;
    }
    return "warn";
  };
  for (const XidInfo& x : kXids) {
    std::string nvidia =
        x.nvidia_action.empty() ? std::string("—") : fmt::format("`{}`", x.nvidia_action);
    std::string cls = fmt::format("{} ({})", XidClassName(x.xid_class), severity(x.xid_class));
    if (IsNvlink5(x.code))
      cls = "by message: Fatal → critical (fail), Nonfatal → recoverable (warn)";
    if (x.code == 154)
      cls = "by message: None → informational (info), any other action → critical (fail)";
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", x.code, x.name, cls, nvidia, x.action,
                       XidSourceName(x.source));
  }
  return out;
}

}  // namespace gpuvet
