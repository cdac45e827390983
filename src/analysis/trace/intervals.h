// Interval arithmetic on GPU activity: merging overlapping [start, end) ranges into a union and
// measuring unions, intersections and clipped lengths. Every "busy time" in the trace analyses is
// a union, never a sum, so that concurrent streams are not counted twice.
#pragma once

#include <cstdint>
#include <vector>

namespace gpuvet {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;  // exclusive; end >= start
};

// Sorts and merges overlapping or touching intervals (HTA merge_kernel_intervals); the result is
// sorted by start and disjoint. Intervals with end < start are treated as empty.
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);

// Sum of lengths of merged (disjoint) intervals.
int64_t TotalLength(const std::vector<Interval>& merged);

// Length of the intersection of two merged interval lists.
int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Length of a merged list inside [lo, hi).
int64_t ClippedLength(const std::vector<Interval>& merged, int64_t lo, int64_t hi);

}  // namespace gpuvet
