#include "analysis/trace/breakdown/kernel_breakdown.h"

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
  // As HTA lists them: per kernel type, every name while a type has at most 10 (the old list
  // stopped at 80 % of all op time and showed two names here).
  ASSERT_EQ(k.top.size(), 5u);
  EXPECT_EQ(k.top[0].name, "ampere_sgemm");
  EXPECT_EQ(k.top[0].type, "computation");
  EXPECT_EQ(k.top[0].count, 6u);
  EXPECT_EQ(k.top[0].mean_ns, 50'000);
  EXPECT_EQ(k.top[0].min_ns, 50'000);
  EXPECT_EQ(k.top[1].name, "vectorized_elementwise_kernel");
  EXPECT_EQ(k.top[2].name, "reduce_kernel");
  EXPECT_EQ(k.top[3].name, "ncclKernel_AllReduce");
  EXPECT_EQ(k.top[3].type, "communication");
  EXPECT_EQ(k.top[4].type, "memory");
  // More names than top_kernel_count: running totals 300, 360, 390; their 0.8 quantile is 378,
  // so at most one name (the count) and an "others" row of the rest.
  opt.top_kernel_count = 1;
  KernelBreakdown one = ComputeKernelBreakdown(t, SelectHtaOps(t), opt);
  ASSERT_EQ(one.top.size(), 4u);
  EXPECT_EQ(one.top[0].name, "ampere_sgemm");
  EXPECT_EQ(one.top[1].name, "others");
  EXPECT_EQ(one.top[1].type, "computation");
  EXPECT_EQ(one.top[1].count, 2u);
  EXPECT_EQ(one.top[1].total_ns, 90'000);
  EXPECT_EQ(one.top[1].min_ns, 30'000);
  EXPECT_EQ(one.top[1].max_ns, 60'000);
}

// HTA's quantile cut: 12 names of 12, 11, ... 1 µs; running totals 12 … 78, whose 0.8 quantile
// (linear, position 8.8) is 74.4: names up to the 9th (running total 72) are listed, the 10th
// (75) is past it, so 9 names and "others".
TEST(KernelBreakdownTest, TopKernelsFollowHtaQuantile) {
  TraceBuilder b;
  double t0 = 0;
  for (int i = 12; i >= 1; --i) {
    b.Kernel("k" + std::to_string(100 - i), t0, i);
    t0 += 20;
  }
  RankTrace t = b.Build();
  KernelBreakdown k = ComputeKernelBreakdown(t, SelectHtaOps(t), TraceOptions{});
  ASSERT_EQ(k.top.size(), 10u);
  EXPECT_EQ(k.top[0].total_ns, 12'000);
  EXPECT_EQ(k.top[8].total_ns, 4'000);
  EXPECT_EQ(k.top[9].name, "others");
  EXPECT_EQ(k.top[9].total_ns, 3'000 + 2'000 + 1'000);
  EXPECT_EQ(k.top[9].count, 3u);
}

// HTA's kernel-type table: exclusive union time per combination, rows partition the busy time.
TEST(KernelBreakdownTest, KernelTypesAreExclusiveUnionTime) {
  TraceBuilder b;
  b.Kernel("ampere_sgemm", 0, 100, 7);           // compute 0-100
  b.Kernel("ampere_sgemm", 50, 100, 8);          // compute 50-150 (union 0-150)
  b.Kernel("ncclKernel_AllReduce", 120, 60, 9);  // comm 120-180: 30 with compute, 30 alone
  b.Copy(CopyKind::kHtoD, 1 << 20, 170, 40, MemKind::kPinned, RuntimeKind::kOther, 0, 0, 10);
  // memory 170-210: 10 with comm, 30 alone
  RankTrace t = b.Build();
  KernelBreakdown k = ComputeKernelBreakdown(t, SelectHtaOps(t), TraceOptions{});
  ASSERT_EQ(k.types.size(), 5u);
  auto find = [&](const std::string& type) -> int64_t {
    for (const KernelTypeTime& x : k.types) {
      if (x.type == type) return x.time_ns;
    }
    return -1;
  };
  EXPECT_EQ(k.types[0].type, "computation");
  EXPECT_EQ(find("computation"), 120'000);
  EXPECT_EQ(find("computation overlapping communication"), 30'000);
  EXPECT_EQ(find("communication"), 20'000);
  EXPECT_EQ(find("communication overlapping memory"), 10'000);
  EXPECT_EQ(find("memory"), 30'000);
  double pct = 0;
  for (const KernelTypeTime& x : k.types) pct += x.pct;
  EXPECT_NEAR(pct, 100, 1e-9);
  EXPECT_NEAR(k.types[0].pct, 120.0 / 210 * 100, 1e-9);
}

GpuOp KernelOp(bool collective = false) {
  GpuOp op;
  op.collective = collective;
  return op;
}

// Communication by what it is: libraries and engines beyond NCCL, never bare words that compute
// kernels carry too.
TEST(KernelClassTest, CommunicationBeyondNccl) {
  GpuOp k = KernelOp();
  EXPECT_EQ(
      CommunicationKind(k, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
      "nccl");
  EXPECT_EQ(CommunicationKind(k, "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)"),
            "deepep");
  EXPECT_EQ(CommunicationKind(k, "void deep_ep::internode_ll::combine<false, 7168>(void*)"),
            "deepep");
  EXPECT_EQ(CommunicationKind(k, "nvshmemi_proxy_progress_kernel"), "nvshmem");
  EXPECT_EQ(CommunicationKind(k, "mscclKernel_Sum_float_Simple_false"), "msccl");
  EXPECT_EQ(CommunicationKind(k, "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)"),
            "custom_allreduce");
  EXPECT_EQ(CommunicationKind(k, "void tensorrt_llm::kernels::oneShotAllReduceKernel<half>()"),
            "custom_allreduce");
  EXPECT_EQ(CommunicationKind(
                k, "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>()"),
            "symmetric_memory");
  EXPECT_EQ(CommunicationKind(k, "void c10d::symmetric_memory::barrier_kernel(unsigned int**)"),
            "symmetric_memory");
  // Kineto's collective args make any kernel communication.
  EXPECT_EQ(CommunicationKind(KernelOp(true), "my_fused_kernel"), "collective");
  // Compute kernels with collective-sounding words.
  EXPECT_EQ(
      CommunicationKind(k, "void cub::DeviceReduceByKeyKernel<cub::DispatchReduceByKey<long*>"),
      "");
  EXPECT_EQ(CommunicationKind(k, "void at::native::reduce_kernel<512, 1>"), "");
  EXPECT_EQ(CommunicationKind(k, "_combined_routing_compute"), "");
  EXPECT_EQ(CommunicationKind(k, "void at::native::scatter_gather_elementwise_kernel<128, 4>"), "");
  GpuOp copy;
  copy.kind = GpuOpKind::kMemcpy;
  EXPECT_EQ(CommunicationKind(copy, "Memcpy PtoP (Device -> Device)"), "");
  EXPECT_EQ(ClassifyKernel(k, "void deep_ep::intranode::combine<8>()"),
            HtaKernelType::kCommunication);
  EXPECT_EQ(ClassifyHta(k, "void deep_ep::intranode::combine<8>()"), HtaKernelType::kComputation);
  EXPECT_EQ(Cat("void deep_ep::intranode::combine<8>()"), "communication");
  EXPECT_EQ(ClassifyKernel(copy, "Memcpy HtoD"), HtaKernelType::kMemory);
}

}  // namespace
}  // namespace gpuvet
