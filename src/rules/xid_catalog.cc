// The Xid table. Codes, meanings and first actions follow NVIDIA's Xid catalogue
// (docs.nvidia.com/deploy/xid-errors, r570-r590); the application/hardware split also follows
// the k8s-device-plugin ignore list (13, 31, 43, 45, 68, 109) and /work/shared/reference/peers.md.
// Codes NVIDIA marks "unused" are left out and fall back to the unknown entry.
#include "rules/xid_catalog.h"

#include <algorithm>
#include <iterator>

namespace gpuvet {

namespace {

constexpr XidClass kApp = XidClass::kApplication;
constexpr XidClass kRec = XidClass::kRecoverable;
constexpr XidClass kCrit = XidClass::kCritical;

// Actions shared by several codes.
constexpr std::string_view kFixApp =
    "Restart the job and debug the application (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1); "
    "suspect the GPU only if unrelated jobs hit it on this GPU alone.";
constexpr std::string_view kEngineException =
    "Restart the application; if the error repeats across jobs on this GPU, reset the GPU and "
    "report it with nvidia-bug-report.sh.";
constexpr std::string_view kResetGpu =
    "Reset the GPU (nvidia-smi -r) or reboot when it is free; if the Xid returns after the reset, "
    "drain the node and report it with nvidia-bug-report.sh.";
constexpr std::string_view kDriverFirmware =
    "Usually a driver or firmware issue: update to a current driver; reset the GPU if jobs fail "
    "afterwards.";
constexpr std::string_view kNvlink5 =
    "Read the message: a 'Fatal' report needs a GPU reset, repeated 'Nonfatal' ones mean a "
    "degrading link; check `nvidia-smi nvlink -e` and the NVSwitch/fabric-manager logs.";

// Sorted by code; one line per entry: meaning per NVIDIA's Xid catalogue.
constexpr XidInfo kXids[] = {
    // 8: channel idle timeout, the GPU stopped processing.
    {8, "GPU stopped processing (idle timeout)", kRec, kEngineException},
    // 11: invalid or corrupted push buffer stream (application or driver).
    {11, "invalid or corrupted push buffer stream", kApp, kFixApp},
    // 13: graphics engine exception (illegal address, out of range, assert in a kernel).
    {13, "graphics engine exception", kApp, kFixApp},
    // 25: invalid or illegal push buffer stream.
    {25, "invalid push buffer stream", kApp, kFixApp},
    // 31: GPU memory page fault (MMU fault), almost always an illegal access by the program.
    {31, "GPU memory page fault", kApp, kFixApp},
    // 32: invalid or corrupted push buffer stream, seen by the PBDMA.
    {32, "corrupted push buffer stream (PBDMA)", kApp, kFixApp},
    // 37, 38: driver firmware errors.
    {37, "driver firmware error", kRec, kDriverFirmware},
    {38, "driver firmware watchdog timeout", kRec, kDriverFirmware},
    // 39-41: copy engine exceptions.
    {39, "copy engine exception", kRec, kEngineException},
    {40, "copy engine exception", kRec, kEngineException},
    {41, "copy engine exception", kRec, kEngineException},
    // 43: the GPU stopped a channel after a fault of the application (reset channel verif).
    {43, "GPU stopped processing (channel reset after an application fault)", kApp, kFixApp},
    // 44: graphics engine fault during a context switch.
    {44, "graphics engine fault during context switch", kRec, kResetGpu},
    // 45: preemptive cleanup after earlier errors or a killed process.
    {45, "preemptive channel cleanup", kApp,
     "Usually follows a killed process or another Xid: act on that one. Alone and repeated, "
     "restart the job and check the application."},
    // 46: GPU stopped processing; the catalogue's first step is a GPU reset.
    {46, "GPU stopped processing (timeout)", kRec, kResetGpu},
    // 48: double-bit (uncorrectable) ECC error.
    {48, "double-bit ECC error", kCrit,
     "Drain the GPU and reset it so the page is retired or the row remapped; check `nvidia-smi "
     "-q -d ECC,ROW_REMAPPER` and plan an RMA if retirements or remap failures grow."},
    // 54: auxiliary power not connected to the board.
    {54, "auxiliary power not connected", kCrit,
     "Power the node down and check the GPU's auxiliary power cables and the PSU."},
    // 56-58: display engine / framebuffer link and memory errors (older boards).
    {56, "display engine error", kRec, kResetGpu},
    {57, "framebuffer link training failure", kCrit, kResetGpu},
    {58, "framebuffer memory error", kCrit, kResetGpu},
    // 60: video processor exception.
    {60, "video processor exception", kApp, kEngineException},
    // 61: internal micro-controller (PMU) breakpoint.
    {61, "internal micro-controller breakpoint", kCrit, kResetGpu},
    // 62: internal micro-controller (PMU) halt.
    {62, "internal micro-controller halt", kCrit, kResetGpu},
    // 63: ECC page retirement or row remapping recorded (contained; applied at next reset).
    {63, "ECC page retirement / row remapping event", kRec,
     "Reset the GPU when it is free so the retirement or remap takes effect; watch the counts "
     "with `nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER`."},
    // 64: page retirement or row remapping could not be recorded.
    {64, "ECC page retirement / row remapping failure", kRec,
     "Reset the GPU; if Xid 64 returns the memory can no longer be repaired: drain the GPU and "
     "plan an RMA."},
    // 65: video processor exception.
    {65, "video processor exception", kRec, kEngineException},
    // 66, 67: illegal register access by the driver.
    {66, "illegal access by the driver", kRec, kDriverFirmware},
    {67, "illegal access by the driver", kRec, kDriverFirmware},
    // 68: NVDEC0 (video decoder) exception, usually a bad input stream.
    {68, "video decoder exception", kApp, kFixApp},
    // 69: graphics engine class error (bad method from the application).
    {69, "graphics engine class error", kApp, kFixApp},
    // 70-72, 75-77: copy engine errors.
    {70, "copy engine error", kRec, kEngineException},
    {71, "copy engine error", kRec, kEngineException},
    {72, "copy engine error", kRec, kEngineException},
    // 74: NVLink error (link down, CRC or replay failure).
    {74, "NVLink error", kCrit,
     "Drain the node; check `nvidia-smi nvlink -s -e`, reset the GPU (and NVSwitches through "
     "fabric manager) and reseat or replace the link if the Xid repeats."},
    {75, "copy engine error", kRec, kEngineException},
    {76, "copy engine error", kRec, kEngineException},
    {77, "copy engine error", kRec, kEngineException},
    // 78: vGPU start error.
    {78, "vGPU start error", kRec, "Check the vGPU manager and guest driver versions match."},
    // 79: the GPU stopped answering on PCIe.
    {79, "GPU has fallen off the bus", kCrit,
     "Drain the node and reboot it; if the GPU falls off again, inspect power, riser and "
     "seating (PCIe AER errors in the kernel log point at the link)."},
    // 80: corrupted data sent to the GPU (push buffer CRC mismatch).
    {80, "corrupted data sent to the GPU", kApp, kFixApp},
    // 82-89, 96-105: video/JPEG/optical-flow engine exceptions.
    {82, "JPEG engine exception", kApp, kEngineException},
    {83, "video decoder exception", kApp, kEngineException},
    {84, "video decoder exception", kApp, kEngineException},
    {85, "copy engine error", kRec, kEngineException},
    {86, "optical flow engine exception", kApp, kEngineException},
    {88, "video decoder exception", kApp, kEngineException},
    {89, "video decoder exception", kApp, kEngineException},
    // 92: high rate of single-bit (corrected) ECC errors.
    {92, "high single-bit ECC error rate", kRec,
     "Watch the corrected-error counters; reset the GPU when free and plan an RMA if the rate "
     "stays high."},
    // 93: InfoROM wear limit exceeded (non-fatal).
    {93, "InfoROM write wear limit exceeded", kRec,
     "Non-fatal; report it to the vendor, as further InfoROM updates (ECC records) may fail."},
    // 94: contained ECC error: only the affected application was stopped.
    {94, "contained ECC error", kRec,
     "Restart the affected job; reset the GPU when free so the bad row is remapped. Repeats "
     "after resets mean failing memory."},
    // 95: uncontained ECC error: every process on the GPU is affected.
    {95, "uncontained ECC error", kCrit,
     "Drain the GPU and reset it (reboot if the reset fails); check row remapping and plan an "
     "RMA if it repeats."},
    {96, "video decoder exception", kApp, kEngineException},
    {97, "video decoder exception", kApp, kEngineException},
    {98, "video decoder exception", kApp, kEngineException},
    {99, "JPEG engine exception", kApp, kEngineException},
    {100, "JPEG engine exception", kApp, kEngineException},
    {101, "JPEG engine exception", kApp, kEngineException},
    {102, "JPEG engine exception", kApp, kEngineException},
    {103, "JPEG engine exception", kApp, kEngineException},
    {104, "JPEG engine exception", kApp, kEngineException},
    {105, "JPEG engine exception", kApp, kEngineException},
    // 109: context switch timeout; usually a kernel that does not yield (k8s ignore list).
    {109, "context switch timeout", kApp,
     "Restart the job and look for a kernel that never yields; if unrelated jobs hit it, reset "
     "the GPU."},
    // 110: security fault.
    {110, "security fault", kRec, kResetGpu},
    // 119: a call to the GPU System Processor (GSP) firmware timed out.
    {119, "GSP RPC timeout", kCrit,
     "Drain the node and reset the GPU or reboot; update the driver if GSP errors recur on "
     "healthy hardware."},
    // 120: GSP firmware error.
    {120, "GSP error", kCrit,
     "Drain the node and reset the GPU or reboot; update the driver if GSP errors recur on "
     "healthy hardware."},
    // 121: chip-to-chip (Grace Hopper C2C) link error.
    {121, "C2C link error", kRec, kResetGpu},
    // 126-135: copy engine errors.
    {126, "copy engine error", kRec, kEngineException},
    {127, "copy engine error", kRec, kEngineException},
    {128, "copy engine error", kRec, kEngineException},
    {129, "copy engine error", kRec, kEngineException},
    {130, "copy engine error", kRec, kEngineException},
    {131, "copy engine error", kRec, kEngineException},
    {132, "copy engine error", kRec, kEngineException},
    {133, "copy engine error", kRec, kEngineException},
    {134, "copy engine error", kRec, kEngineException},
    {135, "copy engine error", kRec, kEngineException},
    // 136: NVLink link training failed.
    {136, "NVLink training failed", kCrit,
     "Reset the GPU; if link training fails again, inspect the NVLink connection."},
    // 137: NVLink privilege error.
    {137, "NVLink privilege error", kRec, kDriverFirmware},
    // 139: optical flow engine exception.
    {139, "optical flow engine exception", kApp, kEngineException},
    // 140: uncorrectable ECC error escaped containment.
    {140, "unrecovered ECC error", kCrit,
     "Drain the GPU and reset it; check row remapping and plan an RMA if it repeats."},
    // 141: CUDA fast path error.
    {141, "CUDA fast path error", kRec, kDriverFirmware},
    // 143: GPU initialisation error.
    {143, "GPU initialisation error", kCrit,
     "Reset the GPU or reboot; a GPU that fails to initialise again needs hardware inspection."},
    // 144-150: NVLink5 unit errors (SAW, RLW, TLW, TREX, NVLPW, NETIR, MSE); the message says
    // Fatal or Nonfatal.
    {144, "NVLink SAW error", kRec, kNvlink5},
    {145, "NVLink RLW error", kRec, kNvlink5},
    {146, "NVLink TLW error", kRec, kNvlink5},
    {147, "NVLink TREX error", kRec, kNvlink5},
    {148, "NVLink NVLPW control error", kRec, kNvlink5},
    {149, "NVLink NETIR error", kRec, kNvlink5},
    {150, "NVLink MSE error", kRec, kNvlink5},
    // 151: confidential computing key rotation error.
    {151, "key rotation error", kRec, "Restart the VM that owns the GPU."},
    // 154: the driver changed the GPU's recovery action (informs about another Xid).
    {154, "GPU recovery action changed", kRec,
     "Follow the recovery action in the message (reset the GPU, or reboot the node) and act on "
     "the Xid that caused it."},
    // 155: NVLink software-defined error.
    {155, "NVLink software-defined error", kRec, kResetGpu},
    // 156, 157: resource retirement event / failure.
    {156, "resource retirement event", kRec,
     "Reset the GPU when it is free so the retirement takes effect."},
    {157, "resource retirement failure", kCrit,
     "Drain the GPU and reset it; if the failure repeats, plan an RMA."},
    // 158: GPU fatal timeout.
    {158, "GPU fatal timeout", kCrit, kResetGpu},
    // 159: CHI non-data error (Grace systems).
    {159, "CHI non-data error", kRec, kResetGpu},
    // 160, 161: channel retirement event / failure.
    {160, "channel retirement event", kRec, kDriverFirmware},
    {161, "channel retirement failure", kRec, kDriverFirmware},
    // 162-165: power smoothing circuitry state and lifetime.
    {162, "power smoothing re-engaged", kRec, "Informational; no action unless it flaps."},
    {163, "power smoothing disengaged", kRec,
     "Watch power behaviour; report it to the vendor if it persists."},
    {164, "power smoothing circuitry low lifetime", kRec,
     "Plan a replacement with the vendor before the circuitry's lifetime is exhausted."},
    {165, "power smoothing circuitry lifetime exhausted", kCrit,
     "The power smoothing circuitry is worn out: plan an RMA with the vendor."},
    // 167: PCIe fatal timeout.
    {167, "PCIe fatal timeout", kCrit,
     "Drain the node and reboot; inspect the PCIe link (AER errors, riser, seating) if it "
     "repeats."},
    // 168: errors in the write-protected region reduced usable GPU memory.
    {168, "reduced GPU memory capacity", kCrit,
     "Drain the GPU and reset it; plan an RMA if memory capacity stays reduced."},
    // 169: SEC2 micro-controller halt.
    {169, "internal micro-controller (SEC2) halt", kCrit, kResetGpu},
    // 171, 172: details of an Xid 48 (DRAM vs SRAM).
    {171, "uncorrectable DRAM error", kCrit,
     "Drain the GPU and reset it so the row is remapped; plan an RMA if remapping fails."},
    {172, "uncorrectable SRAM error", kCrit,
     "Drain the GPU and reset it; repeated SRAM errors need an RMA."},
};

constexpr std::string_view kUnknownAction =
    "Look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors) and act on "
    "its recommended action.";

}  // namespace

std::string_view XidClassName(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
      return "application";
    case XidClass::kRecoverable:
      return "recoverable";
    case XidClass::kCritical:
      return "critical";
  }
  return "recoverable";
}

const XidInfo* FindXid(int code) {
  const XidInfo* it = std::lower_bound(std::begin(kXids), std::end(kXids), code,
                                       [](const XidInfo& x, int c) { return x.code < c; });
  if (it == std::end(kXids) || it->code != code) return nullptr;
  return it;
}

XidInfo ClassifyXid(int code) {
  if (const XidInfo* info = FindXid(code)) return *info;
  return XidInfo{code, "unknown Xid", XidClass::kRecoverable, kUnknownAction};
}

std::span<const XidInfo> XidCatalog() { return kXids; }

}  // namespace gpuvet
