// The recording timeline of the HTML report: every sample of a recording (core/recording.h)
// reduced to at most `max_buckets` time buckets for drawing (the mean of each bucket; a bucket
// with no reading stays empty, never zero), plus the throttle spans at sample precision and the
// recording's events as marks. Built by `gpuvet report REC` and `analyze/record --html` from the
// recording itself, so the page shows every sample rather than the analysis summary only; the
// TimelineBuilder takes the samples one at a time (two passes), so memory does not grow with the
// length of the recording.
#pragma once

#include <memory>
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

// A kernel-log event or recorder fault (RecordingEvent) to mark on every chart.
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

// Builds a Timeline from samples given one at a time, in two passes over the same samples in
// the same order: Scan() each (the extent and the busiest threads), then Start(), then Add()
// each, then Finish(). Memory: O(buckets × lines + distinct threads), not O(samples).
class TimelineBuilder {
 public:
  explicit TimelineBuilder(size_t max_buckets = 1000);
  TimelineBuilder(const TimelineBuilder&) = delete;
  TimelineBuilder& operator=(const TimelineBuilder&) = delete;
  ~TimelineBuilder();

  // First pass.
  void Scan(const Sample& s);
  // Between the passes: fixes the buckets. `meta` must outlive the builder.
  void Start(const RecordingMeta& meta);
  // Second pass (after Start).
  void Add(const Sample& s);
  // The timeline, with `events` (by time) as marks: at most 500, the last one saying how many
  // more there were.
  Timeline Finish(const std::vector<RecordingEvent>& events);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole recording through a TimelineBuilder. `max_buckets` >= 1. Pure; O(samples).
Timeline BuildTimeline(const Recording& recording, size_t max_buckets = 1000);

}  // namespace gpuvet::html
