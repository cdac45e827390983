// What `gpuvet watch` shows for one sample: a full-screen frame for a terminal (one row per GPU
// with its PCIe link and health, a history line per GPU, the processes on each GPU, the host, the
// busiest workload processes and threads, and the verdict line) and a single line per sample for
// pipes and logs. Pure functions of the recording structs; the only terminal codes are the
// optional SGR colours of whole lines.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/recording.h"

namespace gpuvet {

// A GPU's PCIe link as the watch command read it from sysfs.
struct WatchLink {
  std::string text;       // "Gen4 x16", "down", "-" when unreadable
  bool degraded = false;  // width below the GPU's maximum, or the link is down
};

struct WatchViewOptions {
  int width = 120;        // the terminal's columns; rows are cut to it (in characters)
  int max_processes = 8;  // workload processes listed (busiest first)
  std::string verdict;    // the live verdict line; empty: the placeholder text
  std::string clock;      // "2026-11-30 08:50:01 UTC" shown in the title (tests fix it)
  bool color = false;     // ANSI colours: GPU rows by state, the verdict by label
  // The verdict label's severity (LabelSeverity): the verdict line's colour.
  Severity verdict_severity = Severity::kUnknown;
  // Per GPU index: utilisation of the recent samples, oldest first (negative: no answer), drawn as
  // a sparkline; and the PCIe link. Absent GPUs show no history / "-".
  std::map<int, std::vector<double>> util_history;
  std::map<int, WatchLink> links;
};

// The health column of one GPU sample: "ECC-UE 3" (uncorrected ECC errors since the driver
// loaded), "HW-SLOW" (hardware slowdown, thermal or power brake), "thermal" (software thermal
// cap), "no answer" (NVML gave no value at all), else "ok".
std::string GpuHealth(const GpuSample& g);

// A sparkline of 0–100 values with the eight block characters (U+2581…U+2588); a negative value
// (no answer) is a space.
std::string Sparkline(const std::vector<double>& values);

// The frame as lines separated by '\n' (no escape codes; the caller homes the cursor).
std::string RenderWatchFrame(const RecordingMeta& meta, const Sample& sample,
                             const WatchViewOptions& options);

// One line (with its '\n') for a non-terminal stdout:
// "t=2.0s gpu0 util=98% sm=71% mem=45% pwr=650W temp=71C clk=1980MHz | cpu usr=40% sys=8%
//  iowait=2% psi_io=1% | top 1234 python3 180%". Absent values print as "-".
std::string RenderWatchLine(const Sample& sample);

// "sw-power,hw-thermal" for clock_event_reasons bits (core/gpu_state.h clock_reason), "none"
// for 0; idle is left out when other reasons are set.
std::string ClockReasonNames(uint64_t bits);

}  // namespace gpuvet
