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
  EXPECT_EQ(s.scalar_read_ns, 3'000 + 10'000);  // the copy call's own time and the sync's
  // Blocking: the synchronous cudaMemcpy and the pageable `.item()` copy, whatever its size.
  EXPECT_EQ(s.blocking_copies, 2u);
  EXPECT_EQ(s.blocking_copy_ns, 110'000 + 3'000);
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

// transfer_bound's measure: host<->device copy time not covered by a computation kernel on any
// stream; DtoD copies and communication kernels hide nothing and count for nothing.
TEST(CopyAnalysisTest, ExposedHostCopyTime) {
  TraceBuilder b;
  b.Kernel("ampere_sgemm", 0, 100, 7);
  b.Copy(CopyKind::kHtoD, 1 << 20, 20, 60, MemKind::kPinned, RuntimeKind::kOther, 0, 0, 8);
  b.Copy(CopyKind::kDtoH, 1 << 20, 90, 30, MemKind::kPinned, RuntimeKind::kOther, 0, 0, 8);
  b.Kernel("ncclKernel_AllReduce", 130, 50, 9);  // not compute
  b.Copy(CopyKind::kHtoD, 1 << 20, 140, 20, MemKind::kPinned, RuntimeKind::kOther, 0, 0, 8);
  b.Copy(CopyKind::kDtoD, 64 << 20, 200, 100, MemKind::kDevice, RuntimeKind::kOther, 0, 0, 8);
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 300'000);
  EXPECT_EQ(s.host_copy_in_span_ns, 60'000 + 30'000 + 20'000);
  EXPECT_EQ(s.host_copy_exposed_in_span_ns, 20'000 + 20'000);  // 100-120 and 140-160
  EXPECT_EQ(s.copy_busy_in_span_ns, 110'000 + 100'000);        // the DtoD copy in all copies
  CopyStats clipped = ComputeCopyStats(t, TraceThresholds{}, 0, 110'000);
  EXPECT_EQ(clipped.host_copy_in_span_ns, 60'000 + 20'000);
  EXPECT_EQ(clipped.host_copy_exposed_in_span_ns, 10'000);
}

// Blocking copies: a synchronous cudaMemcpy (any memory) or a pageable cudaMemcpyAsync; a pinned
// cudaMemcpyAsync returns at once.
TEST(CopyAnalysisTest, BlockingCopies) {
  TraceBuilder b;
  b.Copy(CopyKind::kDtoH, 4096, 145'000, 10, MemKind::kPageable, RuntimeKind::kMemcpyAsync, 0,
         145'015);  // waits 145 ms for the stream, then copies
  b.Copy(CopyKind::kHtoD, 1 << 20, 150'000, 100, MemKind::kPinned, RuntimeKind::kMemcpy, 149'990,
         120);
  b.Copy(CopyKind::kHtoD, 1 << 20, 151'000, 100, MemKind::kPinned, RuntimeKind::kMemcpyAsync,
         150'500, 5);
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 200'000'000);
  EXPECT_EQ(s.blocking_copies, 2u);
  EXPECT_EQ(s.blocking_copy_ns, 145'015'000 + 120'000);
  EXPECT_EQ(s.blocking_copy_in_span_ns, s.blocking_copy_ns);
  EXPECT_EQ(s.blocking_copy_max_ns, 145'015'000);
  EXPECT_EQ(
      ComputeCopyStats(t, TraceThresholds{}, 100'000'000, 200'000'000).blocking_copy_in_span_ns,
      45'015'000 + 120'000);
  // Nothing else runs on the GPU: the calls' time less their own copies is the copies' own wait.
  EXPECT_EQ(s.blocking_copy_idle_in_span_ns, 145'005'000 + 20'000);
  EXPECT_EQ(s.blocking_copy_idle_max_ns, 145'005'000);
  EXPECT_EQ(s.dtoh_gpu_waits, 0u);
}

// The issue-28 training step: the host waits ~146 ms inside a 704-byte pageable `.to()`
// (cudaMemcpyAsync DtoH) while the GPU idles, then a short sync reads it. The wait is the copy's
// own: a blocking copy of 146 ms, not "0.0 %, longest 25 µs" charged to the sync.
TEST(CopyAnalysisTest, SmallDtoHWaitIsTheCopysOwn) {
  TraceBuilder b;
  const std::string gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64";
  b.Kernel(gemm, 0, 1000);
  b.Copy(CopyKind::kDtoH, 704, 146'990, 2, MemKind::kPageable, RuntimeKind::kMemcpyAsync, 1000,
         146'000);
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 147'001, 25);
  b.Kernel(gemm, 147'100, 1000);
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 148'100'000);
  EXPECT_EQ(s.scalar_reads, 1u);
  EXPECT_EQ(s.scalar_read_ns, 146'025'000);
  EXPECT_EQ(s.blocking_copies, 1u);
  EXPECT_EQ(s.blocking_copy_ns, 146'000'000);
  EXPECT_EQ(s.blocking_copy_idle_in_span_ns, 146'000'000 - 2'000);
  EXPECT_EQ(s.blocking_copy_idle_max_ns, 146'000'000 - 2'000);
  EXPECT_EQ(s.dtoh_gpu_waits, 0u);
  EXPECT_EQ(s.sync_idle_in_span_ns, 25'000);
}

// `loss.cpu()` into pageable memory behind the step's GEMMs: the call blocks 145 ms while the GPU
// works through its queue. That is a wait for the GPU (an implicit sync), named with the kernel
// it queued behind, and not host-blocked time while the GPU idles.
TEST(CopyAnalysisTest, DtoHWaitingForTheGpuIsNamed) {
  TraceBuilder b;
  const std::string gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64";
  b.Kernel(gemm, 0, 145'000);
  b.Copy(CopyKind::kDtoH, 4096, 145'000, 10, MemKind::kPageable, RuntimeKind::kMemcpyAsync, 0,
         145'015);
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 145'015'000);
  EXPECT_EQ(s.blocking_copies, 1u);
  EXPECT_EQ(s.blocking_copy_idle_in_span_ns, 5'000);
  EXPECT_EQ(s.dtoh_gpu_waits, 1u);
  EXPECT_EQ(s.dtoh_gpu_wait_ns, 145'000'000);
  EXPECT_EQ(s.dtoh_gpu_wait_max_ns, 145'000'000);
  EXPECT_EQ(s.dtoh_gpu_wait_max_bytes, 4096u);
  EXPECT_EQ(s.dtoh_gpu_wait_call, "cudaMemcpy");  // the builder's name for every copy call
  EXPECT_EQ(s.dtoh_gpu_wait_behind, gemm);
}

// sync_stalls' measure: host sync time during which no GPU op runs (union over threads).
TEST(CopyAnalysisTest, SyncTimeWhileTheGpuIdles) {
  TraceBuilder b;
  b.Kernel("ampere_sgemm", 0, 1000);
  b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, 10, 995);  // GPU busy but 5 µs
  b.Kernel("ampere_sgemm", 2000, 100);
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 1500, 700, -1, 1);  // idle 1500-2000
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 1600, 100, -1, 2);  // inside the first
  RankTrace t = b.Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 2100'000);
  EXPECT_EQ(s.sync_ns, 995'000 + 700'000 + 100'000);
  EXPECT_EQ(s.sync_idle_in_span_ns, 5'000 + 500'000);
}

TEST(CopyAnalysisTest, NoCopies) {
  RankTrace t = TraceBuilder().Build();
  CopyStats s = ComputeCopyStats(t, TraceThresholds{}, 0, 0);
  EXPECT_TRUE(s.directions.empty());
  EXPECT_TRUE(s.syncs.empty());
  EXPECT_EQ(s.copy_busy_ns, 0);
  EXPECT_EQ(s.host_copy_exposed_in_span_ns, 0);
  EXPECT_EQ(s.sync_idle_in_span_ns, 0);
  EXPECT_EQ(s.blocking_copies, 0u);
}

}  // namespace
}  // namespace gpuvet
