// What `gpuvet watch` shows for one sample: a full-screen frame for a terminal (one row per GPU,
// the host, the busiest workload processes and threads, and the verdict line) and a single line
// per sample for pipes and logs. Pure functions of the recording structs; no terminal codes.
#pragma once

#include <string>

#include "core/recording.h"

namespace gpuvet {

struct WatchViewOptions {
  int width = 120;        // the terminal's columns; rows are cut to it
  int max_processes = 8;  // workload processes listed (busiest first)
  std::string verdict;    // the live verdict line; empty: the placeholder text
  std::string clock;      // "2026-11-30 08:50:01 UTC" shown in the title (tests fix it)
};

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
