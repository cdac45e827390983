// The range of trace times the readers accept, so every analysis may add and subtract times
// without overflowing int64 (issue 16: crafted Nsight timestamps overflowed the idle-breakdown
// and launch analyses). Starts lie in [-2^61, 2^62] ns (2^62 ns after the Unix epoch is the year
// 2116; Kineto's epoch-based times are about 2^60.6 today) and durations in [0, 2^42] ns (73
// minutes: longer than any kernel, copy, step or host phase a profiler window holds), so any end
// minus any start stays below 2^63, as does the sum of the durations of up to 2^20 overlapping
// events. A reader counts an event outside the range as one with a malformed time: skipped, with
// the count and first offset in its warning (`trace.input`).
#pragma once

#include <cstdint>

namespace gpuvet {

inline constexpr int64_t kTraceStartMinNs = -(int64_t{1} << 61);
inline constexpr int64_t kTraceStartMaxNs = int64_t{1} << 62;
inline constexpr int64_t kTraceDurationMaxNs = int64_t{1} << 42;

// True when an event starting at `start_ns` and lasting `dur_ns` lies in the accepted range.
inline bool TraceSpanFits(int64_t start_ns, int64_t dur_ns) {
  return start_ns >= kTraceStartMinNs && start_ns <= kTraceStartMaxNs && dur_ns >= 0 &&
         dur_ns <= kTraceDurationMaxNs;
}

}  // namespace gpuvet
