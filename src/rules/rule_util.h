// Helpers every rule uses: subject names, finding construction with the catalogue's severity
// overrides applied later, and lookups that join NVML GPUs to their sysfs PCI functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/gpu_state.h"
#include "core/host_state.h"
#include "core/policy.h"
#include "util/units.h"

namespace gpuvet {

// Input of every rule: the measurements, never the OS.
struct CheckInput {
  const HostState& host;
  const GpuInventory& gpus;
};

// "gpu0 (0000:3b:00.0)".
std::string GpuSubject(const GpuState& gpu);

// The GPU a finding's subject names, read back from the forms rules write: "gpu0 (0000:3b:00.0)"
// and "gpu0" (GpuSubject), "gpu0 upstream bridge 0000:3a:00.0" (the GPU behind the bridge),
// "pci 0000:3b:00.0" (a function NVML did not list). A PCI address is matched first (against the
// NVML GPUs, then the NVIDIA functions sysfs found), then the index; nullopt for any other subject
// ("host", "pid 42", a PCI device that is not a GPU). Rules need not call it: RunRules fills
// Finding::gpu with it, so every rule's subject string stays as it is.
std::optional<FindingGpu> GpuOfSubject(const CheckInput& in, std::string_view subject);

// False for GPUs whose per-GPU checks cannot run: lost (gpu.lost reports them), abandoned after
// an NVML hang, or answering no call at all (gpu.unresponsive / gpu.query_failed report them).
bool Evaluable(const GpuState& gpu);

// The sysfs topology of `gpu` (matched by PCI address), or nullptr.
const GpuPciTopology* FindPci(const HostState& host, std::string_view pci_address);

// Whether a GPU is loaded, for checks whose answer depends on it (an idle GPU lowers its link
// generation and its clocks, and may sit at its power cap for a moment), and the gpu_util_pct
// evidence that says why.
struct GpuActivity {
  bool busy = false;
  Evidence evidence;
};

// Busy at or above `t.busy_util_pct` GPU-Util, unless NVML's GPU-idle clock reason is set.
// Unknown utilisation (`gpu` nullptr: a sysfs-only function; or the reading missing) counts as
// idle, and the evidence says so.
GpuActivity GpuActivityOf(const GpuState* gpu, const Thresholds& t);

// Builds a finding; `id` must be in the catalogue (checked in debug builds and tests).
Finding MakeFinding(std::string_view id, std::string subject, Severity severity,
                    std::string summary, std::vector<Evidence> evidence = {});

// An info finding for a check that could not run on this machine (the input is not exposed, e.g.
// no cpufreq in a VM); its meaning and decision say so instead of the catalogue's problem text.
Finding NotChecked(std::string_view id, std::string subject, std::string summary,
                   std::vector<Evidence> evidence = {});

// The words every rule puts in the summary of an unknown finding about a field a saved capture
// lacks ("PCIe replay counter: field not in the capture").
inline constexpr std::string_view kNotInTheCapture = "not in the capture";

// Gives such a finding a meaning and decision about the gap in the capture, in place of the
// catalogue's text, which describes the problem the check looks for (RunRules applies it).
void ExplainCaptureGap(Finding& f);

// A kernel log time for summaries: "2025-01-21T02:21:33,498559+00:00" -> "2025-01-21T02:21:33";
// other forms as they are.
std::string ShortLogTime(const std::string& time);

// "12.3" style numbers for evidence (sizes: FormatBytes, util/units.h).
std::string FormatNumber(double v, int decimals = 1);
// `v` with `digits` significant digits and no trailing zeros, never in exponent form: 0.25 ->
// "0.25", 2 -> "2", 0.0625 -> "0.0625", 12.345 -> "12.3", 1234.5 -> "1235". For quantities that
// can be small (CPU cores per GPU), where a fixed decimal would round them to 0.2 or 0.0.
std::string FormatSignificant(double v, int digits = 3);

}  // namespace gpuvet
