#include "analysis/trace/copy_analysis.h"

#include <gtest/gtest.h>

#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TEST(CopyAnalysisTest, DirectionsPageableSyncsAndScalarReads) {
  TraceBuilder b;
  // 1 MB pageable HtoD in 100 µs by a synchronous cudaMemcpy: 10 GB/s.
  b.Copy(CopyKind::kHtoD, 1'000'000, 0, 100, MemKind::kPageable, RuntimeKind::kMemcpy, 0, 110);
  // 3 MB pinned HtoD in 100 µs, async: 30 GB/s.
  b.Copy(CopyKind::kHtoD, 3'000'000, 200, 100, MemKind::kPinned, RuntimeKind::kMemcpyAsync, 150, 5);
  // `.item()`: 4-byte DtoH async, then cudaStreamSynchronize on the same thread.
  b.Copy(CopyKind::kDtoH, 4, 400, 2, MemKind::kPageable, RuntimeKind::kMemcpyAsync, 390, 3);
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 394, 10);
  // A large DtoH with a sync after it is not a scalar read.
  b.Copy(CopyKind::kDtoH, 1 << 20, 500, 50, MemKind::kPinned, RuntimeKind::kMemcpyAsync, 490, 3);
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 494, 60);
  b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, 600, 20);
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 1'000'000);
  ASSERT_EQ(s.directions.size(), 2u);
  EXPECT_EQ(s.directions[0].direction, "HtoD");
  EXPECT_EQ(s.directions[0].count, 2u);
  EXPECT_EQ(s.directions[0].bytes, 4'000'000u);
  EXPECT_EQ(s.directions[0].time_ns, 200'000);
  EXPECT_DOUBLE_EQ(s.directions[0].gb_per_s, 20);
  EXPECT_EQ(s.directions[1].direction, "DtoH");
  EXPECT_EQ(s.pageable_count, 2u);
  EXPECT_EQ(s.pageable_bytes, 1'000'004u);
  EXPECT_EQ(s.pageable_ns, 102'000);
  EXPECT_EQ(s.copy_busy_ns, 252'000);
  ASSERT_EQ(s.syncs.size(), 3u);
  EXPECT_EQ(s.syncs[0].kind, "device");
  EXPECT_EQ(s.syncs[1].kind, "stream");
  EXPECT_EQ(s.syncs[1].count, 2u);
  EXPECT_EQ(s.syncs[1].time_ns, 70'000);
  EXPECT_EQ(s.syncs[2].kind, "memcpy");
  EXPECT_EQ(s.sync_ns, 20'000 + 70'000 + 110'000);
  EXPECT_EQ(s.scalar_reads, 1u);
  EXPECT_EQ(s.scalar_read_ns, 10'000);
  EXPECT_EQ(s.copy_busy_in_span_ns, s.copy_busy_ns);
  EXPECT_EQ(s.sync_in_span_ns, s.sync_ns);

  // The verdict divides by the GPU span (HTA drops the last profiler step): copies and syncs
  // outside it must not count, or a short window reads as "copies take 100 % of the span".
  CopyStats clipped = ComputeCopyStats(t, TraceThresholds{}, 0, 250'000);
  EXPECT_EQ(clipped.copy_busy_ns, 252'000);
  EXPECT_EQ(clipped.copy_busy_in_span_ns, 100'000 + 50'000);
  EXPECT_EQ(clipped.sync_ns, s.sync_ns);
  EXPECT_EQ(clipped.sync_in_span_ns, 110'000);  // only the synchronous cudaMemcpy at 0-110 µs
}

TEST(CopyAnalysisTest, NoCopies) {
  RankTrace t = TraceBuilder().Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 0);
  EXPECT_TRUE(s.directions.empty());
  EXPECT_TRUE(s.syncs.empty());
  EXPECT_EQ(s.copy_busy_ns, 0);
}

}  // namespace
}  // namespace gpuvet
