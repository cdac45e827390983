#include "analysis/trace/trace_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TEST(NormaliseKernelNameTest, DropsVoidAndTheParameterListKeepsTemplateArguments) {
  EXPECT_EQ(
      NormaliseKernelName(
          "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, "
          "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, "
          "at::detail::Array<char*, 3>)"),
      "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, "
      "at::detail::Array<char*, 3> >");
  EXPECT_NE(NormaliseKernelName("void k<float>(float*)"), NormaliseKernelName("void k<int>(int*)"));
  EXPECT_EQ(NormaliseKernelName("Memcpy HtoD (Pinned -> Device)"), "Memcpy HtoD");
  EXPECT_EQ(NormaliseKernelName("  ampere_sgemm_128x64_nn  "), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(NormaliseKernelName("void f(int (*)(int))"), "f");  // nested parentheses
  EXPECT_EQ(NormaliseKernelName("a  \t b"), "a b");
  EXPECT_EQ(NormaliseKernelName("(unbalanced)"), "(unbalanced)");  // nothing before the '('
  EXPECT_EQ(NormaliseKernelName("x)"), "x)");
  EXPECT_EQ(NormaliseKernelName(""), "");
}

TEST(KernelFamilyTest, ArchitectureTokensMatchAcrossGpus) {
  EXPECT_EQ(KernelFamily("volta_sgemm_128x64_nn"), KernelFamily("ampere_sgemm_128x64_nn"));
  EXPECT_EQ(KernelFamily("volta_sgemm_128x64_nn"), "*_sgemm_128x64_nn");
  EXPECT_EQ(KernelFamily("sm80_xmma_gemm_f16f16_f16f32"),
            KernelFamily("sm90_xmma_gemm_f16f16_f16f32"));
  EXPECT_EQ(KernelFamily("cutlass3x_sm90a_tensorop_gemm"), "cutlass3x_*_tensorop_gemm");
  EXPECT_EQ(KernelFamily("cutlass_sm_100_gemm"), "cutlass_sm_100_gemm");  // "sm" then "100"
  // Not architecture tokens: inside a word, or a longer number.
  EXPECT_EQ(KernelFamily("smallgemm_ampere2"), "smallgemm_ampere2");
  EXPECT_EQ(KernelFamily("sm8000_kernel"), "sm8000_kernel");
  EXPECT_EQ(KernelFamily("elementwise_kernel"), "elementwise_kernel");
  EXPECT_EQ(KernelFamily(""), "");
}

struct StepPlan {
  int steps = 5;
  double gemm_us = 600;
  double elem_us = 200;
  double gap_us = 100;  // host time per step during which the GPU idles
  std::string gemm = "ampere_sgemm_128x64_nn";
  std::string gpu = "NVIDIA A100-SXM4-80GB";
  bool mark_steps = true;
  double extra_elem_us = 0;  // a second elementwise kernel per step (0: none)
};

// A GPU-paced training loop: each step launches a GEMM and an elementwise kernel back to back,
// then the host spends gap_us before the next step; the step ends when its GPU work ends.
RankTrace Loop(const StepPlan& p) {
  TraceBuilder b;
  double t = 0;
  for (int s = 0; s < p.steps; ++s) {
    double work = p.gemm_us + p.elem_us + p.extra_elem_us;
    double step = p.gap_us + work;
    if (p.mark_steps) b.Step("ProfilerStep#" + std::to_string(s), t, step);
    b.Launched(p.gemm, t + 1, 5, t + p.gap_us, p.gemm_us);
    b.Launched("void at::native::vectorized_elementwise_kernel<4, add<float> >(int, add<float>)",
               t + 7, 5, t + p.gap_us + p.gemm_us, p.elem_us);
    if (p.extra_elem_us > 0) {
      b.Launched("void at::native::elementwise_kernel<128, 2, mul<float> >(int, mul<float>)",
                 t + 13, 5, t + p.gap_us + p.gemm_us + p.elem_us, p.extra_elem_us);
    }
    t += step;
  }
  RankTrace r = b.Build();
  r.gpu_name = p.gpu;
  r.rank = 0;
  r.world_size = 1;
  r.source = "rank0.json";
  return r;
}

TraceComparison Compare(const StepPlan& a, const StepPlan& b) {
  return CompareTraces({Loop(a)}, {Loop(b)}, TraceOptions{});
}

const CompareRow& RowNamed(const std::vector<CompareRow>& rows, const std::string& name) {
  for (const CompareRow& r : rows) {
    if (r.name == name) return r;
  }
  static CompareRow none;
  ADD_FAILURE() << "no row " << name;
  return none;
}

TEST(CompareTracesTest, OneKernelMadeSlowerIsNamedWithItsTimePerStep) {
  StepPlan a;
  StepPlan b;
  b.gemm_us = 1000;  // +400 µs per step, everything else equal
  TraceComparison c = Compare(a, b);
  ASSERT_TRUE(c.comparable) << c.reason;
  // Step parts are never negative (issue 28: "outside the GPU span -2.5 ms").
  for (const CompareRow& r : c.idle) {
    EXPECT_GE(r.a_ns, 0) << r.name;
    EXPECT_GE(r.b_ns, 0) << r.name;
  }
  EXPECT_EQ(c.unit, "step");
  // Steps: A 100 + 600 + 200 = 900 µs, B 1,300 µs; four steps in the window (the last left out).
  EXPECT_NEAR(c.a.step_ns, 900e3, 1);
  EXPECT_NEAR(c.b.step_ns, 1300e3, 1);
  EXPECT_NEAR(c.delta_ns, 400e3, 1);
  EXPECT_NEAR(c.change_pct, 400.0 / 900 * 100, 1e-6);
  EXPECT_DOUBLE_EQ(c.a.steps, 4);
  // The step split sums to the difference, and the computation row holds all of it.
  double sum = 0;
  for (const CompareRow& r : c.temporal) sum += r.delta_ns;
  EXPECT_NEAR(sum, c.delta_ns, 1);
  EXPECT_NEAR(RowNamed(c.temporal, "computation").delta_ns, 400e3, 1);
  EXPECT_NEAR(RowNamed(c.temporal, "computation").share_pct, 100, 1e-6);
  EXPECT_NEAR(RowNamed(c.temporal, "idle").delta_ns, 0, 1);
  ASSERT_FALSE(c.changed.empty());
  EXPECT_EQ(c.changed[0].name_a, "ampere_sgemm_128x64_nn");
  EXPECT_EQ(c.changed[0].match, "same");
  EXPECT_NEAR(c.changed[0].delta_ns, 400e3, 1);
  EXPECT_NEAR(c.changed[0].share_pct, 100, 1e-6);
  EXPECT_DOUBLE_EQ(c.changed[0].a_count, 1);
  EXPECT_NE(c.answer.find("B is 44 % slower per step"), std::string::npos) << c.answer;
  EXPECT_NE(c.answer.find("100 % of it is `ampere_sgemm_128x64_nn` (+400.0 µs/step)"),
            std::string::npos)
      << c.answer;
  EXPECT_EQ(c.added.size(), 0u);
  EXPECT_EQ(c.removed.size(), 0u);
}

TEST(CompareTracesTest, FasterRunAttributesTheSaving) {
  StepPlan a;
  a.elem_us = 500;
  StepPlan b;  // elementwise 200: −300 µs per step
  TraceComparison c = Compare(a, b);
  EXPECT_NEAR(c.delta_ns, -300e3, 1);
  EXPECT_NE(c.answer.find("faster per step"), std::string::npos) << c.answer;
  ASSERT_FALSE(c.changed.empty());
  EXPECT_NE(c.changed[0].name_a.find("vectorized_elementwise_kernel"), std::string::npos);
  EXPECT_NEAR(c.changed[0].share_pct, 100, 1e-6);  // a saving explains a saving: positive share
}

TEST(CompareTracesTest, KernelBuiltForAnotherGpuMatchesByFamilyAndNamesTheGpus) {
  StepPlan a;  // A100, ampere_sgemm
  StepPlan b;
  b.gpu = "Tesla V100-SXM2-16GB";
  b.gemm = "volta_sgemm_128x64_nn";
  b.gemm_us = 1400;
  TraceComparison c = Compare(a, b);
  ASSERT_TRUE(c.comparable) << c.reason;
  ASSERT_FALSE(c.changed.empty());
  EXPECT_EQ(c.changed[0].match, "family");
  EXPECT_EQ(c.changed[0].name_a, "ampere_sgemm_128x64_nn");
  EXPECT_EQ(c.changed[0].name_b, "volta_sgemm_128x64_nn");
  EXPECT_NEAR(c.changed[0].delta_ns, 800e3, 1);
  EXPECT_EQ(c.kernels_a_only + c.kernels_b_only, 0u);
  EXPECT_NE(c.answer.find("which ran as `volta_sgemm_128x64_nn` in B"), std::string::npos)
      << c.answer;
  EXPECT_NE(c.answer.find("A ran on NVIDIA A100-SXM4-80GB, B on Tesla V100-SXM2-16GB"),
            std::string::npos)
      << c.answer;
}

TEST(CompareTracesTest, NewKernelInBIsAddedAndExplainsItsShare) {
  StepPlan a;
  StepPlan b;
  b.extra_elem_us = 300;
  TraceComparison c = Compare(a, b);
  ASSERT_EQ(c.added.size(), 1u);
  EXPECT_EQ(c.added[0].match, "b_only");
  EXPECT_NEAR(c.added[0].b_ns, 300e3, 1);
  EXPECT_NEAR(c.added[0].share_pct, 100, 1e-6);
  EXPECT_EQ(c.kernels_b_only, 1u);
  EXPECT_NE(c.answer.find("new in B"), std::string::npos) << c.answer;
  // B launches 3 ops per step instead of 2: named as a likely cause.
  bool named = false;
  for (const std::string& s : c.causes) named |= s.find("B launches 3 GPU ops per step") == 0;
  EXPECT_TRUE(named);
}

TEST(CompareTracesTest, LongerHostGapsAreIdleOutsideTheKernels) {
  StepPlan a;
  StepPlan b;
  b.gap_us = 600;  // +500 µs of host time per step, GPU idle
  TraceComparison c = Compare(a, b);
  EXPECT_NEAR(c.delta_ns, 500e3, 1);
  EXPECT_NEAR(RowNamed(c.temporal, "idle").delta_ns, 500e3, 1);
  double idle_parts = 0;
  for (const CompareRow& r : c.idle) idle_parts += r.delta_ns;
  EXPECT_NEAR(idle_parts, 500e3, 1);
  EXPECT_NE(c.answer.find("Most of the difference is GPU idle time"), std::string::npos)
      << c.answer;
  EXPECT_TRUE(c.changed.empty() || c.changed[0].share_pct < 10);
}

TEST(CompareTracesTest, EqualRunsHaveNothingToExplain) {
  TraceComparison c = Compare(StepPlan{}, StepPlan{});
  EXPECT_NEAR(c.delta_ns, 0, 1);
  EXPECT_NE(c.answer.find("there is no difference to explain"), std::string::npos) << c.answer;
  EXPECT_TRUE(c.causes.empty());
}

TEST(CompareTracesTest, RunsWithoutACommonKernelAreNotCompared) {
  StepPlan a;
  RankTrace ta = Loop(a);
  TraceBuilder other;
  other.Launched("flash_fwd_kernel", 0, 5, 10, 500);
  other.Launched("rms_norm_kernel", 6, 5, 510, 100);
  RankTrace tb = other.Build();
  TraceComparison c = CompareTraces({ta}, {tb}, TraceOptions{});
  EXPECT_FALSE(c.comparable);
  EXPECT_NE(c.reason.find("share no kernel"), std::string::npos) << c.reason;
  EXPECT_EQ(c.answer.find("slower"), std::string::npos) << c.answer;
  EXPECT_EQ(c.unit, "window");  // B marks no steps
}

// A ResNet training loop against an unrelated TensorRT engine that shares only a "Memcpy DtoD"
// with it: copies and memsets are not matched kernels, so the runs are not comparable.
TEST(CompareTracesTest, ASharedCopyDoesNotMakeRunsComparable) {
  StepPlan a;
  RankTrace ta = Loop(a);
  TraceBuilder other;
  other.Launched(
      "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
      "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_trt",
      0, 5, 10, 500);
  other.Copy(CopyKind::kDtoD, 1 << 20, 600, 20, MemKind::kDevice);
  RankTrace tb = other.Build();
  ta.gpu_ops.push_back(tb.gpu_ops.back());  // the same copy in A
  ta.gpu_ops.back().name = static_cast<uint32_t>(ta.names.size());
  ta.gpu_ops.back().start_ns = ta.gpu_ops.front().start_ns + 1000;
  ta.names.push_back("Memcpy DtoD");
  std::stable_sort(ta.gpu_ops.begin(), ta.gpu_ops.end(),
                   [](const GpuOp& x, const GpuOp& y) { return x.start_ns < y.start_ns; });
  TraceComparison c = CompareTraces({ta}, {tb}, TraceOptions{});
  EXPECT_FALSE(c.comparable);
  EXPECT_EQ(c.kernels_matched, 0u);
  EXPECT_NE(c.reason.find("share no kernel"), std::string::npos) << c.reason;
}

TEST(CompareTracesTest, ARunWithoutGpuWorkIsNotCompared) {
  RankTrace cpu;
  cpu.names.push_back("");
  cpu.source = "cpu.json";
  TraceComparison c = CompareTraces({Loop(StepPlan{})}, {cpu}, TraceOptions{});
  EXPECT_FALSE(c.comparable);
  EXPECT_EQ(c.reason, "run B has no GPU work in its traces");
  EXPECT_EQ(c.b.ranks, 0);
  TraceComparison none = CompareTraces({}, {}, TraceOptions{});
  EXPECT_FALSE(none.comparable);
}

TEST(CompareTracesTest, WithoutStepsTheWindowsAreComparedWhole) {
  StepPlan a;
  a.mark_steps = false;
  StepPlan b = a;
  b.gemm_us = 900;
  TraceComparison c = Compare(a, b);
  EXPECT_EQ(c.unit, "window");
  // Five iterations, all in the window: the GPU span grows by 5 × 300 µs.
  EXPECT_NEAR(c.delta_ns, 1500e3, 1);
  double sum = 0;
  for (const CompareRow& r : c.temporal) sum += r.delta_ns;
  EXPECT_NEAR(sum, c.delta_ns, 1);
  EXPECT_NE(c.answer.find("slower per window"), std::string::npos) << c.answer;
  bool said = false;
  for (const std::string& s : c.causes) said |= s.find("mark no ProfilerStep") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(CompareTracesTest, RanksOfARunAreAveraged) {
  StepPlan fast;
  StepPlan slow;
  slow.gemm_us = 1000;
  RankTrace r0 = Loop(fast), r1 = Loop(slow);
  r1.rank = 1;
  r0.world_size = r1.world_size = 2;
  // A: both ranks fast; B: one fast, one slow → B's mean step is 200 µs longer.
  RankTrace a0 = Loop(fast), a1 = Loop(fast);
  a1.rank = 1;
  a0.world_size = a1.world_size = 2;
  TraceComparison c = CompareTraces({a0, a1}, {r0, r1}, TraceOptions{});
  EXPECT_EQ(c.a.ranks, 2);
  EXPECT_NEAR(c.delta_ns, 200e3, 1);
}

}  // namespace
}  // namespace gpuvet
