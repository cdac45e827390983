#include "analysis/trace/verdict.h"

#include <gtest/gtest.h>

#include "analysis/trace/analyze.h"
#include "core/bottleneck.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

const Finding* Find(const TraceReport& r, const std::string& id, const std::string& subject) {
  for (const Finding& f : r.findings) {
    if (f.id == id && f.subject == subject) return &f;
  }
  return nullptr;
}

RankTrace WithRank(RankTrace t, int rank) {
  t.rank = rank;
  t.source = "dir/rank" + std::to_string(rank) + ".json";
  return t;
}

// 200 kernels of 100 µs, each launched 100 µs after the previous one ended: idle ~50 %, all host
// wait, kernels far longer than their 5 µs launch.
RankTrace HostBound() {
  TraceBuilder b;
  double t = 0;
  for (int i = 0; i < 200; ++i) {
    b.Launched("ampere_sgemm", t - 2, 5, t + 5, 100);
    t += 205;
  }
  return b.Build();
}

// 200 kernels of 2 µs, each taking a 10 µs launch: the GPU waits for every launch.
RankTrace LaunchBound() {
  TraceBuilder b;
  for (int i = 0; i < 200; ++i)
    b.Launched("vectorized_elementwise_kernel", i * 10, 10, i * 10 + 8, 2);
  return b.Build();
}

// 200 back-to-back 100 µs GEMMs queued long before they run.
RankTrace ComputeBound() {
  TraceBuilder b;
  for (int i = 0; i < 200; ++i) b.Launched("ampere_sgemm", i, 5, 1000 + i * 100, 100);
  return b.Build();
}

TEST(VerdictTest, HostBound) {
  TraceReport r = AnalyzeTraces({WithRank(HostBound(), 0)}, TraceOptions{});
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.ranks[0].verdict.confidence, "high");
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  const Finding* f = Find(r, "trace.host_cpu_bound", "rank 0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_NE(f->summary.find("of idle is host wait"), std::string::npos);
  EXPECT_EQ(Find(r, "trace.launch_bound", "rank 0")->severity, Severity::kOk);
  EXPECT_EQ(Find(r, "trace.idle", "rank 0")->severity, Severity::kInfo);
  EXPECT_EQ(Find(r, "trace.comm_bound", "rank 0")->summary,
            "no communication kernels: not applicable");
  EXPECT_EQ(Find(r, "trace.compute_bound", "rank 0"), nullptr);
  EXPECT_EQ(r.worst, Severity::kWarn);
}

TEST(VerdictTest, LaunchBound) {
  TraceReport r = AnalyzeTraces({WithRank(LaunchBound(), 0)}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kLaunchBound);
  EXPECT_EQ(Find(r, "trace.launch_bound", "rank 0")->severity, Severity::kWarn);
  EXPECT_EQ(Find(r, "trace.host_cpu_bound", "rank 0")->severity, Severity::kOk);
}

TEST(VerdictTest, ComputeBoundIsInfo) {
  TraceReport r = AnalyzeTraces({WithRank(ComputeBound(), 0)}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kComputeBound);
  EXPECT_GT(r.ranks[0].verdict.share_pct, 99);
  const Finding* f = Find(r, "trace.compute_bound", "rank 0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(r.worst, Severity::kInfo);
}

// A transformer forward that is mostly elementwise and copy kernels (issue 28: GEMM 17 %,
// direct_copy_kernel_cuda 22 %): compute-bound, but the advice is to fuse and remove copies, not
// lower precision alone.
TEST(VerdictTest, ComputeBoundAdviceFollowsTheKernelMix) {
  const std::string copy =
      "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
      "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
      "const::{lambda()"
      "#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&)::{lambda(int)#"
      "1}>(int, at::native::gpu_kernel_impl_nocast<int>)";
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::CUDAFunctor_add<c10::BFloat16>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
      "3ul>)";
  TraceBuilder b;
  double t = 1000;
  for (int i = 0; i < 100; ++i) {
    b.Launched("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", i * 3, 2, t, 17);
    b.Launched(copy, i * 3 + 1, 2, t + 17, 22);
    b.Launched(add, i * 3 + 2, 2, t + 39, 61);
    t += 100;
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  ASSERT_EQ(r.ranks[0].verdict.label, Bottleneck::kComputeBound) << r.ranks[0].verdict.reason;
  const Finding* f = Find(r, "trace.compute_bound", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("elementwise, reduction and copy kernels take 83.0 %"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->decision.find("fuse them"), std::string::npos) << f->decision;
  EXPECT_NE(f->decision.find("copies 22.0 %"), std::string::npos) << f->decision;

  // The same GEMMs alone: the advice is precision and tensor cores.
  TraceReport g = AnalyzeTraces({WithRank(ComputeBound(), 0)}, TraceOptions{});
  const Finding* fg = Find(g, "trace.compute_bound", "rank 0");
  ASSERT_NE(fg, nullptr);
  EXPECT_NE(fg->decision.find("lower precision"), std::string::npos) << fg->decision;
}

TEST(VerdictTest, CpuOnlyRankAndTruncatedRank) {
  RankTrace cpu = WithRank(TraceBuilder().Build(), 1);
  RankTrace cut = WithRank(ComputeBound(), 0);
  cut.truncated = true;
  cut.warnings.push_back("dir/rank0.json: byte 1234: file ends inside an event");
  TraceReport r = AnalyzeTraces({cut, cpu}, TraceOptions{});
  const Finding* in0 = Find(r, "trace.input", "rank 0");
  ASSERT_NE(in0, nullptr);
  EXPECT_EQ(in0->severity, Severity::kWarn);
  EXPECT_EQ(r.ranks[0].verdict.confidence, "low");
  const Finding* in1 = Find(r, "trace.input", "rank 1");
  ASSERT_NE(in1, nullptr);
  EXPECT_EQ(in1->severity, Severity::kInfo);
  EXPECT_NE(in1->summary.find("CPU-only"), std::string::npos);
  EXPECT_EQ(Find(r, "trace.idle", "rank 1"), nullptr);  // nothing else for a CPU-only rank
  EXPECT_EQ(r.ranks[1].verdict.label, Bottleneck::kNoGpuActivity);
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);  // the only GPU rank decides
}

TEST(VerdictTest, AcceleratorWithoutDeviceTimelineIsUnsupportedNotCpuOnly) {
  RankTrace hpu = WithRank(TraceBuilder().Build(), 0);
  hpu.device_type = "hpu";
  hpu.unanalysed.push_back({"hpu_op", "hpu", 12000});
  TraceReport r = AnalyzeTraces({hpu}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kUnsupportedDevice) << r.verdict.reason;
  const Finding* f = Find(r, "trace.unsupported_device", "rank 0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_NE(f->summary.find("12000 HPU event(s) (12000 hpu_op)"), std::string::npos) << f->summary;
  EXPECT_EQ(f->summary.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  for (const Finding& g : r.findings) {
    EXPECT_EQ(g.summary.find("CPU-only rank:"), std::string::npos) << g.summary;
  }
}

TEST(VerdictTest, AnalysedAcceleratorWithSamplesKeepsItsVerdict) {
  RankTrace mtia = WithRank(ComputeBound(), 0);
  mtia.device_type = "mtia";
  mtia.unanalysed.push_back({"mtia_insight", "mtia", 40});
  TraceReport r = AnalyzeTraces({mtia}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);
  const Finding* f = Find(r, "trace.unsupported_device", "rank 0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
}

TEST(VerdictTest, SubjectIsFileNameWhenRankUnknown) {
  RankTrace t = ComputeBound();
  t.source = "/some/dir/worker0.pt.trace.json.gz";
  TraceReport r = AnalyzeTraces({t}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].subject, "worker0.pt.trace.json.gz");
  EXPECT_NE(Find(r, "trace.input", "worker0.pt.trace.json.gz"), nullptr);
}

TEST(VerdictTest, BottleneckOnAnyRankWinsOverall) {
  TraceReport r = AnalyzeTraces(
      {WithRank(ComputeBound(), 0), WithRank(ComputeBound(), 1), WithRank(HostBound(), 2)},
      TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(r.verdict.reason, "1 of 3 GPU ranks");
}

TEST(VerdictTest, TooShortAWindowGetsNoLabel) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) b.Launched("ampere_sgemm", i * 20, 5, i * 20 + 6, 10);
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kInsufficientData);
  EXPECT_EQ(r.verdict.label, Bottleneck::kInsufficientData);
  // Only the input finding: shares of a 50 µs window would be noise.
  ASSERT_EQ(r.findings.size(), 1u) << r.findings.back().id << ": " << r.findings.back().summary;
  EXPECT_EQ(r.findings[0].id, "trace.input");
  EXPECT_EQ(r.findings[0].severity, Severity::kInfo);
  // Any rank with a real label decides the overall verdict.
  TraceBuilder tiny;
  tiny.Launched("ampere_sgemm", 0, 5, 6, 10);
  TraceReport mixed =
      AnalyzeTraces({WithRank(tiny.Build(), 0), WithRank(ComputeBound(), 1)}, TraceOptions{});
  EXPECT_EQ(mixed.verdict.label, Bottleneck::kComputeBound);
}

TEST(VerdictTest, TwoFilesOfOneRankAreSeparateRuns) {
  RankTrace a = WithRank(HostBound(), 0), b = WithRank(ComputeBound(), 0);
  a.source = "before.json";
  b.source = "after.json";
  TraceReport r = AnalyzeTraces({a, b}, TraceOptions{});
  ASSERT_EQ(r.cross.duplicate_ranks.size(), 1u);
  EXPECT_EQ(r.cross.duplicate_ranks[0].second,
            (std::vector<std::string>{"before.json", "after.json"}));
  EXPECT_TRUE(r.cross.lateness.empty());
  EXPECT_EQ(r.ranks[0].subject, "rank 0 (before.json)");
  EXPECT_EQ(r.ranks[1].subject, "rank 0 (after.json)");
  const Finding* f = Find(r, "trace.input", "rank 0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(r.verdict.confidence, "low");
  EXPECT_NE(r.verdict.reason.find("separate runs"), std::string::npos);
}

// HTA drops the last profiler step from the span; copies and syncs in that step must not count
// against the shorter span.
TEST(VerdictTest, CopiesOutsideTheSpanDoNotMakeItTransferBound) {
  TraceBuilder b;
  b.Step("ProfilerStep#1", 0, 1000);
  b.Step("ProfilerStep#2", 1000, 1000);
  for (int i = 0; i < 9; ++i) b.Launched("ampere_sgemm", i * 100, 5, i * 100 + 10, 95);
  // Step 2: a long copy and a sync, launched after the last step began (excluded, as HTA).
  b.Copy(CopyKind::kHtoD, 64 << 20, 1100, 800, MemKind::kPinned, RuntimeKind::kMemcpyAsync, 1050,
         5);
  b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, 1060, 900);
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_TRUE(a.temporal.last_step_excluded);
  EXPECT_EQ(a.copies.copy_busy_ns, 800'000);
  EXPECT_EQ(a.copies.copy_busy_in_span_ns, 0);
  EXPECT_EQ(a.copies.sync_in_span_ns, 0);
  EXPECT_EQ(a.verdict.label, Bottleneck::kComputeBound) << a.verdict.reason;
  EXPECT_EQ(Find(r, "trace.transfer_bound", "trace")->severity, Severity::kOk);
}

// Kernels on two streams with an 18 ms pause of the host between two bursts: every stream's own
// gaps are short or the other stream's work, but the GPU as a whole waits on the host.
TEST(VerdictTest, HostPauseAcrossAllStreamsIsHostBound) {
  TraceBuilder b;
  double t = 0;
  for (int burst = 0; burst < 5; ++burst) {
    for (int i = 0; i < 20; ++i) {
      b.Launched("ampere_sgemm", t + i, 2, t + 10 + i * 50, 50, 7 + i % 2);
    }
    t += 1010 + 18000;  // 1 ms of kernels, then the host is away
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kHostCpuBound) << r.ranks[0].verdict.reason;
  EXPECT_GT(r.ranks[0].gpu_idle.host_wait_ratio, 0.9);
}

// 200 back-to-back 100 µs GEMMs on stream 7 (20 ms), with `copy` ops of `dur_us` every 200 µs
// on stream 8 starting at `offset_us` into each pair of kernels.
RankTrace GemmsWithCopies(CopyKind copy, double dur_us, double offset_us, double gap_us = 0) {
  TraceBuilder b;
  double t = 0;
  for (int i = 0; i < 200; ++i) {
    b.Launched("ampere_sgemm", i, 5, 1000 + t, 100);
    t += 100 + (i % 2 ? gap_us : 0);
    if (i % 2 == 1) {
      b.Copy(copy, 8 << 20, 1000 + t - 200 - gap_us + offset_us, dur_us, MemKind::kPinned,
             RuntimeKind::kMemcpyAsync, i, 5, 8);
    }
  }
  return b.Build();
}

// A prefetching input pipeline: HtoD copies take half the span but run on a side stream while
// compute runs. Before, the union of all copies (50 %) against 10 % made it transfer_bound.
TEST(VerdictTest, CopiesHiddenBehindComputeAreNotTransferBound) {
  TraceReport r = AnalyzeTraces({GemmsWithCopies(CopyKind::kHtoD, 100, 50)}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_NEAR(100.0 * a.copies.host_copy_in_span_ns / a.temporal.span_ns, 50, 1);
  EXPECT_EQ(a.copies.host_copy_exposed_in_span_ns, 0);
  EXPECT_EQ(a.verdict.label, Bottleneck::kComputeBound) << a.verdict.reason;
  const Finding* f = Find(r, "trace.transfer_bound", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kOk);
  EXPECT_NE(f->summary.find("100.0 % of that hidden behind compute"), std::string::npos)
      << f->summary;
}

// The same copies between the kernels (the GPU waits for each): exposed, transfer_bound.
TEST(VerdictTest, ExposedHostCopiesAreTransferBound) {
  TraceReport r = AnalyzeTraces({GemmsWithCopies(CopyKind::kHtoD, 60, 200, 60)}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_EQ(a.verdict.label, Bottleneck::kTransferBound) << a.verdict.reason;
  EXPECT_NEAR(a.verdict.share_pct, 100.0 * 100 * 60 / (20000 + 100 * 60), 0.5);
  EXPECT_EQ(Find(r, "trace.transfer_bound", "trace")->severity, Severity::kWarn);
}

// Device-to-device copies between kernels are device-memory traffic, not the host link.
TEST(VerdictTest, DeviceToDeviceCopiesAreNotTransfers) {
  TraceReport r = AnalyzeTraces({GemmsWithCopies(CopyKind::kDtoD, 60, 200, 60)}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_GT(a.copies.copy_busy_in_span_ns, a.temporal.span_ns / 5);
  EXPECT_EQ(a.copies.host_copy_in_span_ns, 0);
  EXPECT_NE(a.verdict.label, Bottleneck::kTransferBound) << a.verdict.reason;
  const Finding* f = Find(r, "trace.transfer_bound", "trace");
  EXPECT_EQ(f->severity, Severity::kOk);
  EXPECT_NE(f->summary.find("device-to-device"), std::string::npos) << f->summary;
}

// DeepSeek-V3-like: DeepEP dispatch/combine kernels fill 88 % of the span on a communication
// stream, 96 % of them under compute (DualPipe). Communication, but hidden: not comm_bound.
RankTrace DeepEp(double comm_hidden_share) {
  TraceBuilder b;
  const double span = 10'000;  // µs
  for (int i = 0; i < 100; ++i) b.Launched("sm90_xmma_gemm_bf16", i, 5, i * 100, 100);
  // Comm from 0 to 8800 µs; the part past compute_end sticks out after compute ends.
  const double comm = 0.88 * span, hidden = comm * comm_hidden_share;
  for (int i = 0; i < 88; ++i) {
    const char* name = i % 2 ? "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int4*)"
                             : "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)";
    double start = i * 100 + (i * 100 >= hidden ? span : 0);
    b.Launched(name, i + 0.5, 5, start, 100, 8);
  }
  return b.Build();
}

TEST(VerdictTest, DeepEpHiddenBehindComputeIsNotCommBound) {
  TraceReport r = AnalyzeTraces({DeepEp(1.0)}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_NEAR(100.0 * a.overlap.comm_ns / a.temporal.span_ns, 88, 0.5);
  EXPECT_NEAR(a.overlap.overlap_pct, 100, 0.01);
  ASSERT_EQ(a.overlap.kinds.size(), 1u);
  EXPECT_EQ(a.overlap.kinds[0].kind, "deepep");
  EXPECT_EQ(a.verdict.label, Bottleneck::kComputeBound) << a.verdict.reason;
  EXPECT_EQ(Find(r, "trace.comm_bound", "trace")->severity, Severity::kOk);
  // HTA's kernel-type table, with DeepEP as communication.
  ASSERT_GT(a.kernels.types.size(), 1u);
  EXPECT_EQ(a.kernels.types[0].type, "computation overlapping communication");
}

TEST(VerdictTest, DeepEpExposedIsCommBound) {
  TraceReport r = AnalyzeTraces({DeepEp(0.4)}, TraceOptions{});
  const RankAnalysis& a = r.ranks[0];
  EXPECT_EQ(a.verdict.label, Bottleneck::kCommBound) << a.verdict.reason;
  EXPECT_EQ(Find(r, "trace.comm_bound", "trace")->severity, Severity::kWarn);
}

// The host waits in cudaDeviceSynchronize while the GPU runs what it queued: no stall.
TEST(VerdictTest, SyncWhileTheGpuIsBusyIsNoStall) {
  TraceBuilder b;
  for (int i = 0; i < 200; ++i) b.Launched("ampere_sgemm", i, 5, 1000 + i * 100, 100);
  b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, 300, 20'700);
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const Finding* f = Find(r, "trace.sync_stalls", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kOk) << f->summary;
  EXPECT_LT(r.ranks[0].copies.sync_idle_in_span_ns, r.ranks[0].temporal.span_ns / 1000);
}

// Syncs during the gaps between kernels: the GPU sits idle while the host waits.
TEST(VerdictTest, SyncWhileTheGpuIdlesIsAStall) {
  TraceBuilder b;
  for (int i = 0; i < 200; ++i) {
    b.Launched("ampere_sgemm", i * 150, 5, i * 150 + 10, 100);
    b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, i * 150 + 20, 135);
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const Finding* f = Find(r, "trace.sync_stalls", "trace");
  EXPECT_EQ(f->severity, Severity::kWarn) << f->summary;
}

// A small pageable cudaMemcpyAsync (`loss.cpu()`) that holds the host 145 ms at a time while the
// GPU works through the step's queue: a wait for the GPU that costs it nothing. Named (bytes,
// call, the kernel it queued behind) as info, not warned.
TEST(VerdictTest, PageableCopyWaitingForABusyGpuIsNoWarning) {
  TraceBuilder b;
  double t = 0;
  for (int step = 0; step < 4; ++step) {
    for (int i = 0; i < 50; ++i) b.Launched("ampere_sgemm", t + i, 5, t + 1000 + i * 2900, 2900);
    t += 1000 + 50 * 2900;
    b.Copy(CopyKind::kDtoH, 4096, t, 2, MemKind::kPageable, RuntimeKind::kMemcpyAsync, t - 145'000,
           145'003);
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const Finding* f = Find(r, "trace.pageable_copies", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo) << f->summary;
  EXPECT_NE(f->summary.find("a 4.0 KiB DtoH cudaMemcpy waited 145.0 ms for the GPU behind "
                            "ampere_sgemm"),
            std::string::npos)
      << f->summary;
  EXPECT_EQ(r.ranks[0].copies.pageable_bytes, 4u * 4096);
}

// The issue-28 shape: a 704-byte pageable `.to()` waits 146 ms per step while the GPU idles, then
// a short stream sync reads it. The copy's own wait is what blocks: a warning, whatever its size.
TEST(VerdictTest, SmallPageableCopyBlockingWhileTheGpuIdlesWarns) {
  TraceBuilder b;
  double t = 0;
  for (int step = 0; step < 4; ++step) {
    b.Step("ProfilerStep#" + std::to_string(step), t, 200'000);
    for (int i = 0; i < 50; ++i) b.Launched("ampere_sgemm", t + i, 5, t + 100 + i * 1000, 1000);
    b.Copy(CopyKind::kDtoH, 704, t + 196'200, 2, MemKind::kPageable, RuntimeKind::kMemcpyAsync,
           t + 50'200, 146'003);
    b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, t + 196'210, 25);
    t += 200'000;
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const Finding* f = Find(r, "trace.pageable_copies", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn) << f->summary;
  EXPECT_NE(f->summary.find("(longest 146.0 ms)"), std::string::npos) << f->summary;
  EXPECT_EQ(r.ranks[0].copies.scalar_reads, 4u);
  EXPECT_EQ(r.ranks[0].copies.dtoh_gpu_waits, 0u);
}

// Pageable bytes are judged per profiler step: 98 KiB over six steps is 16 KiB a step, and no
// message says "0 copies".
TEST(VerdictTest, PageableBytesArePerStep) {
  TraceBuilder b;
  double t = 0;
  for (int step = 0; step < 6; ++step) {
    b.Step("ProfilerStep#" + std::to_string(step), t, 10'000);
    for (int i = 0; i < 40; ++i) b.Launched("ampere_sgemm", t + i, 5, t + 50 + i * 240, 240);
    b.Copy(CopyKind::kHtoD, 98 * 1024 / 6, t + 9'700, 5, MemKind::kPageable,
           RuntimeKind::kMemcpyAsync, t + 9'690, 20);
    t += 10'000;
  }
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  const Finding* f = Find(r, "trace.pageable_copies", "trace");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo) << f->summary;
  EXPECT_NE(f->summary.find("16.3 KiB per step"), std::string::npos) << f->summary;
  const Finding* sync = Find(r, "trace.sync_stalls", "trace");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->summary, "no host synchronisation calls");
}

TEST(VerdictTest, NothingAtAll) {
  TraceReport r = AnalyzeTraces({}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kNoGpuActivity);
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace gpuvet
