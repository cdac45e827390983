// The recording timeline of the HTML report: every sample of a recording (core/recording.h)
// reduced to at most `max_buckets` time buckets for drawing (the mean of each bucket; a bucket
// with no reading stays empty, never zero), plus the throttle spans at sample precision. Built by
// `gpuvet report REC` and `analyze/record --html` from the recording itself, so the page shows
// every sample rather than the analysis summary only.
#pragma once

#include <string>
#include <vector>

#include "core/recording.h"

namespace gpuvet::html {

// A drawn line: one value per bucket (NaN: no reading in that bucket).
struct TimelineLine {
  std::string name;
  std::vector<double> y;
};

struct ThrottleSpan {
  double t0 = 0, t1 = 0;  // seconds since the start
  std::string reason;     // "power cap", "thermal", "HW slowdown"
};

struct TimelineGpu {
  int index = 0;
  std::string name;
  bool gpm = false;                    // SM/tensor/DRAM activity was recorded
  std::vector<TimelineLine> activity;  // percent: GPU-Util, SM active, tensor, DRAM
  std::vector<TimelineLine> limits;    // percent of max: power, SM clock, memory used
  std::vector<ThrottleSpan> throttle;
};

// A kernel-log or other event to mark on every chart. Empty on main: recordings do not store
// kernel-log events yet; a reader that fills it gets marks with no change to the renderer.
struct TimelineEvent {
  double t = 0;
  std::string label;
};

struct Timeline {
  double duration_s = 0;
  size_t samples = 0;
  std::vector<double> t;  // bucket centres, seconds since the start
  std::vector<TimelineGpu> gpus;
  std::vector<TimelineLine> host_cpu;  // percent of all CPUs: user+system, iowait
  std::vector<TimelineLine> threads;   // percent of one core, the busiest threads of the run
  std::vector<TimelineLine> disk;      // MB/s, all devices: read, write
  std::vector<TimelineLine> net;       // MB/s, all interfaces: rx, tx
  std::vector<TimelineEvent> events;
};

// `max_buckets` >= 1. Pure; O(samples).
Timeline BuildTimeline(const Recording& recording, size_t max_buckets = 1000);

}  // namespace gpuvet::html
