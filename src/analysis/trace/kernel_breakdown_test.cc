#include "analysis/trace/kernel_breakdown.h"

#include <gtest/gtest.h>

#include "analysis/trace/kernel_class.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

std::string_view Cat(const std::string& name, GpuOpKind kind = GpuOpKind::kKernel) {
  GpuOp op;
  op.kind = kind;
  return KernelCategory(op, name);
}

TEST(KernelClassTest, Categories) {
  EXPECT_EQ(Cat("ampere_sgemm_32x32_sliced1x4_tn"), "gemm");
  EXPECT_EQ(Cat("sm80_xmma_fprop_implicit_gemm_f16f16"), "gemm");
  EXPECT_EQ(Cat("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>"), "gemm");
  EXPECT_EQ(Cat("void cudnn::ops::nchwToNhwcKernel<float>"), "gemm");
  EXPECT_EQ(Cat("flash_fwd_kernel<Flash_fwd_kernel_traits>"), "attention");
  EXPECT_EQ(Cat("fmha_cutlassF_f16_aligned_64x64_rf_sm80"), "attention");
  EXPECT_EQ(Cat("void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>"),
            "elementwise");
  EXPECT_EQ(Cat("void at::native::unrolled_elementwise_kernel<direct_copy>"), "elementwise");
  EXPECT_EQ(Cat("void at::native::reduce_kernel<512, 1>"), "reduction");
  EXPECT_EQ(Cat("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float>"), "reduction");
  EXPECT_EQ(Cat("cunn_SoftMaxForward<4, float>"), "reduction");
  EXPECT_EQ(Cat("ncclKernel_AllReduce_RING_LL_Sum_float"), "communication");
  EXPECT_EQ(Cat("ncclDevKernel_AllGather_RING_LL"), "communication");
  EXPECT_EQ(Cat("Memcpy HtoD (Pageable -> Device)", GpuOpKind::kMemcpy), "memory");
  EXPECT_EQ(Cat("Memset (Device)", GpuOpKind::kMemset), "memory");
  EXPECT_EQ(Cat("triton_red_fused_0_spin_kernel"), "reduction");
  EXPECT_EQ(Cat("my_custom_kernel"), "other");
}

TEST(KernelClassTest, HtaTypes) {
  GpuOp k;
  EXPECT_EQ(ClassifyHta(k, "ncclKernel_Broadcast"), HtaKernelType::kCommunication);
  EXPECT_EQ(ClassifyHta(k, "gemm"), HtaKernelType::kComputation);
  EXPECT_EQ(ClassifyHta(k, "Memset (Device)"), HtaKernelType::kMemory);
  GpuOp copy;
  copy.kind = GpuOpKind::kMemcpy;
  EXPECT_EQ(ClassifyHta(copy, "whatever nsys calls it"), HtaKernelType::kMemory);
}

TEST(KernelBreakdownTest, CategoriesTopKernelsAndGraphCount) {
  TraceBuilder b;
  for (int i = 0; i < 6; ++i) b.Kernel("ampere_sgemm", i * 100, 50);  // 300 µs
  b.Kernel("vectorized_elementwise_kernel", 700, 60);                 // 60
  b.Kernel("reduce_kernel", 800, 30);                                 // 30
  b.Kernel("ncclKernel_AllReduce", 900, 10);                          // 10
  b.trace().gpu_ops.back().graph_launched = true;
  b.Copy(CopyKind::kHtoD, 1 << 20, 950, 20, MemKind::kPinned);  // 20 → total 420
  RankTrace t = b.Build();
  TraceOptions opt;
  KernelBreakdown k = ComputeKernelBreakdown(t, SelectHtaOps(t), opt);
  EXPECT_EQ(k.op_count, 10u);
  EXPECT_EQ(k.kernel_count, 9u);
  EXPECT_EQ(k.graph_launched_count, 1u);
  EXPECT_EQ(k.total_ns, 420'000);
  ASSERT_EQ(k.categories.size(), 5u);
  EXPECT_EQ(k.categories[0].category, "gemm");
  EXPECT_EQ(k.categories[0].count, 6u);
  EXPECT_NEAR(k.categories[0].pct, 300.0 / 420 * 100, 1e-9);
  EXPECT_EQ(k.categories[1].category, "elementwise");
  EXPECT_EQ(k.categories.back().category, "communication");
  // 300/420 = 71 % < 80 %, + 60 → 86 %: two names cover 80 %.
  ASSERT_EQ(k.top.size(), 2u);
  EXPECT_EQ(k.top[0].name, "ampere_sgemm");
  EXPECT_EQ(k.top[0].count, 6u);
  EXPECT_EQ(k.top[0].mean_ns, 50'000);
  EXPECT_EQ(k.top[0].min_ns, 50'000);
  EXPECT_EQ(k.top[1].name, "vectorized_elementwise_kernel");
  opt.top_kernel_count = 1;
  EXPECT_EQ(ComputeKernelBreakdown(t, SelectHtaOps(t), opt).top.size(), 1u);
}

}  // namespace
}  // namespace gpuvet
